"""ReleasePlan: what to release and at what privacy cost, as a versioned JSON file.

A plan holds a public description of the dataset (never the data), the schema, the
statistics with the mechanism and (ε, δ) of each, and the total budget the plan may
spend. It can be written at home and run at work: the round trip is lossless.
"""

from __future__ import annotations

import codecs
import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Iterator, Sequence

from workbench.core.data import Neighbouring, Schema
from workbench.core.errors import BudgetError, Place, PlanError, WorkbenchError
from workbench.core.privacy import (
    SAMPLING_CONDITIONS,
    Guarantee,
    MechanismEvent,
    MechanismKind,
    Noise,
    calibrate,
    calibrate_quantile,
    check_delta,
    check_epsilon,
    compose,
    overspend,
)
from workbench.core.real import is_finite_real, is_whole_number
from workbench.core.release.postprocess import PostProcessing
from workbench.core.release.reliability import ReliabilityRule
from workbench.core.statistics import Statistic, statistic_from_json
from workbench.core.synthetic import SyntheticCost, SyntheticTable, check_useful, cost_of

PLAN_FORMAT = "dp-workbench-plan"
PLAN_VERSION = 2  # the newest version this program reads; a plan is written with the oldest that can read it


@dataclass(frozen=True)
class DatasetDescription:
    """Public metadata only: a name, a description, the expected file name, a size estimate, and how a text
    file is written (its encoding: declared, because a guess from the rows would let one person change how
    everyone else's text is read)."""

    name: str
    description: str = ""
    file_name: str | None = None
    size_estimate: int | None = None  # a public guess of the number of persons, for previews
    sampling_rate: float | None = None  # the file is a Poisson sample of a population at this rate (claimed)
    encoding: str | None = None  # a text file's encoding; None: as its byte-order mark says, else UTF-8

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            **({"file_name": self.file_name} if self.file_name else {}),  # the user's own note; never exported
            "size_estimate": self.size_estimate,
            **({"sampling_rate": self.sampling_rate} if self.sampling_rate is not None else {}),
            **({"encoding": self.encoding} if self.encoding else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> "DatasetDescription":
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise PlanError("The plan's 'dataset' must be an object with at least a 'name'.")
        estimate = data.get("size_estimate")
        if estimate is not None and (not is_whole_number(estimate) or estimate < 1):
            raise PlanError(f"The dataset's size estimate must be a whole number of persons, not {estimate!r}.")
        return cls(
            name=data["name"],
            description=str(data.get("description", "")),
            file_name=data.get("file_name"),
            size_estimate=estimate,
            sampling_rate=_sampling_rate(data.get("sampling_rate")),
            encoding=_encoding(data.get("encoding")),
        )


def _encoding(value: Any) -> str | None:
    """An encoding a text file is written in (cp1252, latin-1, utf-8, …: ``io.is_file_encoding``), or None."""
    from workbench.core.data.io import is_file_encoding

    if value is None:
        return None
    if not is_file_encoding(value):  # also codecs Python knows that are no file's (base64, unicode_escape, idna)
        raise PlanError(
            f"The dataset's encoding {value!r} (the plan's dataset.encoding) is not a text encoding a file is "
            "written in. Write the file's own there, such as \"utf-8\", \"cp1252\" (Windows, Western Europe) or "
            "\"latin-1\", or leave it out for UTF-8 (or the encoding the file's byte-order mark names).",
            place=Place("data", "encoding"),
        )
    return value


def suggested_delta(size: int | None) -> float:
    """A δ far below one over the number of persons: a power of ten below 1 / (100 · size); 1e-7 if unknown."""
    if not size:
        return 1e-7
    return 10.0 ** math.floor(math.log10(0.01 / size))


DELTA_CEILING = 1e-5  # the largest δ accepted without a number of persons to weigh it against
DEFAULT_DATASET_DELTA = 1e-6  # a new dataset's total δ proposed, where the rule accepts it


def suggested_dataset_delta(plan_delta: float, size: int | None) -> float:
    """The total δ proposed for a dataset new to the ledger, shared by all its releases: ``DEFAULT_DATASET_DELTA``
    where ``check_delta_for_size`` accepts it (no number of persons, or fewer than a million), else one far below one
    over the number of persons (``suggested_delta``); and at least the first plan's δ. The fixed 1e-6 it replaces
    was refused for every dataset of a million persons or more, and a statistics office's registers are that large."""
    proposed = DEFAULT_DATASET_DELTA if _accepted(DEFAULT_DATASET_DELTA, size) else suggested_delta(size)
    # a plan δ the rule refuses is refused where it is set, not copied into the total
    return max(proposed, plan_delta) if _accepted(plan_delta, size) else proposed


def _accepted(delta: float, size: int | None) -> bool:
    """Whether ``check_delta_for_size`` accepts ``delta`` for ``size`` persons."""
    try:
        check_delta_for_size(delta, size)
    except BudgetError:
        return False
    return True


def check_delta_for_size(delta: float, size: int | None, what: str = "δ") -> None:
    """Refuse a δ that is not far below one over the number of persons ``size`` (public, or the dataset's
    estimate). δ is the probability that the guarantee fails outright (a mechanism may then publish a record
    as it is), so with n persons it must be well below 1 / n: at most 1 / (100 n), what ``suggested_delta``
    proposes. Without n nothing shows that a δ is small enough, so none above ``DELTA_CEILING`` is accepted.
    The plan, the ledger's dataset totals, the command line and the app all refuse with these words."""
    if not delta:
        return
    if size and delta >= 1.0 / size:
        raise BudgetError(
            f"{what} = {delta:g} is at least 1 / {size} (one over the number of persons), which would allow a "
            f"mechanism that publishes one person's record outright. Choose δ far below that, e.g. "
            f"{suggested_delta(size):g}."
        )
    if delta <= DELTA_CEILING or (size and delta <= 0.01 / size):
        return
    why = ("δ is the probability that the guarantee fails outright (a mechanism may then publish one person's "
           "record as it is), so with n persons it must be well below 1 / n")
    if not size:
        raise BudgetError(
            f"{what} = {delta:g} is above {DELTA_CEILING:g}, and there is no number of persons to weigh it against. "
            f"{why}. Choose δ of at most {DELTA_CEILING:g} (for example {suggested_delta(None):g}); a larger δ "
            "needs the number of persons in the data, given as the dataset's estimate (\"size_estimate\" in a "
            "plan file, step 5 in the app)."
        )
    raise BudgetError(
        f"{what} = {delta:g} is above {DELTA_CEILING:g} and not far below 1 / {size} (one over the number of "
        f"persons). {why}: with {size} persons, δ of at most {max(DELTA_CEILING, 0.01 / size):.3g} is accepted. "
        f"Choose a smaller δ, for example {suggested_delta(size):g}."
    )


def _sampling_rate(rate: Any) -> float | None:
    if rate is None:
        return None
    if not is_finite_real(rate) or not 0 < rate < 1:
        raise PlanError(
            f"The dataset's sampling rate must be a probability strictly between 0 and 1 (the chance that a person "
            f"of the population is in the file), not {rate!r}. Leave it out if the file is not such a sample."
        )
    return float(rate)


@dataclass(frozen=True)
class Budget:
    epsilon: float
    delta: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta}

    @classmethod
    def from_json(cls, data: Any, where: str) -> "Budget":
        if not isinstance(data, dict) or "epsilon" not in data:
            raise PlanError(f"{where}: the budget must be an object with 'epsilon' (and 'delta').")
        epsilon, delta = data["epsilon"], data.get("delta", 0.0)
        for name, value in (("ε", epsilon), ("δ", delta)):  # a number at all; its range is checked by validate
            if not is_finite_real(value):
                raise PlanError(f"{where}: {name} must be a positive number, not {value!r}.")
        return cls(epsilon=epsilon, delta=delta)


