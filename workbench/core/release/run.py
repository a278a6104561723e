"""Run a plan on a table: calibrate from public inputs, compute exactly, add OpenDP noise,
and charge the ledger before anyone can see the result.

Everything that can fail without looking at the data (schema, budgets, calibration) is
checked first, so an unsound plan is refused before a single private value is read.
The noisy values exist only inside ``release`` until the ledger has durably recorded
them with their cost; if the charge is refused or fails, they are discarded unseen.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from workbench import __version__
from workbench.core.data import PreparedData, Table, check_unchanged, prepare
from workbench.core.data.aggregates import Engine
from workbench.core.data.io import FileState
from workbench.core.data.sql_engine import FileSource, SqlData
from workbench.core.errors import (
    BudgetError,
    Cancelled,
    DataFileError,
    FailedAfterNoise,
    WorkbenchError,
    after_noise,
    drawing_noise,
    unexpected_error,
)
from workbench.core.privacy import Guarantee, MechanismEvent, amplified_by_sampling
from workbench.core.process_exit import stops_held
from workbench.core.release import versions
from workbench.core.release.ledger import Entry, EntryRefused, Ledger, LedgerError, Registration, Terms
from workbench.core.release.plan import PlannedStatistic, PlannedSynthetic, ReleasePlan, json_leaves, refuse_nul
from workbench.core.release.postprocess import MARGIN_CONSISTENCY_WORDS, consistent_with_total
from workbench.core.release.reliability import flagged
from workbench.core.release.tables import Measurement, consistent_table
from workbench.core.statistics import Cell, grouping, grouping_json
from workbench.core.synthetic import DRAWN_WORDS, SYNTHETIC_WARNINGS, SyntheticResult

RESULTS_FORMAT = "dp-workbench-results"
RESULTS_VERSION = 1


@dataclass(frozen=True)
class ReleasedStatistic:
    label: str
    type: str
    column: str | None
    by: tuple[str, ...]  # the grouping columns; () for none
    mechanism: str
    epsilon: float
    delta: float
    method: str
    noise: tuple[MechanismEvent, ...]  # per query, in the statistic's own units
    cells: tuple[Cell, ...]
    post_processing: tuple[str, ...] = ()  # what was done to the released values, with its bias
    column_labels: tuple[tuple[str, str], ...] = ()  # (column, the file's label for it) for the columns it reads
    weighted_by: str | None = None  # the survey weight column of a weighted statistic
    synthetic: dict[str, Any] | None = None  # a synthetic table's quality figures and settings (never its rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "type": self.type,
            "column": self.column,
            "by": grouping_json(self.by),
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "method": self.method,
            "noise": [n.to_json() for n in self.noise],
            "post_processing": list(self.post_processing),
            **({"column_labels": dict(self.column_labels)} if self.column_labels else {}),
            **({"weighted_by": self.weighted_by} if self.weighted_by else {}),
            **({"synthetic": self.synthetic} if self.synthetic is not None else {}),
            "cells": [
                {"label": c.label, "value": c.value, "error": c.error, "error_unit": c.error_unit or "value", "note": c.note,
                 "raw_value": c.raw_value, "reliable": c.reliable,
                 **({"cv": c.cv if math.isfinite(c.cv) else None} if c.cv is not None else {}),  # JSON has no infinity
                 **({"flag": c.flag} if c.flag else {}),
                 **({"lower": c.lower, "upper": c.upper} if c.lower is not None else {})}
                for c in self.cells
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ReleasedStatistic":
        return cls(
            label=data["label"],
            type=data["type"],
            column=data.get("column"),
            by=grouping(data.get("by")),
            mechanism=data["mechanism"],
            epsilon=float(data["epsilon"]),
            delta=float(data["delta"]),
            method=data.get("method", ""),
            noise=tuple(MechanismEvent.from_json(n) for n in data.get("noise", ())),
            cells=tuple(
                Cell(
                    c["label"], c.get("value"), c.get("error"), c.get("note", ""),
                    "" if c.get("error_unit", "value") == "value" else c["error_unit"],
                    None if c.get("raw_value", c.get("value")) == c.get("value") else c["raw_value"],
                    bool(c.get("reliable", True)),
                    _cv(c),
                    str(c.get("flag", "")),
                    c.get("lower"),
                    c.get("upper"),
                )
                for c in data["cells"]
            ),
            post_processing=tuple(data.get("post_processing", ())),
            column_labels=tuple((str(k), str(v)) for k, v in (data.get("column_labels") or {}).items()),
            weighted_by=data.get("weighted_by"),
            synthetic=data.get("synthetic"),
        )


@dataclass(frozen=True)
class Release:
    """Released values and their public context. Contains nothing that is not DP or public."""

    dataset_name: str
    dataset_description: str
    privacy_unit: str
    neighbouring: str
    confidence: float
    statistics: tuple[ReleasedStatistic, ...]
    guarantee: Guarantee
    created: str
    software_version: str
    libraries: dict[str, str] = field(default_factory=dict)  # OpenDP's version (the noise) and the accountant's reference
    ledger: dict[str, Any] | None = None  # entry number and hash, dataset budget and spent after this release
    sampling: dict[str, Any] | None = None  # the amplified guarantee for the population, if a sampling rate is claimed
    reliability: dict[str, Any] | None = None  # the plan's CV thresholds for each cell's flag (ReliabilityRule)
    # the synthetic tables' rows, by the label of their statistic: written as files once charged, never into
    # results.json or the ledger
    synthetic: tuple[tuple[str, SyntheticResult], ...] = field(default=(), compare=False, repr=False)

    def synthetic_table(self, label: str) -> SyntheticResult | None:
        return dict(self.synthetic).get(label)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RESULTS_FORMAT,
            "version": RESULTS_VERSION,
            "dataset": {"name": self.dataset_name, "description": self.dataset_description},
            "privacy_unit": self.privacy_unit,
            "neighbouring": self.neighbouring,
            "confidence": self.confidence,
            "total": self.guarantee.to_json(),
            "statistics": [s.to_json() for s in self.statistics],
            "created": self.created,
            "software": {"name": "DP Workbench", "version": self.software_version, "libraries": self.libraries},
            "ledger": self.ledger,
            **({"sampling": self.sampling} if self.sampling else {}),
            **({"reliability": self.reliability} if self.reliability else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Release":
        """Read results.json as written by ``to_json``; a file of another kind or a newer
        version is refused with a message."""
        if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
            raise WorkbenchError(
                "This is not a DP Workbench results file (results.json, written by a release). "
                "Choose the results.json that the release wrote."
            )
        if data.get("version") != RESULTS_VERSION:
            raise WorkbenchError(
                f"This results file has version {data.get('version')!r}; this DP Workbench reads version "
                f"{RESULTS_VERSION}. Use the DP Workbench that wrote it, or a newer one."
            )
        try:
            total = data["total"]
            return cls(
                dataset_name=data["dataset"]["name"],
                dataset_description=data["dataset"].get("description", ""),
                privacy_unit=data["privacy_unit"],
                neighbouring=data["neighbouring"],
                confidence=float(data["confidence"]),
                statistics=tuple(ReleasedStatistic.from_json(s) for s in data["statistics"]),
                guarantee=Guarantee(float(total["epsilon"]), float(total["delta"]), total["method"]),
                created=data["created"],
                software_version=data["software"]["version"],
                libraries=dict(data["software"].get("libraries", {})),
                ledger=data.get("ledger"),
                sampling=data.get("sampling"),
                reliability=data.get("reliability"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise WorkbenchError(
                f"The results file is incomplete or damaged ({type(exc).__name__}: {exc}). Export it again from "
                "the release, or from the ledger (dp-workbench ledger export)."
            ) from None


_RELEASED_FIELDS = tuple(f for f in ReleasedStatistic.__dataclass_fields__)


def _cv(cell: dict[str, Any]) -> float | None:
    """A cell's CV as results.json holds it: null with a flag is a CV too large to write (a value of 0)."""
    if cell.get("cv") is not None:
        return float(cell["cv"])
    return math.inf if cell.get("flag") else None


