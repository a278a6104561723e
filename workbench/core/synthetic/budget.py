"""What a synthetic table spends and what its noise does, from public inputs alone.

OpenDP's contingency table is one measurement with one privacy map. With the Gaussian mechanism it is
ρ-zero-concentrated DP (with public cells for every column OpenDP refuses a δ of its own: the release is
pure zCDP), and the plan's (ε, δ) is turned into the largest ρ whose conversion by OpenDP gives at most ε at
δ. With the Laplace mechanism it is pure ε-DP. Either way the ledger receives one ``MechanismEvent`` that
its accountants compose with every other release: a Gaussian event of sensitivity 1 and scale 1/√(2ρ),
which carries exactly ρ for zCDP accounting, and whose stated (ε, δ) is what the privacy-loss accountant
composes (the event is a vector, so that accountant uses the (ε, δ) alone, never a Gaussian's curve).

OpenDP spends half of the budget on every column's one-way marginal (``ONEWAY_SHARE``) and the rest on
choosing and measuring the relationships. The noise of each one-way cell is then Gaussian with
σ = k·√(m/ρ), or Laplace with scale b = 2·k·m/ε, for m columns and k rows per person (2k under substitute):
what OpenDP's ``make_contingency_table`` returns as its one-way scale, checked in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from workbench.core.data import Neighbouring, Schema
from workbench.core.errors import BudgetError
from workbench.core.privacy import MechanismEvent, MechanismKind
from workbench.core.privacy.accounting import zcdp_epsilon
from workbench.core.privacy.mechanisms import zcdp_to_epsilon

ONEWAY_SHARE = 0.5  # OpenDP's default: half of the budget measures every column's one-way marginal
USEFUL_ERROR = 0.05  # a one-way marginal is useful when its expected total variation distance is below this
NOT_USEFUL_ERROR = 0.25  # refused when even the best one-way marginal is expected this far from the truth
ZCDP_EVENT = "gaussian"  # the accountants read ρ off a Gaussian event: Δ = 1, σ = 1/√(2ρ)


def rows_per_person(schema: Schema) -> int:
    """How many rows one person can change: k, or 2k when a person is replaced (k rows out, k in)."""
    return 2 * schema.k if schema.neighbouring is Neighbouring.SUBSTITUTE else schema.k


@lru_cache(maxsize=1024)
def rho_for(epsilon: float, delta: float, quick: bool = False) -> float:
    """The largest ρ whose zCDP guarantee converts (by OpenDP, or by the same formula in Python if ``quick``)
    to at most ``epsilon`` at ``delta``."""
    convert = zcdp_to_epsilon if quick else zcdp_epsilon
    low, high = 0.0, max(epsilon, 1.0)
    while convert(high, delta) <= epsilon:
        low, high = high, high * 2
    for _ in range(60 if not quick else 40):
        middle = (low + high) / 2
        if middle <= low or middle >= high:
            break
        low, high = (middle, high) if convert(middle, delta) <= epsilon else (low, middle)
    return low


@dataclass(frozen=True)
class SyntheticCost:
    """What a synthetic table spends: the measure OpenDP's map is in (ρ for Gaussian, ε for Laplace) and the
    (ε, δ) the plan and the ledger state."""

    mechanism: MechanismKind
    epsilon: float
    delta: float
    rho: float | None  # zCDP (Gaussian) only

    @property
    def budget(self) -> float:
        """The d_out OpenDP's measurement is built for: ρ, or ε."""
        return self.rho if self.rho is not None else self.epsilon

    def event(self, label: str) -> MechanismEvent:
        if self.rho is not None:
            scale = 1.0 / math.sqrt(2.0 * self.rho)
            while (1.0 / scale) ** 2 / 2.0 < self.rho:  # never understate ρ through rounding
                scale = math.nextafter(scale, 0.0)
            return MechanismEvent(f"{label}: contingency table (ρ = {self.rho:.4g} zCDP)", ZCDP_EVENT, 1.0, scale,
                                  self.epsilon, self.delta, 1.0, False)
        return MechanismEvent(f"{label}: contingency table (pure ε-DP)", "laplace", 1.0, 1.0 / self.epsilon,
                              self.epsilon, 0.0, 1.0, False)


def cost_of(mechanism: MechanismKind, epsilon: float, delta: float, quick: bool = False) -> SyntheticCost:
    if mechanism is MechanismKind.GAUSSIAN:
        rho = rho_for(float(epsilon), float(delta), quick)
        if not rho > 0:
            raise BudgetError(f"ε = {epsilon:g} at δ = {delta:g} leaves no ρ for a synthetic table; raise ε or δ.")
        stated = (zcdp_to_epsilon if quick else zcdp_epsilon)(rho, delta)
        return SyntheticCost(mechanism, float(stated), float(delta), rho)
    return SyntheticCost(mechanism, float(epsilon), 0.0, None)


