"""The app on a team ledger (issue 38): the setting with its connection test, the budget panel's server line,
a refusal that names another analyst's release, a password asked for and kept in memory only, and a server
that cannot be reached said plainly, with no ledger on this computer used instead."""

import socket

import pytest
from gui_helpers import load

from workbench.core.data.io import load_table
from workbench.core.release import ReleasePlan, Terms, release
from workbench.core.release.ledger import Ledger
from workbench.core.release.ledger_postgres import init_server
from workbench.gui import ledger_setting
from workbench.gui.ledger_setting import SETTING, LedgerSettingsDialog, chosen_location, choose

NAME = "Household survey (synthetic sample)"


@pytest.fixture
def team(postgres_server, sample_path, sample_plan_path) -> str:
    """A team ledger in which the administrator registered the sample survey with ε = 1.5 and alice released
    from it (ε = 1): its database."""
    from workbench.core.privacy import Guarantee

    database = postgres_server.new_database()
    admin = init_server(postgres_server.url(database))
    plan = ReleasePlan.load(sample_plan_path)
    admin.register(NAME, Guarantee(1.5, 1e-6, "total budget"), Terms.of(plan.schema),
                   size_estimate=plan.dataset.size_estimate)
    release(load_table(sample_path), plan, Ledger(postgres_server.url(database, "alice")))
    return database


def test_the_setting_is_kept_only_once_the_server_answered(qtbot, team, postgres_server, monkeypatch):
    dialog = LedgerSettingsDialog()
    qtbot.addWidget(dialog)
    dialog.url.setText(postgres_server.url(team, "bob"))
    assert dialog.test_connection()
    said = dialog.status.text()
    assert f"Team ledger '{team}' on 127.0.0.1 (PostgreSQL" in said and "as bob" in said
    assert "1 dataset(s): 'Household survey (synthetic sample)'" in said and "the team's key is here" in said
    dialog.accept()
    assert chosen_location() == postgres_server.url(team, "bob")

    away = LedgerSettingsDialog()
    qtbot.addWidget(away)
    away.url.setText(f"postgresql://bob@127.0.0.1:{_closed_port()}/{team}")
    away.accept()  # refused: the server does not answer
    assert "cannot be connected to" in away.status.text() and away.result() != away.DialogCode.Accepted
    assert chosen_location() == postgres_server.url(team, "bob")


def test_the_budget_panel_names_the_server_and_a_refusal_names_alices_release(
        qtbot, window, team, postgres_server, sample_path, sample_plan_path, monkeypatch, private_ledger):
    choose(postgres_server.url(team, "bob"))
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    window.tabs.setCurrentWidget(window.preview_page)
    budget = window.preview_page.budget
    qtbot.waitUntil(lambda: "Team ledger" in budget.ledger_line.text(), timeout=30_000)
    assert "as bob" in budget.ledger_line.text() and "spent ε = 1" in budget.ledger_state.text()
    assert budget.history.topLevelItem(0).text(2) == "alice" and not budget.new_dataset.isVisible()

    page = window.release_page
    page.ask = False
    refusals = []
    monkeypatch.setattr(page, "_refuse", lambda title, error: refusals.append(str(error)))
    page.confirm_and_release()
    assert refusals and "would overspend" in refusals[0] and " by alice on " in refusals[0]
    assert page.task is None and not private_ledger.exists()
    assert Ledger(postgres_server.url(team)).dataset(NAME).releases == 1


def test_a_server_that_cannot_be_reached_is_said_and_nothing_is_released(
        qtbot, window, sample_path, sample_plan_path, monkeypatch, private_ledger):
    choose(f"postgresql://bob@127.0.0.1:{_closed_port()}/census")
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    window.tabs.setCurrentWidget(window.preview_page)
    budget = window.preview_page.budget
    qtbot.waitUntil(lambda: "cannot be reached" in budget.ledger_line.text(), timeout=30_000)
    assert "no ledger on this computer is used instead" in budget.ledger_line.text()
    page = window.release_page
    page.ask = False
    refusals = []
    monkeypatch.setattr(page, "_refuse", lambda title, error: refusals.append(str(error)))
    page.confirm_and_release()
    assert refusals and "never uses a ledger on this computer instead" in " ".join(refusals[0].split())
    assert page.task is None and page.result is None and not private_ledger.exists()


def test_a_password_is_asked_for_and_kept_in_memory_only(qtbot, team, postgres_server, monkeypatch, tmp_path):
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no pgpass"))
    monkeypatch.setattr(ledger_setting, "_passwords", {})
    asked = []
    monkeypatch.setattr(ledger_setting.QInputDialog, "getText",
                        lambda *a, **k: asked.append(a[2]) or (postgres_server.passwords["bob"], True))
    dialog = LedgerSettingsDialog()
    qtbot.addWidget(dialog)
    url = postgres_server.url(team, "bob")
    dialog.url.setText(url)
    dialog.accept()
    assert asked, dialog.status.text()
    assert "asks for a password" in asked[0] and dialog.result() == dialog.DialogCode.Accepted
    settings = ledger_setting._settings()
    assert settings.value(SETTING) == url
    stored = " ".join(str(settings.value(key)) for key in settings.allKeys())
    assert postgres_server.passwords["bob"] not in stored


def _closed_port() -> int:
    with socket.socket() as probe:  # a port with no server: a laptop away from the office network
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
