"""The privacy ledger: a persistent, append-only, hash-chained record of every release.

One interface, two stores: a SQLite file for one person (``ledger_sqlite``, the default) and a
PostgreSQL database for a team (``ledger_postgres``). Everything that decides what may be
released is here, written once against a small transaction interface (``Transaction``), so
that the hash chain, the refusals and the composition cannot differ between the two: a store
only reads and appends rows, inside a transaction that no other writer can interleave with.

All datasets' entries form one chain. Each entry stores the hash of the one before it, so
editing, deleting or reordering an entry breaks the chain (``verify``). A release is appended,
with its released values, inside one write transaction that first checks the dataset's
remaining budget and terms; only after that commit is durable may anyone see the values
(DESIGN rules 5 and 6). Each entry names who wrote it (``by``: the login of the local user, or
the server's role), so that a refusal can say who spent what, and when.

Two fingerprints recognise a dataset's data: a keyed hash of the file's bytes, and one of
the loaded table's content, which is the same whatever format, row order or column order
the same data come in (``data.fingerprint``). Both are HMACs, stay in the ledger, and are
left out of every export. Their key is never in the ledger: it is kept by the user
(``ledger_keys``: the system keyring or a private key file), found by the ledger's random
public id, so that a reader of the ledger alone cannot test a guessed row against them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Protocol, TypeVar

from workbench.core.data import PrivacyUnit, Schema, content_digest
from workbench.core.data.io import FileState
from workbench.core.errors import BudgetError, Place, WorkbenchError
from workbench.core.privacy import BASIC, Guarantee, MechanismEvent, compose, compose_releases, overspend
from workbench.core.privacy.composition import BUDGET_TOLERANCE
from workbench.core.release.ledger_keys import KeyStore, LedgerKeyError, key_file_json, key_from_json, user_keys
from workbench.core.release.plan import ReleasePlan, check_delta_for_size

if TYPE_CHECKING:
    import pandas as pd

LEDGER_VERSION = 2  # 2: the fingerprint key is kept outside the ledger (version 1 had it in meta, and is moved)
GENESIS = "0" * 64
LEDGER_VARIABLE = "DP_WORKBENCH_LEDGER"
SERVER_SCHEMES = ("postgresql://", "postgres://")
KINDS = ("register", "budget", "release")
T = TypeVar("T")
# Where the ledger's refusals are fixed (issue 38): the dataset's name (step 6) for data already in the ledger under
# another name or a name taken; who is protected for terms that differ; the plan's ε or δ for an overspend.
DATASET_NAME = Place("release", "dataset name")


class LedgerError(WorkbenchError):
    """The ledger cannot be read or written, or does not allow what was asked."""


class EntryRefused(LedgerError):
    """The store refused what an entry holds (a team database that cannot encode one of its characters): another
    entry, of other texts, may still be written. Nothing was recorded."""


class LedgerUnreachable(LedgerError):
    """A team ledger's server cannot be reached now: nothing is released, and no other ledger is used instead."""


class LedgerPasswordNeeded(LedgerUnreachable):
    """The server asks for a password that neither ~/.pgpass nor a service file gave (the app then asks for it)."""


@dataclass(frozen=True)
class Entry:
    """One link of the chain. ``body`` is canonical JSON; ``kind`` is register, budget or release."""

    seq: int
    dataset: str
    kind: str
    created: str
    body: str
    prev_hash: str
    hash: str

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.body)

    @property
    def by(self) -> str:
        """Who wrote the entry: a user or role name (entries written before version 0.2 do not say)."""
        return str(self.data.get("by") or "someone (not recorded)")

    def public_json(self) -> dict[str, Any]:
        """The entry as exported: everything but the private fingerprints, the data file's name (which
        entries written before version 0.1.1 hold in their plan) and the plan's columns that no released
        statistic read (their kinds and public categories say what the curator looked at, not what was
        released), and the name of who wrote it (a member of staff: the team's business, not the readers')."""
        data = {k: v for k, v in self.data.items() if k not in ("fingerprint", "content_fingerprint", "read_as", "by")}
        if isinstance(data.get("plan"), dict):
            data["plan"] = _used_plan(data["plan"])
        return {"entry": self.seq, "dataset": self.dataset, "kind": self.kind, "created": self.created, **data}


@dataclass(frozen=True)
class DatasetRecord:
    name: str
    budget: Guarantee
    neighbouring: str
    privacy_unit: str
    spent: Guarantee
    releases: int
    # what the releases so far count for once another is composed with them (``compose_releases``: the PLD's bound
    # holds for one release only), which is what is left is read against; None: ``spent``
    counted: Guarantee | None = None

    @property
    def remaining_epsilon(self) -> float:
        return max(0.0, self.budget.epsilon - (self.counted or self.spent).epsilon)

    @property
    def remaining_delta(self) -> float:
        return max(0.0, self.budget.delta - (self.counted or self.spent).delta)

    @property
    def remaining_in_words(self) -> str:
        """What is left, stated so that it cannot be misread when an accountant spent δ as a whole."""
        if (self.counted or self.spent).method == BASIC or self.budget.delta == 0:
            return f"ε = {self.remaining_epsilon:g}, δ = {self.remaining_delta:g}"
        return f"ε = {self.remaining_epsilon:g} at the total δ = {self.budget.delta:g}"


