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
    path = _towns(tmp_path, "west.csv", "cp1252")
    _open(window, qtbot, path)
    _choose_encoding(window, qtbot, monkeypatch, "cp1250")
    assert window.document.table.encoding == "cp1250"
    assert window.document.plan.dataset.encoding == "cp1250"


def _choose_encoding(window, qtbot, monkeypatch, chosen: str) -> None:
    """File > Text encoding…, answered ``chosen``, and whatever reading it starts finished."""
    from workbench.gui import main_window

    monkeypatch.setattr(main_window.QInputDialog, "getItem", lambda *a, **k: (chosen, True))
    window.choose_encoding()
    qtbot.waitUntil(lambda: window.loading is None, timeout=60_000)


def _towns_plan(tmp_path, data, encoding):
    """A plan for towns.csv (a histogram of its towns) that declares ``encoding`` (None: declares none)."""
    from workbench.cli import main

    plan = tmp_path / "towns.plan.json"
    assert main(["plan-template", str(data), "--out", str(plan), "--name", "Towns"]) == 0
    written = json.loads(plan.read_text(encoding="utf-8"))
    columns = {c["name"]: c for c in written["schema"]["columns"]}
    columns["town"].update(kind="categorical", categories=list(TOWNS), outside="other")
    written["statistics"] = [{"type": "histogram", "column": "town", "mechanism": "laplace", "epsilon": 1.0}]
    written["total"] = {"epsilon": 1.0, "delta": 0.0}
    written["dataset"].pop("encoding", None)
    if encoding:
        written["dataset"]["encoding"] = encoding
    plan.write_text(json.dumps(written), encoding="utf-8")
    return plan


def test_a_table_read_in_another_encoding_than_the_plan_declares_is_not_released(window, qtbot, tmp_path, warnings,
                                                                                  private_ledger, capsys):
    data = _towns(tmp_path, "towns.csv", "cp1252")
    plan = _towns_plan(tmp_path, data, "utf-8")  # wrong: the file is cp1252, and a release reads it as UTF-8
    capsys.readouterr()
    assert _open(window, qtbot, data).encoding == "cp1252"  # guessed, to show it
    assert window.open_plan(plan)
    qtbot.waitUntil(lambda: window.loading is None, timeout=60_000)  # read again in UTF-8: refused
    assert [title for title, _ in warnings] == ["The file cannot be opened"]
    assert "File > Text encoding…" in warnings[0][1]
    assert window.document.table.encoding == "cp1252" and window.document.plan.dataset.encoding == "utf-8"
    problems = window.document.problems()
    assert len(problems) == 1 and "cp1252" in problems[0] and "utf-8" in problems[0]
    assert "File > Text encoding…" in problems[0]
    from workbench.gui.fix_places import place_of

    assert place_of(problems[0], window.document.plan).control == "encoding"
    page = window.release_page
    window.tabs.setCurrentWidget(page)
    assert not page.release_button.isEnabled() and "File &gt; Text encoding…" in page.status.text()
    page.ask = False
    page.confirm_and_release()
    page.start_release()  # even asked directly, it refuses
    assert page.task is None and page.result is None
    from workbench.core.release.ledger import Ledger

    assert not private_ledger.exists() or not Ledger(private_ledger).has_dataset("Towns")  # nothing charged


def test_declaring_the_encoding_the_file_is_in_lets_it_be_released(window, qtbot, tmp_path, warnings, monkeypatch):
    data = _towns(tmp_path, "towns.csv", "cp1252")
    _open(window, qtbot, data)
    assert window.open_plan(_towns_plan(tmp_path, data, "utf-8"))
    qtbot.waitUntil(lambda: window.loading is None, timeout=60_000)
    _choose_encoding(window, qtbot, monkeypatch, "cp1252")  # the file whose reading failed, read again in it
    assert window.document.plan.dataset.encoding == "cp1252" and window.document.problems() == []
    assert window.document.dirty
    page = window.release_page
    window.tabs.setCurrentWidget(page)
    page.ask = False
    page.confirm_and_release()
    qtbot.waitUntil(lambda: page.task is None, timeout=60_000)
    assert page.result is not None


