"""Categories found in the data, with differential privacy: for a curator who has no public list.

A column's categories are public input (DESIGN rule 2): a published category list that was read off the
data reveals that somebody holds each of its values, a rare one most of all. So the data may suggest
categories only through a DP release that is charged to the ledger like any other: each value's count of
rows (every person's first k rows, as every statistic counts them) gets Laplace noise, and a value is
listed only if its noisy count reaches a threshold (OpenDP's ``make_laplace_threshold``: stable keys,
Rogers 2023). The threshold is what makes it approximate DP: a value held by one person could appear, and
the chance of that is δ. Everything about it (ε, δ, the noise scale, the threshold, what they mean for a
value held by few persons) is known from public inputs before anything is read (``discovery_terms``).

The released list is sorted alphabetically (not by count) and the noisy counts are released beside it:
both are DP outputs, charged once. The list is the user's to edit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.core.data import IdentifierColumn, IgnoredColumn, Neighbouring, Schema, Table
from workbench.core.data.prepare import check_columns_exist, kept_rows
from workbench.core.data.reading import value_texts
from workbench.core.errors import BudgetError, DataFileError, SchemaError, noise_drawn
from workbench.core.privacy import MechanismEvent, check_delta, check_epsilon, compose
from workbench.core.privacy import opendp_api as dp
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import Budget, ReleasePlan, check_delta_for_size, suggested_delta
from workbench.core.release.run import Release, ReleasedStatistic, charged_release
from workbench.core.statistics import Cell

MECHANISM = "laplace_threshold"
DEFAULT_EPSILON, DEFAULT_DELTA = 0.5, 1e-7
MAX_DELTA = 1e-5  # the chance that a value one person holds is listed: never more than this


def default_delta(size: int | None) -> float:
    """The δ a search for categories proposes: ``DEFAULT_DELTA``, or less for a plan of more persons, far below one
    over their number (``suggested_delta``), as a plan's δ is. A fixed 1e-7 is at least one over the persons of a
    register of ten million, and is refused there (``discovery_terms``)."""
    return DEFAULT_DELTA if not size else min(DEFAULT_DELTA, suggested_delta(size))


@dataclass(frozen=True)
class DiscoveryTerms:
    """What a release of a column's categories spends and what it lists, from public inputs alone."""

    column: str
    epsilon: float  # as OpenDP's privacy map states them for the contributions below
    delta: float
    scale: float  # of the Laplace noise on each count
    threshold: int  # a value is listed if its noisy count is at least this
    contributions: tuple[int, int, int]  # how one person can change the counts: values, rows, rows of one value

    @property
    def surely_listed(self) -> int:
        """The least count of rows that is listed with probability at least 99.9%."""
        return self.threshold - 1 + self._steps_out(0.001)

    @property
    def rarely_listed(self) -> int:
        """The largest count of rows that is listed with probability at most 5%."""
        return max(0, self.threshold - self._steps_out(0.05))

    def _steps_out(self, chance: float) -> int:
        """The least t >= 1 at which the noise (OpenDP's discrete Laplace, ``scale``) reaches t or more with at most
        ``chance``: P[Z >= t] = e^(-t/s) / (1 + e^(-1/s)). Not the continuous tail e^(-t/s) / 2, which a count near
        the threshold exceeds (listed with 9%, not 5%, at a scale of 1/ln 10)."""
        s = self.scale
        return max(1, math.ceil(-s * math.log(chance * (1 + math.exp(-1 / s))) - 1e-9))

    def in_words(self) -> str:
        return (
            f"Finds the values of '{self.column}' held by many rows, spending ε = {self.epsilon:.4g} and "
            f"δ = {self.delta:.2g}: each value's count of rows gets noise (Laplace, scale {self.scale:.3g}) and the "
            f"value is listed only if its noisy count is at least {self.threshold}. A value in "
            f"{self.surely_listed} rows or more is almost surely listed (99.9%); one in {self.rarely_listed} rows or "
            f"fewer is listed with a chance of 5% at most; a value that only one person holds is listed with a chance "
            f"below δ = {self.delta:.2g}. Values in fewer rows than that are missing from the list: add the ones you "
            "know to be public. The list and its noisy counts are charged to the ledger like any release."
        )


