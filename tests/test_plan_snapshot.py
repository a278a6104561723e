"""The sample plan, and a plan with every statistic, compute what they computed before the core
was split into packages: exact answers, ε, δ, noise scales, error bounds and messages."""

import json

from plan_snapshot import SNAPSHOT, snapshot


def test_everything_but_the_noise_is_as_recorded():
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(snapshot(), ensure_ascii=False))
    for plan in ("sample", "every_kind"):
        assert now[plan]["plan"] == recorded[plan]["plan"]
        assert now[plan]["guarantee"] == recorded[plan]["guarantee"]
        assert now[plan]["events"] == recorded[plan]["events"]
        for got, expected in zip(now[plan]["statistics"], recorded[plan]["statistics"], strict=True):
            assert got == expected, got["label"]
    assert now == recorded