def _released_statistics(plan: ReleasePlan, table: Table | None, data: "Engine | Callable[[], Engine] | None",
                         progress: Callable[[str], None] | None = None) -> tuple[ReleasedStatistic, ...]:
    """Every statistic of ``plan`` computed on ``table`` (or on ``data``, prepared from it already, or the function
    that gives it, asked where ``prepare`` would be: it may refuse the data as ``prepare`` does) and noised;
    nothing is shown or recorded here. A synthetic table's rows travel beside its statistic (``_SyntheticStatistic``)
    until ``charged_release`` has charged them."""
    calibrated = [
        (planned, (), ()) if isinstance(planned, PlannedSynthetic) else
        (planned, planned.statistic.queries(plan.schema), planned.noises(plan.schema)) for planned in plan.statistics
    ]
    if data is None:
        assert table is not None
        data = prepare(table, plan.used_schema())  # a column no statistic reads is not even read
    elif not isinstance(data, (PreparedData, SqlData)) and callable(data):
        data = data()
    if isinstance(data, SqlData):  # each pass over the rows is a query there: those that share cells are fused
        data.expect(_requests(plan))
    try:
        released = tuple(
            _release_synthetic(planned, data, plan, progress) if isinstance(planned, PlannedSynthetic)
            else _release_one(planned, queries, noises, data, plan) for planned, queries, noises in calibrated
        )
    finally:
        if isinstance(data, SqlData):  # the fused exact answers are private: not kept in an engine the app holds on to
            data.expect(())
    with after_noise("making the tables consistent and flagging reliability"):
        consistent = _made_consistent(released, plan, [noises for _, _, noises in calibrated])
        return tuple(  # the flags are read off the final values and error bounds: post-processing, no ε
            replace(r, cells=tuple(flagged(c, plan.reliability, plan.confidence) for c in r.cells)) for r in consistent
        )