def contributions(schema: Schema) -> tuple[int, int, int]:
    """How far one person moves the counts of values: (values touched, rows in all, rows of one value), each
    person keeping at most k rows; replacing one person moves twice as many values and rows."""
    k = schema.k
    if schema.neighbouring is Neighbouring.SUBSTITUTE:
        return 2 * k, 2 * k, k
    return k, k, k


NUL = "\x00"


def _measurement(scale: float, threshold: int):
    dp.enable_features("contrib")
    domain = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i64"))
    return dp.m.make_laplace_threshold(domain, dp.l01inf_distance(dp.absolute_distance(T="i64")), scale=scale,
                                       threshold=threshold)


def discovery_terms(schema: Schema, column: str, epsilon: float = DEFAULT_EPSILON,
                    delta: float = DEFAULT_DELTA, size: int | None = None) -> DiscoveryTerms:
    """The noise and threshold that spend ``epsilon`` and ``delta`` for the plan's privacy unit and relation,
    with OpenDP's own privacy map: the stated ε and δ are the map's, never below it. ``size``: the plan's number of
    persons (``ReleasePlan.size``), against which δ is held to the rule every δ is (``check_delta_for_size``)."""
    check_epsilon(epsilon)
    check_delta(delta)
    if delta > MAX_DELTA:
        raise BudgetError(
            f"δ = {delta:g} is the chance that a value only one person holds is published in the list; more than "
            f"{MAX_DELTA:g} is refused. Enter a smaller δ (for example {default_delta(size):g})."
        )
    check_delta_for_size(delta, size, "The category search's δ")
    schema.column(column)  # a column the plan describes
    distances = contributions(schema)
    scale = distances[1] / epsilon
    while True:  # the map's ε is l1 / scale, up to rounding: nudge the scale until it is within the ε asked for
        low, high = max(1, distances[2]), 1 << 40  # (OpenDP refuses a threshold below one person's rows of a value)
        while low < high:  # the smallest threshold whose δ is within the δ asked for
            middle = (low + high) // 2
            if _measurement(scale, middle).map(distances)[1] <= delta:
                high = middle
            else:
                low = middle + 1
        stated = _measurement(scale, low).map(distances)
        if stated[0] <= epsilon:
            # listed at one more than the threshold whose δ the map states: OpenDP 0.16's map of
            # make_laplace_threshold gives P[noise > threshold − l∞], but the measurement lists a value whose noisy
            # count is *at least* the threshold, so a value one person holds was listed with P[noise >= threshold −
            # l∞], e^(1/scale) times the δ stated (opendp/opendp#2922; a helper's audit measured 0.0138 for a stated
            # 0.0049). At threshold + 1 it is listed with exactly the δ stated; should the map be mended, it only
            # overstates δ.
            return DiscoveryTerms(column, float(stated[0]), float(stated[1]), scale, low + 1, distances)
        scale = math.nextafter(scale, math.inf) * (1 + 1e-12)


@dataclass(frozen=True)
class DiscoveredCategories:
    column: str
    categories: tuple[str, ...]  # sorted alphabetically
    terms: DiscoveryTerms
    released: Release  # what was charged: the listed values with their noisy counts

    def in_words(self) -> str:
        found = (f"{len(self.categories)} values found" if self.categories else
                 "No value reached the threshold: none is listed")
        return (f"{found} in '{self.column}' with differential privacy (ε = {self.terms.epsilon:.4g}, "
                f"δ = {self.terms.delta:.2g}, charged to the ledger). Values held by fewer than about "
                f"{self.terms.surely_listed} rows may be missing: add the ones you know to be public.")