@dataclass(frozen=True)
class Terms:
    """What a dataset's ε measures: who is protected (the privacy unit: an id column and at most k rows of
    it) and which datasets are neighbours (add/remove, or substitute among datasets of a public number of
    persons). An ε under other terms is another quantity, so releases under them must not share one budget.

    Registrations written before the unit and the public size were recorded hold the unit in words only
    (``unit`` None): the words name the id column and k, and are compared instead."""

    neighbouring: str  # Neighbouring's value
    privacy_unit: str  # in words, as ``ledger show`` and the reports state it
    unit: PrivacyUnit | None = None
    public_size: int | None = None

    @classmethod
    def of(cls, schema: Schema) -> "Terms":
        return cls(schema.neighbouring.value, schema.unit.in_words, schema.unit, schema.public_size)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"neighbouring": self.neighbouring, "privacy_unit": self.privacy_unit}
        if self.unit is not None:
            data["unit"] = self.unit.to_json()
        return {**data, "public_size": self.public_size}

    @classmethod
    def from_registration(cls, data: dict[str, Any]) -> "Terms":
        unit = PrivacyUnit.from_json(data["unit"]) if isinstance(data.get("unit"), dict) else None
        return cls(data["neighbouring"], data["privacy_unit"], unit, data.get("public_size"))

    def same_unit(self, other: "Terms") -> bool:
        if self.unit is not None and other.unit is not None:
            return self.unit == other.unit
        return self.privacy_unit == other.privacy_unit


@dataclass(frozen=True)
class Registration:
    """What the ledger records about a new dataset: its total budget and the terms its ε is stated under, and
    the public estimate of its number of persons (which may justify a larger total δ)."""

    budget: Guarantee
    terms: Terms
    size_estimate: int | None = None

    def __post_init__(self) -> None:
        from workbench.core.privacy import check_delta, check_epsilon

        check_epsilon(self.budget.epsilon)
        try:
            if self.budget.delta:
                check_delta(self.budget.delta)
            _check_total_delta(self.budget.delta, self.terms.public_size or self.size_estimate)
        except BudgetError as exc:  # the new dataset's total δ, not the plan's
            raise exc.placed(Place("budget", "dataset delta")) from None

    def to_json(self, fingerprint: str | None, content_fingerprint: str | None = None) -> dict[str, Any]:
        data = {"budget": {"epsilon": self.budget.epsilon, "delta": self.budget.delta}, **self.terms.to_json()}
        if self.size_estimate is not None:
            data["size_estimate"] = self.size_estimate
        return {**data, **_fingerprints(fingerprint, content_fingerprint)}

    def as_record(self, name: str) -> DatasetRecord:
        return DatasetRecord(name, self.budget, self.terms.neighbouring, self.terms.privacy_unit,
                             compose([], self.budget.delta), 0)

    def check_affordable(self, name: str, events: list[MechanismEvent]) -> Guarantee:
        """Raise BudgetError if a first release of ``events`` would overspend this total already;
        the advice is to give the dataset a larger total, since nothing is recorded yet to raise."""
        return _check_affordable(self.as_record(name), [], events, NEW_DATASET_ADVICE, delta_place="dataset delta")


@dataclass(frozen=True)
class Problem:
    """A break in the chain found by ``verify``, in words."""

    entry: int
    message: str


def is_server_url(where: str | os.PathLike[str] | None) -> bool:
    """Whether ``where`` names a team ledger on a server (a PostgreSQL connection URL) rather than a file."""
    return isinstance(where, str) and where.strip().lower().startswith(SERVER_SCHEMES)


def default_ledger_location() -> str | Path:
    """``$DP_WORKBENCH_LEDGER`` if set (a file, or a ``postgresql://`` URL), else ledger.sqlite in the user's data
    directory."""
    configured = os.environ.get(LEDGER_VARIABLE)
    if configured:
        return configured.strip() if is_server_url(configured) else Path(configured)
    return local_ledger_path()


def local_ledger_path() -> Path:
    """ledger.sqlite in the user's data directory: the ledger when nothing else is chosen."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("dp-workbench", appauthor=False)) / "ledger.sqlite"


def default_ledger_path() -> Path:
    """The ledger file used when none is named: ``$DP_WORKBENCH_LEDGER`` if it names a file, else ledger.sqlite in
    the user's data directory. (A team ledger is not a file: see ``default_ledger_location``.)"""
    where = default_ledger_location()
    return where if isinstance(where, Path) else local_ledger_path()