def _requests(plan: ReleasePlan) -> list:
    """The aggregates the plan's statistics will ask, from public inputs (a synthetic table's are its fit's own). A
    statistic that cannot say (a plan its turn refuses) asks nothing here, and is refused in its turn as before."""
    requests = []
    for planned in plan.statistics:
        if isinstance(planned, PlannedSynthetic):
            continue
        try:
            requests.extend(planned.statistic.requests(plan.schema))
        except WorkbenchError:
            continue
    return requests


@dataclass(frozen=True)
class _SyntheticStatistic(ReleasedStatistic):
    """A synthetic table's released statistic with its rows, until the charge: then the rows move to
    ``Release.synthetic`` and the statistic alone goes into results and the ledger."""

    rows: SyntheticResult | None = field(default=None, compare=False, repr=False)


def _release_synthetic(planned: PlannedSynthetic, data: Engine, plan: ReleasePlan,
                       progress: Callable[[str], None] | None) -> ReleasedStatistic:
    from workbench.core.synthetic.fit import release_synthetic  # Polars, Private-PGM and JAX: only when used

    table, cost = planned.statistic, planned.cost()
    result = release_synthetic(table, plan.schema, data, cost, progress)
    cells = tuple(
        Cell(" / ".join(m.columns), 100 * m.distance, None,
             "total variation distance, in % of rows, between the synthetic rows' marginal and the noisy measured one"
             + (" (one-way)" if m.one_way else f" ({len(m.columns)}-way, chosen by the algorithm or kept)"))
        for m in result.marginals
    )
    return _SyntheticStatistic(
        label=table.label, type=table.type_name, column=None, by=(), mechanism=planned.mechanism.value,
        epsilon=cost.epsilon, delta=cost.delta, method=table.method(plan.schema),
        noise=tuple(planned.events(plan.schema)), cells=cells,
        post_processing=(DRAWN_WORDS,),
        column_labels=tuple((name, plan.schema.column(name).label) for name in table.columns
                            if plan.schema.column(name).label),
        synthetic={
            "columns": list(table.columns), "rows": result.rows, "rows_asked": table.rows,
            "rows_counted": result.counted_rows, "rows_capped": result.capped, "algorithm": table.algorithm,
            "numeric_values": table.numeric_values, "keep": [list(g) for g in table.keep],
            "edges": {name: list(edges) for name, edges in table.edges},
            "measure": "zero-concentrated DP" if cost.rho is not None else "pure ε-DP",
            **({"rho": cost.rho} if cost.rho is not None else {}),
            "one_way_noise_scale": result.oneway_scale,
            "marginals": [m.to_json() for m in result.marginals],
            "warnings": list(SYNTHETIC_WARNINGS),
        },
        rows=result,
    )


