"""The fingerprints' key is kept outside the ledger file (issue 34): a reader of the ledger alone cannot test a
guessed file or row against its fingerprints."""

import hashlib
import hmac
import json
import multiprocessing
import sqlite3
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest

from workbench.core.data import content_digest
from workbench.core.data.io import load_table
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.errors import Place
from workbench.core.privacy.events import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.ledger import GENESIS, Ledger, LedgerError, canonical, entry_hash
from workbench.core.release.ledger_keys import (
    KEYS_VARIABLE,
    FileKeys,
    KeyringKeys,
    LedgerKeyError,
    UserKeys,
    system_keyring,
    user_keys,
    write_private_file,
)
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.release.run import release
from workbench.core.statistics.counts import Count

TOTAL = Guarantee(10.0, 0.0, "total budget")


def plan(name: str = "survey") -> ReleasePlan:
    return ReleasePlan(DatasetDescription(name), Schema((NumericColumn("x", lower=0.0, upper=10.0),)),
                       (PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(0.1)),), Budget(0.1))


@pytest.fixture
def data(tmp_path) -> Path:
    path = tmp_path / "survey.csv"
    pd.DataFrame({"x": [float(i % 7) for i in range(50)]}).to_csv(path, index=False)
    return path


def file_bytes(path: Path) -> bytes:
    """The ledger as a reader of its folder gets it: the database file and its write-ahead log, if any."""
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal"), Path(f"{path}-journal")) if p.exists())


def test_the_ledger_file_does_not_hold_its_key(tmp_path, data):
    keys = FileKeys(tmp_path / "keys")
    ledger = Ledger(tmp_path / "ledger.sqlite", keys)
    release(load_table(data), plan(), ledger, TOTAL)
    with sqlite3.connect(ledger.path) as db:
        meta = dict(db.execute("SELECT key, value FROM meta"))
    assert "fingerprint_key" not in meta and set(meta) == {"version", "ledger_id", "key_check"}
    key = keys.get(meta["ledger_id"])
    assert key is not None and key.hex().encode() not in file_bytes(ledger.path) and key not in file_bytes(ledger.path)
    register = ledger.entries()[0].data
    assert register["fingerprint"] == hmac.new(key, data.read_bytes(), hashlib.sha256).hexdigest()
    key_file = keys.path(meta["ledger_id"])
    if sys.platform != "win32":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700


def test_each_ledger_has_its_own_key_found_by_its_random_public_id(tmp_path, data):
    keys = FileKeys(tmp_path / "keys")
    first, second = Ledger(tmp_path / "a.sqlite", keys), Ledger(tmp_path / "b.sqlite", keys)
    assert first.ledger_id() != second.ledger_id() and len(first.ledger_id()) == 32
    assert first.fingerprint(data) != second.fingerprint(data)
    assert keys.get(first.ledger_id()) != keys.get(second.ledger_id())
    assert first.fingerprint(data) == Ledger(first.path, keys).fingerprint(data)  # kept, not made anew


def test_the_content_fingerprint_of_a_digest_is_that_of_the_table(tmp_path, data):
    ledger = Ledger(tmp_path / "ledger.sqlite", FileKeys(tmp_path / "keys"))
    frame = load_table(data).frame
    assert ledger.content_fingerprint_of(content_digest(frame)) == ledger.content_fingerprint(frame)


