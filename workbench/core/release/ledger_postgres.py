"""The ledger of a team: one chain of entries in a PostgreSQL database that every analyst's app charges.

Five people releasing from one census on five desktops must spend one budget; a SQLite file on
a network drive cannot hold it (SQLite's locking is unreliable there), a database server can.
The rules are ``ledger.Ledger``'s, unchanged; this module only stores and locks:

- Every write transaction first takes the ledger's lock (a PostgreSQL advisory transaction lock,
  which any role may take), so a budget check and its charge cannot interleave with another
  analyst's: the equivalent of SQLite's BEGIN IMMEDIATE. Behind it, the entry number is the primary
  key and the server's trigger admits only the entry that follows the newest one, so no client, even
  one that skipped the lock, can fork the chain or fill a gap.
- A value is shown only after its charge's COMMIT returned. If the connection is lost during the
  COMMIT, its outcome is unknown: the ledger is asked again (for the entry's hash) before anything is
  said, and if it cannot be asked the release is reported as not shown, with the entry to look for.
- Analysts are members of a role that may read and append only. The trigger admits from them only
  releases written under their own role name (``by``); registering a dataset and raising a budget are
  the administrator's, who owns the tables.
- Passwords come from libpq's own places (``~/.pgpass``, a service file) or, in the app, from a
  prompt kept in memory; a URL that holds one is refused, so that none is written in a command, a
  setting or a log.

The fingerprint key is the team's, made by ``init_server`` and handed to analysts as a key file by the
administrator; it is never stored on the server, and a team ledger never makes a key of its own.

Written with psycopg 3 and plain SQL: the store is two tables and a trigger, no ORM is needed.
"""

from __future__ import annotations

import datetime as _dt
import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

from workbench.core.release.ledger import (
    GENESIS,
    LEDGER_VERSION,
    Entry,
    EntryRefused,
    Ledger,
    LedgerError,
    LedgerPasswordNeeded,
    LedgerUnreachable,
    Transaction,
    chain_problems,
    default_ledger_location,
    key_check,
)
from workbench.core.release.ledger_keys import KeyStore, LedgerKeyError, user_keys

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
SCHEMA = "dp_workbench"
ANALYSTS = "dp_workbench_analyst"
LOCK = 0x6470_7762_6C65_6467  # the ledger's advisory lock: "dpwbledg"
CONNECT_TIMEOUT = 10  # seconds: an office network answers in less; a laptop away from it is told soon
RETRIES = 5  # a write that met another writer's entry (possible only without the lock) is tried again
# synchronous_commit: a commit returns once the entry is on the server's disk, whatever the database's default (off,
# a server crash could lose a charge already shown; a helper's audit); any role may set it
SESSION = ("-c lock_timeout=30s -c idle_in_transaction_session_timeout=60s -c statement_timeout=120s "
           "-c synchronous_commit=on")
ADMIN_ADVICE = (
    "Spend less, or ask the team ledger's administrator to raise the dataset's total "
    "(`dp-workbench ledger raise`, recorded with its reason)."
)


def server_settings(url: str) -> dict[str, str]:
    """The connection parameters of ``url`` (libpq's parser); LedgerError for one that holds a password."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        settings = {key: str(value) for key, value in conninfo_to_dict(url.strip()).items()}
    except ProgrammingError as exc:
        raise LedgerError(f"'{_without_password(url)}' is not a PostgreSQL connection URL ({exc}). Write it as "
                          "postgresql://server/database, optionally with user@ before the server.") from None
    if "password" in settings:
        raise LedgerError(
            "The team ledger's URL holds a password. A password is never written in a URL, a command or a setting, "
            "where others could read it: put it in ~/.pgpass (or %APPDATA%\\postgresql\\pgpass.conf on Windows), "
            "or use a service file; the app asks for it when neither has it. Give the URL without it, "
            f"e.g. {_without_password(url)}."
        )
    return settings


def _without_password(url: str) -> str:
    """``url`` with any password replaced by nothing, for messages."""
    import re

    url = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1@", url.strip())
    return re.sub(r"([?&])password=[^&]*&?", r"\1", url).rstrip("?&")


@dataclass(frozen=True)
class Server:
    """Where a team ledger is and who is connected to it, as the app's budget panel and ``ledger show`` say it."""

    host: str
    port: str
    database: str
    user: str
    version: str
    administrator: bool

    @property
    def in_words(self) -> str:
        return f"the team ledger '{self.database}' on {self.host}"

    @property
    def line(self) -> str:
        """One line: "Team ledger 'census' on db.office (PostgreSQL 16.2), as alice"."""
        role = " (administrator)" if self.administrator else ""
        return f"Team ledger '{self.database}' on {self.host} (PostgreSQL {self.version}), as {self.user}{role}"