def release(table: Table | FileSource, plan: ReleasePlan, ledger: Ledger, dataset_budget: Guarantee | None = None,
            data: "Engine | Callable[[], Engine] | None" = None, progress: Callable[[str], None] | None = None,
            file_progress: Callable[[float], None] | None = None) -> Release:
    """Release every statistic of ``plan`` on ``table``, charged to ``ledger`` before it is returned.

    The dataset is the plan's dataset name; a dataset the ledger does not know yet is
    registered with ``dataset_budget`` (its total over all releases), which is then required.
    A ``FileSource`` is a file read out of core: ``data`` is then its prepared data (``OutOfCoreData`` or
    ``SparkData`` for ``plan.used_schema()``), which also gives the table's content digest, the same as the
    in-memory engine's for the same table (``data.fingerprint``). For a ``Table``, ``data`` may be its prepared
    data, or a function giving it (a file prepared as it was read: ``BlockPreparer.prepared``), called after the
    ledger's refusals where ``prepare`` would be.
    ``progress`` hears what a long step is doing (a synthetic table's fit). Once noise is drawn the release runs to
    its charge: nothing may drop it uncharged (``charged_release``).
    ``file_progress`` hears the fraction of the file's bytes read to recognise it (``Ledger.fingerprint``: before the
    statistics, unless read for ``engine_hashes_rows`` already; and again after an engine that did not hash its rows).
    """
    plan.validate()
    if isinstance(table, Table) and table.sample_rows is not None and data is None:
        raise DataFileError(
            f"{table.source.name} is too large for this computer's memory, and only its first rows are loaded: they "
            "are not the data a release describes. Release it out of core (the whole file read by DuckDB)."
        )

    def compute() -> tuple[str, tuple[ReleasedStatistic, ...]]:
        if isinstance(table, FileSource):
            if not isinstance(data, SqlData):
                raise ValueError("a file read out of core is released from its prepared data")
            if data.hashes_content:
                content = ledger.content_fingerprint_of(data.content_digest())
            else:  # opened without hashing the rows, where the ledger records this file's: before any noise
                content = _recorded_content_fingerprint(ledger, data.source.path, data.source.read_as, table.state,
                                                        file_progress)
            return content, _released_statistics(plan, None, data, progress)
        if table.pending_digest is not None:  # every column hashed as the file was read (``load_table(columns=)``)
            released = _released_statistics(plan, table, data, progress)
            return ledger.content_fingerprint_of(table.pending_digest.result()), released
        if not table.hashes_content:  # read without hashing, where the ledger records this file's: before any noise
            content = _recorded_content_fingerprint(ledger, table.source, table.read_as, table.state, file_progress)
            return content, _released_statistics(plan, table, data, progress)
        # a table loaded whole (the app's, at step 1) is hashed, though the ledger may record its file: the check
        # that the file is unchanged since it was read (its size and modification time) cannot tell that the rows
        # released are the ones a record of the bytes hashed now describes
        # the table's content fingerprint (the same data from another file or format) is hashed alongside the
        # statistics: DuckDB, numpy and pandas leave the interpreter lock while they work. DuckDB gets every core but
        # one, which the statistics keep: on two cores DuckDB's two threads slowed the statistics by half
        # (20-statistic benchmark under load: 1.5-1.9 s, with one thread 1.1-1.2 s)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="content-fingerprint") as pool:
            content = pool.submit(ledger.content_fingerprint, table.frame, max(1, (os.cpu_count() or 2) - 1))
            released = _released_statistics(plan, table, data, progress)
            return content.result(), released

    # how the engine read the file (a Spark source's undeclared encoding and delimiter are decided as it opens it),
    # recorded for a file read for this release only: a table loaded whole (the app's, at step 1) was read long
    # before the bytes the charge hashes, so its record is never taken for them; nor is one of rows read elsewhere
    # than from the bytes the charge hashes (``SqlData.reads_the_bytes_hashed``: a cluster's executors)
    if isinstance(table, FileSource) and isinstance(data, SqlData):
        read_as = data.source.read_as if data.reads_the_bytes_hashed else None
    else:
        read_as = table.read_as if isinstance(table, Table) and (table.narrowed or not table.hashes_content) else None
    return charged_release(table, plan, ledger, dataset_budget, plan.events(), plan.guarantee(), compute,
                           read_as, file_progress)