def _version_1_ledger(path: Path, key: bytes, fingerprint: str) -> None:
    """A ledger as version 1 wrote it: the key in the meta table, one registration with the file's fingerprint."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("CREATE TABLE entries (seq INTEGER PRIMARY KEY, dataset TEXT NOT NULL, kind TEXT NOT NULL, "
               "created TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('version', '1')")
    db.execute("INSERT INTO meta VALUES ('fingerprint_key', ?)", (key.hex(),))
    body = canonical({"budget": {"epsilon": 10.0, "delta": 0.0}, "neighbouring": "add_remove",
                      "privacy_unit": "one row of the table", "fingerprint": fingerprint})
    created = "2026-01-01T00:00:00.000000+00:00"
    db.execute("INSERT INTO entries VALUES (1, 'survey', 'register', ?, ?, ?, ?)",
               (created, body, GENESIS, entry_hash(GENESIS, 1, "survey", "register", created, body)))
    db.close()


def test_a_version_1_ledger_has_its_key_moved_out_and_overwritten_in_the_file(tmp_path, data, monkeypatch):
    real_connect = sqlite3.connect

    def as_most_builds(*args, **kwargs):  # Debian's SQLite zeroes deleted content by default; most builds do not
        db = real_connect(*args, **kwargs)
        db.execute("PRAGMA secure_delete = OFF")
        return db

    monkeypatch.setattr(sqlite3, "connect", as_most_builds)
    key = bytes(range(32))
    path = tmp_path / "old.sqlite"
    _version_1_ledger(path, key, hmac.new(key, data.read_bytes(), hashlib.sha256).hexdigest())
    assert key.hex().encode() in file_bytes(path)
    keys = FileKeys(tmp_path / "keys")

    ledger = Ledger(path, keys)  # opening it moves the key
    assert keys.get(ledger.ledger_id()) == key
    assert key.hex().encode() not in file_bytes(path)  # neither in a page, a free page nor the log
    with sqlite3.connect(path) as db:
        assert dict(db.execute("SELECT key, value FROM meta"))["version"] == "2"
    assert ledger.verify() == []
    with pytest.raises(LedgerError, match="already in the ledger as dataset 'survey'"):  # the same key, kept
        release(load_table(data), plan("survey again"), ledger, TOTAL)
    release(load_table(data), plan("survey"), ledger)


def test_a_ledger_whose_key_is_elsewhere_is_read_but_not_released_to_until_the_key_is_imported(tmp_path, data):
    here, there = FileKeys(tmp_path / "keys here"), FileKeys(tmp_path / "keys there")
    path = tmp_path / "ledger.sqlite"
    release(load_table(data), plan(), Ledger(path, there), TOTAL)

    copied = Ledger(path, here)  # the ledger file came here, its key did not
    assert copied.verify() == [] and copied.dataset("survey").releases == 1 and copied.entries()
    for name in ("survey", "survey again"):
        with pytest.raises(LedgerKeyError, match=r"not kept for this user on this machine.*ledger key export.*"
                                                 r"ledger key import"):
            release(load_table(data), plan(name), copied, TOTAL)
    assert copied.dataset("survey").releases == 1 and not list(here.folder.glob("*.key"))  # no new key made
    with pytest.raises(LedgerKeyError) as refused:
        copied.check_key()
    assert refused.value.place == Place("release", "ledger")  # fixed at the ledger and its key, not in the plan

    exported = Ledger(path, there).export_key()
    with pytest.raises(LedgerKeyError, match="key of another ledger"):
        copied.import_key(Ledger(tmp_path / "other.sqlite", there).export_key())
    copied.import_key(exported)
    with pytest.raises(LedgerError, match="already in the ledger as dataset 'survey'"):
        release(load_table(data), plan("survey again"), copied, TOTAL)
    release(load_table(data), plan(), copied)


def test_a_wrong_key_is_refused_and_the_right_one_replaces_it(tmp_path, data):
    keys = FileKeys(tmp_path / "keys")
    ledger = Ledger(tmp_path / "ledger.sqlite", keys)
    release(load_table(data), plan(), ledger, TOTAL)
    right = ledger.export_key()
    wrong = {**right, "key": "00" * 32}
    with pytest.raises(LedgerKeyError, match="does not hold the key this ledger's fingerprints were made with"):
        ledger.import_key(wrong)
    keys.put(ledger.ledger_id(), bytes(32), replace=True)  # the key file was overwritten by hand
    with pytest.raises(LedgerKeyError, match="not the one its fingerprints were made with"):
        release(load_table(data), plan(), Ledger(ledger.path, keys))
    Ledger(ledger.path, keys).import_key(right)
    release(load_table(data), plan(), Ledger(ledger.path, keys))


def _fingerprint(path: str, keys: str, data: str, barrier, results) -> None:
    barrier.wait()
    results.put(Ledger(path, FileKeys(Path(keys))).fingerprint(data))


def test_processes_opening_a_fresh_ledger_at_once_agree_on_one_key(tmp_path, data):
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(4), context.Queue()
    args = (str(tmp_path / "ledger.sqlite"), str(tmp_path / "keys"), str(data), barrier, results)
    workers = [context.Process(target=_fingerprint, args=args) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert len({results.get(timeout=5) for _ in workers}) == 1
    assert len(list((tmp_path / "keys").glob("*.key"))) == 1


def test_a_key_file_is_written_whole_for_its_owner_alone_and_never_over_another(tmp_path):
    path = tmp_path / "k.key"
    write_private_file(path, "one")
    with pytest.raises(FileExistsError):
        write_private_file(path, "two")
    assert path.read_text() == "one" and list(tmp_path.iterdir()) == [path]  # no temporary file left
    keys = FileKeys(tmp_path / "keys")
    keys.put("0" * 32, bytes(32))
    keys.put("0" * 32, bytes(32))  # the same key again is no conflict
    with pytest.raises(LedgerKeyError, match="already holds another key"):
        keys.put("0" * 32, bytes([1]) * 32)
    with pytest.raises(LedgerKeyError, match="id"):
        keys.get("../../etc/passwd")  # a ledger's id never names a file outside the key folder


class MemoryKeyring:
    """A keyring backend's two methods, in memory; ``broken`` makes it refuse to store."""

    def __init__(self, broken: bool = False) -> None:
        self.secrets, self.broken = {}, broken

    def get_password(self, service, user):
        return self.secrets.get((service, user))

    def set_password(self, service, user, secret):
        if self.broken:
            raise RuntimeError("locked")
        self.secrets[(service, user)] = secret