class PostgresTransaction:
    """``ledger.Transaction`` on a psycopg connection, in the ledger's schema."""

    def __init__(self, conn: "psycopg.Connection", user: str) -> None:
        self.conn = conn
        self.user = user
        self.appended: list[Entry] = []

    def entries(self, dataset: str | None) -> list[Entry]:
        query = f"SELECT seq, dataset, kind, created, body, prev_hash, hash FROM {SCHEMA}.entries"
        rows = self.conn.execute(query + " ORDER BY seq") if dataset is None else self.conn.execute(
            query + " WHERE dataset = %s ORDER BY seq", (dataset,))
        return [Entry(*row) for row in rows]

    def head(self) -> tuple[int, str] | None:
        row = self.conn.execute(f"SELECT seq, hash FROM {SCHEMA}.entries ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else None

    def insert(self, entry: Entry) -> None:
        self.conn.execute(f"INSERT INTO {SCHEMA}.entries VALUES (%s, %s, %s, %s, %s, %s, %s)", (
            entry.seq, entry.dataset, entry.kind, entry.created, entry.body, entry.prev_hash, entry.hash))
        self.appended.append(entry)

    def meta(self, key: str) -> str | None:
        row = self.conn.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(f"INSERT INTO {SCHEMA}.meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                          "EXCLUDED.value", (key, value))

    def dataset_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute(f"SELECT DISTINCT dataset FROM {SCHEMA}.entries ORDER BY dataset")]

    def has_dataset(self, name: str) -> bool:
        return self.conn.execute(f"SELECT 1 FROM {SCHEMA}.entries WHERE dataset = %s LIMIT 1", (name,)).fetchone() \
            is not None

    def now(self) -> str:
        """The server's clock, so that the entries of every analyst's machine are timed alike."""
        moment = self.conn.execute("SELECT clock_timestamp()").fetchone()[0]
        return moment.astimezone(_dt.timezone.utc).isoformat(timespec="microseconds")


class PostgresLedger(Ledger):
    """A team ledger: ``url`` is ``postgresql://[user@]server[:port]/database`` (libpq's URL, so ``?service=NAME``
    and the usual environment variables work too). ``password`` is one the app asked for; otherwise libpq finds
    it (``~/.pgpass``, a service file). Opening it connects once: a server that cannot be reached is said at once."""

    strict_json = True  # the trigger reads each entry as jsonb: no NUL character (\u0000), no NaN or infinity

    def __init__(self, url: str | None = None, keys: KeyStore | None = None, password: str | None = None) -> None:
        url = url if url is not None else str(default_ledger_location())
        self.url = url.strip()
        self.settings = server_settings(self.url)
        self.keys = keys if keys is not None else user_keys()
        self._password = password
        self._key = None
        self.server = self._describe()

    def __repr__(self) -> str:  # never the password
        return f"PostgresLedger({_without_password(self.url)!r})"

    @property
    def where(self) -> str:
        server = getattr(self, "server", None)
        if server is not None:
            return server.in_words
        host = self.settings.get("host") or self.settings.get("service") or "this computer"
        return f"the team ledger '{self.settings.get('dbname', '?')}' on {host}"

    @property
    def raise_advice(self) -> str:
        return ADMIN_ADVICE if not self.server.administrator else super().raise_advice

    # ------------------------------------------------------------------ connections

    def _connect(self) -> "psycopg.Connection":
        import psycopg

        options = {"application_name": "DP Workbench", "connect_timeout": str(CONNECT_TIMEOUT),
                   "keepalives_idle": "30", "keepalives_interval": "10", "keepalives_count": "3"}
        given = {key: value for key, value in options.items() if key not in self.settings}
        # entries are UTF-8 text (ε, accented labels): on a database in another encoding the server converts them
        # and refuses a character it lacks with a server error (``_server_reason``); a client encoding taken from
        # the database had failed in the client instead, with an error whose repr held the whole uncharged entry
        given["client_encoding"] = "UTF8"
        given["options"] = (self.settings.get("options", "") + " " + SESSION).strip()
        if self._password is not None:
            given["password"] = self._password
        try:
            return psycopg.connect(self.url, **given)
        except psycopg.OperationalError as exc:
            raise self._unreachable(exc, "connected to") from None

    def _unreachable(self, exc: BaseException, doing: str) -> LedgerUnreachable:
        reason = _server_reason(exc)
        if "password" in reason.lower() and ("no password" in reason.lower() or "authentication failed" in reason.lower()):
            refused = self._password is not None or "authentication failed" in reason.lower()
            return LedgerPasswordNeeded(
                f"{_capital(self.where)} asks for a password"
                + (" and refused the one given" if refused else ", and none was found") + ". Nothing was released. "
                "Put it in ~/.pgpass (or a service file), or enter it when the app asks; check the user name "
                "in the URL with your administrator."
            )
        return LedgerUnreachable(
            f"{_capital(self.where)} cannot be {doing} ({reason}). Nothing was released, and nothing was recorded. "
            "A team ledger's datasets are released only while its server can be reached: connect to the office "
            "network (or its VPN) and try again. DP Workbench never uses a ledger on this computer instead."
        )

    @contextmanager
    def _read(self) -> Iterator[PostgresTransaction]:
        import psycopg

        conn = self._connect()
        try:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ  # several queries, one moment
            conn.read_only = True
            yield PostgresTransaction(conn, conn.info.user)
        except psycopg.OperationalError as exc:
            raise self._unreachable(exc, "read") from None
        except psycopg.errors.UndefinedTable:
            raise self._not_set_up() from None
        except psycopg.errors.InsufficientPrivilege:
            raise self._not_allowed() from None
        except psycopg.Error as exc:
            raise LedgerError(f"{_capital(self.where)} cannot be read ({_server_reason(exc)}).") from None
        finally:
            conn.close()

    def _transact(self, work: Callable[[Transaction], T]) -> T:
        """``work`` under the ledger's lock, committed; tried again if it met an entry written without the lock."""
        import psycopg

        for attempt in range(RETRIES):
            conn = self._connect()
            # read committed, whatever the database's default: each query after the lock sees the entries committed
            # before it was taken (a snapshot taken before the wait, under repeatable read or serializable, refused
            # writers as "written by others at every try"; a helper's audit)
            conn.isolation_level = psycopg.IsolationLevel.READ_COMMITTED
            tx = PostgresTransaction(conn, conn.info.user)
            try:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
                result = work(tx)
                try:
                    conn.commit()
                except psycopg.OperationalError as exc:
                    return self._after_lost_commit(tx, result, exc)
                return result
            except (psycopg.errors.UniqueViolation, psycopg.errors.SerializationFailure,
                    psycopg.errors.DeadlockDetected):
                conn.rollback()
                if attempt == RETRIES - 1:
                    raise LedgerError(f"{_capital(self.where)} was written by others at every try. Nothing was "
                                      "recorded. Try again.") from None
            except psycopg.errors.LockNotAvailable:
                raise LedgerError(
                    f"{_capital(self.where)} is busy: another analyst's release has been recording for 30 seconds. "
                    "Nothing was released. Try again in a minute; if it stays busy, tell the administrator."
                ) from None
            except psycopg.errors.InsufficientPrivilege:
                raise self._not_allowed() from None
            except psycopg.errors.UndefinedTable:
                raise self._not_set_up() from None
            except psycopg.OperationalError as exc:
                raise self._unreachable(exc, "written (the connection was lost before the entry was committed)") \
                    from None
            except psycopg.DataError as exc:  # SQLSTATE class 22: what the entry holds, not the server
                raise EntryRefused(f"{_capital(self.where)} cannot be written ({_server_reason(exc)}). Nothing was "
                                   "recorded.") from None
            except psycopg.Error as exc:
                raise LedgerError(f"{_capital(self.where)} cannot be written ({_server_reason(exc)}). Nothing was "
                                  "recorded.") from None
            finally:
                conn.close()
        raise AssertionError("unreachable")

    def _after_lost_commit(self, tx: PostgresTransaction, result: T, exc: BaseException) -> T:
        """The connection was lost during COMMIT: ask the server whether the entries were recorded. Only a
        recorded charge is returned (and so shown); one the server cannot confirm is not."""
        if not tx.appended:
            return result
        newest = tx.appended[-1]
        try:
            with self._read() as check:
                recorded = check.conn.execute(f"SELECT 1 FROM {SCHEMA}.entries WHERE hash = %s",
                                              (newest.hash,)).fetchone() is not None
        except LedgerUnreachable:
            raise LedgerUnreachable(
                f"The connection to {self.where} was lost while entry {newest.seq} was being committed, and the "
                f"server cannot be asked now whether it was recorded. Nothing is shown. If `dp-workbench ledger "
                f"show` later lists entry {newest.seq} as yours ({newest.by}, '{newest.dataset}', {newest.created}), "
                "it was recorded, and its values can be read with `dp-workbench ledger export`; if not, nothing was "
                "spent."
            ) from None
        if recorded:
            return result
        raise LedgerUnreachable(
            f"The connection to {self.where} was lost before its entry was committed ({_server_reason(exc)}). Nothing "
            "was recorded and "
            "nothing is shown. Try again."
        )

    def _not_set_up(self) -> LedgerError:
        return LedgerError(
            f"There is no team ledger in the database '{self.settings.get('dbname', '?')}' of this server: its "
            "administrator sets one up with `dp-workbench ledger init-server URL`. Check the URL."
        )

    def _not_allowed(self) -> LedgerError:
        return LedgerError(
            f"This user ({self.settings.get('user', 'you')}) may not do that on {self.where}. Analysts read it and "
            f"append releases (as members of the role {ANALYSTS}); registering a dataset or raising a budget is "
            "its administrator's."
        )

    def _describe(self) -> Server:
        with self._read() as tx:
            version = tx.meta("version")
            if version is None:
                raise self._not_set_up()
            if int(version) > LEDGER_VERSION:
                raise LedgerError(f"{_capital(self.where)} was written by a newer DP Workbench; update to use it.")
            administrator = tx.conn.execute(
                "SELECT has_table_privilege(session_user, %s, 'UPDATE')", (f"{SCHEMA}.entries",)).fetchone()[0]
            info = tx.conn.info
            major, minor = divmod(info.server_version, 10000)
            return Server(host=info.host if not info.host.startswith("/") else "this computer", port=str(info.port),
                          database=info.dbname, user=info.user, version=f"{major}.{minor}",
                          administrator=bool(administrator))

    # ------------------------------------------------------------------ who may do what

    def check_may_register(self, name: str) -> None:
        if not self.server.administrator:
            raise LedgerError(
                f"'{name}' is not registered in {self.where}, and on a team ledger its administrator registers each "
                "dataset with its total budget (and raises it). Nothing was released. Ask them to register it: "
                f"`dp-workbench ledger register \"{name}\" --plan PLAN --epsilon E --ledger URL`."
            )

    def _may_make_key(self, tx: Transaction) -> None:
        raise LedgerKeyError(
            f"The fingerprints of {self.where} are keyed with the team's key, which is not kept for this user on this "
            f"machine (looked in {self.keys.where}). Nothing was released. Ask the administrator for the team's key "
            "file (`dp-workbench ledger key export --ledger URL --out team.key`, where the team ledger was set up) "
            "and import it: `dp-workbench ledger key import team.key --ledger URL`. The server never holds the key."
        )

    # ------------------------------------------------------------------ moving a local ledger in

    def adopt(self, entries: list[Entry], ledger_id: str, check: str | None) -> None:
        """Append ``entries`` as they are (numbers, times, hashes), into this ledger while it is empty, and take
        the local ledger's id and key check, so that its key still recognises the data it fingerprinted."""

        def work(tx: Transaction) -> None:
            assert isinstance(tx, PostgresTransaction)
            if tx.head() is not None:
                raise LedgerError(
                    f"{_capital(self.where)} already has entries; a local ledger is moved only into an empty team "
                    "ledger (its chain must start at its first entry). Set up a new database with "
                    "`dp-workbench ledger init-server` and move the ledger there."
                )
            if check is not None:
                tx.set_meta("ledger_id", ledger_id)
                tx.set_meta("key_check", check)
            for entry in entries:
                tx.insert(entry)

        self.check_may_register("the local ledger's datasets")
        self._transact(work)
        self._key = None


def _server_reason(exc: BaseException) -> str:
    """The server's reason in one line, without the detail and context PostgreSQL adds: those may quote the entry
    being written (a jsonb error shows the text around a bad character), whose values are noisy and, the write
    refused, not charged (DESIGN's rule 5: nothing noisy is shown before its charge)."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    if not primary:  # no server message (a lost connection): the client's own words, which hold no entry
        primary = str(exc).split("\nDETAIL:")[0].split("\nCONTEXT:")[0]
    reason = " ".join(primary.split()) or type(exc).__name__
    code = getattr(exc, "sqlstate", None)
    return f"{reason}; SQLSTATE {code}" if code else reason


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def _identifier(name: str) -> str:
    """A role name as SQL names it (quoted); LedgerError for one that is not a plain name."""
    import re

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
        raise LedgerError(f"'{name}' cannot be a role name here: use letters, digits and _ only.")
    return f'"{name}"'


def _schema_sql(analysts: str) -> list[str]:
    """The team ledger's tables, the trigger that keeps the chain whole and analysts to their own releases, and
    the analysts' rights: read both tables, append entries."""
    role = _identifier(analysts)
    return [
        f"CREATE SCHEMA {SCHEMA}",
        f"CREATE TABLE {SCHEMA}.meta (key text PRIMARY KEY, value text NOT NULL)",
        f"""CREATE TABLE {SCHEMA}.entries (
            seq bigint PRIMARY KEY CHECK (seq > 0), dataset text NOT NULL,
            kind text NOT NULL CHECK (kind IN ('register', 'budget', 'release')), created text NOT NULL,
            body text NOT NULL, prev_hash text NOT NULL UNIQUE, hash text NOT NULL UNIQUE)""",
        f"CREATE INDEX entries_by_dataset ON {SCHEMA}.entries (dataset, seq)",
        # its search_path fixed: an analyst allowed to create functions in a schema earlier on theirs (public, on
        # PostgreSQL 14 and older) could have shadowed has_table_privilege and passed for the administrator
        f"""CREATE FUNCTION {SCHEMA}.check_entry() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
        DECLARE newest {SCHEMA}.entries%ROWTYPE;
        BEGIN
            SELECT * INTO newest FROM {SCHEMA}.entries ORDER BY seq DESC LIMIT 1;
            IF NEW.seq <> coalesce(newest.seq, 0) + 1 OR NEW.prev_hash <> coalesce(newest.hash, '{GENESIS}') THEN
                RAISE EXCEPTION USING ERRCODE = 'unique_violation',
                    MESSAGE = 'an entry must follow the newest one in the chain';
            END IF;
            IF has_table_privilege(session_user, '{SCHEMA}.entries', 'UPDATE') THEN
                RETURN NEW;  -- the administrator: registers, raises, and moves a local ledger in
            END IF;
            IF NEW.kind <> 'release' THEN
                RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
                    MESSAGE = 'only the administrator registers datasets and raises budgets';
            END IF;
            IF (NEW.body::jsonb ->> 'by') IS DISTINCT FROM session_user THEN
                RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
                    MESSAGE = 'an analyst appends releases under their own name only';
            END IF;
            RETURN NEW;
        END $$""",
        f"CREATE TRIGGER check_entry BEFORE INSERT ON {SCHEMA}.entries FOR EACH ROW "
        f"EXECUTE FUNCTION {SCHEMA}.check_entry()",
        f"""DO $$ BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{analysts}') THEN CREATE ROLE {role} NOLOGIN; END IF;
        END $$""",
        f"REVOKE ALL ON SCHEMA {SCHEMA} FROM PUBLIC",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {SCHEMA} FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA {SCHEMA} TO {role}",
        f"GRANT SELECT ON {SCHEMA}.meta TO {role}",
        f"GRANT SELECT, INSERT ON {SCHEMA}.entries TO {role}",
    ]


def init_server(url: str, analysts: str = ANALYSTS, keys: KeyStore | None = None,
                password: str | None = None) -> PostgresLedger:
    """Set up a team ledger in the (existing, empty of it) database of ``url``, connected as its administrator:
    the tables, the trigger, the analysts' role, a new ledger id and the team's fingerprint key, kept in this
    user's key store (``ledger key export`` writes it for the analysts). Refused if one is there already."""
    import psycopg

    probe = _Unopened(url, password)
    conn = probe._connect()
    try:
        with conn.transaction():
            exists = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (SCHEMA,)).fetchone()
            if exists:
                raise LedgerError(
                    f"The database '{probe.settings.get('dbname', '?')}' already has a team ledger. Use it "
                    "(--ledger URL), or set up a new one in another database."
                )
            for statement in _schema_sql(analysts):
                conn.execute(statement)
            key = secrets.token_bytes(32)
            ledger_id = secrets.token_hex(16)
            for name, value in (("version", str(LEDGER_VERSION)), ("ledger_id", ledger_id),
                                ("key_check", key_check(key)), ("analysts", analysts)):
                conn.execute(f"INSERT INTO {SCHEMA}.meta VALUES (%s, %s)", (name, value))
            (keys if keys is not None else user_keys()).put(ledger_id, key)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise LedgerError(
            f"This user may not set up the team ledger here ({exc}). Connect as a role that may create a schema in "
            "the database and create roles (its owner, with CREATEROLE), or have a database administrator create "
            f"the role {analysts} first and pass --analysts."
        ) from None
    except psycopg.OperationalError as exc:
        raise probe._unreachable(exc, "set up") from None
    finally:
        conn.close()
    return PostgresLedger(url, keys, password)