def engine_hashes_rows(ledger: Ledger, source: FileSource, progress: Callable[[float], None] | None = None) -> bool:
    """Whether an engine reading ``source`` must hash every row of it for the content fingerprint
    (``SqlData.hashes_content``, ``load_table(hashes_content=)``): not when ``ledger`` records one for an earlier
    release of these very bytes, read the same way (``Ledger.recorded_content_fingerprint``). Asked before the file
    is read: where the ledger records any file's, this file's bytes are hashed here (seconds for gigabytes;
    ``progress`` hears them read) and kept for the release's charge; the release reads them again after the engine
    (``_recorded_content_fingerprint``)."""
    if not WRITES_TOLD:  # the reading could not be told to be of the bytes recorded (``WRITES_TOLD``)
        return True
    return ledger.recorded_content_fingerprint(source.path, source.read_as, progress) is None


# Whether a write to a file is told by its state (``FileState.key``): on Windows, the "change time" Python reports
# is the file's creation time, so a write that keeps the size and modification time (a copy that keeps times)
# cannot be told from no write. There every release hashes the rows it reads, and records no reading to be taken.
WRITES_TOLD = sys.platform != "win32"


def _hashed_bytes_were_read(ledger: Ledger, path: Path, state: FileState | None) -> bool:
    """Whether the bytes of ``path`` the ledger has hashed (the hash ``Ledger.fingerprint`` keeps) are the ones read
    for this release: the file's state when its reading began (``state``) is the one that hash was taken at, and its
    state now. The state's change time and file number are the system's, set by any write; a copy may keep the size
    and modification time (``FileState.key``; not on Windows: ``WRITES_TOLD``)."""
    kept = ledger.kept(path)
    return (WRITES_TOLD and state is not None and kept is not None
            and kept[0] == state.key == FileState.key_of(path))


def _recorded_content_fingerprint(ledger: Ledger, path: Path, read_as: dict[str, Any] | None,
                                  state: FileState | None, progress: Callable[[float], None] | None = None) -> str:
    """The content fingerprint the ledger records for the file at ``path`` (its bytes, read as ``read_as``), for an
    engine that did not hash its rows. The bytes looked up must be those read: hashed before the reading began
    (``state``), the file unwritten since (``_hashed_bytes_were_read``), and the same, the file still unwritten,
    when read again now that the engine has read them (``progress`` hears them read); else the rows released are
    not the ones the record describes. The record is looked up by the hash kept from the look-up."""
    recorded = None
    kept = ledger.kept(path)
    if read_as is not None and kept is not None and _hashed_bytes_were_read(ledger, path, state):
        again = ledger.fingerprint(path, again=True, progress=progress)
        if again == kept[1] and FileState.key_of(path) == kept[0]:
            recorded = ledger.recorded_content_of(kept[1], read_as)
    if recorded is None:
        raise DataFileError(
            f"{Path(path).name} changed while it was being released, so what {ledger.where} recorded of it no "
            "longer applies. Nothing was released and no budget was spent: release it again."
        )
    return recorded