def test_a_usable_system_keyring_keeps_the_key_and_a_failing_one_leaves_it_to_the_key_file(tmp_path, data):
    ring = MemoryKeyring()
    keys = UserKeys(FileKeys(tmp_path / "keys"), lambda: KeyringKeys(ring, "the test keyring"))
    ledger = Ledger(tmp_path / "a.sqlite", keys)
    fingerprint = ledger.fingerprint(data)
    assert list(ring.secrets) and not (tmp_path / "keys").exists()
    assert Ledger(ledger.path, keys).fingerprint(data) == fingerprint

    broken = UserKeys(FileKeys(tmp_path / "keys"), lambda: KeyringKeys(MemoryKeyring(broken=True)))
    other = Ledger(tmp_path / "b.sqlite", broken)
    other.fingerprint(data)
    assert FileKeys(tmp_path / "keys").get(other.ledger_id()) is not None
    assert "the key folder" in broken.where and "the system keyring" in broken.where


def test_no_keyring_is_used_in_a_session_without_a_desktop_or_when_a_key_folder_is_set(monkeypatch, tmp_path):
    for variable in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"):
        monkeypatch.delenv(variable, raising=False)
    if sys.platform.startswith("linux"):
        assert system_keyring() is None  # never a prompt, never a wait for a keyring daemon
    monkeypatch.setenv(KEYS_VARIABLE, str(tmp_path))
    assert user_keys() == FileKeys(tmp_path)


def test_the_key_folder_is_in_the_users_configuration_folder(monkeypatch):
    import platformdirs

    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    keys = user_keys()
    assert keys.files.folder == Path(platformdirs.user_config_dir("dp-workbench", appauthor=False)) / "ledger-keys"


def test_the_exported_ledger_and_the_key_check_reveal_nothing_about_the_data(tmp_path, data):
    """The key check is a keyed hash of a constant; the export holds neither fingerprints nor the key."""
    keys = FileKeys(tmp_path / "keys")
    ledger = Ledger(tmp_path / "ledger.sqlite", keys)
    release(load_table(data), plan(), ledger, TOTAL)
    key = keys.get(ledger.ledger_id())
    exported = json.dumps([e.public_json() for e in ledger.entries()])
    assert key.hex() not in exported and ledger.entries()[0].data["fingerprint"] not in exported