class _Unopened(PostgresLedger):
    """A connection to a database that may not hold a ledger yet (``init_server``)."""

    def __init__(self, url: str, password: str | None = None) -> None:
        self.url = url.strip()
        self.settings = server_settings(self.url)
        self._password = password


def migrate(source: Ledger, target: PostgresLedger) -> int:
    """Move the local ledger ``source`` into the empty team ledger ``target``: every entry as it is, its chain
    verified before and after, and its id and key check, so that its fingerprint key goes on recognising its
    data. Returns the number of entries moved; refused if the source's chain is broken."""
    problems = source.verify()
    if problems:
        raise LedgerError(
            f"{_capital(source.where)} is damaged or was edited (entry {problems[0].entry}: {problems[0].message}); "
            "`dp-workbench ledger verify` lists every problem. A broken chain is not moved."
        )
    entries = source.entries()
    with source._read() as tx:
        ledger_id, check = tx.meta("ledger_id") or "", tx.meta("key_check")
    if check is None and any("fingerprint" in e.data or "content_fingerprint" in e.data for e in entries):
        raise LedgerError(f"{_capital(source.where)} holds fingerprints but no check of its key; it cannot be moved.")
    target.adopt(entries, ledger_id, check)
    moved = target.entries()
    if moved != entries or chain_problems(moved) or target.head() != source.head():
        raise LedgerError(f"The entries moved into {target.where} differ from the local ones; check both with "
                          "`dp-workbench ledger verify`.")
    return len(moved)


Ledger.backends["postgresql"] = PostgresLedger