def discover_categories(table: Table, plan: ReleasePlan, column: str, epsilon: float, delta: float, ledger: Ledger,
                        dataset_budget=None) -> DiscoveredCategories:
    """Release the values of ``column`` whose noisy count of rows reaches the threshold, charged to ``ledger``
    under the plan's dataset, privacy unit and relation before they are returned."""
    terms = discovery_terms(plan.schema, column, epsilon, delta, plan.size())
    if table.sample_rows is not None:
        raise DataFileError(
            f"{table.source.name} is too large for this computer's memory, and only its first rows are loaded: "
            "categories can be found with differential privacy only in a table read whole. Type the public "
            "categories (a codebook's), or find them on a computer with more memory."
        )
    unit = plan.schema.unit
    columns = ((IdentifierColumn(unit.id_column),) if unit.id_column else ()) + (IgnoredColumn(column),)
    schema = Schema(columns, unit=unit, neighbouring=plan.schema.neighbouring, public_size=plan.schema.public_size)
    check_columns_exist(table, schema)
    if unit.id_column == column:
        raise SchemaError(f"'{column}' identifies the persons: its values are never released, not even as categories.")
    discovery = ReleasePlan(dataset=plan.dataset, schema=schema, statistics=(),
                            total=Budget(terms.epsilon, terms.delta), confidence=plan.confidence)
    label = f"categories of {column}"
    event = MechanismEvent(f"{label}: counts of values at least {terms.threshold}", MECHANISM, float(terms.contributions[1]),
                           terms.scale, terms.epsilon, terms.delta)
    events = [event]

    def compute() -> tuple[str, tuple[ReleasedStatistic, ...]]:
        rows = kept_rows(table, schema)
        counts = value_texts(rows[column], table.label_maps.get(column)).value_counts()
        # a value holding a NUL character is never a candidate: no plan can name it as a category (``refuse_nul``),
        # and a team ledger cannot store it. Left out by itself, before the noise: the sensitivity is unchanged
        counts = counts[[NUL not in str(text) for text in counts.index]]
        # OpenDP is handed each value by its place in the list, never its text: its strings end at a NUL character,
        # so "nurse\x00night" was counted as "nurse", and the last of two values read alike replaced the other's
        # count (one person's value could so replace the count of a thousand: no bound on the sensitivity)
        texts = [str(k) for k in counts.index]
        noise_drawn()  # before OpenDP's call: a stop during it is charged (``errors.drawing_noise``)
        listed = _measurement(terms.scale, terms.threshold)({str(i): int(v) for i, v in enumerate(counts.to_numpy())})
        noisy = {texts[int(i)]: count for i, count in listed.items()}
        error = terms.scale * math.log(1 / (1 - plan.confidence))  # |Laplace| below this with the confidence asked
        cells = tuple(Cell(text, float(noisy[text]), error, "noisy count of rows; listed because it reached "
                           f"{terms.threshold}") for text in sorted(noisy))
        statistic = ReleasedStatistic(
            label=label, type="categories", column=column, by=(), mechanism=MECHANISM, epsilon=terms.epsilon,
            delta=terms.delta, method=(f"the values whose count of rows with Laplace noise (scale {terms.scale:.3g}) "
                                       f"reached {terms.threshold} (OpenDP's make_laplace_threshold); a value "
                                       "holding a NUL character is never listed (no plan can name it)"),
            noise=(event,), cells=cells)
        # a table narrowed to a plan's columns is recognised by the digest of all of them (its frame's is refused)
        fingerprint = (ledger.content_fingerprint_of(table.pending_digest.result()) if table.narrowed
                       else ledger.content_fingerprint(table.frame))
        return fingerprint, (statistic,)

    released = charged_release(table, discovery, ledger, dataset_budget, events, compose(events), compute)
    return DiscoveredCategories(column, tuple(c.label for c in released.statistics[0].cells), terms, released)


def with_categories(plan: ReleasePlan, column: str, categories: tuple[str, ...]) -> ReleasePlan:
    """The plan with ``column`` described as categorical with ``categories`` (its other choices kept)."""
    from dataclasses import replace

    from workbench.core.data import CategoricalColumn

    def described(spec):
        if spec.name != column:
            return spec
        if isinstance(spec, CategoricalColumn):
            return replace(spec, categories=categories)
        return CategoricalColumn(column, categories, label=spec.label)

    return replace(plan, schema=replace(plan.schema, columns=tuple(described(c) for c in plan.schema.columns)))
