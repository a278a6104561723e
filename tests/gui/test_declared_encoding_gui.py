"""The app and a text file's encoding (issue 34): step 1 guesses it for the curator and the plan records it; an
opened plan's declared encoding is the one the file is read in; one file's guess never carries over to the next;
File > Text encoding… declares another."""

import json

from workbench.core.release import ReleasePlan

TOWNS = ("Köln", "Zürich", "Åre")


def _towns(tmp_path, name, encoding):
    path = tmp_path / name
    path.write_bytes(("id,town\n" + "".join(f"{i},{TOWNS[i % 3]}\n" for i in range(30))).encode(encoding))
    return path


def _open(window, qtbot, path):
    window.open_path(path)
    qtbot.waitUntil(lambda: window.loading is None and window.document.table is not None
                    and window.document.table.source == path, timeout=60_000)
    return window.document.table


def test_one_files_guess_is_not_the_next_files_encoding(window, qtbot, tmp_path):
    first = _open(window, qtbot, _towns(tmp_path, "west.csv", "cp1252"))
    assert first.encoding == "cp1252" and window.document.plan.dataset.encoding == "cp1252"
    assert "cp1252" in window.data_page.summary.text()
    second = _open(window, qtbot, _towns(tmp_path, "utf8.csv", "utf-8"))
    assert second.encoding == "utf-8" and list(second.frame["town"][:3]) == list(TOWNS)
    assert window.document.plan.dataset.encoding is None


def test_a_plans_declared_encoding_is_the_one_the_file_is_read_in(window, qtbot, tmp_path, warnings):
    path = _towns(tmp_path, "west.csv", "cp1252")
    assert _open(window, qtbot, path).encoding == "cp1252"
    plan = tmp_path / "declared.plan.json"
    data = window.document.plan.to_json()
    data["dataset"]["encoding"] = "latin-1"
    plan.write_text(json.dumps(data), encoding="utf-8")
    assert window.open_plan(plan)
    qtbot.waitUntil(lambda: window.loading is None and window.document.table.encoding == "latin-1", timeout=60_000)
    assert window.document.plan.dataset.encoding == "latin-1"  # not replaced by step 1's guess
    assert ReleasePlan.load(plan).dataset.encoding == "latin-1"
    assert [title for title, _ in warnings] == ["The plan needs attention"]  # it has no statistic yet


def test_the_curator_declares_another_encoding_and_the_file_is_read_again(window, qtbot, tmp_path, monkeypatch):
    from workbench.gui import main_window

    path = _towns(tmp_path, "west.csv", "cp1252")
    _open(window, qtbot, path)
    monkeypatch.setattr(main_window.QInputDialog, "getItem", lambda *a, **k: ("cp1250", True))
    window.choose_encoding()
    qtbot.waitUntil(lambda: window.loading is None and window.document.table.encoding == "cp1250", timeout=60_000)
    assert window.document.plan.dataset.encoding == "cp1250"