def charged_release(
    table: Table | FileSource, plan: ReleasePlan, ledger: Ledger, dataset_budget: Guarantee | None,
    events: list[MechanismEvent], cost: Guarantee, compute: Callable[[], tuple[str | None, tuple[ReleasedStatistic, ...]]],
    read_as: dict[str, Any] | None = None,
    file_progress: Callable[[float], None] | None = None,
) -> Release:
    """The ledger's part of every release (statistics, bounds help, categories from the data): recognise the data,
    refuse what the ledger would refuse before anything is read, then ``compute`` the noisy statistics (and the
    table's content fingerprint), charge them, and only then return them. ``events`` and ``cost`` are what they
    spend, known from public inputs alone. ``read_as``: how an engine read the file (``FileSource.read_as``),
    recorded with its fingerprints if the bytes hashed for the file's are those read (``_hashed_bytes_were_read``).
    ``file_progress`` hears the file's bytes read for its fingerprint."""
    name = plan.dataset.name
    check_unchanged(table)
    fingerprint = ledger.fingerprint(table.source, progress=file_progress) if Path(table.source).is_file() else None
    check_unchanged(table)  # the fingerprint is of the file the statistics are computed from
    terms = Terms.of(plan.schema)
    new_dataset = None
    if not ledger.has_dataset(name):
        if dataset_budget is None:
            raise LedgerError(
                f"The ledger has no dataset '{name}' yet. Give the total budget this dataset may ever spend "
                "(for example --dataset-budget 2 for ε = 2); it is recorded, and every release is counted against it."
            )
        new_dataset = Registration(dataset_budget, terms, plan.dataset.size_estimate)
    else:
        ledger.check_terms(name, terms)  # refuse before reading any data; the charge checks again
    ledger.check_affordable(name, events, new_dataset)  # refuse before reading any data
    # a plan not validated (a search's) is recorded too: its texts are refused now
    refuse_nul(_recorded(plan), [p.statistic.label for p in plan.statistics])
    entry, charging = None, False
    with drawing_noise() as drawn:
        try:
            content_fingerprint, released = compute()
            if ledger.strict_json:
                # the server would refuse such an entry after the noise: a refusal that depends on the noisy values
                # (a value of the data listed; a noisy value that is not a finite number) and was not charged
                _check_strict_json(released)
            synthetic, result = _unsaid(plan, cost, released)
            recorded_plan = _recorded(plan)
            if read_as is not None and not _hashed_bytes_were_read(ledger, Path(table.source), table.state):
                read_as = None  # the file was written after its reading began: its record is never taken again
            # the authoritative checks (terms, fingerprints, budget) are the charge's own, in its write transaction:
            # another process may have registered or spent this dataset since the checks above
            charging = True
            with stops_held():  # a stop during the charge is made once the release is shown (``make_held_stop``)
                entry = ledger.charge(name, events, result.to_json(), recorded_plan, terms, fingerprint, new_dataset,
                                      content_fingerprint, read_as)
        except (FailedAfterNoise, EntryRefused) as failure:  # refused perhaps by the noisy values (a character the
            # team database cannot encode)
            raise _charged_failure(failure, ledger, name, events, plan, cost, terms, fingerprint,
                                   new_dataset) from None
        except BaseException as stop:  # Ctrl+C, a signal, Cancel, an error: free before the noise, charged after it
            if not drawn() or (charging and entry is None and isinstance(stop, (LedgerError, BudgetError))):
                raise  # before the noise; or the ledger's own refusal of the charge (spent or registered meanwhile):
                # a charge of its failure would be refused alike
            if entry is not None:  # between the charge and the end of this block
                raise _charged_unseen(ledger, name, entry.seq, _stop_in_words(stop)) from None
            raise _charged_failure(FailedAfterNoise(_stop_in_words(stop)), ledger, name, events, plan, cost, terms,
                                   fingerprint, new_dataset) from None
    try:
        return _with_its_charge(result, synthetic, plan, cost, ledger, name, entry)
    except LedgerError as exc:  # a team ledger's server gone once the charge was committed: say it was charged
        raise _charged_unseen(ledger, name, entry.seq, f"It could not be read again to count what remains ({exc}).",
                              "once the ledger can be reached") from None
    except BaseException as stop:  # Ctrl+C, a signal, a failure: the charge is made, and said to be
        raise _charged_unseen(ledger, name, entry.seq, _stop_in_words(stop)) from None


def _with_its_charge(result: Release, synthetic: tuple, plan: ReleasePlan, cost: Guarantee, ledger: Ledger,
                     name: str, entry: Entry) -> Release:
    """The release charged as ``entry``, with what the ledger now says of its dataset."""
    before, after = ledger.dataset(name, up_to=entry.seq - 1), ledger.dataset(name, up_to=entry.seq)
    rate = plan.dataset.sampling_rate
    sampling = None if rate is None else {
        "rate": rate,
        "this_release": amplified_by_sampling(cost, rate).to_json(),
        "all_releases": amplified_by_sampling(after.spent, rate).to_json(),
        "conditions": plan.sampling_conditions(),
    }
    return replace(
        result,
        synthetic=synthetic,
        sampling=sampling,
        ledger={
            "entry": entry.seq,
            "hash": entry.hash,
            "dataset_budget": after.budget.to_json(),
            "spent_before_this_release": (before.spent if before.releases else Guarantee(0.0, 0.0, cost.method)).to_json(),
            "releases_before_this_one": before.releases,
            "spent_including_this_release": after.spent.to_json(),
        },
    )


