"""How long composing 1,000 released statistics takes, and whether its ε agrees with dp-accounting's.

A ledger's history of 1,000 statistics (a few dozen distinct settings, Laplace and Gaussian,
scalars and vectors) is composed by our ``compose`` (basic, zCDP and PLD accounting, the
tightest kept), cold: no cached answer reused. The baseline is dp-accounting fed the same
events as the PLDs it offers for them (discrete Laplace, discrete Gaussian, and for a vector
the worst case of its (ε, δ), as ours; a sum's sensitivity of 2^32 grid steps is more than it
can enumerate, so there its continuous Laplace PLD, the limit of the discrete one), composed one event at a time as its ``PLDAccountant``
does, in the same run. Targets: at most 250 ms, and our PLD ε within 1% of dp-accounting's.

    .venv/bin/python -m benchmarks.compose_1000
"""

from __future__ import annotations

import random
import time

from benchmarks.results import Result
from workbench.core.privacy import privacy_loss
from workbench.core.privacy.accounting import zcdp_epsilon
from workbench.core.privacy.composition import compose
from workbench.core.privacy.events import MechanismEvent
from workbench.core.privacy.mechanisms import MechanismKind, calibrate

DELTA = 1e-6


def history(n: int, seed: int = 1) -> list[MechanismEvent]:
    """n released statistics as a busy statistician makes them: a few dozen distinct settings."""
    rng = random.Random(seed)
    events = []
    for i in range(n):
        epsilon = rng.choice([0.005, 0.01, 0.02, 0.05])
        if rng.random() < 0.7:
            sensitivity = rng.choice([1, 2, 8, 2**32])
            noise = calibrate(MechanismKind.LAPLACE, sensitivity, epsilon)
        else:
            sensitivity = rng.choice([1, 8])
            noise = calibrate(MechanismKind.GAUSSIAN, sensitivity, epsilon, 1e-9)
        events.append(MechanismEvent.from_noise(f"s{i}", noise, 1.0, scalar=rng.random() < 0.8))
    return events


def _clear_caches() -> None:
    for cache in (privacy_loss._event_pld, privacy_loss._composition, zcdp_epsilon):
        cache.cache_clear()  # cold: no earlier answer reused


def timed(function, repeat: int = 3) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        _clear_caches()
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def dp_accounting_epsilon(events: list[MechanismEvent]) -> float:
    """dp-accounting's PLD of every event, composed one after another (as its PLDAccountant does)."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    interval = privacy_loss.grid_interval(events)  # the grid ours is computed on
    for event in events:
        key = privacy_loss._key(event)
        mechanism, steps, scale = key[:3]
        if mechanism == "laplace" and steps > 10_000:  # too many integers to enumerate: the continuous limit
            part = pld.from_laplace_mechanism(scale / steps, value_discretization_interval=interval)
        elif mechanism == "laplace":
            part = pld.from_discrete_laplace_mechanism(
                1.0 / scale, sensitivity=steps, value_discretization_interval=interval)
        elif mechanism == "gaussian" and scale <= privacy_loss._MAX_GAUSSIAN_SIGMA:
            part = pld.from_discrete_gaussian_mechanism(
                scale, sensitivity=steps, value_discretization_interval=interval)
        else:
            part = pld.from_privacy_parameters(
                common.DifferentialPrivacyParameters(event.epsilon, event.delta), interval)
        total = part if total is None else total.compose(part)
    return total.get_epsilon_for_delta(DELTA)


def measure(n: int = 1000, baseline_repeats: int = 1) -> dict[str, float | str]:
    import dp_accounting  # noqa: F401  (imported before any clock starts, on both sides)

    events = history(n)
    ours_time, ours = timed(lambda: compose(events, delta=DELTA))
    pld_time, pld_epsilon = timed(lambda: privacy_loss.composed_epsilon(events, DELTA))
    quick_time, quick = timed(lambda: compose(events, delta=DELTA, tight=False))
    base_time, base = timed(lambda: dp_accounting_epsilon(events), repeat=baseline_repeats)
    return {
        "n": n, "basic": sum(e.epsilon for e in events), "ours_seconds": ours_time, "ours_epsilon": ours.epsilon,
        "ours_method": ours.method.split(" (")[0], "pld_seconds": pld_time, "pld_epsilon": pld_epsilon,
        "quick_seconds": quick_time, "quick_epsilon": quick.epsilon, "baseline_seconds": base_time,
        "baseline_epsilon": base,
    }


def run(quick: bool = False) -> list[Result]:
    m = measure(1000)
    note = (f"δ = {DELTA:g}; kept: {m['ours_method']}, ε = {m['ours_epsilon']:.4g} "
            f"(basic composition: {m['basic']:.3g})")
    return [
        Result("compose 1,000 statistics: time", m["ours_seconds"] * 1e3, m["baseline_seconds"] * 1e3, "ms",
               "dp-accounting PLD, event by event", max_value=250.0, note=note),
        Result("compose 1,000 statistics: PLD ε", m["pld_epsilon"], m["baseline_epsilon"], "ε",
               "dp-accounting PLD", min_ratio=0.99, max_ratio=1.01, note="the same events, the same grid"),
    ]


def main() -> None:
    m = measure(1000)
    print(f"1,000 statistics, δ = {DELTA:g}; basic composition would give ε = {m['basic']:.3g}")
    print(f"  ours, tightest ({m['ours_method']}): ε = {m['ours_epsilon']:.4g} in {m['ours_seconds'] * 1e3:.0f} ms")
    print(f"  ours, PLD alone: ε = {m['pld_epsilon']:.4g} in {m['pld_seconds'] * 1e3:.0f} ms")
    print(f"  ours, quick (no PLD): ε = {m['quick_epsilon']:.4g} in {m['quick_seconds'] * 1e3:.1f} ms")
    print(f"  baseline, dp-accounting PLD event by event: ε = {m['baseline_epsilon']:.4g} "
          f"in {m['baseline_seconds'] * 1e3:.0f} ms")
    print(f"  ratio ours / baseline: time {m['ours_seconds'] / m['baseline_seconds']:.3f}, "
          f"PLD ε {m['pld_epsilon'] / m['baseline_epsilon']:.4f}")


if __name__ == "__main__":
    main()
