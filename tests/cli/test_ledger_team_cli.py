"""A team ledger on PostgreSQL from the command line (issue 38): the administrator sets it up, registers a dataset
and hands out the key; analysts release against it (--ledger URL or DP_WORKBENCH_LEDGER) and are refused, with
who spent what, when the budget is spent; a local ledger moves in with its chain; and a server that cannot be
reached is said plainly, with no ledger on this computer used instead."""

import json

import psycopg
import pytest
from postgres_server import ANALYST_ROLE

from workbench.cli import main
from workbench.core.release.ledger import Ledger
from workbench.core.release.ledger_postgres import SCHEMA

NAME = "Household survey (synthetic sample)"


def release(sample_path, sample_plan_path, out, *extra):
    return main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out), *extra])


@pytest.fixture
def team(postgres_server, sample_plan_path, capsys) -> str:
    """A team ledger set up and its dataset registered by the administrator, from the command line: its database."""
    database = postgres_server.new_database()
    admin = postgres_server.url(database)
    assert main(["ledger", "init-server", admin]) == 0
    assert main(["ledger", "register", NAME, "--plan", str(sample_plan_path), "--epsilon", "2.2", "--delta", "1e-6",
                 "--ledger", admin]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert f"members of the role {ANALYST_ROLE}" in said and "ledger key export" in said
    assert "Registered 'Household survey (synthetic sample)'" in said
    return database


def test_analysts_share_one_budget_and_a_refusal_names_who_spent_it(
        team, postgres_server, sample_path, sample_plan_path, tmp_path, capsys, monkeypatch, private_ledger):
    alice, bob = postgres_server.url(team, "alice"), postgres_server.url(team, "bob")
    assert release(sample_path, sample_plan_path, tmp_path / "alice", "--ledger", alice) == 0
    monkeypatch.setenv("DP_WORKBENCH_LEDGER", bob)  # the other way to name it
    assert release(sample_path, sample_plan_path, tmp_path / "bob") == 0
    capsys.readouterr()
    assert release(sample_path, sample_plan_path, tmp_path / "bob again") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "would overspend by ε 0.204" in err and "Nothing was released" in err
    assert " by bob on " in err and " by alice on " in err  # who spent what, and when
    assert "ask the team ledger's administrator to raise" in err
    assert not (tmp_path / "bob again").exists() and not private_ledger.exists()  # no local ledger used

    assert main(["ledger", "raise", NAME, "--epsilon", "4", "--reason", "second wave"]) == 2  # bob may not
    assert "administrator" in capsys.readouterr().err
    assert main(["ledger", "raise", NAME, "--epsilon", "4", "--reason", "second wave",
                 "--ledger", postgres_server.url(team)]) == 0
    assert release(sample_path, sample_plan_path, tmp_path / "bob again") == 0

    assert main(["ledger", "show"]) == 0
    shown = capsys.readouterr().out
    assert f"Team ledger '{team}' on 127.0.0.1 (PostgreSQL" in shown and "as bob" in shown
    lines = [line for line in shown.splitlines() if line.startswith("  #")]
    assert [line.split()[3] for line in lines] == ["ledger_admin:", "alice:", "bob:", "ledger_admin:", "bob:"]
    assert "second wave" in lines[3]
    assert main(["ledger", "verify"]) == 0
    assert "is intact: 5 entries" in capsys.readouterr().out
    out = tmp_path / "ledger.json"
    assert main(["ledger", "export", "--out", str(out)]) == 0
    exported = json.loads(out.read_text())["entries"]
    assert len(exported) == 5 and "fingerprint" not in out.read_text() and "alice" not in out.read_text()


def test_an_analyst_may_read_and_append_releases_only(team, postgres_server, sample_plan_path, capsys):
    alice = postgres_server.url(team, "alice")
    assert main(["ledger", "register", "other", "--plan", str(sample_plan_path), "--epsilon", "1",
                 "--ledger", alice]) == 2
    assert "its administrator registers each dataset" in " ".join(capsys.readouterr().err.split())
    entry = Ledger(postgres_server.url(team)).entries()[0]
    with psycopg.connect(alice) as conn:
        for statement in (f"UPDATE {SCHEMA}.entries SET body = body", f"DELETE FROM {SCHEMA}.entries",
                          f"UPDATE {SCHEMA}.meta SET value = 'x'", f"TRUNCATE {SCHEMA}.entries"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
        forged = json.dumps({**entry.data, "by": "bob"})  # a release in another analyst's name
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"INSERT INTO {SCHEMA}.entries VALUES (2, %s, 'release', %s, %s, %s, %s)",
                         (NAME, entry.created, forged, entry.hash, "f" * 64))
        conn.rollback()
        with pytest.raises(psycopg.errors.UniqueViolation):  # nor a fork of the chain, whoever writes it
            conn.execute(f"INSERT INTO {SCHEMA}.entries VALUES (1, %s, 'release', %s, %s, %s, %s)",
                         (NAME, entry.created, json.dumps({"by": "alice"}), "0" * 64, "e" * 64))


def test_an_analyst_without_the_teams_key_is_told_to_ask_for_it(
        team, postgres_server, sample_path, sample_plan_path, tmp_path, capsys, monkeypatch):
    admin, alice = postgres_server.url(team), postgres_server.url(team, "alice")
    key = tmp_path / "team.key"
    assert main(["ledger", "key", "export", "--ledger", admin, "--out", str(key)]) == 0
    monkeypatch.setenv("DP_WORKBENCH_KEYS", str(tmp_path / "alice's keys"))  # another machine
    capsys.readouterr()
    assert release(sample_path, sample_plan_path, tmp_path / "o", "--ledger", alice) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "Ask the administrator for the team's key file" in err and "never holds the key" in err
    assert main(["ledger", "key", "import", str(key), "--ledger", alice]) == 0
    assert release(sample_path, sample_plan_path, tmp_path / "o", "--ledger", alice) == 0


def test_a_local_ledger_moves_in_with_its_chain_and_its_key(
        postgres_server, sample_path, sample_plan_path, tmp_path, capsys, private_ledger):
    assert release(sample_path, sample_plan_path, tmp_path / "one", "--dataset-budget", "5", "1e-6") == 0
    assert main(["ledger", "raise", NAME, "--epsilon", "6", "--reason", "approved"]) == 0
    local = Ledger(private_ledger)
    admin = postgres_server.url(postgres_server.new_database())
    assert main(["ledger", "init-server", admin]) == 0
    assert main(["ledger", "migrate", admin]) == 0
    assert "Moved 3 entries" in capsys.readouterr().out
    team = Ledger(admin)
    assert team.entries() == local.entries() and team.verify() == [] and team.head() == local.head()
    assert team.ledger_id() == local.ledger_id()  # so the local key goes on recognising the data
    plan = json.loads(sample_plan_path.read_text())
    plan["dataset"]["name"] = "the same data under another name"
    renamed = tmp_path / "renamed.plan.json"
    renamed.write_text(json.dumps(plan))
    assert main(["release", str(sample_path), "--plan", str(renamed), "--out", str(tmp_path / "x"), "--ledger", admin,
                 "--dataset-budget", "3", "1e-6"]) == 2
    assert f"already in the ledger as dataset '{NAME}'" in " ".join(capsys.readouterr().err.split())
    assert main(["ledger", "migrate", admin]) == 2  # only into an empty team ledger
    assert "already has entries" in capsys.readouterr().err


def test_a_server_that_cannot_be_reached_is_said_plainly_and_nothing_else_is_used(
        postgres_server, sample_path, sample_plan_path, tmp_path, capsys, private_ledger):
    import socket

    with socket.socket() as probe:  # a port with no server: a laptop away from the office network
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    away = f"postgresql://alice@127.0.0.1:{port}/census"
    assert release(sample_path, sample_plan_path, tmp_path / "o", "--ledger", away, "--dataset-budget", "3") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "cannot be connected to" in err and "never uses a ledger on this computer instead" in err
    assert not (tmp_path / "o").exists() and not private_ledger.exists()
    assert main(["ledger", "show", "--ledger", away]) == 2


def test_a_password_is_never_taken_from_a_url(sample_path, sample_plan_path, tmp_path, capsys):
    url = "postgresql://alice:s3cret@127.0.0.1:5/census"
    assert release(sample_path, sample_plan_path, tmp_path / "o", "--ledger", url, "--dataset-budget", "3") == 2
    err = capsys.readouterr().err
    assert "~/.pgpass" in err and "s3cret" not in err


def test_a_missing_password_is_asked_for_not_guessed(team, postgres_server, tmp_path, monkeypatch):
    from workbench.core.release.ledger import LedgerPasswordNeeded

    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "empty"))
    alice = postgres_server.url(team, "alice")
    with pytest.raises(LedgerPasswordNeeded, match="asks for a password, and none was found"):
        Ledger(alice)
    with pytest.raises(LedgerPasswordNeeded, match="refused the one given"):
        Ledger(alice, password="wrong")
    assert Ledger(alice, password=postgres_server.passwords["alice"]).dataset(NAME).releases == 0  # the app's prompt