def _unsaid(plan: ReleasePlan, cost: Guarantee, released: tuple[ReleasedStatistic, ...]
            ) -> tuple[tuple[tuple[str, SyntheticResult], ...], Release]:
    """The release as it is charged, before the ledger's part is added, and the synthetic tables' rows apart."""
    synthetic = tuple((s.label, s.rows) for s in released if isinstance(s, _SyntheticStatistic) and s.rows is not None)
    released = tuple(ReleasedStatistic(**{f: getattr(s, f) for f in _RELEASED_FIELDS}) if isinstance(s, _SyntheticStatistic)
                     else s for s in released)
    return synthetic, Release(
        dataset_name=plan.dataset.name,
        dataset_description=plan.dataset.description,
        privacy_unit=plan.schema.unit.in_words,
        neighbouring=plan.schema.neighbouring.in_words,
        confidence=plan.confidence,
        statistics=released,
        guarantee=cost,
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        software_version=__version__,
        libraries=versions.libraries(),
        reliability=plan.reliability.to_json(),
    )


def _stop_in_words(stop: BaseException) -> str:
    """What stopped a release, in words that quote nothing it was handed (an error's own text may hold noisy values
    before their charge: ``unexpected_error``)."""
    if isinstance(stop, KeyboardInterrupt):
        return "The release was interrupted (Ctrl+C)."
    if isinstance(stop, SystemExit):
        return "The release was stopped by a signal to end the program."
    if isinstance(stop, Cancelled):
        return "The release was cancelled."
    if isinstance(stop, WorkbenchError):
        return f"{str(stop).rstrip('.')}."
    unexpected_error(stop)  # its frames to standard error, for a bug report
    return f"The release stopped on an unexpected {type(stop).__name__} (its details are left out; please report it)."


def _charged_unseen(ledger: Ledger, name: str, seq: int, why: str, when: str = "") -> FailedAfterNoise:
    """A release charged, with its values, that stopped before it was shown: the error to raise."""
    return FailedAfterNoise(
        f"The release was charged: {ledger.where} records it as entry {seq} of '{name}', with its values. {why} "
        f"Nothing is shown here; read its values with `dp-workbench ledger export`{' ' + when if when else ''}. Do "
        "not release it again: that would spend its budget a second time.")


def _charged_failure(failure: WorkbenchError, ledger: Ledger, name: str, events: list[MechanismEvent],
                     plan: ReleasePlan, cost: Guarantee, terms: Terms, fingerprint: str | None,
                     new_dataset: Registration | None) -> FailedAfterNoise:
    """A release stopped after its noise, charged without its values (a failure past the noise may depend on them,
    and uncharged it would be a free look at them): the error to raise. Should the store refuse even that entry
    (the plan's own texts, public, which it holds too), nothing is charged and that refusal is raised: it depends on
    no noisy value."""
    with stops_held():  # made once the failure is said (``make_held_stop``)
        entry = ledger.charge(name, events, _failed_release(plan, cost).to_json(), _recorded(plan), terms,
                              fingerprint, new_dataset)
    return FailedAfterNoise(f"{failure} Its noise had already been drawn, so its budget is charged all the same "
                            f"(ledger entry {entry.seq}): nothing was released.", place=failure.place)


def _check_strict_json(released: tuple[ReleasedStatistic, ...]) -> None:
    """FailedAfterNoise if the released statistics, as the ledger records them, hold what strict JSON cannot: a NUL
    character in a text (only a value of the data can: a plan's texts are refused before), or a number that is
    not finite."""
    for _, value in json_leaves([s.to_json() for s in released]):
        if isinstance(value, str) and "\x00" in value:
            raise FailedAfterNoise("A value released from the data holds a NUL character (an invisible control "
                                   "character), which this team ledger (PostgreSQL) cannot store.")
        if isinstance(value, float) and not math.isfinite(value):
            raise FailedAfterNoise("A released value is not a finite number, which this team ledger (PostgreSQL) "
                                   "cannot store.")


def _recorded(plan: ReleasePlan) -> dict[str, Any]:
    """The plan as the ledger keeps it: without the file's name."""
    return replace(plan, dataset=replace(plan.dataset, file_name=None)).to_json()


