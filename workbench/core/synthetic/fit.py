"""Release a synthetic table: OpenDP's contingency table on the prepared rows, rows drawn from its model.

1. **What OpenDP reads.** The engine that prepared the data (numpy in memory, DuckDB out of core, Spark)
   counts the rows in every combination of the columns' public cells, one exact aggregate like a
   cross-tabulation's (``Aggregate``): each value read by itself (``core/data/reading.py``), each person's
   first k rows, numeric values clamped and cut at the public edges, rows missing a column or outside a
   list that drops them left out. These counts are turned back into rows of cell numbers (a Polars
   LazyFrame) for OpenDP. So OpenDP sees exactly what every statistic sees, from the same reading rule,
   whichever engine read the file: no second reader (Polars' own CSV reader infers a column's type from
   all of its values, which DESIGN rule 3 forbids), and a file larger than memory is aggregated by DuckDB
   or Spark without being loaded.
2. **The measurement.** ``opendp.extras.mbi.make_contingency_table`` with every column's public cells as
   cuts of its cell numbers (so no cell is discovered from the data, and the release is pure zCDP or pure
   ε-DP), MST or AIM, a person's distance of k rows (2k under substitute). Its privacy map is OpenDP's; the
   map is checked against the budget before the data are touched. Relationships the user asked to keep are
   measured first (``Fixed``), then the algorithm chooses the rest (``Sequential``).
3. **The rows** are drawn from the fitted Private-PGM model (post-processing), by controlled rounding along its
   junction tree (``_draw``: Private-PGM 1.1.0's own draw has two faults, fixed after that release). The model
   has only the columns' public cells (OpenDP adds a missing-value cell to a keyed column only: such a column is
   conditioned on lying in its public cells before rows are drawn). A numeric cell is written as its interval,
   or as a value drawn uniformly inside it.
4. **Quality**: for every one-way marginal and every marginal the algorithm measured, the total variation
   distance between the synthetic rows' marginal and the noisy measured one (both are DP outputs: no
   private value is compared). The private rows are never compared with anything.

Polars, Private-PGM and JAX are imported here only, when a synthetic table is released: the app starts
without them.
"""

from __future__ import annotations

import math
import secrets
import warnings
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from workbench.core.data import Schema
from workbench.core.data.aggregates import Aggregate, Answer, Engine
from workbench.core.errors import BudgetError, Cancelled, FailedAfterNoise, WorkbenchError, noise_drawn
from workbench.core.process_exit import stops_deferred
from workbench.core.synthetic.budget import SyntheticCost, rows_per_person
from workbench.core.synthetic.result import Marginal, SyntheticResult
from workbench.core.synthetic.table import MAX_ROWS, Axis, SyntheticTable

# said at once on Ctrl+C during OpenDP's fit, which cannot be interrupted (``stops_deferred``)
FIT_INTERRUPTED = ("Stopping once OpenDP's fit ends: it cannot be interrupted. Its noise has been drawn, so the "
                   "release will be charged to the ledger, with nothing shown.")
RETRIES = 5  # attempts at a budget a few units in the last place smaller, for OpenDP's rounding (MST only)
NULL_LOG_POTENTIAL = -1e30  # the model's log-potential of a value outside the public cells: probability 0


def _joint_counts(engine: Engine, axes: tuple[Axis, ...]) -> Answer:
    """The prepared rows counted in every combination of the columns' public cells (complete rows only)."""
    return engine.aggregate(Aggregate(rows=tuple(a.name for a in axes), parts=tuple(a.part for a in axes)))


