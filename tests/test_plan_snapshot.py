"""The sample plan, and a plan with every statistic, compute what they computed before the core
was split into packages: exact answers, ε, δ, noise scales, error bounds and messages.

Numbers must agree to 12 significant digits, not to the last bit: the privacy-loss accountant convolves
with numpy's FFT, whose last bits depend on the CPU's vector instructions and numpy's build (the same
code gave ε = 2.69784895357694 on one machine and 2.6978489535769343 on another)."""

import json
import math

from plan_snapshot import SNAPSHOT, snapshot


def agree(now, recorded, where: str = "") -> None:
    """``now`` equals ``recorded``, floats to 12 significant digits; else fail naming where they differ."""
    if isinstance(recorded, float) and isinstance(now, (int, float)) and not isinstance(now, bool):
        assert math.isclose(now, recorded, rel_tol=1e-12, abs_tol=1e-300) or (math.isnan(now) and math.isnan(recorded)), \
            f"{where}: {now!r} != {recorded!r}"
    elif isinstance(recorded, dict) and isinstance(now, dict):
        assert now.keys() == recorded.keys(), f"{where}: keys {sorted(now)} != {sorted(recorded)}"
        for key in recorded:
            agree(now[key], recorded[key], f"{where}.{key}")
    elif isinstance(recorded, list) and isinstance(now, list):
        assert len(now) == len(recorded), f"{where}: {len(now)} items != {len(recorded)}"
        for index, (got, expected) in enumerate(zip(now, recorded)):
            agree(got, expected, f"{where}[{index}]")
    else:
        assert now == recorded, f"{where}: {now!r} != {recorded!r}"


def test_everything_but_the_noise_is_as_recorded():
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(snapshot(), ensure_ascii=False))
    for plan in ("sample", "every_kind"):
        agree(now[plan]["plan"], recorded[plan]["plan"], f"{plan}.plan")
        agree(now[plan]["guarantee"], recorded[plan]["guarantee"], f"{plan}.guarantee")
        agree(now[plan]["events"], recorded[plan]["events"], f"{plan}.events")
        for got, expected in zip(now[plan]["statistics"], recorded[plan]["statistics"], strict=True):
            agree(got, expected, f"{plan}.{expected.get('label')}")
    agree(now, recorded)


def test_the_comparison_catches_a_change_beyond_rounding():
    import pytest

    agree({"epsilon": 2.6978489535769343}, {"epsilon": 2.69784895357694})
    with pytest.raises(AssertionError, match="epsilon"):
        agree({"epsilon": 2.6978489}, {"epsilon": 2.69784895357694})
    with pytest.raises(AssertionError):
        agree({"count": 1001}, {"count": 1000})
