"""The synthetic rows are drawn from the fitted model faithfully (``fit._draw``, post-processing): every clique's
counts within a row or two of the model's, also where the model's cliques make a cycle, and no relationship the
model does not have (two columns drawn given the same column stay independent given it). Private-PGM 1.1.0's own
draw fails both, which is why ``_draw`` exists; the last test shows that it still does (when it no longer does, an
OpenDP that pins a newer Private-PGM, the library's draw can be used again).

The models are fixed arrays and the draw is seeded: the tests are deterministic (no false failures)."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.synthetic.fit import _controlled, _draw

ROWS = 20_000


def _model(cliques: dict[tuple[str, ...], np.ndarray]):
    """A Markov random field with these log-potentials (and its exact marginals)."""
    import jax.numpy as jnp
    from mbi import CliqueVector, Domain, Factor, MarkovRandomField, marginal_oracles

    sizes: dict[str, int] = {}
    for clique, values in cliques.items():
        sizes.update(zip(clique, values.shape))
    domain = Domain(tuple(sizes), tuple(sizes.values()))
    potentials = CliqueVector(domain, list(cliques), {c: Factor(domain.project(c), jnp.asarray(v))
                                                       for c, v in cliques.items()})
    return MarkovRandomField(potentials=potentials, marginals=marginal_oracles.message_passing_stable(potentials),
                             total=ROWS)


def _cycle():
    """a-b-c-d-a (no chord: the junction tree adds one) and e hanging from a, strongly dependent potentials."""
    rng = np.random.default_rng(36)
    return _model({("a", "b"): rng.normal(0, 1.5, (4, 3)), ("b", "c"): rng.normal(0, 1.5, (3, 5)),
                   ("c", "d"): rng.normal(0, 1.5, (5, 2)), ("a", "d"): rng.normal(0, 1.5, (4, 2)),
                   ("a", "e"): rng.normal(0, 1.5, (4, 6))})


def _exact(model, clique) -> np.ndarray:
    from mbi import marginal_oracles

    return ROWS * np.asarray(marginal_oracles.variable_elimination(model.potentials, clique, 1.0).datavector(
        flatten=False), dtype=float)


def _counted(rows: dict[str, np.ndarray], clique, shape) -> np.ndarray:
    counts = np.zeros(shape)
    np.add.at(counts, tuple(np.asarray(rows[c]) for c in clique), 1)
    return counts


def test_every_clique_is_drawn_within_a_row_or_two_of_the_model_also_on_a_cycle():
    """Each column's count in a group of rows alike in the columns it is drawn given is off by less than one row
    from its expectation given the group, and so is its total over the groups (controlled rounding); a clique other
    than the one a column was drawn in adds the roundings of the groups it spans. Measured (three seeds): cliques at
    most 1.4 rows a cell off, one-way marginals at most 0.9 (rounding each group on its own gave one-way marginals
    a standard deviation of up to √G/2 rows, 2.2 here). The bounds: a mean under one row a cell, no cell of a
    clique 3 rows off, no cell of a one-way marginal 2 rows off."""
    model = _cycle()
    rows = _draw(model, ROWS, np.random.default_rng(1))
    assert all(len(v) == ROWS for v in rows.values())
    for clique in [*model.cliques, ("a",), ("b",), ("c",), ("d",), ("e",)]:
        exact = _exact(model, clique)
        off = np.abs(_counted(rows, clique, exact.shape) - exact)
        assert off.mean() < 1.0 and off.max() < (2.0 if len(clique) == 1 else 3.0), (clique, off)


def test_two_columns_drawn_given_the_same_column_stay_independent_given_it():
    """b and c depend on a only: within each value of a, the rows' b and c are not correlated."""
    rng = np.random.default_rng(7)
    model = _model({("a", "b"): rng.normal(0, 1, (3, 6)), ("a", "c"): rng.normal(0, 1, (3, 6))})
    rows = _draw(model, ROWS, np.random.default_rng(2))
    for value in range(3):
        within = rows["a"] == value
        assert abs(np.corrcoef(rows["b"][within], rows["c"][within])[0, 1]) < 0.05


