"""How long composing 1,000 released statistics takes, against dp-accounting's own accountant.

Issue 6 asks that composing a dataset's history of 1,000 statistics keep the GUI
interactive. Printed: our ``compose`` (basic, zCDP and PLD, the tightest kept), its quick
form without PLD (what a slider may call on every move), and the baseline, dp-accounting's
``PLDAccountant`` fed the same events as Laplace/Gaussian DpEvents, measured in the same run.

    .venv/bin/python benchmarks/compose_1000.py
"""

from __future__ import annotations

import random
import time

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

from workbench.core import privacy_loss
from workbench.core.accounting import MechanismEvent, compose, zcdp_epsilon
from workbench.core.mechanisms import MechanismKind, calibrate

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


def timed(function, repeat: int = 3) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        for cache in (privacy_loss._event_pld, privacy_loss._composed_epsilon, zcdp_epsilon):
            cache.cache_clear()  # cold: no earlier answer reused
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def baseline(events: list[MechanismEvent]) -> float:
    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=privacy_loss.INTERVAL)
    for e in events:
        if e.mechanism == "laplace":
            accountant.compose(dp_accounting.LaplaceDpEvent(noise_multiplier=e.scale / e.sensitivity))
        else:
            accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=e.scale / e.sensitivity))
    return accountant.get_epsilon(DELTA)


def main() -> None:
    events = history(1000)
    ours_time, ours = timed(lambda: compose(events, delta=DELTA))
    quick_time, quick = timed(lambda: compose(events, delta=DELTA, tight=False))
    base_time, base = timed(lambda: baseline(events))
    compose(events, delta=DELTA)
    start = time.perf_counter()
    compose(events, delta=DELTA)  # warm: the ledger asks again within one release
    warm_time = time.perf_counter() - start
    print(f"1,000 statistics, δ = {DELTA:g}; basic composition would give ε = {sum(e.epsilon for e in events):.3g}")
    print(f"  ours, tightest ({ours.method.split(' (')[0]}): ε = {ours.epsilon:.4g} in {ours_time * 1e3:.0f} ms")
    print(f"  ours, quick (no PLD): ε = {quick.epsilon:.4g} in {quick_time * 1e3:.1f} ms")
    print(f"  ours, asked again (cached): {warm_time * 1e3:.2f} ms")
    print(f"  baseline dp-accounting PLDAccountant (continuous mechanisms): ε = {base:.4g} in {base_time * 1e3:.0f} ms")
    print(f"  ratio ours / baseline: time {ours_time / base_time:.2f}, quick {quick_time / base_time:.3f}")


if __name__ == "__main__":
    main()
