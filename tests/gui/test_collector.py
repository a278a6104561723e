"""Python's garbage is collected in the GUI thread while a ``GuiThreadCollector`` runs (``gui/collector.py``)."""

from __future__ import annotations

import gc
import threading
import weakref

from workbench.gui.collector import GuiThreadCollector


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_garbage_in_a_cycle_is_collected_by_the_gui_threads_timer_not_by_python_elsewhere(qtbot, qapp):
    assert not gc.isenabled()  # the suite's own collector (conftest) runs, as the app's does
    collector = GuiThreadCollector(qapp, interval_ms=10)
    try:
        collected_in = []
        gc.callbacks.append(lambda phase, info: phase == "start" and collected_in.append(threading.current_thread()))

        def allocate_in_a_worker() -> None:
            for _ in range(50_000):  # far past the youngest generation's threshold
                _Cycle()

        worker = threading.Thread(target=allocate_in_a_worker)
        worker.start()
        worker.join()
        assert collected_in == []  # no collection ran in the worker, however much it allocated
        garbage = _Cycle()
        gone = weakref.ref(garbage)
        del garbage
        for _ in range(2000):  # enough for the youngest generation's count to pass its threshold
            _Cycle()
        qtbot.waitUntil(lambda: gone() is None, timeout=5_000)
        assert collected_in and all(thread is threading.main_thread() for thread in collected_in)
    finally:
        gc.callbacks.pop()
        collector.stop()
    assert not gc.isenabled()  # the suite's collector still runs: stop gave back what it found


def test_the_older_generations_are_collected_when_their_counts_pass_their_thresholds_too(qapp, monkeypatch):
    collector = GuiThreadCollector(qapp)
    collector.stop()  # its timer off: the check is called here
    young, middle, old = gc.get_threshold()
    collected = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: collected.append(generation) or 0)
    for counts, expected in [((young + 1, middle + 1, old + 1), [0, 1, 2]), ((young + 1, middle + 1, 0), [0, 1]),
                             ((young + 1, 0, old + 1), [0]), ((young, middle + 1, old + 1), [])]:
        collected.clear()
        monkeypatch.setattr(gc, "get_count", lambda counts=counts: counts)
        collector.collect_due()
        assert collected == expected, counts


def test_an_application_has_one_collector(qapp):
    assert GuiThreadCollector.install(qapp) is GuiThreadCollector.install(qapp)  # the suite's, found


def test_stop_switches_python_collection_back_on_when_it_was_on(qapp):
    gc.enable()
    try:
        collector = GuiThreadCollector(qapp)
        assert not gc.isenabled()
        collector.stop()
        assert gc.isenabled()
    finally:
        gc.disable()  # as the suite's collector left it


def test_a_stopped_collector_is_not_the_applications_any_more(qapp):
    collector = GuiThreadCollector(qapp)
    collector.stop()
    assert GuiThreadCollector.install(qapp) is not collector
