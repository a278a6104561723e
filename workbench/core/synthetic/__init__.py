"""Public-use microdata: rows drawn from a model fitted to differentially private marginals (OpenDP's
contingency tables, MST or AIM with Private-PGM), and how good they are. May import ``data``, ``privacy``
and ``statistics``; ``release`` (plans, the ledger) and ``report`` use the names below. Polars, Private-PGM
and JAX are imported only by ``fit``, when a synthetic table is released."""

from workbench.core.synthetic.budget import (
    NOT_USEFUL_ERROR,
    USEFUL_ERROR,
    OnewayPreview,
    SyntheticCost,
    check_useful,
    cost_of,
    epsilon_for_distance,
    preview,
    rho_for,
)
from workbench.core.synthetic.table import (
    ALGORITHMS,
    DRAWN_WORDS,
    MAX_ROWS,
    NUMERIC_VALUES,
    SYNTHETIC_WARNINGS,
    Axis,
    SyntheticTable,
)

from workbench.core.synthetic.result import Marginal, SyntheticResult, synthetic_quality_lines

__all__ = [
    "ALGORITHMS", "Axis", "DRAWN_WORDS", "SYNTHETIC_WARNINGS", "SyntheticResult", "MAX_ROWS", "NOT_USEFUL_ERROR", "NUMERIC_VALUES", "OnewayPreview", "SyntheticCost",
    "SyntheticTable", "Marginal", "USEFUL_ERROR", "check_useful", "cost_of", "epsilon_for_distance", "preview", "rho_for", "synthetic_quality_lines",
]