def _rows_frame(answer: Answer, axes: tuple[Axis, ...]):
    """A Polars LazyFrame with one row per prepared row: each column's cell number (UInt32). It is lazy, but OpenDP
    collects it whole: four bytes per row and column while it measures (its counts take one row per record, never a
    count column: the stability of ``pl.len()`` is in rows).

    A cell counted zero times is left out before the expansion: Polars explodes an empty repetition into one row of
    nulls, which OpenDP would count as a record in every column's missing-value cell (an ``Answer`` lists only cells
    that hold rows, so no engine gives one today; this keeps it so)."""
    import polars as pl

    sizes = [len(axis.labels) for axis in axes]
    strides = [math.prod(sizes[i + 1:]) for i in range(len(sizes))]
    cells = pl.LazyFrame({"cell": np.asarray(answer.cells, dtype=np.int64),
                          "count": np.asarray([int(t) for t in answer.totals], dtype=np.int64)})
    cells = cells.filter(pl.col("count") > 0)
    rows = cells.select(pl.col("cell").repeat_by(pl.col("count"))).explode("cell")
    return rows.select([((pl.col("cell") // stride) % size).cast(pl.UInt32).alias(axis.name)
                        for axis, stride, size in zip(axes, strides, sizes)])


MST_FIT_ITERATIONS = 3000  # Private-PGM's mirror descent: its default of 1000 stops before the fit converges


def _fitted(domain, loss_fn, *, potentials=None):
    """The model fitted to the noisy marginals (post-processing), by Private-PGM's mirror descent as OpenDP's default
    estimator runs it, with 3,000 iterations rather than 1,000. Measured on the benchmark's survey (100,000 rows, 8
    columns, ε = 1, the same noisy marginals refitted): the one-way marginals' distance to the real table fell by 4
    to 18% (1,000 iterations leave the fit short of its optimum; 10,000 gave no more), for about 0.3 ms an
    iteration, where compiling the fit takes seconds. For MST only: AIM fits again after every round."""
    from mbi.estimation import mirror_descent

    return mirror_descent(domain, loss_fn, potentials=potentials, iters=MST_FIT_ITERATIONS)


def _algorithm(table: SyntheticTable):
    from opendp.extras import mbi

    chosen = mbi.MST(estimator=_fitted) if table.algorithm == "mst" else mbi.AIM()
    if not table.keep:
        return chosen
    fixed = mbi.Fixed(queries=[mbi.Count(group) for group in table.keep])
    return mbi.Sequential(algorithms=[fixed, chosen], weights=[len(table.keep), len(table.columns) - 1])


@dataclass(frozen=True)
class MeasurementInputs:
    """What OpenDP's measurement is built from, all public: the domain of rows of cell numbers, the distance one
    person moves them (k rows, 2k under substitute), the measure and budget, and each column's cells as ``cuts``
    (cell numbers 0…c−1 cut after 0, 1, …, c−2: c bins) or, for a column of one cell, as ``keys``.

    Cuts rather than keys because OpenDP adds a cell for a missing value to every keyed column and measures it with
    the others; no prepared row is missing, so that cell is noise alone, in every marginal the column is in (a
    two-way marginal of 5 × 5 cells measured as 6 × 6), and the fitted model spreads that noise over the real
    cells. A cut column has exactly its c cells. Measured on the benchmark's survey: the one-way marginals' distance
    to the real table fell by about a tenth. The privacy map is the same (each row is in one cell of each
    marginal either way)."""

    domain: Any
    metric: Any
    measure: Any
    d_in: list
    budget: float
    cuts: dict[str, list[int]]
    keys: dict[str, list[int]]


def measurement_inputs(axes: tuple[Axis, ...], schema: Schema, cost: SyntheticCost) -> MeasurementInputs:
    # OpenDP's modules by name: ``opendp.prelude`` would also import scikit-learn and the other extras
    from opendp.domains import atom_domain, lazyframe_domain, series_domain
    from opendp.extras.polars import Bound
    from opendp.measures import max_divergence, zero_concentrated_divergence
    from opendp.metrics import frame_distance, symmetric_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return MeasurementInputs(
        domain=lazyframe_domain([series_domain(a.name, atom_domain(T="u32")) for a in axes]),
        metric=frame_distance(symmetric_distance()),
        measure=zero_concentrated_divergence() if cost.rho is not None else max_divergence(),
        d_in=[Bound(per_group=rows_per_person(schema))],
        budget=cost.budget,
        cuts={a.name: list(range(len(a.labels) - 1)) for a in axes if len(a.labels) > 1},
        keys={a.name: [0] for a in axes if len(a.labels) <= 1},
    )


def _prior(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _added_up(a: float, b: float) -> float:
    """a + b rounded towards +∞, as OpenDP adds privacy losses."""
    exact = Fraction(a) + Fraction(b)
    nearest = float(exact)
    return nearest if Fraction(nearest) >= exact else math.nextafter(nearest, math.inf)


def _mst_budget_fits(budget: float, columns: int) -> bool:
    """Whether OpenDP 0.16's MST can spend ``budget`` without refusing itself: it splits its selection budget d into
    n = columns - 1 equal parts, each the float below d / n, and their sum rounded up can exceed d by one unit in the
    last place ("insufficient budget for query"). The same arithmetic as make_contingency_table and MST, on public
    numbers only."""
    multiway = _prior(_prior(budget - budget * 0.5))
    select = _prior(_prior(multiway - multiway * 0.9))
    part, total = _prior(select / (columns - 1)), 0.0
    for _ in range(columns - 1):
        total = _added_up(total, part)
    return total <= select


def workable_budget(table: SyntheticTable, budget: float) -> float:
    """The budget itself, or the nearest below it (within a millionth) that OpenDP's MST spends without refusing
    itself for rounding (``_mst_budget_fits``); the ledger is charged the budget planned, never less."""
    if table.algorithm != "mst" or table.keep:
        return budget
    for step in range(1000):
        candidate = budget * (1 - 1e-9 * step)
        if _mst_budget_fits(candidate, len(table.columns)):
            return candidate
    return budget


def measurement(table: SyntheticTable, axes: tuple[Axis, ...], schema: Schema, cost: SyntheticCost,
                budget: float | None = None):
    """OpenDP's contingency-table measurement for these public cells (touches no data), its one-way scale, and the
    person's distance it is for. Refuses if OpenDP's privacy map states more than the budget."""
    from opendp.extras import mbi

    inputs = measurement_inputs(axes, schema, cost)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made, scale, _threshold = mbi.make_contingency_table(
            inputs.domain, inputs.metric, inputs.measure, d_in=inputs.d_in,
            d_out=workable_budget(table, inputs.budget) if budget is None else budget, cuts=inputs.cuts,
            keys=inputs.keys,
            algorithm=_algorithm(table))
    stated = made.map(inputs.d_in)
    if stated > cost.budget:  # no tolerance: the charge must cover what OpenDP states (it is built for less)
        raise BudgetError(f"{table.label}: OpenDP's privacy map states {stated:g}, more than the {cost.budget:g} "
                          "planned. Nothing was released.")
    return made, (math.nan if scale is None else float(scale)), inputs.d_in


def release_synthetic(table: SyntheticTable, schema: Schema, engine: Engine, cost: SyntheticCost,
                      progress: Callable[[str], None] | None = None) -> SyntheticResult:
    """Measure, fit and draw the synthetic table from ``engine``'s prepared rows. The noisy answers exist only
    here until the caller has charged the ledger."""
    say = progress or (lambda _words: None)
    axes = table.axes(schema)
    say("counting the rows in each combination of cells")
    rows = _rows_frame(_joint_counts(engine, axes), axes)
    budget = workable_budget(table, cost.budget)
    for attempt in range(RETRIES + 1):
        say("building OpenDP's measurement")
        made, scale, _ = measurement(table, axes, schema, cost, budget)
        say(f"measuring the marginals and fitting the model ({table.algorithm.upper()})")
        noise_drawn()  # from here a stop is charged: how long the fit takes may depend on the noisy marginals
        try:
            with warnings.catch_warnings(), stops_deferred(FIT_INTERRUPTED):
                warnings.simplefilter("ignore")
                contingency = made(rows)
            break
        except Cancelled:
            raise
        except Exception as exc:  # OpenDP raises its own exception type through its callbacks
            if "insufficient budget" not in str(exc) or table.algorithm != "mst" or attempt == RETRIES:
                # the marginals may have been measured already, and the stop may depend on their noisy values
                raise FailedAfterNoise(f"{table.label}: OpenDP stopped the release ({_first_line(exc)}).") from None
            # MST's budget arithmetic depends on public numbers only: the stop says nothing about the data, and the
            # stopped attempt's values are dropped unseen. A budget a little smaller (never charged less) avoids it.
            budget *= 1 - 1e-9 * (attempt + 1)
    try:
        return _drawn(table, axes, contingency, scale, cost, say)
    except (Cancelled, FailedAfterNoise):
        raise
    except Exception as exc:  # noqa: BLE001 - whatever stops it now stops it after the noise was drawn
        raise FailedAfterNoise(f"{table.label}: the synthetic rows could not be drawn ({_first_line(exc)}).") from None


def _drawn(table: SyntheticTable, axes: tuple[Axis, ...], contingency: Any, scale: Any, cost: SyntheticCost,
           say: Callable[[str], None]) -> SyntheticResult:
    """The rows drawn from the fitted model, with the quality of each measured marginal (post-processing)."""
    model = _conditioned(contingency.model, axes)
    counted = float(model.total)
    wanted = table.rows if table.rows is not None else max(1, int(round(counted)))
    capped = table.rows is None and wanted > MAX_ROWS
    wanted = min(wanted, MAX_ROWS)
    # words heard before the charge: a number of rows counted by the model is a noisy count, never said then (the
    # release is charged however it ends now, but its progress stays public); one the plan gives is public
    say("drawing the rows" if table.rows is None else f"drawing {wanted:,} rows")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        codes = _draw(model, wanted, np.random.default_rng(secrets.randbits(128)))
    codes = {a.name: codes[a.name] for a in axes}
    if any(int(c.max(initial=0)) >= len(a.labels) for a, c in zip(axes, codes.values())):
        raise FailedAfterNoise(f"{table.label}: the fitted model drew a value outside the public cells.")
    marginals = _quality(contingency.marginals, axes, codes, scale, cost, dict(contingency.model.domain.config))
    frame = _values(axes, codes, table.numeric_values)
    return SyntheticResult(table, frame, marginals, scale, counted, capped)


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return next((line for line in lines if "insufficient" in line or "Error" in line), lines[-1] if lines else repr(exc))


def _conditioned(model, axes: tuple[Axis, ...]):
    """The model conditioned on every column lying in its public cells: OpenDP's extra cell for a missing value
    (the last of a keyed column, one of a single cell) gets probability 0. Post-processing of the fitted model."""
    import jax.numpy as jnp
    from mbi import MarkovRandomField

    potentials = model.potentials
    arrays = dict(potentials.arrays)
    for axis in axes:
        if potentials.domain.size(axis.name) == len(axis.labels):
            continue  # a cut column: its cells only
        clique = next(c for c in potentials.cliques if axis.name in c)
        factor = arrays[clique]
        where = [slice(None)] * len(clique)
        where[clique.index(axis.name)] = len(axis.labels)  # the missing-value cell
        arrays[clique] = type(factor)(factor.domain, jnp.asarray(factor.values).at[tuple(where)].set(NULL_LOG_POTENTIAL))
    conditioned = type(potentials)(potentials.domain, list(potentials.cliques), arrays)
    return MarkovRandomField(potentials=conditioned, marginals=model.marginals, total=model.total)


def _draw(model, rows: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``rows`` rows drawn from the fitted model, each column's cell numbers (post-processing of the DP output).

    Column by column along the model's junction tree (Private-PGM's own: its elimination order, its maximal cliques,
    its marginals by message passing): a column is drawn given the columns already drawn that share a maximal
    clique with it, which separate it from all the others. Within each group of rows alike in those columns, the
    group's rows are split among the column's cells in proportion to the model's conditional shares, each count
    rounded down or up at random so that the counts add up to the group and, summed over the groups, each cell of
    the column is off by less than one row from its expectation (``_controlled``), and the cells are dealt to the
    group's rows in random order.

    Written here rather than calling ``MarkovRandomField.synthetic_data(rows, "round")`` because Private-PGM 1.1.0
    (the version OpenDP 0.16 pins) draws wrongly in two ways, both fixed upstream after that release (mbi pull
    request 145): it conditions a column on the model's own cliques, not the junction tree's, so where those
    cliques make a cycle (a relationship kept beside MST's tree) a column it depends on is left out (a survey's age
    marginal landed 150 rows a cell from the model's in 13,000 rows, thirty times the rounding); and it deals a
    group's cells to its rows in the rows' order, so two columns drawn given the same columns are made to rise
    together (marital status and tenure correlated 0.70 within age groups, region and sex 0.59, where the model
    has them independent)."""
    from mbi import junction_tree, marginal_oracles

    tree, elimination = junction_tree.make_junction_tree(model.domain, [set(c) for c in model.cliques])
    cliques = [set(c) for c in tree.nodes]
    marginals = marginal_oracles.message_passing_stable(model.potentials.expand(list(tree.nodes)))
    drawn: dict[str, np.ndarray] = {}
    for column in reversed(elimination):
        given = tuple(n for n in model.domain.attributes if n in drawn and any({n, column} <= c for c in cliques))
        joint = np.asarray(marginals.project(given + (column,)).datavector(flatten=False), dtype=float)
        shares = joint.reshape(-1, joint.shape[-1])  # a row per combination of the given columns
        group = (np.ravel_multi_index(tuple(drawn[n] for n in given), joint.shape[:-1]) if given
                 else np.zeros(rows, dtype=np.int64))
        order = np.argsort(group, kind="stable")
        present, starts, sizes = np.unique(group[order], return_index=True, return_counts=True)
        alone = shares.sum(axis=0)  # the column's own shares: for a group whose shares underflowed to zero
        weights = np.array([shares[g] if shares[g].sum() > 0 else alone for g in present]).reshape(len(present), -1)
        if not np.all(weights.sum(axis=1) > 0):
            raise ValueError("the model gives no probability to a combination it drew")
        counts = _controlled(weights / weights.sum(axis=1, keepdims=True) * sizes[:, None], rng)
        values = np.empty(rows, dtype=np.int64)
        for split, start, size in zip(counts, starts, sizes):
            values[order[start:start + size]] = rng.permutation(np.repeat(np.arange(len(split)), split))
        drawn[column] = values
    return drawn


_WHOLE = 1e-9  # a fraction this close to 0 or 1 is taken as whole (the floating-point error of the shares)


def _controlled(expected: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Expected counts (a row per group of rows, each adding up to the group's size) rounded to whole counts: each
    cell down or up at random, up with probability its fraction (so each count's expectation is kept), each group's
    counts adding up to the group, and each column of cells, summed over the groups (the column's own marginal),
    off by less than one row from its expectation.

    Rounding each group on its own keeps the first two but lets a one-way marginal drift by a row for every few
    groups. This is dependent rounding on the bipartite graph of groups and cells (Gandhi, Khuller, Parthasarathy
    and Srinivasan, J. ACM 53, 2006): the fractional cells form a graph; a cycle, or a path between two vertices
    with one fractional cell each, is found and its cells moved alternately up and down by a step chosen at random
    (so that each cell's expectation is kept) until one of them is whole; every inner vertex's sum is unchanged. A
    group's fractions add up to a whole number, so a group is never a path's end and its sum never changes; a
    column's sum changes only while it has one fractional cell left, which stays within (0, 1)."""
    counts = np.floor(expected)
    fraction = expected - counts
    counts[fraction >= 1 - _WHOLE] += 1
    fraction[(fraction <= _WHOLE) | (fraction >= 1 - _WHOLE)] = 0.0
    groups = fraction.shape[0]
    neighbours: list[set[int]] = [set() for _ in range(sum(fraction.shape))]
    for g, j in zip(*np.nonzero(fraction)):
        neighbours[g].add(groups + int(j))
        neighbours[groups + int(j)].add(int(g))

    def move(walk: list[int]) -> None:
        """The cells along a cycle or an end-to-end path moved alternately up and down until one is whole."""
        cells = [(min(a, b), max(a, b) - groups) for a, b in zip(walk, walk[1:])]
        values = [float(fraction[c]) for c in cells]
        up = min(min(1 - v for v in values[0::2]), min(values[1::2], default=1.0))  # the largest step up, down, up…
        down = min(min(values[0::2]), min((1 - v for v in values[1::2]), default=1.0))  # and down, up, down…
        step = up if rng.random() * (up + down) < down else -down
        moved = [v + step if i % 2 == 0 else v - step for i, v in enumerate(values)]
        for (g, j), value in zip(cells, moved):
            if _WHOLE < value < 1 - _WHOLE:
                fraction[g, j] = value
                continue
            counts[g, j] += value >= 1 - _WHOLE
            fraction[g, j] = 0.0
            neighbours[g].discard(groups + j)
            neighbours[groups + j].discard(g)

    walk: list[int] = []  # a path of fractional cells, kept from one move to the next
    seen: dict[int, int] = {}
    scan = 0
    while True:
        if not walk:
            while scan < len(neighbours) and not neighbours[scan]:
                scan += 1
            if scan == len(neighbours):
                break
            walk, seen = [scan], {scan: 0}
        here, previous = walk[-1], (walk[-2] if len(walk) > 1 else -1)
        if len(neighbours[here]) < len(walk):
            back = max((seen[n] for n in neighbours[here] if n != previous and n in seen), default=None)
        else:  # a column's vertex may have thousands of groups: look along the walk instead
            back = next((i for i in range(len(walk) - 4, -1, -2) if walk[i] in neighbours[here]), None)
        if back is not None:  # the shortest cycle closing here
            move(walk[back:] + [walk[back]])
            for vertex in walk[back + 1:]:
                del seen[vertex]
            del walk[back + 1:]
            continue
        step = next((n for n in neighbours[here] if n != previous), None)
        if step is not None:
            seen[step] = len(walk)
            walk.append(step)
        elif len(walk) == 1:
            walk, seen = [], {}
        elif len(neighbours[walk[0]]) > 1:  # a path must run between two vertices with one fractional cell each
            walk.reverse()
            seen = {v: i for i, v in enumerate(walk)}
        else:
            move(walk)
            walk, seen = [], {}
    whole = counts.astype(np.int64)
    for g, size in enumerate(np.rint(expected.sum(axis=1)).astype(np.int64)):
        while whole[g].sum() != size:  # floating-point error only: the group's size is kept whatever it is
            gap = expected[g] - whole[g]
            cell = int(np.argmax(gap)) if whole[g].sum() < size else int(np.argmin(np.where(whole[g] > 0, gap, np.inf)))
            whole[g, cell] += 1 if whole[g].sum() < size else -1
    return whole


def _quality(measured, axes: tuple[Axis, ...], codes: dict[str, np.ndarray], scale: float,
             cost: SyntheticCost, model_sizes: dict[str, int]) -> tuple[Marginal, ...]:
    """Every measured marginal (the one-way ones first) beside the synthetic rows' marginal (``model_sizes``: each
    column's cells in OpenDP's model, one more than its public cells where OpenDP added a missing-value cell)."""
    by_name = {a.name: a for a in axes}
    out = []
    for clique in sorted(measured.cliques(), key=lambda c: (len(c), [list(by_name).index(n) for n in c])):
        if not clique:
            continue
        shape = tuple(len(by_name[n].labels) for n in clique)
        total, weight, noise = np.zeros(shape), 0.0, []
        for m in measured.by_clique[clique]:
            values = np.asarray(m.noisy_measurement, dtype=float)
            measured_shape = tuple(s + (model_sizes[n] > s) for n, s in zip(clique, shape))  # a keyed column's null
            if values.size != math.prod(measured_shape):
                continue  # a partial (prefix) measurement: none is made with public cells for every column
            inverse = 1.0 / float(m.stddev) ** 2
            total += inverse * values.reshape(measured_shape)[tuple(slice(0, s) for s in shape)]
            weight += inverse
            noise.append(float(m.stddev))
        if not weight:
            continue
        noisy = np.clip(total / weight, 0, None).ravel()
        measured_shares = noisy / noisy.sum() if noisy.sum() > 0 else np.full(noisy.size, 1.0 / noisy.size)
        cell = np.zeros(len(next(iter(codes.values()))), dtype=np.int64)
        for name, size in zip(clique, shape):
            cell = cell * size + codes[name]
        counts = np.bincount(cell, minlength=math.prod(shape)).astype(float)
        synthetic = counts / counts.sum() if counts.sum() > 0 else counts
        labels = [" / ".join(parts) for parts in _combinations([by_name[n].labels for n in clique])]
        out.append(Marginal(tuple(clique), tuple(labels), tuple(float(v) for v in synthetic),
                            tuple(float(v) for v in measured_shares),
                            float(0.5 * np.abs(synthetic - measured_shares).sum()),
                            float(1.0 / math.sqrt(weight)), len(clique) == 1))
    return tuple(out)


def _combinations(lists: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [()]
    for labels in lists:
        out = [(*prefix, label) for prefix in out for label in labels]
    return out


def _values(axes: tuple[Axis, ...], codes: dict[str, np.ndarray], numeric_values: str) -> pd.DataFrame:
    """The synthetic rows as a table: each cell's label, or for a numeric column under "uniform" a value drawn
    uniformly in its interval (a whole number when the bounds and edges are whole numbers)."""
    rng = np.random.default_rng(secrets.randbits(128))  # post-processing of DP output: no privacy rests on it
    columns: dict[str, Any] = {}
    for axis in axes:
        index = codes[axis.name]
        if axis.numeric and numeric_values == "uniform":
            points = np.asarray(axis.points, dtype=float)
            low, high = points[index], points[index + 1]
            last = index == len(axis.labels) - 1  # the last interval holds its upper bound
            if axis.whole_numbers():
                columns[axis.name] = rng.integers(low.astype(np.int64), high.astype(np.int64) + last.astype(np.int64))
            else:
                columns[axis.name] = low + (high - low) * rng.random(len(index))
        else:
            columns[axis.name] = pd.Categorical.from_codes(index, categories=list(axis.labels))
    return pd.DataFrame(columns)