@dataclass(frozen=True)
class PlannedStatistic:
    """One statistic, the mechanism that releases it, and the (ε, δ) it may spend.

    Optionally an accuracy target (the ± half-width wanted at the plan's confidence) or a
    weight; ``planner.budget_plan`` turns either into ε. For a statistic by group,
    ``smallest_group`` is a public guess of the rows in the smallest group that will be
    published: previews and accuracy targets are then stated for that group, not for a
    group of average size.
    """

    statistic: Statistic
    mechanism: MechanismKind
    budget: Budget
    target_error: float | None = None
    weight: float | None = None
    post: PostProcessing = None  # type: ignore[assignment]  # None: the statistic's default (``PostProcessing.default_for``)
    smallest_group: int | None = None

    def __post_init__(self) -> None:
        if self.post is None:
            object.__setattr__(self, "post", PostProcessing.default_for(self.statistic))

    @property
    def budget_from_planner(self) -> bool:
        """Whether the planner sets this statistic's ε (from its accuracy target or its weight)."""
        return self.target_error is not None or self.weight is not None

    plan_version: ClassVar[int] = 1  # the oldest plan format that can hold this kind of entry

    def noises(self, schema: Schema, verified: bool = True) -> tuple[Noise, ...]:
        """Calibrated noise for each query of the statistic; touches no data (``verified``: see ``calibrate``).

        Cached: a preview asks for the same statistic's noise several times per slider move."""
        return _noises(self, schema, verified)

    def events(self, schema: Schema, verified: bool = True) -> list[MechanismEvent]:
        """One privacy event per noisy query, from public inputs only."""
        return [
            MechanismEvent.from_noise(f"{self.statistic.label}: {query.name}", noise, query.unit, query.scalar)
            for query, noise in zip(_queries(self.statistic, schema), self.noises(schema, verified))
        ]

    def check_budget(self, size: int | None) -> None:
        """What every entry of a plan must meet before any data are read: a mechanism it can be released with,
        an ε planned if the planner sets it, and an ε and δ that mechanism can spend on ``size`` persons."""
        where = f"'{self.statistic.label}'"
        allowed = self.statistic.mechanisms
        if self.mechanism not in allowed:
            names = " or ".join(m.title for m in allowed)
            raise PlanError(f"{where} cannot be released with the {self.mechanism.title} mechanism; choose {names}.")
        if self.budget_from_planner and self.budget.epsilon == UNPLANNED:
            raise PlanError(f"{where}: its ε comes from its weight or accuracy target; plan the budget first "
                            "(dp-workbench plan-budget, or step 5 in the app).")
        try:
            check_epsilon(self.budget.epsilon)
            if self.mechanism is MechanismKind.GAUSSIAN:
                check_delta(self.budget.delta)
                check_delta_for_size(self.budget.delta, size)
            elif self.budget.delta != 0:
                other = " or choose the Gaussian mechanism" if MechanismKind.GAUSSIAN in allowed else ""
                raise BudgetError(f"the {self.mechanism.title} mechanism spends no δ; set δ to 0{other}.")
        except WorkbenchError as exc:
            raise BudgetError(f"{where}: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        budget = self.budget.to_json()
        if self.budget_from_planner and self.budget.epsilon == UNPLANNED:
            del budget["epsilon"]  # the planner fills it in
        out = {**self.statistic.to_json(), "mechanism": self.mechanism.value, **budget}
        if self.target_error is not None:
            out["target_error"] = self.target_error
        if self.weight is not None:
            out["weight"] = self.weight
        if self.smallest_group is not None:
            out["smallest_group"] = self.smallest_group
        if self.post != PostProcessing.default_for(self.statistic):
            out["post_processing"] = self.post.to_json()
        return out

    @classmethod
    def from_json(cls, data: Any, position: int) -> "PlannedStatistic":
        where = f"Statistic {position + 1}"
        statistic = statistic_from_json(data, where)
        try:
            mechanism = MechanismKind(data.get("mechanism", statistic.mechanisms[0].value))
        except (ValueError, TypeError):
            names = " or ".join(f"'{m.value}'" for m in MechanismKind)
            raise PlanError(f"{where}: mechanism {data.get('mechanism')!r} is not {names}.") from None
        optional = {}
        for key in ("target_error", "weight"):
            value = data.get(key)
            if value is not None and (not is_finite_real(value) or value <= 0):
                raise PlanError(f"{where}: '{key}' must be a positive number, not {value!r}.")
            optional[key] = value
        smallest = data.get("smallest_group")
        if smallest is not None:
            if not is_finite_real(smallest) or smallest < 1 or smallest != int(smallest):
                raise PlanError(f"{where}: 'smallest_group' must be a whole number of rows, at least 1, not {smallest!r}.")
            if not statistic.by:
                raise PlanError(f"{where}: 'smallest_group' is for a statistic by group; {statistic.label} has no 'by'.")
            optional["smallest_group"] = int(smallest)
        post = PostProcessing.from_json(data.get("post_processing"), where) if "post_processing" in data else None
        if "epsilon" not in data:
            if optional["target_error"] is not None or optional["weight"] is not None:
                # the planner sets ε from the target or the weight: no placeholder is needed
                return cls(statistic, mechanism, Budget.from_json({**data, "epsilon": UNPLANNED}, where), **optional,
                           post=post)
            raise PlanError(
                f"{where} ({statistic.label}) has no 'epsilon': give one, e.g. \"epsilon\": 0.1, or a 'weight' (its "
                "share of the total) or a 'target_error' (the ± it must meet) and ε is worked out for it."
            )
        return cls(statistic, mechanism, Budget.from_json(data, where), **optional, post=post)


UNPLANNED = 0.0  # the ε of a statistic whose weight or target the planner has not turned into ε yet


@dataclass(frozen=True)
class PlannedSynthetic(PlannedStatistic):
    """A synthetic table (``core/synthetic``) as an entry of the plan's statistics: it shares the plan's budget like
    any statistic (a fixed ε or a weight), and is one OpenDP measurement, so one privacy event. It reads its own
    JSON (``"type": "synthetic"``) and needs plan format version 2."""

    statistic: SyntheticTable  # type: ignore[assignment]
    mechanism: MechanismKind = MechanismKind.GAUSSIAN
    budget: Budget = Budget(UNPLANNED)
    plan_version: ClassVar[int] = 2

    def __post_init__(self) -> None:
        if self.post is None:
            object.__setattr__(self, "post", PostProcessing(clamp=False))  # the file is drawn, not post-processed

    def noises(self, schema: Schema, verified: bool = True) -> tuple[Noise, ...]:
        raise TypeError("a synthetic table has one OpenDP measurement, not calibrated queries: use cost() and events()")

    def cost(self, verified: bool = True) -> SyntheticCost:
        """What it spends: ρ (Gaussian, zCDP) or ε (Laplace), and the (ε, δ) stated (``verified``: converted by
        OpenDP rather than by the same formula in Python, for previews)."""
        return cost_of(self.mechanism, self.budget.epsilon, self.budget.delta, quick=not verified)

    def events(self, schema: Schema, verified: bool = True) -> list[MechanismEvent]:
        return [self.cost(verified).event(self.statistic.label)]

    def check(self, plan: "ReleasePlan") -> None:
        """Everything that can be refused before any data are read, with what to do instead."""
        table, where = self.statistic, f"'{self.statistic.label}'"
        self.check_budget(plan.size())
        axes = table.axes(plan.schema)
        size = plan.size()
        if not size:
            raise PlanError(
                f"{where} needs the dataset's size estimate (a public guess of the number of persons, such as a "
                "census count) to check that its ε gives useful marginals. Enter it in step 5 ('Size estimate'), or "
                "as \"size_estimate\" in the plan's dataset."
            )
        check_useful(self.mechanism, self.budget.epsilon, self.budget.delta,
                     {a.name: len(a.labels) for a in axes}, plan.schema, float(size), table.label)

    def to_json(self) -> dict[str, Any]:
        budget = self.budget.to_json()
        if self.budget_from_planner and self.budget.epsilon == UNPLANNED:
            del budget["epsilon"]
        return {**self.statistic.to_json(), "mechanism": self.mechanism.value, **budget,
                **({"weight": self.weight} if self.weight is not None else {})}

    @classmethod
    def from_json(cls, data: Any, position: int) -> "PlannedSynthetic":
        where = f"Statistic {position + 1} (a synthetic table)"
        table = SyntheticTable.from_json(data, where)
        try:
            mechanism = MechanismKind(data.get("mechanism", MechanismKind.GAUSSIAN.value))
        except (ValueError, TypeError):
            raise PlanError(f"{where}: mechanism {data.get('mechanism')!r} is not 'gaussian' or 'laplace'.") from None
        for key in ("target_error", "smallest_group", "post_processing", "by", "weighted_by"):
            if data.get(key) is not None:
                raise PlanError(f"{where}: '{key}' is not for a synthetic table; remove it. Its ε is fixed or shared "
                                "by 'weight'.")
        weight = data.get("weight")
        if weight is not None and (not is_finite_real(weight) or weight <= 0):
            raise PlanError(f"{where}: 'weight' must be a positive number, not {weight!r}.")
        if "epsilon" not in data and weight is None:
            raise PlanError(f"{where} has no 'epsilon': give one, e.g. \"epsilon\": 1, or a 'weight' (its share of "
                            "the total).")
        default_delta = 1e-7 if mechanism is MechanismKind.GAUSSIAN else 0.0
        budget = Budget.from_json({"epsilon": data.get("epsilon", UNPLANNED),
                                   "delta": data.get("delta", default_delta)}, where)
        return cls(table, mechanism, budget, weight=weight)


ENTRY_KINDS: dict[str, type[PlannedStatistic]] = {SyntheticTable.type_name: PlannedSynthetic}  # the rest: statistics


def _entry_from_json(data: Any, position: int) -> PlannedStatistic:
    """An entry of the plan's statistics, read by its own kind."""
    kind = ENTRY_KINDS.get(data.get("type")) if isinstance(data, dict) and isinstance(data.get("type"), str) else None
    return (kind or PlannedStatistic).from_json(data, position)


@lru_cache(maxsize=4096)
def _noises(planned: PlannedStatistic, schema: Schema, verified: bool) -> tuple[Noise, ...]:
    return tuple(
        calibrate_quantile(int(q.sensitivity.l1), q.level, planned.budget.epsilon * q.share, verified)
        if q.level is not None
        else calibrate(
            q.mechanism or planned.mechanism,
            q.sensitivity.l1 if (q.mechanism or planned.mechanism) is MechanismKind.LAPLACE else q.sensitivity.l2,
            planned.budget.epsilon * q.share,
            planned.budget.delta * q.share,
            verified,
        )
        for q in _queries(planned.statistic, schema)
    )


@lru_cache(maxsize=1024)
def _queries(statistic: Statistic, schema: Schema) -> tuple:
    """A statistic's queries depend on its schema alone (and validating it is most of their cost)."""
    return statistic.queries(schema)


@dataclass(frozen=True)
class ReleasePlan:
    dataset: DatasetDescription
    schema: Schema
    statistics: tuple[PlannedStatistic, ...]
    total: Budget
    confidence: float = 0.95
    reliability: ReliabilityRule = ReliabilityRule()  # public CV thresholds of each cell's flag

    def sampling_conditions(self) -> str:
        """What the amplification by the plan's sampling rate needs (``SAMPLING_CONDITIONS``), and where its weights'
        public bounds say otherwise: a design weight is one over its person's inclusion probability, so a weight
        below 1/rate tells of persons included with more than the rate (weights scaled to the sample say nothing
        of it, hence words, not a refusal)."""
        rate = self.dataset.sampling_rate
        words = SAMPLING_CONDITIONS
        weights = sorted({planned.statistic.weighted_by for planned in self.statistics
                          if getattr(planned.statistic, "weighted_by", None)})
        for name in weights:
            spec = self.schema.column(name)
            lower = getattr(spec, "lower", None)
            if rate is not None and lower is not None and 0 < lower < 1 / rate:
                words += (f" The weights in '{name}' go down to {lower:g}: if they are design weights (one over a "
                          f"person's chance of being in the sample), some persons were included with a chance of up "
                          f"to {1 / lower:.3g}, above the stated rate {rate:g}, and for them the guarantee is the "
                          "one without amplification.")
        return words

    def used_schema(self) -> Schema:
        """The schema less the columns no statistic reads (and that do not identify the person): a column
        nobody uses (a geographic code left without bounds) must not block a release, nor be read for it."""
        used = {name for planned in self.statistics for name in planned.statistic.column_names}
        used.add(self.schema.unit.id_column)
        return replace(self.schema, columns=tuple(c for c in self.schema.columns if c.name in used))

    def validate(self) -> None:
        """Check everything that can be checked without data; raise a WorkbenchError if unsound, with its
        ``Place`` (issue 37, 6)."""
        self.used_schema().validate()
        refuse_nul(self.to_json(), [p.statistic.label for p in self.statistics])
        if not self.statistics:
            raise PlanError("The plan has no statistics. Add at least one.", place=Place("statistics", "add"))
        try:
            check_epsilon(self.total.epsilon)
        except WorkbenchError as exc:
            raise exc.placed(Place("budget", "epsilon"))
        try:
            if self.total.delta != 0:
                check_delta(self.total.delta)
            self._check_delta_against_size()
        except WorkbenchError as exc:
            raise exc.placed(Place("budget", "delta"))
        if not 0.5 <= self.confidence < 1:
            raise PlanError(f"The confidence level must be at least 0.5 and below 1, not {self.confidence!r}.",
                            place=Place("budget", "confidence"))
        if self.dataset.sampling_rate is not None and self.schema.neighbouring is not Neighbouring.ADD_REMOVE:
            raise PlanError(
                "Amplification by sampling is claimed here only for neighbours that differ by adding or removing a "
                "person (Poisson sampling); this plan uses 'substitute'. Remove the sampling rate, or use add/remove.",
                place=Place("budget", "sampling"),
            )
        for planned in self.statistics:
            try:
                if isinstance(planned, PlannedSynthetic):
                    planned.check(self)
                else:
                    self._check_statistic(planned)
            except WorkbenchError as exc:
                raise exc.placed(Place("statistics", "statistic", statistic=planned.statistic.label))
        spent = self.guarantee()
        over = overspend(spent, self.total.epsilon, self.total.delta)
        if over:
            raise BudgetError(
                f"The statistics spend ε = {spent.epsilon:g}, δ = {spent.delta:g} in total, more than the plan's "
                f"budget of ε = {self.total.epsilon:g}, δ = {self.total.delta:g} (over by ε {over[0]:g}, "
                f"δ {over[1]:g}). Lower some statistics' ε or δ, or raise the total.",
                place=Place("budget", "epsilon"),
            )

    def _check_statistic(self, planned: PlannedStatistic) -> None:
        planned.check_budget(self.size())
        planned.statistic.queries(self.schema)  # raises if the columns do not fit the statistic
        planned.post.check(planned.statistic)
        if planned.post.consistent:
            self._check_consistency(planned)

    def total_count(self) -> int | None:
        """The position of the plan's count of all rows (not by group), the total a histogram can be made
        consistent with; None if the plan has none."""
        return next((i for i, p in enumerate(self.statistics)
                     if p.statistic.type_name == "count" and not p.statistic.by and not p.statistic.weighted_by), None)

    def table_parts(self, table: int) -> tuple[list[tuple[int, int]], int | None]:
        """For the cross-tabulation at ``table``: the (position, axis) of each histogram in the plan that is one of
        its margins, and the position of the count of rows if it is released with noise (a public size is not
        fitted)."""
        crosstab = self.statistics[table].statistic
        margins = [
            (i, crosstab.columns.index(p.statistic.column))
            for i, p in enumerate(self.statistics)
            if p.statistic.type_name == "histogram" and not p.statistic.by and not p.statistic.weighted_by
            and not p.statistic.edges and p.statistic.column in crosstab.columns
        ]
        total = self.total_count()
        if total is not None and not self.statistics[total].statistic.queries(self.schema):
            total = None
        return margins, total

    def _check_table_consistency(self, planned: PlannedStatistic) -> None:
        where = f"'{planned.statistic.label}'"
        table = self.statistics.index(planned)
        if sum(p.post.consistent and p.statistic.type_name == "crosstab" for p in self.statistics) > 1:
            raise PlanError(
                f"{where}: only one cross-tabulation in a plan can be made consistent with the margins and count (two "
                "would each pull the shared totals their own way). Keep 'consistent' on one."
            )
        margins, total = self.table_parts(table)
        if not margins and total is None:
            raise PlanError(
                f"{where} is to agree with its released margins and count of rows, but the plan releases neither a "
                "histogram of its columns nor a noisy count of rows. Add them, or remove 'consistent'."
            )
        for i in [m for m, _ in margins] + ([total] if total is not None else []):
            part = self.statistics[i]
            if part.post.consistent or part.post.round_to is not None:
                raise PlanError(
                    f"'{part.statistic.label}' is fitted together with {where}, so it can be neither made consistent "
                    "on its own nor rounded (that would break the sums again). Remove 'consistent' or 'round_to' "
                    "from it."
                )

    def _check_consistency(self, planned: PlannedStatistic) -> None:
        where = f"'{planned.statistic.label}'"
        if planned.statistic.type_name == "crosstab":
            self._check_table_consistency(planned)
        elif self.total_count() is None:
            raise PlanError(
                f"{where} is to sum to the released count of rows, but the plan has no count of rows. Add one (not by "
                "group), or remove 'consistent'."
            )
        if self.schema.min_rows_per_person(planned.statistic.column_names) == 0:
            raise PlanError(
                f"{where} leaves some rows out (missing values or categories outside the list are dropped), so its "
                "bins need not sum to the count of rows. Keep them (impute missing values; count others in "
                "'(other)'), or remove 'consistent'."
            )

    def size(self) -> int | None:
        """The number of persons the plan gives, public or estimated (None if it gives none)."""
        return self.schema.public_size or self.dataset.size_estimate

    def _check_delta_against_size(self) -> None:
        check_delta_for_size(self.total.delta, self.size())

    def events(self, verified: bool = True) -> list[MechanismEvent]:
        """One privacy event per noisy query of the plan, computed from public inputs only."""
        return [event for planned in self.statistics for event in planned.events(self.schema, verified)]

    def guarantee(self) -> Guarantee:
        """The total privacy cost of the plan, at the plan's total δ."""
        return compose(self.events(), delta=self.total.delta)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "version": max((planned.plan_version for planned in self.statistics), default=1),
            "dataset": self.dataset.to_json(),
            "schema": self.schema.to_json(),
            "statistics": [planned.to_json() for planned in self.statistics],
            "total_budget": self.total.to_json(),
            "confidence": self.confidence,
            **({"reliability": self.reliability.to_json()} if self.reliability != ReliabilityRule() else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> "ReleasePlan":
        if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
            raise PlanError("This is not a DP Workbench plan (its 'format' is not 'dp-workbench-plan').")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise PlanError("The plan has no valid 'version' number.")
        if version > PLAN_VERSION:
            raise PlanError(
                f"This plan was written by a newer DP Workbench (plan version {version}; this one reads up to "
                f"{PLAN_VERSION}). Update DP Workbench to open it."
            )
        statistics = data.get("statistics")
        if not isinstance(statistics, list):
            raise PlanError("The plan needs a list of 'statistics'.")
        confidence = data.get("confidence", 0.95)
        if not is_finite_real(confidence):
            raise PlanError(f"The confidence level must be a number such as 0.95, not {confidence!r}.")
        return cls(
            dataset=DatasetDescription.from_json(data.get("dataset")),
            schema=Schema.from_json(data.get("schema")),
            statistics=tuple(_entry_from_json(s, i) for i, s in enumerate(statistics)),
            total=Budget.from_json(data.get("total_budget"), "The plan's total budget"),
            confidence=float(confidence),
            reliability=ReliabilityRule.from_json(data.get("reliability")),
        )

    def save(self, path: str | Path) -> None:
        path = Path(path)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        temporary.replace(path)  # never leave a half-written plan behind

    @classmethod
    def load(cls, path: str | Path) -> "ReleasePlan":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PlanError(f"{path}: no such plan file. Check the path.") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise PlanError(f"{path.name}: the plan file cannot be read ({exc}).") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(
                f"{path.name} is not a complete plan file: {exc.msg} at line {exc.lineno}, column {exc.colno}. "
                "It may be cut off or edited by hand; open an intact copy."
            ) from None
        try:
            return cls.from_json(data)
        except WorkbenchError as exc:
            raise type(exc)(f"{path.name}: {exc}", place=exc.place) from None


def refuse_nul(described: dict[str, Any], labels: Sequence[str] = ()) -> None:
    """PlanError naming the first text of the plan (a name, label, category, description) holding a NUL character:
    the plan is recorded with every release, and a team ledger (PostgreSQL) can store no NUL. Refused before
    anything is read, on every ledger alike, rather than by the server after the noise was drawn. ``labels``: the
    statistics' labels, in the plan's order, to place one."""
    for keys, text in json_leaves(described):
        if not isinstance(text, str) or "\x00" not in text:
            continue
        place, where, renamed = None, " › ".join(keys), ""
        if keys[:2] == ("schema", "columns"):
            column = str(described["schema"]["columns"][_place(keys[2])].get("name")).replace("\x00", "␀")
            place = Place("columns", "categories" if "categories" in keys else "kind", column=column)
            where = f"column '{column}'" + (f" ({' › '.join(keys[3:])})" if len(keys) > 3 else "")
            if keys[3:] == ("name",):
                renamed = " A column's name is the file's: rename the column there."
        elif keys[:1] == ("statistics",):
            index = _place(keys[1])
            label = labels[index] if index < len(labels) else None
            place = Place("statistics", "statistic", statistic=label)
            where = f"statistic {index + 1} ({' › '.join(keys[2:])})"
        elif keys[:2] == ("dataset", "name"):
            place = Place("release", "dataset name")
        shown = text.replace("\x00", "␀")
        raise PlanError(
            f"The plan's {where} holds a NUL character ('{shown[:60]}', shown as ␀): an invisible control character "
            f"that a binary file or a codebook's export can leave behind. Remove it from that text, or type the text "
            f"again.{renamed}", place=place)


def json_leaves(described: Any, keys: tuple[str, ...] = ()) -> "Iterator[tuple[tuple[str, ...], Any]]":
    """Every key and every value that is not a list or an object in JSON data (a plan's, a release's), each with the
    keys and list places ("item 3") that lead to it: what a check of everything an entry will hold reads."""
    if isinstance(described, dict):
        for key, value in described.items():
            yield (*keys, str(key)), key
            yield from json_leaves(value, (*keys, str(key)))
    elif isinstance(described, (list, tuple)):
        for i, value in enumerate(described):
            yield from json_leaves(value, (*keys, f"item {i + 1}"))
    else:
        yield keys, described


def _place(key: str) -> int:
    """A list's index from the words ``json_leaves`` names it by ("item 3": 2)."""
    return int(key.removeprefix("item ")) - 1
