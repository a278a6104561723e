"""A plan run on a table: the plan file, the planner, post-processing, the ledger, the release.
May import ``data``, ``privacy`` and ``statistics``; charges the ledger before a value is shown."""

from workbench.core.release.bounds import SEARCH_RANGE, BoundsEstimate, estimate_bounds, with_bounds
from workbench.core.release.category_check import CategoryWarning, check_categories
from workbench.core.release.ledger import (
    DatasetRecord,
    Ledger,
    LedgerUnreachable,
    Registration,
    Terms,
    default_ledger_location,
    default_ledger_path,
    is_server_url,
    release_events,
)
from workbench.core.release.ledger_postgres import PostgresLedger
from workbench.core.release.ledger_sqlite import SqliteLedger
from workbench.core.release.plan import (
    DELTA_CEILING,
    DEFAULT_DATASET_DELTA,
    Budget,
    DatasetDescription,
    PlannedStatistic,
    PlannedSynthetic,
    ReleasePlan,
    check_delta_for_size,
    suggested_dataset_delta,
    suggested_delta,
)
from workbench.core.release.planner import (
    COUNTING,
    PRIVACY_TRADE_OFF,
    budget_plan,
    error_basis,
    expected_error,
    group_size,
    relative_reference,
    reliable_from,
    size_for_error,
    smallest_group_caveat,
    synthetic_preview,
    synthetic_words,
    with_privacy,
)
from workbench.core.release.postprocess import PostProcessing, can_be_made_consistent
from workbench.core.release.reliability import Flag, ReliabilityRule, smallest_reliable_value
from workbench.core.release.run import Release, ReleasedStatistic, engine_hashes_rows, release
from workbench.core.release.template import (
    CHOSEN_AFTER_LOOKING_WORDS,
    NEUTRAL_NAME,
    PROPOSAL_WORDS,
    categorical_column,
    describe_columns,
    plan_template,
    proposed_identifiers,
)
from workbench.core.release.versions import PrintVersion, software_in_words

__all__ = [
    "BoundsEstimate", "Budget", "budget_plan", "categorical_column", "CategoryWarning", "check_categories",
    "check_delta_for_size", "DELTA_CEILING", "suggested_dataset_delta", "DEFAULT_DATASET_DELTA",
    "CHOSEN_AFTER_LOOKING_WORDS", "COUNTING", "DatasetDescription", "DatasetRecord", "default_ledger_location", "default_ledger_path", "Flag", "ReliabilityRule",
    "smallest_reliable_value", "reliable_from",
    "describe_columns", "engine_hashes_rows", "error_basis", "estimate_bounds", "expected_error", "group_size", "is_server_url", "Ledger", "LedgerUnreachable", "PostgresLedger", "NEUTRAL_NAME",
    "plan_template", "proposed_identifiers", "PlannedStatistic", "PlannedSynthetic", "synthetic_preview", "synthetic_words", "PostProcessing", "can_be_made_consistent", "PrintVersion", "PRIVACY_TRADE_OFF", "PROPOSAL_WORDS",
    "Registration", "relative_reference", "Release", "release", "release_events", "ReleasedStatistic", "ReleasePlan",
    "SEARCH_RANGE", "SqliteLedger", "size_for_error", "smallest_group_caveat", "software_in_words", "suggested_delta", "Terms", "with_bounds", "with_privacy",
]
