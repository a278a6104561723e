"""Cancel in step 6 never hides a charge (DESIGN rule 5): once a release has begun (its noise is drawn), a cancel is
refused and the release charged and shown, a synthetic table's fit too; a fit failing after its noise was drawn is
charged and said to be; the window asked to close waits for the charge. The worker's cancel and commit are atomic.

The fit is OpenDP's; here it is wrapped to wait on an event, so that Cancel lands while it runs."""

from __future__ import annotations

import json
import threading

import numpy as np
import pandas as pd
import pytest
from gui_helpers import load

from workbench.core.errors import Cancelled, FailedAfterNoise
from workbench.core.release.ledger import Ledger

PLAN = {
    "format": "dp-workbench-plan", "version": 2,
    "dataset": {"name": "Tiny survey", "size_estimate": 2000},
    "schema": {"columns": [
        {"name": "region", "kind": "categorical", "categories": ["North", "South"], "outside": "drop"},
        {"name": "sex", "kind": "categorical", "categories": ["f", "m"], "outside": "drop"},
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 100},
    ], "privacy_unit": {"id_column": None, "max_rows_per_person": 1}, "neighbouring": "add_remove"},
    "statistics": [{"type": "synthetic", "columns": ["region", "sex", "age"], "edges": {"age": [18, 65]},
                    "rows": 300, "keep": [], "numeric_values": "interval", "algorithm": "mst",
                    "mechanism": "gaussian", "epsilon": 1.0, "delta": 1e-7}],
    "total_budget": {"epsilon": 1.0, "delta": 1e-7},
}
COUNT = {"type": "count", "epsilon": 0.5, "mechanism": "laplace"}


def _files(tmp_path, statistics=None):
    rng = np.random.default_rng(2)
    data = tmp_path / "tiny.csv"
    pd.DataFrame({"region": rng.choice(["North", "South"], 2000, p=[0.7, 0.3]), "sex": rng.choice(["f", "m"], 2000),
                  "age": rng.integers(0, 100, 2000)}).to_csv(data, index=False)
    plan = tmp_path / "tiny.plan.json"
    plan.write_text(json.dumps(PLAN if statistics is None else
                               dict(PLAN, statistics=statistics, total_budget={"epsilon": 0.5, "delta": 0.0})))
    return data, plan


def _ready(qtbot, window, tmp_path, statistics=None):
    data, plan = _files(tmp_path, statistics)
    load(qtbot, window, data)
    assert window.open_plan(plan)
    page = window.release_page
    window.tabs.setCurrentWidget(page)
    page.ask = False
    return page


def _fit_waits(monkeypatch, then):
    """The synthetic fit waits until the test lets it go, then does ``then(original, *args)``."""
    from workbench.core.synthetic import fit

    original, started, go = fit.release_synthetic, threading.Event(), threading.Event()

    def waiting(*args, **kwargs):
        started.set()
        assert go.wait(60)
        return then(original, *args, **kwargs)

    monkeypatch.setattr(fit, "release_synthetic", waiting)
    return started, go


def _spent(ledger) -> int:
    if not ledger.exists():
        return 0
    book = Ledger(ledger)
    return book.dataset("Tiny survey").releases if book.has_dataset("Tiny survey") else 0


def test_a_fit_cannot_be_cancelled_and_is_charged_and_shown(qtbot, window, tmp_path, private_ledger, monkeypatch):
    """How long a fit runs may depend on its noisy marginals (AIM's rounds): a Cancel during it that spent nothing
    was a free look at them, and the release could be drawn again (DESIGN rule 5). Cancel is not offered, and a
    cancel that arrives all the same is refused; the release is charged and shown."""
    started, go = _fit_waits(monkeypatch, lambda original, *a, **k: original(*a, **k))
    page = _ready(qtbot, window, tmp_path)
    page.confirm_and_release()
    assert started.wait(60)
    assert page.cancel_button.isHidden() and page.releasing()
    page.cancel_release()
    assert "can no longer be stopped" in page.status.text()
    go.set()
    qtbot.waitUntil(lambda: page.task is None, timeout=300_000)
    assert _spent(private_ledger) == 1 and page.result is not None


def test_a_fit_failing_after_its_noise_is_charged_and_said_to_be(qtbot, window, tmp_path, private_ledger,
                                                                 monkeypatch, warnings):
    def fails(original, *args, **kwargs):
        raise FailedAfterNoise("Synthetic table: OpenDP stopped the release (a test's failure).")

    started, go = _fit_waits(monkeypatch, fails)
    page = _ready(qtbot, window, tmp_path)
    page.confirm_and_release()
    assert started.wait(60)
    go.set()
    qtbot.waitUntil(lambda: page.task is None, timeout=60_000)
    assert _spent(private_ledger) == 1  # run.py charges a failure after noise
    assert "charged" in page.status.text() and "no budget was spent" not in page.status.text()
    assert len(warnings) == 1 and "charged all the same (ledger entry" in warnings[0][1]
    assert page.result is None


