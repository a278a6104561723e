"""The half-width of two noises combined is the number thirty plain halvings find, to the bit, in fewer evaluations.

``combined_halfwidth`` decides most halvings from points already evaluated (its miss never grows with t) and finds
those points by secant steps; these tests hold it to the plain search it replaced, evaluating miss at every middle.
"""

import math
import random

import pytest

from workbench.core.privacy import accuracy
from workbench.core.privacy.accuracy import HALVINGS, combined_halfwidth


def plain_halvings(kind: str, scale_a: float, a: float, scale_b: float, b: float, confidence: float) -> float:
    """The search as it was: miss evaluated at each of the thirty middles of [0, union bound]."""
    beta = 1.0 - confidence
    width = accuracy.discrete_laplace_halfwidth if kind == "laplace" else accuracy.discrete_gaussian_halfwidth
    each = accuracy.split_confidence(confidence, 2)
    union = a * width(scale_a, each) + b * width(scale_b, each)
    cut = beta * 1e-4
    magnitude, mass = accuracy._folded_magnitudes(kind, scale_b, cut)
    miss = accuracy._miss(kind, scale_a, a, b * magnitude, mass, cut)
    low, high = 0.0, union
    if miss(high) > beta:
        return union
    for _ in range(HALVINGS):
        middle = (low + high) / 2
        low, high = (low, middle) if miss(middle) <= beta else (middle, high)
    return high


def means_noises() -> list[tuple]:
    """What means ask for: a sum's noise on a fine grid (2^-25 of the range) and a count's, over ε from 0.01 to 10,
    each mechanism, offsets from the centre to half the range."""
    cases = []
    for epsilon in (0.01, 0.013, 0.05, 0.2, 0.7, 1.0, 3.3, 10.0):
        for kind in ("laplace", "gaussian"):
            for half_range in (3.5, 50.0, 250_000.0):
                unit = 2 * half_range * 2.0 ** -25
                scale_sum = 2 * half_range / unit / epsilon * (3.1 if kind == "gaussian" else 1.0)
                scale_count = 2 / epsilon * (3.9 if kind == "gaussian" else 1.0)
                for offset in (half_range, half_range / 7, half_range / 1000):
                    cases.append((kind, scale_sum, unit, scale_count, offset, 0.95))
    return cases


def odd_noises(count: int = 300) -> list[tuple]:
    """Scales, weights and confidences far from a mean's too: one noise coarse, or far wider than the other."""
    draw = random.Random(39)  # fixed: the same cases on every run
    cases = []
    for _ in range(count):
        scale_a, a, scale_b = 10 ** draw.uniform(-0.5, 13.5), 10 ** draw.uniform(-9, 3), 10 ** draw.uniform(-0.5, 5)
        b = 10 ** draw.uniform(-3, 6) * a * scale_a / scale_b * draw.choice([1, 1e-3, 1e3])
        cases.append((draw.choice(["laplace", "gaussian"]), scale_a, a, scale_b, b, draw.choice([0.8, 0.9, 0.95, 0.99])))
    return cases


def evaluations(arguments: tuple, monkeypatch) -> int:
    """How many times miss is evaluated for one half-width (uncached)."""
    counted = [0]
    miss = accuracy._miss

    def counting(*parts):
        evaluate = miss(*parts)

        def counted_miss(t: float) -> float:
            counted[0] += 1
            return evaluate(t)

        return counted_miss

    monkeypatch.setattr(accuracy, "_miss", counting)
    combined_halfwidth.__wrapped__(*arguments)
    monkeypatch.undo()
    return counted[0]


@pytest.mark.parametrize("cases", [means_noises(), odd_noises()], ids=["means", "odd"])
def test_the_half_width_is_the_plain_halvings_to_the_bit(cases):
    for arguments in cases:
        found = combined_halfwidth.__wrapped__(*arguments)
        assert found == plain_halvings(*arguments), arguments
        assert math.isfinite(found) and found > 0


def test_a_means_half_width_takes_a_third_of_the_evaluations(monkeypatch):
    """Thirty-one evaluations before (the union bound and thirty middles); the ε slider asks for five means' half-widths
    at every move."""
    counts = [evaluations(arguments, monkeypatch) for arguments in means_noises()]
    assert sum(counts) / len(counts) <= (1 + HALVINGS) / 3, counts
    assert max(counts) <= 1 + HALVINGS, counts


def test_odd_noises_cost_fewer_evaluations_on_average_and_at_most_the_secant_steps_more(monkeypatch):
    """Where miss is too steppy for secant steps (a coarse noise much wider than the other), they stop after two that
    neither halve the bracket nor come much nearer the crossing."""
    counts = [evaluations(arguments, monkeypatch) for arguments in odd_noises(100)]
    assert sum(counts) / len(counts) < 1 + HALVINGS, counts
    assert max(counts) <= 1 + HALVINGS + accuracy._SECANT_STEPS, counts