def test_an_encoding_is_declared_only_once_the_file_reads_in_it(window, qtbot, tmp_path, monkeypatch, warnings):
    from workbench.gui import main_window

    path = _towns(tmp_path, "west.csv", "cp1252")
    table = _open(window, qtbot, path)
    for chosen in ("base64", "no-such-encoding"):  # not a text encoding; not one at all: refused, nothing read
        monkeypatch.setattr(main_window.QInputDialog, "getItem", lambda *a, c=chosen, **k: (c, True))
        window.choose_encoding()
        assert window.loading is None and window.document.plan.dataset.encoding == "cp1252"
    assert [title for title, _ in warnings] == ["Text encoding", "Text encoding"]
    assert "not a text encoding" in warnings[0][1]
    _choose_encoding(window, qtbot, monkeypatch, "utf-8")  # not the file's: the reading fails, nothing declared
    assert warnings[-1][0] == "The file cannot be opened"
    assert window.document.table is table and window.document.plan.dataset.encoding == "cp1252"
    saved = tmp_path / "saved.plan.json"
    window.document.save_plan(saved)
    assert ReleasePlan.load(saved).dataset.encoding == "cp1252"


def test_a_file_that_fails_to_open_for_its_encoding_can_be_read_in_another(window, qtbot, tmp_path, monkeypatch,
                                                                           warnings):
    path = tmp_path / "late.csv"  # UTF-8 (plain ASCII) for its first megabytes, then one Windows-1252 byte
    path.write_bytes(("id,town\n" + "".join(f"{i},Koln\n" for i in range(200_000))).encode()
                     + "9,Köln\n".encode("cp1252"))
    window.open_path(path)
    qtbot.waitUntil(lambda: window.loading is None, timeout=60_000)
    assert [title for title, _ in warnings] == ["The file cannot be opened"]
    assert "File > Text encoding…" in warnings[0][1] and window.document.table is None
    _choose_encoding(window, qtbot, monkeypatch, "cp1252")
    table = window.document.table
    assert table.source == path and table.encoding == "cp1252" and table.frame["town"].iloc[-1] == "Köln"
    assert window.document.plan.dataset.encoding == "cp1252" and len(warnings) == 1


def test_an_encoding_declared_for_one_file_is_not_the_next_files(window, qtbot, tmp_path, monkeypatch):
    west = _towns(tmp_path, "west.csv", "cp1252")
    _open(window, qtbot, west)
    _choose_encoding(window, qtbot, monkeypatch, "latin-1")
    assert window.document.table.encoding == "latin-1"
    second = _open(window, qtbot, _towns(tmp_path, "utf8.csv", "utf-8"))
    assert second.encoding == "utf-8" and list(second.frame["town"][:3]) == list(TOWNS)
    assert window.document.plan.dataset.encoding is None
    assert _open(window, qtbot, west).encoding == "cp1252"  # guessed afresh too: the declaration was for the other


def test_guessing_again_after_declaring(window, qtbot, tmp_path, monkeypatch):
    from workbench.gui import main_window

    _open(window, qtbot, _towns(tmp_path, "west.csv", "cp1252"))
    _choose_encoding(window, qtbot, monkeypatch, "latin-1")
    assert window.document.table.encoding == "latin-1"
    _choose_encoding(window, qtbot, monkeypatch, main_window.GUESS_CHOICE)
    assert window.document.table.encoding == "cp1252"
    assert window.document.plan.dataset.encoding == "cp1252"


def test_a_plan_that_declares_no_encoding_gains_the_shown_ones_as_an_unsaved_change(window, qtbot, tmp_path,
                                                                                   warnings):
    data = _towns(tmp_path, "towns.csv", "cp1252")
    plan = _towns_plan(tmp_path, data, None)
    _open(window, qtbot, data)
    assert window.open_plan(plan) and warnings == []
    assert window.document.plan.dataset.encoding == "cp1252" and window.document.dirty
    assert window.windowTitle().startswith("towns.plan.json *")
    assert window.save_plan() and ReleasePlan.load(plan).dataset.encoding == "cp1252"
