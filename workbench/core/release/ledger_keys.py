"""Where the key of a ledger's fingerprints is kept: outside the ledger, with the user.

The ledger recognises data it has seen by HMACs of the file and of the table's content
(``Ledger.fingerprint``). Whoever holds a ledger and its key can test a guessed file or table
against them offline, and so confirm a guessed row; whoever holds the ledger alone learns
nothing about the rows from them. So the key is not kept in the ledger file but here: in the
operating system's keyring where one can be used without blocking or asking (Windows
Credential Manager, the macOS Keychain, or on a Linux desktop an unlocked Secret Service),
else in a file in the user's configuration folder that only the user can read. Each ledger
has its own key, found by the ledger's random public id (``meta.ledger_id``), so a key says
nothing about another ledger. ``$DP_WORKBENCH_KEYS`` names a folder to use instead (tests,
or a user who wants the keys elsewhere); the keyring is then not used.

A store is anything with ``get``, ``put`` and ``where`` (``KeyStore``). A team ledger
(PostgreSQL, to come) uses the same interface: its key is the team's, handed to each analyst
by the administrator as a key file (``dp-workbench ledger key import``) and kept in the
analyst's store, never on the server; such a ledger refuses to make a key of its own.

Written here rather than taken from a library: ``keyring`` stores secrets but cannot say
whether using a given backend would block or pop up a prompt in a session without a
desktop, and a key file must be created atomically and readable by its owner alone.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Protocol

from workbench.core.errors import Place, WorkbenchError

KEYS_VARIABLE = "DP_WORKBENCH_KEYS"
KEYRING_SERVICE = "DP Workbench ledger fingerprint key"
KEY_FORMAT = "dp-workbench-ledger-key"
KEY_VERSION = 1
_LEDGER_ID = re.compile(r"[0-9a-f]{32}")


class LedgerKeyError(WorkbenchError):
    """A ledger's key cannot be found, stored or read; fixed at the ledger (which one, and its key), not in the plan."""

    def __init__(self, *args: object, place: Place | None = None) -> None:
        super().__init__(*args, place=place or Place("release", "ledger"))


class KeyStore(Protocol):
    """Keeps one secret key per ledger id. ``put`` never replaces another key unless told to."""

    @property
    def where(self) -> str:
        """Where the keys are kept, in words, for messages."""
        ...

    def get(self, ledger_id: str) -> bytes | None: ...

    def put(self, ledger_id: str, key: bytes, replace: bool = False) -> None: ...


def key_file_json(ledger_id: str, key: bytes) -> dict[str, Any]:
    """A key as a key file holds it (and as ``ledger key export`` writes it)."""
    return {"format": KEY_FORMAT, "version": KEY_VERSION, "ledger": ledger_id, "key": key.hex()}


def key_from_json(data: Any, where: str) -> tuple[str, bytes]:
    """(ledger id, key) from a key file's content; LedgerKeyError if it is not one."""
    if not isinstance(data, dict) or data.get("format") != KEY_FORMAT:
        raise LedgerKeyError(f"{where} is not a DP Workbench ledger key file (written by `dp-workbench ledger key export`).")
    if data.get("version") != KEY_VERSION:
        raise LedgerKeyError(f"{where} is a ledger key file of version {data.get('version')!r}; this DP Workbench reads "
                        f"version {KEY_VERSION}. Use a newer DP Workbench.")
    ledger_id, key = data.get("ledger"), data.get("key")
    try:
        if not isinstance(ledger_id, str) or not _LEDGER_ID.fullmatch(ledger_id) or len(bytes.fromhex(key)) != 32:
            raise ValueError
    except (TypeError, ValueError):
        raise LedgerKeyError(f"{where} is damaged: it holds no valid ledger id and key. Export the key again.") from None
    return ledger_id, bytes.fromhex(key)


def check_ledger_id(ledger_id: str) -> str:
    """The id, if it is one this module made (it names a file: nothing else may)."""
    if not _LEDGER_ID.fullmatch(ledger_id):
        raise LedgerKeyError(f"The ledger's id {ledger_id!r} is damaged; its key cannot be looked up.")
    return ledger_id