def _expected(rng: np.random.Generator, groups: int, cells: int) -> np.ndarray:
    """Expected counts of groups of whole sizes among cells: skewed shares, some cells empty in some groups."""
    weights = rng.random((groups, cells)) ** 3 * (rng.random((groups, cells)) < 0.8)
    weights[weights.sum(axis=1) == 0, 0] = 1.0
    sizes = rng.integers(0, 400, groups)
    return weights / weights.sum(axis=1, keepdims=True) * sizes[:, None]


def test_controlled_rounding_keeps_each_group_and_each_cells_total_within_a_row():
    """Each group split exactly, each count and each cell's total over the groups (the column's one-way marginal)
    off by less than one row from its expectation; with 1 to 60 groups and 1 to 15 cells, tiny and empty groups."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        expected = _expected(rng, int(rng.integers(1, 60)), int(rng.integers(1, 15)))
        counts = _controlled(expected, rng)
        assert counts.dtype.kind == "i" and np.all(counts >= 0)
        assert np.array_equal(counts.sum(axis=1), np.rint(expected.sum(axis=1)).astype(np.int64))
        assert np.all(np.abs(counts - expected) < 1)
        assert np.all(np.abs(counts.sum(axis=0) - expected.sum(axis=0)) < 1)


def test_controlled_rounding_keeps_each_counts_expectation():
    """Unbiased: over 20,000 roundings of one table each count's mean is its expectation (the standard error of a
    mean of 20,000 values each 0 or 1 above the floor is at most 0.0036; 0.02 is more than five of them)."""
    rng = np.random.default_rng(5)
    expected = _expected(rng, 6, 5)
    mean = sum(_controlled(expected, rng) for _ in range(20_000)) / 20_000
    assert np.all(np.abs(mean - expected) < 0.02), np.abs(mean - expected).max()


def test_rounding_each_group_on_its_own_is_what_the_one_way_test_catches():
    """The check above is not empty: a group-by-group randomised rounding (what ``_draw`` did before) keeps each
    group's counts but lets a cell's total over 60 groups drift past a row."""
    rng = np.random.default_rng(11)
    drifted = 0.0
    for _ in range(20):
        expected = _expected(rng, 60, 5)
        counts = np.floor(expected)
        for g, row in enumerate(expected):
            fraction = row - counts[g]
            extra = int(round(fraction.sum()))
            if extra:
                counts[g, rng.choice(len(row), size=extra, replace=False, p=fraction / fraction.sum())] += 1
        drifted = max(drifted, float(np.abs(counts.sum(axis=0) - expected.sum(axis=0)).max()))
    assert drifted >= 1


def test_private_pgm_1_1_0s_own_draw_still_fails_both():
    """Why ``_draw`` is ours: the library's draw leaves a column of the cycle unconditioned and makes two columns
    drawn given the same one rise together."""
    np.random.seed(4)  # the library draws with numpy's global generator
    model = _cycle()
    rows = {k: np.asarray(v) for k, v in model.synthetic_data(ROWS, "round").df.items()}
    worst = max(np.abs(_counted(rows, c, _exact(model, c).shape) - _exact(model, c)).mean() for c in model.cliques)
    rng = np.random.default_rng(7)
    siblings = _model({("a", "b"): rng.normal(0, 1, (3, 6)), ("a", "c"): rng.normal(0, 1, (3, 6))})
    drawn = {k: np.asarray(v) for k, v in siblings.synthetic_data(ROWS, "round").df.items()}
    within = drawn["a"] == 0
    together = abs(np.corrcoef(drawn["b"][within], drawn["c"][within])[0, 1])
    assert worst > 10.0 and together > 0.3, (worst, together)  # if not, a fixed Private-PGM: use its draw again