def _failed_release(plan: ReleasePlan, cost: Guarantee) -> Release:
    """What the ledger records of a release that failed after its noise was drawn: its cost, no values."""
    return Release(
        dataset_name=plan.dataset.name,
        dataset_description=plan.dataset.description,
        privacy_unit=plan.schema.unit.in_words,
        neighbouring=plan.schema.neighbouring.in_words,
        confidence=plan.confidence,
        statistics=(),
        guarantee=cost,
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        software_version=__version__,
        libraries=versions.libraries(),
        reliability=plan.reliability.to_json(),
    )


def _made_consistent(
    released: tuple[ReleasedStatistic, ...], plan: ReleasePlan, noises: list[tuple]
) -> tuple[ReleasedStatistic, ...]:
    """A cross-tabulation marked 'consistent' fitted with its margins and count (``tables``), then histograms
    marked 'consistent' shifted to sum to the (fitted) count of rows (post-processing)."""
    out = list(released)
    for i, planned in enumerate(plan.statistics):
        if planned.post.consistent and planned.statistic.type_name == "crosstab":
            out = _table_made_consistent(out, plan, noises, i)
    released = tuple(out)
    for i, planned in enumerate(plan.statistics):
        if not planned.post.consistent or planned.statistic.type_name == "crosstab":
            continue
        j = plan.total_count()
        assert j is not None  # checked by ReleasePlan.validate
        total = released[j].cells[0].value
        if total is None:
            continue
        slack = (plan.statistics[j].post.round_to or 0.0) / 2
        cells = consistent_with_total(
            released[i].cells, total, noises[i][0], noises[j][0] if noises[j] else None, slack, plan.confidence
        )
        out[i] = replace(released[i], cells=cells)
    return tuple(out)


def _table_made_consistent(
    released: list[ReleasedStatistic], plan: ReleasePlan, noises: list[tuple], table: int
) -> list[ReleasedStatistic]:
    """The cross-tabulation at ``table``, its margins and the count of rows replaced by one non-negative fit."""
    crosstab = plan.statistics[table].statistic
    shape = tuple(len(spec.bins) for spec in crosstab._specs(plan.schema))
    margins, total = plan.table_parts(table)
    axes = tuple(range(len(shape)))

    def raw(i: int) -> np.ndarray:
        return np.array([c.raw_value for c in released[i].cells], dtype=float)

    parts = [(table, axes)] + [(i, (axis,)) for i, axis in margins] + ([(total, ())] if total is not None else [])
    measurements = [Measurement(keeps, raw(i).reshape([shape[a] for a in keeps]), noises[i][0].variance)
                    for i, keeps in parts]
    fitted = consistent_table(shape, measurements)
    out = list(released)
    for i, keeps in parts:
        values = fitted.sum(axis=tuple(a for a in axes if a not in keeps)).ravel()
        cells = tuple(replace(c, value=float(v), raw=c.raw_value) for c, v in zip(released[i].cells, values))
        words = () if i == table else (MARGIN_CONSISTENCY_WORDS.format(table=f"'{crosstab.label}'"),)
        out[i] = replace(released[i], cells=cells, post_processing=released[i].post_processing + words)
    return out


def _release_one(planned: PlannedStatistic, queries, noises, data, plan: ReleasePlan) -> ReleasedStatistic:
    statistic = planned.statistic
    noisy = statistic.measure(data, noises, plan.confidence)  # nothing but the noisy answers goes further
    with after_noise(statistic.label):
        cells = planned.post.apply(statistic.estimate(noisy, noises, plan.schema, plan.confidence), statistic,
                                   plan.schema)
    return ReleasedStatistic(
        label=statistic.label,
        type=statistic.type_name,
        column=getattr(statistic, "column", None),
        by=statistic.by,
        mechanism=planned.mechanism.value,
        epsilon=sum(n.epsilon for n in noises),
        delta=sum(n.delta for n in noises),
        method=statistic.method(plan.schema),
        noise=tuple(MechanismEvent.from_noise(q.name, n, q.unit, q.scalar) for q, n in zip(queries, noises)),
        cells=cells,
        post_processing=tuple(planned.post.describe(statistic, plan.schema)),
        column_labels=tuple(
            (name, plan.schema.column(name).label) for name in dict.fromkeys(statistic.column_names)
            if plan.schema.column(name).label
        ),
        weighted_by=statistic.weighted_by,
    )