def oneway_scale(cost: SyntheticCost, columns: int, schema: Schema) -> float:
    """The noise scale of every one-way cell: σ of the Gaussian, or b of the Laplace (what OpenDP computes)."""
    k = rows_per_person(schema)
    if cost.rho is not None:
        return k * math.sqrt(columns / (2.0 * ONEWAY_SHARE * cost.rho))
    return k * columns / (ONEWAY_SHARE * cost.epsilon)


def cell_error(cost: SyntheticCost, scale: float, confidence: float = 0.95) -> float:
    """Half-width, in rows, of the interval that holds one one-way cell's noise with ``confidence``."""
    if cost.rho is not None:
        from statistics import NormalDist

        return NormalDist().inv_cdf(0.5 + confidence / 2) * scale
    return scale * math.log(1.0 / (1.0 - confidence))


def mean_absolute_noise(cost: SyntheticCost, scale: float) -> float:
    """E|Z| of one cell's noise."""
    return scale * math.sqrt(2.0 / math.pi) if cost.rho is not None else scale


def expected_distance(cost: SyntheticCost, scale: float, cells: int, rows: float) -> float:
    """The expected total variation distance between a column's noisy one-way marginal and the true one, at
    ``rows`` rows: half of the cells' expected absolute noise over the rows (at most 1)."""
    return min(1.0, 0.5 * cells * mean_absolute_noise(cost, scale) / rows)


@dataclass(frozen=True)
class OnewayPreview:
    """Step 5's preview: every column's one-way error at this ε, before anything is read."""

    scale: float
    per_cell: float  # ± rows, at the confidence
    distances: tuple[tuple[str, float], ...]  # (column, expected total variation distance) at ``rows``
    rows: float | None

    @property
    def worst(self) -> float | None:
        return max(d for _, d in self.distances) if self.distances else None


def preview(cost: SyntheticCost, cells: dict[str, int], schema: Schema, rows: float | None,
            confidence: float = 0.95) -> OnewayPreview:
    scale = oneway_scale(cost, len(cells), schema)
    distances = tuple((name, expected_distance(cost, scale, n, rows)) for name, n in cells.items()) if rows else ()
    return OnewayPreview(scale, cell_error(cost, scale, confidence), distances, rows)


def epsilon_for_distance(mechanism: MechanismKind, delta: float, cells: dict[str, int], schema: Schema,
                         rows: float, target: float = USEFUL_ERROR) -> float | None:
    """The smallest ε (3 digits, rounded up) at which every column's one-way marginal is expected within
    ``target`` in total variation distance; None if no ε up to 100 does."""
    def worst(epsilon: float) -> float:
        cost = cost_of(mechanism, epsilon, delta, quick=True)
        return preview(cost, cells, schema, rows).worst or 0.0

    if worst(100.0) > target:
        return None
    low, high = math.log(1e-4), math.log(100.0)
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (low, middle) if worst(math.exp(middle)) <= target else (middle, high)
    epsilon = math.exp(high)
    exponent = math.floor(math.log10(epsilon)) - 2
    return math.ceil(epsilon / 10**exponent) * 10**exponent


def check_useful(mechanism: MechanismKind, epsilon: float, delta: float, cells: dict[str, int], schema: Schema,
                 rows: float, label: str) -> None:
    """Refuse an ε at which no one-way marginal would be useful, saying which ε gives them all within 5%."""
    cost = cost_of(mechanism, epsilon, delta, quick=True)
    shown = preview(cost, cells, schema, rows)
    best = min(d for _, d in shown.distances)
    if best <= NOT_USEFUL_ERROR:
        return
    needed = epsilon_for_distance(mechanism, delta, cells, schema, rows)
    advice = (f"With ε = {needed:g} every one-way marginal would be expected within {USEFUL_ERROR:.0%} (in total "
              "variation distance)" if needed is not None else
              "No ε up to 100 keeps them all within 5%: leave out columns, merge categories or widen the intervals")
    raise BudgetError(
        f"'{label}': at ε = {epsilon:g} the noise would swamp every column (even the best one-way marginal is expected "
        f"{best:.0%} from the truth, in total variation distance, at {rows:,.0f} rows). {advice}. Give it more of the "
        "budget, or fewer cells."
    )