@dataclass(frozen=True)
class FileKeys:
    """One file per ledger in ``folder``, readable and writable by the user alone (mode 0600 where the
    system has modes; on Windows the user's own folder's permissions apply), created atomically."""

    folder: Path

    @property
    def where(self) -> str:
        return f"the key folder {self.folder}"

    def path(self, ledger_id: str) -> Path:
        return self.folder / f"ledger-{check_ledger_id(ledger_id)}.key"

    def get(self, ledger_id: str) -> bytes | None:
        path = self.path(ledger_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise LedgerKeyError(f"The ledger's key file {path} cannot be read ({exc.strerror or exc}).") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        found, key = key_from_json(data, str(path))
        if found != ledger_id:
            raise LedgerKeyError(f"The key file {path} is for another ledger ({found}); remove or rename it.")
        return key

    def put(self, ledger_id: str, key: bytes, replace: bool = False) -> None:
        path = self.path(ledger_id)
        text = json.dumps(key_file_json(ledger_id, key)) + "\n"
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_private_file(path, text, replace=replace)
        except FileExistsError:
            if self.get(ledger_id) != key:
                raise LedgerKeyError(
                    f"{path} already holds another key for this ledger. If that one is wrong, import the right one "
                    "with `dp-workbench ledger key import FILE`."
                ) from None
        except OSError as exc:
            raise LedgerKeyError(
                f"The ledger's key cannot be written to {path} ({exc.strerror or exc}). Check that the folder is "
                f"writable, or set {KEYS_VARIABLE} to a folder that is."
            ) from None


def write_private_file(path: Path, text: str, replace: bool = False) -> None:
    """Write ``text`` to ``path``, readable by the user alone, all at once: it appears whole or not at all.
    Raises FileExistsError if ``path`` exists, unless ``replace``."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)  # fails if the file exists: never two keys for one ledger
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: the ledger's write lock serialises its writers
                if path.exists():
                    raise FileExistsError(path) from None
                os.replace(temporary, path)
    finally:
        try:
            temporary.unlink()
        except FileNotFoundError:
            pass


@dataclass(frozen=True)
class KeyringKeys:
    """Keys in a ``keyring`` backend, under the service ``KEYRING_SERVICE`` with the ledger id as user name."""

    backend: Any
    name: str = "the system keyring"

    @property
    def where(self) -> str:
        return self.name

    def get(self, ledger_id: str) -> bytes | None:
        value = self.backend.get_password(KEYRING_SERVICE, check_ledger_id(ledger_id))
        return bytes.fromhex(value) if value else None

    def put(self, ledger_id: str, key: bytes, replace: bool = False) -> None:
        found = self.get(ledger_id)
        if found is not None and found != key and not replace:
            raise LedgerKeyError(f"{self.name} already holds another key for this ledger.")
        self.backend.set_password(KEYRING_SERVICE, ledger_id, key.hex())
        if self.get(ledger_id) != key:
            raise LedgerKeyError(f"{self.name} did not keep the ledger's key.")


@dataclass(frozen=True)
class UserKeys:
    """The user's keys: in the system keyring (if one can be used now, asked at first need) or else in
    ``files``. Both are searched."""

    files: FileKeys
    find_keyring: Callable[[], KeyringKeys | None] = field(default=lambda: system_keyring(), compare=False)

    @cached_property
    def keyring(self) -> KeyringKeys | None:
        return self.find_keyring()

    @property
    def where(self) -> str:
        return self.files.where if self.keyring is None else f"{self.keyring.where} and {self.files.where}"

    def get(self, ledger_id: str) -> bytes | None:
        if self.keyring is not None:
            try:
                key = self.keyring.get(ledger_id)
            except Exception:  # noqa: BLE001 - a keyring that fails now: the file may still hold the key
                key = None
            if key is not None:
                return key
        return self.files.get(ledger_id)

    def put(self, ledger_id: str, key: bytes, replace: bool = False) -> None:
        if self.keyring is not None:
            try:
                self.keyring.put(ledger_id, key, replace)
                return
            except LedgerKeyError:
                raise
            except Exception:  # noqa: BLE001 - the keyring refused (locked, full, gone): keep the key in a file
                pass
        self.files.put(ledger_id, key, replace)


def user_keys() -> KeyStore:
    """Where this user's ledger keys are kept: ``$DP_WORKBENCH_KEYS`` if set; else the system keyring where it
    can be used without a prompt, with a key folder in the user's configuration folder besides."""
    configured = os.environ.get(KEYS_VARIABLE)
    if configured:
        return FileKeys(Path(configured))
    from platformdirs import user_config_dir

    return UserKeys(FileKeys(Path(user_config_dir("dp-workbench", appauthor=False)) / "ledger-keys"))


def system_keyring() -> KeyringKeys | None:
    """The operating system's keyring if ``keyring`` is installed and its backend for this system is usable
    without blocking or asking: Windows Credential Manager, the macOS Keychain, or on Linux a Secret Service
    in a desktop session whose default collection is unlocked (never in a session without a display)."""
    try:
        if sys.platform == "win32":
            from keyring.backends.Windows import WinVaultKeyring as backend

            name = "Windows Credential Manager"
        elif sys.platform == "darwin":
            from keyring.backends.macOS import Keyring as backend

            name = "the macOS Keychain"
        elif sys.platform.startswith("linux") and _linux_desktop():
            from keyring.backends.SecretService import Keyring as backend

            name = "the desktop's keyring (Secret Service)"
            if not backend.viable or not _secret_service_unlocked():
                return None
        else:
            return None
        if not backend.viable:
            return None
        return KeyringKeys(backend(), name)
    except Exception:  # noqa: BLE001 - no keyring, or a broken one: the key folder serves
        return None


def _linux_desktop() -> bool:
    return bool(os.environ.get("DBUS_SESSION_BUS_ADDRESS")
                and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")))


def _secret_service_unlocked() -> bool:
    """Whether the Secret Service's default collection is open: reading a locked one would ask for a password."""
    from contextlib import closing

    import secretstorage

    with closing(secretstorage.dbus_init()) as connection:
        return not secretstorage.get_default_collection(connection).is_locked()
