"""What the ledger's tests do to a store behind its back: edit its rows as an attacker with write access would."""

from __future__ import annotations

import sqlite3

from workbench.core.release.ledger import Ledger
from workbench.core.release.ledger_postgres import SCHEMA, PostgresLedger


def tamper(ledger: Ledger, sql: str, *args) -> None:
    """Run ``sql`` (SQLite's spelling: table ``entries``, ``?`` parameters) on the ledger's store directly."""
    if isinstance(ledger, PostgresLedger):
        import psycopg

        with psycopg.connect(ledger.url, autocommit=True) as conn:
            conn.execute(sql.replace("entries", f"{SCHEMA}.entries").replace("?", "%s"), args)
        return
    db = sqlite3.connect(ledger.path)
    db.execute(sql, args)
    db.commit()
    db.close()
