"""A throw-away PostgreSQL server for the team ledger's tests: Debian's initdb and pg_ctl, a temporary
folder, a free port on loopback, passwords in a .pgpass file of the test run.

PostgreSQL refuses to run as root, and CI runs as root: then the server runs as the `postgres` user
(made by Debian's package) or else `nobody`, through runuser; as anyone else it runs as that user.
Roles: a superuser (faults: ending a connection, restarting), the administrator who owns each test's
database and sets up its ledger (no superuser), and the analysts alice, bob and carol (members of
the analysts' role, login and read/append only).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SUPERUSER, ADMIN, ANALYSTS = "wb_super", "ledger_admin", ("alice", "bob", "carol")
ANALYST_ROLE = "dp_workbench_analyst"


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: Debian's newest, else the PATH's; None if PostgreSQL is not installed."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2]), reverse=True):
        if Path(folder, "pg_ctl").exists():
            return Path(folder)
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="dp-workbench-postgres-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.passwords = {name: secrets.token_hex(12) for name in (SUPERUSER, ADMIN, *ANALYSTS)}
        self.os_user = None
        if os.geteuid() == 0:
            self.os_user = "postgres" if _user_exists("postgres") else "nobody"
            entry = pwd.getpwnam(self.os_user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.pgpass = Path(tempfile.mkdtemp(prefix="dp-workbench-pgpass-")) / "pgpass"
        self.pgpass.write_text("".join(f"127.0.0.1:{self.port}:*:{name}:{password}\n"
                                       for name, password in self.passwords.items()))
        self.pgpass.chmod(0o600)

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess:
        full = [str(self.bin / command[0]), *command[1:]]
        if self.os_user is not None:
            full = ["runuser", "-u", self.os_user, "--", *full]
        return subprocess.run(full, capture_output=True, text=True, check=check, timeout=120, cwd=self.folder)

    def start(self) -> "PostgresServer":
        pwfile = self.folder / "pw"
        pwfile.write_text(self.passwords[SUPERUSER] + "\n")
        if self.os_user is not None:
            entry = pwd.getpwnam(self.os_user)
            os.chown(pwfile, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={pwfile}", "--auth-local=trust",
                  "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        pwfile.unlink()
        self._ctl("start")
        self.sql("postgres", f"CREATE ROLE {ADMIN} LOGIN CREATEROLE CREATEDB PASSWORD '{self.passwords[ADMIN]}'",
                 f"CREATE ROLE {ANALYST_ROLE} NOLOGIN",
                 *(f"CREATE ROLE {name} LOGIN PASSWORD '{self.passwords[name]}' IN ROLE {ANALYST_ROLE}"
                   for name in ANALYSTS))
        return self

    def _ctl(self, action: str, *more: str) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off "
                   "-c max_connections=60 -c shared_buffers=16MB")
        self._run("pg_ctl", action, "-D", str(self.data), "-w", "-t", "60", "-l", str(self.folder / "log"),
                  "-o", options, *more)

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.pgpass.parent, ignore_errors=True)

    def url(self, database: str, user: str = ADMIN) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres", user: str = SUPERUSER):
        import psycopg

        return psycopg.connect(self.url(database, user), password=self.passwords[user], autocommit=True)

    def sql(self, database: str, *statements: str) -> list:
        """Run ``statements`` as the superuser; the rows of the last."""
        with self.connect(database) as conn:
            rows = []
            for statement in statements:
                cursor = conn.execute(statement)
                rows = cursor.fetchall() if cursor.description else []
            return rows

    def new_database(self) -> str:
        name = f"ledger_{secrets.token_hex(6)}"
        self.sql("postgres", f"CREATE DATABASE {name} OWNER {ADMIN}")
        return name

    def end_connections(self, database: str, user: str | None = None) -> int:
        """End the connections of ``user`` (all but this one's) to ``database``: a dropped connection."""
        who = f" AND usename = '{user}'" if user else ""
        rows = self.sql("postgres", f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                                    f"'{database}' AND pid <> pg_backend_pid(){who}")
        return len(rows)

    def wait_until_waiting(self, database: str, timeout: float = 30.0) -> None:
        """Until some connection to ``database`` waits for a lock (another client holds the ledger's)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.sql("postgres", f"SELECT 1 FROM pg_stat_activity WHERE datname = '{database}' "
                                    "AND wait_event_type = 'Lock'"):
                return
            time.sleep(0.05)
        raise AssertionError("no client waited for the ledger's lock")


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