def test_closing_the_window_during_a_release_waits_for_its_charge(qtbot, window, tmp_path, private_ledger,
                                                                  monkeypatch):
    """The app ended mid-release dropped it uncharged: a free stop after a wait that may say something of the noise.
    Asked to close, the window says the release runs to its charge, and closes once it is charged (if so asked)."""
    from workbench.gui import main_window

    asked = []
    answer = [main_window.QMessageBox.StandardButton.No]
    monkeypatch.setattr(main_window.QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or answer[0])
    started, go = _fit_waits(monkeypatch, lambda original, *a, **k: original(*a, **k))
    page = _ready(qtbot, window, tmp_path)
    window.show()
    page.confirm_and_release()
    assert started.wait(60)
    assert not window.close() and window.isVisible()  # kept open
    assert len(asked) == 1 and "cannot be stopped" in asked[0] and "charged" in asked[0]
    answer[0] = main_window.QMessageBox.StandardButton.Yes
    assert not window.close() and window.isVisible()  # closes once charged
    go.set()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=300_000)
    assert _spent(private_ledger) == 1


def test_a_cancel_once_the_charge_has_begun_is_refused_and_the_release_shown(qtbot, window, tmp_path,
                                                                            private_ledger, monkeypatch):
    """The ordinary statistics' path (the same worker): an in-memory release commits before it starts, so a cancel
    arriving while it computes or charges is refused and the charged release is shown."""
    from workbench.gui import release_page

    original, started, go = release_page.release, threading.Event(), threading.Event()

    def waiting(*args, **kwargs):
        started.set()
        assert go.wait(60)
        return original(*args, **kwargs)

    monkeypatch.setattr(release_page, "release", waiting)
    page = _ready(qtbot, window, tmp_path, [COUNT])
    page.confirm_and_release()
    assert started.wait(60)
    page.cancel_release()
    assert "can no longer be stopped" in page.status.text()
    go.set()
    qtbot.waitUntil(lambda: page.result is not None, timeout=60_000)
    assert _spent(private_ledger) == 1
    assert "recorded in the ledger as entry" in page.status.text()


def test_cancel_and_commit_are_atomic_and_a_charged_failure_is_never_dropped(qtbot):
    from workbench.gui.workers import Task

    def outcome(function, cancel_first: bool):
        task, heard = Task(lambda: function(task)), []
        for name in ("finished", "failed", "stopped"):
            getattr(task, name).connect(lambda value, name=name: heard.append((name, value)))
        if cancel_first:
            assert task.cancel()
        task.start()
        qtbot.waitUntil(lambda: bool(heard), timeout=10_000)
        return task, heard[0]

    def commits(task):
        task.commit()
        return "charged"

    task, (name, value) = outcome(commits, cancel_first=True)  # a cancel before the commit: stops it
    assert name == "stopped" and isinstance(value, Cancelled) and not task.committed
    task, (name, value) = outcome(commits, cancel_first=False)
    assert name == "finished" and value == "charged" and not task.cancel()  # after the commit: refused

    def fails_after_noise(task):
        raise FailedAfterNoise("charged all the same")

    for cancel_first in (True, False):
        _task, (name, value) = outcome(fails_after_noise, cancel_first)
        assert name == "failed" and isinstance(value, FailedAfterNoise)

    def races(task):
        task.commit()
        return "charged"

    for _ in range(200):  # cancel from this thread while the worker commits: never both, never neither
        task, heard = Task(lambda: races(task)), []
        for name in ("finished", "stopped"):
            getattr(task, name).connect(lambda value, name=name: heard.append(name))
        task.start()
        accepted = task.cancel()
        qtbot.waitUntil(lambda: bool(heard), timeout=10_000)
        assert heard == (["stopped"] if accepted else ["finished"]) and task.committed != accepted


def test_an_unexpected_error_is_named_by_its_kind_and_its_text_never_shown(qtbot, window, tmp_path, private_ledger,
                                                                           monkeypatch, warnings, capsys):
    """An exception the app did not write may quote values it was handed (a release's uncharged noisy values)."""
    def fails(original, *args, **kwargs):
        noisy = 4000 + 242.5  # (not in the source line that the frames quote)
        raise RuntimeError(f"the noisy count {noisy} could not be stored")

    started, go = _fit_waits(monkeypatch, fails)
    go.set()
    page = _ready(qtbot, window, tmp_path)
    page.confirm_and_release()
    qtbot.waitUntil(lambda: page.task is None, timeout=60_000)
    assert len(warnings) == 1 and "Unexpected error (RuntimeError)" in warnings[0][1]
    assert "4242" not in warnings[0][1] and "4242" not in page.status.text()
    said = capsys.readouterr().err
    assert "RuntimeError" in said and "4242" not in said  # its frames, for a bug report, without its text