def entry_hash(prev_hash: str, seq: int, dataset: str, kind: str, created: str, body: str) -> str:
    material = json.dumps([prev_hash, seq, dataset, kind, created, body], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Transaction(Protocol):
    """What a store offers inside one transaction. A write transaction excludes every other writer from its start
    (SQLite's BEGIN IMMEDIATE, PostgreSQL's ledger lock), so what it reads stays true until it commits."""

    user: str  # who is writing: the local login, or the server's role

    def entries(self, dataset: str | None) -> list[Entry]: ...

    def head(self) -> tuple[int, str] | None: ...

    def insert(self, entry: Entry) -> None: ...

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def dataset_names(self) -> list[str]: ...

    def has_dataset(self, name: str) -> bool: ...

    def now(self) -> str: ...


class Ledger(ABC):
    """A ledger: ``Ledger(where)`` opens a SQLite file (a path) or a team ledger (a ``postgresql://`` URL); with
    nothing given, ``default_ledger_location()``. Every method runs its own short transaction; nothing is cached
    but the fingerprint key. ``keys`` keeps the fingerprint key (default: the user's, ``ledger_keys.user_keys``).

    A store implements ``_read``, ``_transact`` and the few properties below; the rules are all here."""

    backends: ClassVar[dict[str, type["Ledger"]]] = {}  # "sqlite", "postgresql": filled by the store modules
    # whether an entry must be strict JSON, as PostgreSQL's jsonb reads it: no NUL character in a text (\u0000), no
    # NaN or infinity (SQLite keeps Python's JSON, which has both)
    strict_json: ClassVar[bool] = False

    def __new__(cls, where: str | os.PathLike[str] | None = None, *args: Any, **kwargs: Any) -> "Ledger":
        if cls is Ledger:
            where = where if where is not None else kwargs.get("path", kwargs.get("url"))
            location = default_ledger_location() if where is None else where
            cls = cls.backends["postgresql" if is_server_url(location) else "sqlite"]
        return super().__new__(cls)

    keys: KeyStore
    _key: tuple[str, bytes] | None = None  # (ledger id, key), once found and checked
    _last_file: tuple[bytes, Path, tuple[int, ...], str] | None = None  # the last file's fingerprint (``fingerprint``)

    # ------------------------------------------------------------------ what a store provides

    @property
    @abstractmethod
    def where(self) -> str:
        """The ledger in words, for messages: its file, or the team ledger's database and server."""

    @abstractmethod
    def _read(self) -> Any:
        """A context manager: one read-only transaction."""

    @abstractmethod
    def _transact(self, work: Callable[[Transaction], T]) -> T:
        """Run ``work`` in one write transaction and commit it (a store may run it again after a conflict, before
        anything is committed); a LedgerError if it cannot be done, saying that nothing was recorded."""

    def _may_make_key(self, tx: Transaction) -> None:
        """Raise LedgerKeyError unless this ledger may be given a new fingerprint key now."""

    def check_may_register(self, name: str) -> None:
        """Raise LedgerError if this user may not register dataset ``name`` or raise its budget here."""

    # ------------------------------------------------------------------ writing

    def _append(self, tx: Transaction, dataset: str, kind: str, data: dict[str, Any]) -> Entry:
        last = tx.head()
        seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
        created = tx.now()
        body = canonical({**data, "by": tx.user})
        digest = entry_hash(prev, seq, dataset, kind, created, body)
        entry = Entry(seq, dataset, kind, created, body, prev, digest)
        tx.insert(entry)
        return entry

    def fingerprint(self, path: str | Path, again: bool = False,
                    progress: Callable[[float], None] | None = None) -> str:
        """Keyed hash of a data file's bytes: recognises the file, reveals nothing without the key. The last file's
        is kept while its size, modification and change times and file number are those it was hashed with: a
        release that looks up what the ledger knows of the file before reading it (``recorded_content_fingerprint``)
        reads its bytes once for both. ``again``: read them again whatever is kept. ``progress`` hears the fraction
        of the bytes read (several seconds for a file of gigabytes), ending at 1.0 (an empty file's too), and nothing
        when the kept hash is the answer; raising from it (``Cancelled``) stops."""
        key = self._fingerprint_key()
        place = Path(path).resolve()
        state = FileState.of(place).key  # size and times, and the file number: what any write changes
        known = self._last_file
        if not again and known is not None and known[:3] == (key, place, state):
            return known[3]
        digest = hmac.new(key, digestmod=hashlib.sha256)
        size, done, heard = max(state[0], 1), 0, 0.0
        with place.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
                done += len(block)
                if progress is not None and heard < 1.0:  # a file grown meanwhile (refused then) is done once
                    heard = min(done / size, 1.0)
                    progress(heard)
        if progress is not None and heard < 1.0:  # an empty file, or one shrunk meanwhile (refused then)
            progress(1.0)
        fingerprint = digest.hexdigest()
        if FileState.key_of(place) == state:  # not kept for a file that changed while it was read
            self._last_file = (key, place, state, fingerprint)
        return fingerprint

    def kept(self, path: str | Path) -> tuple[tuple[int, ...], str] | None:
        """The hash ``fingerprint`` keeps for the file, and the file's state (``FileState.key``) when it was taken;
        None if none is kept for it (another file's, or none yet)."""
        known = self._last_file
        if known is None or known[1] != Path(path).resolve() or known[0] != self._fingerprint_key():
            return None
        return known[2], known[3]

    def recorded_content_fingerprint(self, path: str | Path, read_as: dict[str, Any],
                                     progress: Callable[[float], None] | None = None) -> str | None:
        """The content fingerprint this ledger recorded for a release of this very file (its bytes: ``fingerprint``,
        whose ``progress`` hears them read) read the same way (``read_as``: ``FileSource.read_as``), the newest if
        several: what hashing every row of the file again would give, so an engine need not
        (``SqlData.hashes_content``). None if no release records one; the file is then not read, and a ledger
        without a key is given none."""
        recorded = self._releases_read_as(read_as)
        if not recorded:
            return None
        return self.recorded_content_of(self.fingerprint(path, progress=progress), read_as, recorded)

    def _releases_read_as(self, read_as: dict[str, Any]) -> "list[Entry]":
        """The release entries that record both fingerprints of a file read as ``read_as``, oldest first."""
        with self._read() as tx:
            return [e for e in tx.entries(None) if e.kind == "release" and e.data.get("read_as") == read_as
                    and e.data.get("fingerprint") and e.data.get("content_fingerprint")]

    def recorded_content_of(self, fingerprint: str, read_as: dict[str, Any],
                            recorded: "list[Entry] | None" = None) -> str | None:
        """The content fingerprint this ledger recorded for a release of the file whose ``fingerprint`` (its bytes'
        keyed hash) is given, read as ``read_as``, the newest if several; None if none. ``recorded``: the release
        entries read already."""
        if recorded is None:
            recorded = self._releases_read_as(read_as)
        same = [e for e in recorded if e.data["fingerprint"] == fingerprint]
        return same[-1].data["content_fingerprint"] if same else None

    def content_fingerprint(self, frame: "pd.DataFrame", threads: int | None = None) -> str:
        """Keyed hash of a loaded table's content: recognises the same data in another file, format or order.
        ``threads``: how many DuckDB computes the digest on (None: one per core)."""
        return self.content_fingerprint_of(content_digest(frame, threads))

    def content_fingerprint_of(self, digest: bytes) -> str:
        """Keyed hash of a table's content digest (``data.content_digest``, or an engine's own of the same kind)."""
        return hmac.new(self._fingerprint_key(), digest, hashlib.sha256).hexdigest()

    # ------------------------------------------------------------------ the fingerprint key

    def ledger_id(self) -> str:
        """The ledger's random public id, by which its key is kept (``ledger_keys``)."""
        with self._read() as tx:
            return tx.meta("ledger_id") or ""

    def check_key(self) -> None:
        """Raise LedgerKeyError if this ledger's fingerprint key is not here (a release would be refused);
        a ledger that never had one gets it now."""
        self._fingerprint_key()

    def _prepare_key(self) -> None:
        """Anything a store must do before its key is looked up (the SQLite file of version 1 moves it out)."""

    def _fingerprint_key(self) -> bytes:
        """This ledger's key, from the user's key store; a new one only for a ledger that never had one."""
        self._prepare_key()
        with self._read() as tx:
            ledger_id, check = tx.meta("ledger_id"), tx.meta("key_check")
        if ledger_id is None:
            raise LedgerError(f"{_capital(self.where)} has no id (its meta table was changed); it cannot be used.")
        if self._key is not None and self._key[0] == ledger_id:
            return self._key[1]
        key = self.keys.get(ledger_id)
        if key is None:
            key = self._new_key()
        elif check is not None and key_check(key) != check:
            raise LedgerKeyError(
                f"The key kept for {self.where} (in {self.keys.where}) is not the one its fingerprints "
                "were made with, so the same data under another dataset name would not be recognised; nothing was "
                "released. Import this ledger's own key with `dp-workbench ledger key import FILE`, exported where "
                "the ledger was used before with `dp-workbench ledger key export`."
            )
        self._key = (ledger_id, key)
        return key

    def _new_key(self) -> bytes:
        """A key for a ledger that has none yet; refused for one whose fingerprints were made with a key that is
        not here (the ledger was copied, or its key lost): a new key would not recognise its data."""

        def make(tx: Transaction) -> bytes:
            ledger_id, check = tx.meta("ledger_id"), tx.meta("key_check")
            assert ledger_id is not None
            key = self.keys.get(ledger_id)  # made meanwhile by another process
            if key is not None:
                return key
            self._may_make_key(tx)
            if check is not None or _holds_fingerprints(tx):
                raise LedgerKeyError(
                    f"{_capital(self.where)} holds fingerprints made with a key that is not kept for this user on "
                    f"this machine (looked in {self.keys.where}; ledger id {ledger_id}). Without it the same data "
                    "under another dataset name would not be recognised, so nothing is released. If the ledger was "
                    "copied from another machine or user, run `dp-workbench ledger key export --out FILE` there and "
                    "`dp-workbench ledger key import FILE` here (the key file lets its holder test a guessed data "
                    "file against the ledger: move it as you would the data). If the key is in a keyring, check that "
                    "it is unlocked."
                )
            key = secrets.token_bytes(32)
            self.keys.put(ledger_id, key)
            tx.set_meta("key_check", key_check(key))
            return key

        return self._transact(make)

    def export_key(self) -> dict[str, Any]:
        """This ledger's key as a key file holds it, to take it to another machine or user (``import_key``)."""
        key = self._fingerprint_key()
        return key_file_json(self.ledger_id(), key)

    def import_key(self, data: Any, where: str = "The key file") -> None:
        """Keep the key of ``data`` (a key file's content) for this ledger: refused if it is another ledger's,
        or not the key its fingerprints were made with."""
        ledger_id, key = key_from_json(data, where)
        self._prepare_key()
        with self._read() as tx:
            own, check = tx.meta("ledger_id"), tx.meta("key_check")
        if ledger_id != own:
            raise LedgerKeyError(
                f"{where} holds the key of another ledger (id {ledger_id}); this ledger, {self.where}, has the id "
                f"{own}. Export the key where this ledger was used, or choose the ledger with --ledger."
            )
        if check is not None and key_check(key) != check:
            raise LedgerKeyError(f"{where} does not hold the key this ledger's fingerprints were made with.")
        kept = self.keys.get(ledger_id)
        self.keys.put(ledger_id, key, replace=kept is not None and kept != key)
        if check is None:

            def record(tx: Transaction) -> None:
                found = tx.meta("key_check")
                if found is not None and found != key_check(key):
                    raise LedgerKeyError(f"{where} does not hold the key this ledger's fingerprints were made with.")
                tx.set_meta("key_check", key_check(key))

            self._transact(record)
        self._key = None

    # ------------------------------------------------------------------ registering, raising, charging

    def register(
        self, name: str, budget: Guarantee, terms: Terms, fingerprint: str | None = None,
        content_fingerprint: str | None = None, size_estimate: int | None = None,
    ) -> Entry:
        """Add a dataset with its total budget; refuses a name that exists."""
        registration = Registration(budget, terms, size_estimate)
        self.check_may_register(name)

        def work(tx: Transaction) -> Entry:
            if tx.has_dataset(name):
                raise LedgerError(f"The ledger already has a dataset called '{name}'. Choose another name.",
                                  place=DATASET_NAME)
            _check_fingerprint(tx, name, fingerprint, content_fingerprint)
            return self._append(tx, name, "register", registration.to_json(fingerprint, content_fingerprint))

        return self._transact(work)

    def raise_budget(self, name: str, budget: Guarantee, reason: str = "") -> Entry:
        """Set a larger total budget; the change itself is recorded."""
        _check_budget(budget)
        self.check_may_register(name)

        def work(tx: Transaction) -> Entry:
            history = tx.entries(name)
            current = _record(name, history)
            if budget.delta > current.budget.delta:
                _check_total_delta(budget.delta, _public_size(history)[0] or history[0].data.get("size_estimate"))
            if budget.epsilon < current.budget.epsilon or budget.delta < current.budget.delta:
                raise LedgerError(
                    f"A budget can only be raised: '{name}' has ε = {current.budget.epsilon:g}, "
                    f"δ = {current.budget.delta:g}.",
                    place=Place("budget", "epsilon" if budget.epsilon < current.budget.epsilon else "delta"),
                )
            data = {"budget": {"epsilon": budget.epsilon, "delta": budget.delta}, "reason": reason,
                    "previous": {"epsilon": current.budget.epsilon, "delta": current.budget.delta}}
            return self._append(tx, name, "budget", data)

        return self._transact(work)

    def charge(
        self, name: str, events: list[MechanismEvent], release: dict[str, Any], plan: dict[str, Any], terms: Terms,
        fingerprint: str | None = None, new_dataset: Registration | None = None,
        content_fingerprint: str | None = None, read_as: dict[str, Any] | None = None,
    ) -> Entry:
        """Append a release if everything its ε relies on holds now; else refuse, saying why.

        In one write transaction: the data are not another dataset's (fingerprints), the dataset's
        terms are the release's (privacy unit, k, relation, public size), and its budget allows the
        release. A check made before the data were read is not enough: another process (another analyst,
        on a team ledger) may have registered or spent the dataset meanwhile. A dataset not yet in the ledger
        is registered with ``new_dataset`` (under the same ``terms``) in the same transaction. The released
        values go into the entry, so a charge shown once can always be read again. ``read_as``: how the file's
        bytes were read into a table (``FileSource.read_as``), recorded with its fingerprints
        (``recorded_content_fingerprint``).
        """
        if new_dataset is not None and new_dataset.terms != terms:
            raise ValueError("a new dataset is registered under the terms of its first release")

        def work(tx: Transaction) -> Entry:
            _check_fingerprint(tx, name, fingerprint, content_fingerprint)
            history = tx.entries(name)
            fresh = not history and new_dataset is not None
            if fresh:
                self.check_may_register(name)
                self._append(tx, name, "register", new_dataset.to_json(fingerprint, content_fingerprint))
                history = tx.entries(name)
            elif history:
                _check_terms(name, history, terms)
            advice = NEW_DATASET_ADVICE if fresh else self.raise_advice
            cost = _check_affordable(_record(name, history), release_events(history), events, advice, history,
                                     delta_place="dataset delta" if fresh else "delta")
            data = {"events": [e.to_json() for e in events], "cost": cost.to_json(), "release": release, "plan": plan}
            if read_as is not None and fingerprint and content_fingerprint:
                data["read_as"] = read_as
            return self._append(tx, name, "release", {**data, **_fingerprints(fingerprint, content_fingerprint)})

        return self._transact(work)

    @property
    def raise_advice(self) -> str:
        """What to do when a known dataset's budget is too small for a release."""
        return RAISE_ADVICE

    def check_terms(self, name: str, terms: Terms) -> None:
        """Raise LedgerError if dataset ``name`` is registered under other terms (``charge`` checks again)."""
        with self._read() as tx:
            history = tx.entries(name)
        if history:
            _check_terms(name, history, terms)

    def check_affordable(
        self, name: str, events: list[MechanismEvent], new_dataset: "Registration | None" = None
    ) -> Guarantee:
        """Raise BudgetError if ``events`` would overspend the dataset now (``charge`` checks again)."""
        with self._read() as tx:
            history = tx.entries(name)
        if new_dataset is not None and not history:
            self.check_may_register(name)
            return new_dataset.check_affordable(name, events)
        return _check_affordable(_record(name, history), release_events(history), events, self.raise_advice, history)

    # ------------------------------------------------------------------ reading

    def entries(self, dataset: str | None = None) -> list[Entry]:
        with self._read() as tx:
            return tx.entries(dataset)

    def dataset(self, name: str, up_to: int | None = None) -> DatasetRecord:
        """The dataset's state now, or after entry ``up_to`` (a release's own, however many came after it)."""
        entries = self.entries(name)
        return _record(name, entries if up_to is None else [e for e in entries if e.seq <= up_to])

    def history(self, name: str) -> tuple[DatasetRecord, list[Entry]]:
        """A dataset's state and its entries, oldest first, from one read."""
        entries = self.entries(name)
        return _record(name, entries), entries

    def datasets(self) -> list[DatasetRecord]:
        with self._read() as tx:
            return [_record(name, tx.entries(name)) for name in tx.dataset_names()]

    def has_dataset(self, name: str) -> bool:
        with self._read() as tx:
            return tx.has_dataset(name)

    def verify(self) -> list[Problem]:
        """Every break in the chain (edited, deleted or reordered entries), and every entry whose record the budget
        cannot rest on (``content_problems``)."""
        entries = self.entries()
        return sorted(chain_problems(entries) + content_problems(entries), key=lambda p: p.entry)

    def head(self) -> tuple[int, str]:
        """The newest entry's number and hash: record it to detect later removal of newest entries."""
        with self._read() as tx:
            return tx.head() or (0, GENESIS)


def chain_problems(entries: list[Entry]) -> list[Problem]:
    """Every break in a chain of entries, oldest first: edited, deleted or reordered ones."""
    problems = []
    prev, expected_seq = GENESIS, 1
    for entry in entries:
        if entry.seq != expected_seq:
            problems.append(Problem(entry.seq, f"entries {expected_seq} to {entry.seq - 1} are missing (deleted)"))
        if entry.prev_hash != prev:
            problems.append(Problem(entry.seq, "does not follow the entry before it (an entry was deleted, "
                                               "inserted or moved)"))
        recomputed = entry_hash(entry.prev_hash, entry.seq, entry.dataset, entry.kind, entry.created, entry.body)
        if recomputed != entry.hash:
            problems.append(Problem(entry.seq, "its content was changed after it was written"))
        prev, expected_seq = entry.hash, entry.seq + 1
    return problems


def content_problems(entries: list[Entry]) -> list[Problem]:
    """Entries that a whole chain can still hold but no budget may rest on: a dataset whose first entry is not its
    registration (a release written first would carry a budget of its own), and an ε, δ, scale or sensitivity that
    is negative or not a finite number (a release of ε = -100 gave its dataset's budget back). The app writes none;
    on a team ledger an analyst's own SQL could (a helper's audit), so the ledger refuses to count on them."""
    problems, registered = [], set()
    for entry in entries:
        if entry.dataset not in registered:
            registered.add(entry.dataset)
            if entry.kind != "register":
                problems.append(Problem(entry.seq, f"is the first entry of '{entry.dataset}' but not its registration"))
        try:
            if entry.kind in ("register", "budget"):
                budget = entry.data["budget"]
                numbers = [float(budget["epsilon"]), float(budget["delta"])]
            elif entry.kind == "release":
                numbers = [float(value) for events in release_events([entry]) for event in events
                           for value in (event.epsilon, event.delta, event.scale, event.sensitivity)]
            else:
                numbers = []
        except (KeyError, TypeError, ValueError):
            problems.append(Problem(entry.seq, "holds a budget or a release that cannot be read"))
            continue
        if not all(math.isfinite(n) and n >= 0 for n in numbers):
            problems.append(Problem(entry.seq, "records an ε, δ, scale or sensitivity that is negative or not a "
                                               "finite number"))
    return problems


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def _used_plan(plan: dict[str, Any]) -> dict[str, Any]:
    """A recorded plan as exported: without the data file's name and its text encoding, and with only the
    columns its statistics read and the person's id column (``ReleasePlan.used_schema``); a plan this version
    cannot read again keeps no columns at all. The encoding says how the file was read, not what was released,
    and the plan's template and the app fill it in with a guess from the file's bytes (one person's row in
    cp1252 made it cp1252): that guess is the curator's, never the readers'."""
    dataset = plan.get("dataset")
    if isinstance(dataset, dict):
        plan = {**plan, "dataset": {k: v for k, v in dataset.items() if k not in ("file_name", "encoding")}}
    schema = plan.get("schema")
    if not isinstance(schema, dict):
        return plan
    try:
        used = {column.name for column in ReleasePlan.from_json(plan).used_schema().columns}
    except (WorkbenchError, KeyError, TypeError, ValueError, AttributeError):
        used = set()
    columns = [c for c in schema.get("columns") or () if isinstance(c, dict) and c.get("name") in used]
    return {**plan, "schema": {**schema, "columns": columns}}


def key_check(key: bytes) -> str:
    """A public check value of a key: tells the right key from a wrong one, and nothing about the data."""
    return hmac.new(key, b"dp-workbench: the key of this ledger's fingerprints", hashlib.sha256).hexdigest()


def _holds_fingerprints(tx: Transaction) -> bool:
    return any("fingerprint" in e.data or "content_fingerprint" in e.data for e in tx.entries(None))


def _check_budget(budget: Guarantee) -> None:
    from workbench.core.privacy import check_delta, check_epsilon

    check_epsilon(budget.epsilon)
    if budget.delta:
        check_delta(budget.delta)


def _check_total_delta(delta: float, size: int | None) -> None:
    """A dataset's total δ, like a plan's, far below one over its number of persons (``size``, if known)."""
    check_delta_for_size(delta, size, "The dataset's total δ")


def release_events(history: list[Entry]) -> list[list[MechanismEvent]]:
    """The privacy events of each release among a dataset's entries, oldest first (``compose_releases``)."""
    return [[MechanismEvent.from_json(e) for e in entry.data["events"]] for entry in history if entry.kind == "release"]


def _record(name: str, history: list[Entry]) -> DatasetRecord:
    """The state of dataset ``name`` from its entries, oldest first."""
    if not history:
        raise LedgerError(
            f"The ledger has no dataset called '{name}'. Register it with its total budget first "
            "(for example `dp-workbench release ... --dataset-budget 2`), or check the name.",
            place=DATASET_NAME,
        )
    problems = content_problems(history)
    if problems:
        raise LedgerError(
            f"The ledger's entry {problems[0].entry} {problems[0].message}: it was not written by this program, and no "
            f"budget of '{name}' can rest on it. Nothing was released. `dp-workbench ledger verify` lists every "
            "problem; tell whoever keeps the ledger.", place=DATASET_NAME)
    register = history[0].data
    budget = register["budget"]
    releases = release_events(history)
    for entry in history:
        if entry.kind == "budget":
            budget = entry.data["budget"]
    return DatasetRecord(
        name=name,
        budget=Guarantee(budget["epsilon"], budget["delta"], "total budget"),
        neighbouring=register["neighbouring"],
        privacy_unit=register["privacy_unit"],
        spent=compose_releases(releases, delta=budget["delta"]),
        releases=len(releases),
        # with several releases ``spent`` is composed so already; a single one's may be the PLD's
        counted=compose(releases[0], budget["delta"], adaptive=True) if len(releases) == 1 else None,
    )


RAISE_ADVICE = "Spend less, or raise the total with `dp-workbench ledger raise` (that is recorded)."
NEW_DATASET_ADVICE = (
    "Spend less, or give the dataset a larger total budget, which is recorded at its first release "
    "(`--dataset-budget` on the command line; 'Total ε' and 'Total δ' under 'New dataset' in step 5 of the app)."
)


def _check_affordable(
    record: DatasetRecord, spent: list[list[MechanismEvent]], events: list[MechanismEvent], advice: str = RAISE_ADVICE,
    history: list[Entry] | None = None, delta_place: str = "delta",
) -> Guarantee:
    """The cost of ``events``; BudgetError naming the overspend, and who spent what before, if the dataset
    cannot afford it, placed at the plan's total ε if ε is overspent, else at ``delta_place`` (the plan's total δ;
    a new dataset's own, "dataset delta", where the app has it)."""
    cost = compose(events)
    over = overspend(compose_releases([*spent, events], delta=record.budget.delta), record.budget.epsilon,
                     record.budget.delta)
    if over:
        epsilon_over = over[0] > BUDGET_TOLERANCE * record.budget.epsilon or not over[1]
        raise BudgetError(
            f"This release would spend ε = {cost.epsilon:g}, δ = {cost.delta:g} on '{record.name}', which has "
            f"{record.remaining_in_words} left of its total "
            f"ε = {record.budget.epsilon:g}, δ = {record.budget.delta:g}: it would overspend by "
            f"ε {over[0]:g}, δ {over[1]:g}.{spent_by_whom(history or [])} Nothing was released. {advice}",
            place=Place("budget", "epsilon" if epsilon_over else delta_place),
        )
    return cost


SPENDERS_SHOWN = 5


def spent_by_whom(history: list[Entry]) -> str:
    """The dataset's releases, newest first, by whom and when (" Spent before: ..."), or "" if none."""
    releases = [e for e in history if e.kind == "release"]
    if not releases:
        return ""
    shown = [f"ε = {e.data['cost']['epsilon']:.4g} by {e.by} on {e.created[:10]} (entry {e.seq})"
             for e in reversed(releases[-SPENDERS_SHOWN:])]
    more = len(releases) - len(shown)
    return f" Spent before: {'; '.join(shown)}" + (f"; and {more} earlier release(s)." if more else ".")


def _fingerprints(fingerprint: str | None, content_fingerprint: str | None) -> dict[str, str]:
    found = {"fingerprint": fingerprint, "content_fingerprint": content_fingerprint}
    return {key: value for key, value in found.items() if value}


def _check_fingerprint(
    tx: Transaction, name: str, fingerprint: str | None, content_fingerprint: str | None = None
) -> None:
    """The same data must not be charged under two dataset names (that would double its budget):
    neither the same file nor the same table in another file, format or order."""
    if not fingerprint and not content_fingerprint:
        return
    for entry in tx.entries(None):
        if entry.dataset == name:
            continue
        if fingerprint and entry.data.get("fingerprint") == fingerprint:
            raise LedgerError(
                f"This data file is already in the ledger as dataset '{entry.dataset}'. Releases of the same data "
                f"share one budget: use the dataset name '{entry.dataset}' in the plan.", place=DATASET_NAME,
            )
        if content_fingerprint and entry.data.get("content_fingerprint") == content_fingerprint:
            raise LedgerError(
                f"This table's rows and columns are already in the ledger as dataset '{entry.dataset}', read from "
                "another file (perhaps in another format, or with its rows or columns in another order). Releases "
                f"of the same data share one budget: use the dataset name '{entry.dataset}' in the plan.",
                place=DATASET_NAME,
            )


def _check_terms(name: str, history: list[Entry], terms: Terms) -> None:
    """ε under one privacy unit, k, relation or number of persons is not ε under another: they must not be
    added up. ``history`` is the dataset's entries, oldest first."""
    registered = Terms.from_registration(history[0].data)
    if registered.neighbouring != terms.neighbouring or not registered.same_unit(terms):
        raise LedgerError(
            f"'{name}' was registered in the ledger with the privacy unit '{registered.privacy_unit}' and "
            f"neighbours '{registered.neighbouring}', but this plan uses '{terms.privacy_unit}' and "
            f"'{terms.neighbouring}'. Their ε measure different things and cannot share one budget. Use the "
            "registered unit and relation, or give this plan another dataset name if it really is other data.",
            place=Place("unit", "unit"),
        )
    size, where = _public_size(history)
    if size is not None and terms.public_size is not None and terms.public_size != size:
        raise LedgerError(
            f"'{name}' has a public size of {size} persons in the ledger ({where}), but this plan states "
            f"{terms.public_size}. A dataset has one number of persons, and under 'substitute' its ε is stated for "
            "datasets of exactly that size: releases that disagree on it cannot share one budget. Correct the "
            "plan's public size, or give this plan another dataset name if it really is other data.",
            place=Place("unit", "public size"),
        )


def _public_size(history: list[Entry]) -> tuple[int | None, str]:
    """The dataset's public number of persons, and where the ledger has it: its registration, or (for a
    registration written before the size was recorded, or one that stated none) its first release that did."""
    size = history[0].data.get("public_size")
    if size is not None:
        return size, "from its registration"
    for entry in history:
        plan = entry.data.get("plan") if entry.kind == "release" else None
        schema = plan.get("schema") if isinstance(plan, dict) else None
        if isinstance(schema, dict) and schema.get("public_size") is not None:
            return schema["public_size"], f"stated by its release in entry {entry.seq}"
    return None, ""
