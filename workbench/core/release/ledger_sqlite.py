"""The ledger of one person: a SQLite file (the default, ``ledger.sqlite`` in the user's data folder).

A write transaction takes SQLite's write lock at its start (BEGIN IMMEDIATE), so two processes on
the same file are serialised and cannot both spend the same budget; a commit is durable before it
returns (WAL, synchronous=FULL), so a value shown after it survives a crash or a power cut. SQLite's
locking is not reliable on network file systems: a team shares a ledger on a server instead
(``ledger_postgres``).

A ledger written by version 1 kept the fingerprint key in its meta table; it is moved to the user's key
store when the file is opened, and overwritten in the file (secure_delete, VACUUM, a WAL checkpoint).
"""

from __future__ import annotations

import datetime as _dt
import getpass
import secrets
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from workbench.core.errors import WorkbenchError
from workbench.core.release.ledger import (
    LEDGER_VERSION,
    Entry,
    Ledger,
    LedgerError,
    Transaction,
    default_ledger_path,
    key_check,
)
from workbench.core.release.ledger_keys import KeyStore, user_keys

T = TypeVar("T")
_BUSY_SECONDS = 30.0  # how long a process waits for another's write to the same ledger file


class SqliteTransaction:
    """``ledger.Transaction`` on a SQLite connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.user = _login()

    def entries(self, dataset: str | None) -> list[Entry]:
        query = "SELECT seq, dataset, kind, created, body, prev_hash, hash FROM entries"
        rows = self.db.execute(query + " ORDER BY seq") if dataset is None else self.db.execute(
            query + " WHERE dataset = ? ORDER BY seq", (dataset,))
        return [Entry(*row) for row in rows]

    def head(self) -> tuple[int, str] | None:
        row = self.db.execute("SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else None

    def insert(self, entry: Entry) -> None:
        self.db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)", (
            entry.seq, entry.dataset, entry.kind, entry.created, entry.body, entry.prev_hash, entry.hash))

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def dataset_names(self) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT DISTINCT dataset FROM entries ORDER BY dataset")]

    def has_dataset(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM entries WHERE dataset = ? LIMIT 1", (name,)).fetchone() is not None

    def now(self) -> str:
        return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def _login() -> str:
    """The local user's login name, which a local ledger records as who wrote an entry."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "this computer's user"


class SqliteLedger(Ledger):
    """A ledger file."""

    def __init__(self, path: str | Path | None = None, keys: KeyStore | None = None) -> None:
        self.path = Path(path) if path is not None else default_ledger_path()
        self.keys = keys if keys is not None else user_keys()
        self._key = None
        if not self._has_tables():
            with self._write() as tx:
                tx.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                tx.db.execute(
                    "CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY, dataset TEXT NOT NULL, "
                    "kind TEXT NOT NULL, created TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL, "
                    "hash TEXT NOT NULL)"
                )
                tx.db.execute("INSERT OR IGNORE INTO meta VALUES ('version', ?)", (str(LEDGER_VERSION),))
                tx.db.execute("INSERT OR IGNORE INTO meta VALUES ('ledger_id', ?)", (secrets.token_hex(16),))
        with self._read() as tx:
            version = int(tx.meta("version") or 0)
        if version > LEDGER_VERSION:
            raise LedgerError(f"The ledger {self.path} was written by a newer DP Workbench; update to use it.")
        try:
            self._prepare_key()
        except WorkbenchError:
            pass  # a ledger that cannot be written now can still be read; a release tries again, and says why

    @property
    def where(self) -> str:
        return f"the ledger {self.path}"

    def _has_tables(self) -> bool:
        if not self.path.is_file():
            return False
        with self._read() as tx:
            names = {row[0] for row in tx.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {"meta", "entries"} <= names

    # ------------------------------------------------------------------ connections

    def _connect(self) -> sqlite3.Connection:
        """A connection in WAL mode. Switching a new file to WAL takes a lock that SQLite does not wait for
        (its busy handler is not called there): processes opening a fresh ledger at once got "database is
        locked", so that switch is tried again, for as long as a busy transaction is waited for."""
        waited, pause = 0.0, 0.01
        while True:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None)
            except (OSError, sqlite3.Error) as exc:
                raise self._error("opened", exc) from None
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                return db
            except sqlite3.Error as exc:
                db.close()
                if not _busy(exc) or waited >= _BUSY_SECONDS:
                    raise self._error("opened", exc) from None
            time.sleep(pause)
            waited += pause
            pause = min(pause * 2, 0.5)

    def _error(self, doing: str, exc: BaseException) -> LedgerError:
        return LedgerError(
            f"The privacy ledger {self.path} cannot be {doing} ({exc}). Nothing was released. Check that the "
            "folder exists, is writable and the disk is not full, or choose another ledger file."
        )

    @contextmanager
    def _write(self, secure_delete: bool = False) -> Iterator[SqliteTransaction]:
        """One write transaction, holding SQLite's write lock from its start (BEGIN IMMEDIATE);
        ``secure_delete`` overwrites deleted content with zeros."""
        db = self._connect()
        try:
            if secure_delete:
                db.execute("PRAGMA secure_delete = ON")
            db.execute("BEGIN IMMEDIATE")
            yield SqliteTransaction(db)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(db)
            raise self._error("written", exc) from None
        except BaseException:
            _rollback(db)
            raise
        finally:
            db.close()

    def _transact(self, work: Callable[[Transaction], T]) -> T:
        with self._write() as tx:
            return work(tx)

    @contextmanager
    def _read(self) -> Iterator[SqliteTransaction]:
        db = self._connect()
        try:
            yield SqliteTransaction(db)
        except sqlite3.Error as exc:
            raise self._error("read", exc) from None
        finally:
            db.close()

    # ------------------------------------------------------------------ a key left in the file by version 1

    def _prepare_key(self) -> None:
        """A ledger of version 1 kept its key in its meta table: move it to the user's key store, delete it
        from the file, and overwrite what is left of it there (secure_delete, VACUUM, a WAL checkpoint)."""
        with self._read() as tx:
            if tx.meta("fingerprint_key") is None:
                return
        with self._write(secure_delete=True) as tx:
            legacy = tx.meta("fingerprint_key")
            if legacy is None:
                return  # another process moved it meanwhile
            key = bytes.fromhex(legacy)
            ledger_id = tx.meta("ledger_id") or secrets.token_hex(16)
            self.keys.put(ledger_id, key)
            tx.set_meta("ledger_id", ledger_id)
            tx.set_meta("key_check", key_check(key))
            tx.db.execute("DELETE FROM meta WHERE key = 'fingerprint_key'")
            tx.set_meta("version", str(LEDGER_VERSION))
        self._compact()

    def _compact(self) -> None:
        """Rewrite the file without free pages, and empty the write-ahead log, so that no copy of deleted
        content is left in either. Best effort: another process reading the ledger can hold the log open."""
        db = self._connect()
        try:
            db.execute("PRAGMA secure_delete = ON")
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        finally:
            db.close()


def _busy(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _rollback(db: sqlite3.Connection) -> None:
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error:
        pass


Ledger.backends["sqlite"] = SqliteLedger
