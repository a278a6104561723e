"""Helpers for the GUI tests."""


def load(qtbot, window, path):
    window.open_path(path)
    qtbot.waitUntil(lambda: window.loading is None, timeout=60_000)
