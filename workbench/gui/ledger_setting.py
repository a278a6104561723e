"""Which ledger the app charges: a file on this computer, or the team's ledger on a PostgreSQL server.

The choice is a setting of the app (Tools ▸ Privacy ledger…), tested by connecting before it is kept;
without one, the app uses what the command line would (``$DP_WORKBENCH_LEDGER``, else the file in the
user's data folder). A server's password is never kept: libpq reads ~/.pgpass or a service file, and
when neither has it the app asks, and holds the answer in memory until it quits. A team ledger that
cannot be reached is said to be so; the app never charges another ledger instead.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.errors import WorkbenchError
from workbench.core.release import Ledger, PostgresLedger, default_ledger_location, is_server_url
from workbench.core.release.ledger import LedgerPasswordNeeded
from workbench.core.release.ledger_postgres import server_settings

SETTING = "ledger/location"
PLACEHOLDER_URL = "postgresql://ledger.example.org/dp_ledger"
_passwords: dict[str, str] = {}  # URL → a password the user typed, for this run of the app only


_INSTEAD: list[Path] = []  # a ledger that takes the place of the chosen one for a while (``instead_of_chosen``)


@contextlib.contextmanager
def instead_of_chosen(location: Path) -> Iterator[None]:
    """Within this, the app uses the ledger at ``location`` whatever its setting says (the smoke test's throw-away
    ledger: never the user's, not even the one chosen under Tools); the setting itself is left alone."""
    _INSTEAD.append(location)
    try:
        yield
    finally:
        _INSTEAD.remove(location)


def chosen_location() -> str | Path:
    """The ledger the app uses: its setting, else ``$DP_WORKBENCH_LEDGER``, else the file in the data folder."""
    if _INSTEAD:
        return _INSTEAD[-1]
    value = _settings().value(SETTING, "", type=str).strip()
    if not value:
        return default_ledger_location()
    return value if is_server_url(value) else Path(value)


def choose(location: str | Path | None) -> None:
    """Keep ``location`` as the app's ledger (None: back to the default)."""
    settings = _settings()
    if location is None:
        settings.remove(SETTING)
    else:
        settings.setValue(SETTING, str(location))
    settings.sync()


def _settings() -> QSettings:
    return QSettings("DP Workbench", "DP Workbench")  # the main window's


def in_words(location: str | Path) -> str:
    """The ledger, named without connecting: "the team ledger 'census' on db.office", or the file's path."""
    if is_server_url(location):
        try:
            found = server_settings(str(location))
        except WorkbenchError:
            return str(location)
        where = found.get("host") or (f"service {found['service']}" if "service" in found else "this computer")
        return f"the team ledger '{found.get('dbname', '?')}' on {where}"
    return str(location)


def exists(location: str | Path) -> bool:
    """Whether there may be something to read: a team ledger always (the server is asked), a file if it is there."""
    return is_server_url(location) or Path(location).exists()


def open_ledger(location: str | Path | None = None) -> Ledger:
    """The chosen ledger, opened (a team ledger connects, with a password typed earlier in this run if any).
    Called off the GUI thread too: it never asks anything."""
    location = chosen_location() if location is None else location
    if is_server_url(location):
        return PostgresLedger(str(location), password=_passwords.get(str(location)))
    return Ledger(location)


def ask_password(parent: QWidget | None, location: str | Path, reason: str) -> bool:
    """Ask for the team ledger's password (kept in memory until the app quits); False if the user cancelled."""
    text, ok = QInputDialog.getText(
        parent, "Password for the team ledger",
        f"{reason}\n\nPassword of the server {in_words(location)} (kept in memory until DP Workbench quits, "
        "never written anywhere):",
        QLineEdit.EchoMode.Password,
    )
    if ok and text:
        _passwords[str(location)] = text
        return True
    return False


def opened_asking(parent: QWidget | None, location: str | Path | None = None) -> Ledger:
    """``open_ledger`` on the GUI thread, asking for a password as often as the server refuses one."""
    location = chosen_location() if location is None else location
    while True:
        try:
            return open_ledger(location)
        except LedgerPasswordNeeded as exc:
            if not ask_password(parent, location, str(exc)):
                raise


class LedgerSettingsDialog(QDialog):
    """Tools ▸ Privacy ledger…: this computer's file or a team ledger's URL, with a connection test."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Privacy ledger")
        self.setMinimumWidth(640)
        current = chosen_location()
        self.local = QRadioButton("On this computer: a ledger file that only you use")
        self.team = QRadioButton("A team ledger on a PostgreSQL server, shared by everyone who releases the same data")
        group = QButtonGroup(self)
        group.addButton(self.local)
        group.addButton(self.team)
        self.path = QLineEdit(str(current) if not is_server_url(current) else str(default_ledger_location()))
        self.path.setAccessibleName("ledger file")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        self.url = QLineEdit(str(current) if is_server_url(current) else "")
        self.url.setPlaceholderText(PLACEHOLDER_URL)
        self.url.setAccessibleName("team ledger URL")
        self.url.setToolTip("postgresql://[user@]server[:port]/database, as your administrator gave it. "
                            "No password here: it comes from ~/.pgpass or a service file, or the app asks for it.")
        self.test = QPushButton("Test the connection")
        self.test.clicked.connect(self.test_connection)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        (self.team if is_server_url(current) else self.local).setChecked(True)
        self.url.textChanged.connect(lambda _: self.team.setChecked(True))  # typing a URL chooses it
        self.path.textChanged.connect(lambda _: self.local.setChecked(True))
        grid = QGridLayout()
        grid.addWidget(self.local, 0, 0, 1, 3)
        grid.addWidget(QLabel("File:"), 1, 0)
        grid.addWidget(self.path, 1, 1)
        grid.addWidget(browse, 1, 2)
        grid.addWidget(self.team, 2, 0, 1, 3)
        grid.addWidget(QLabel("URL:"), 3, 0)
        grid.addWidget(self.url, 3, 1)
        grid.addWidget(self.test, 3, 2)
        note = QLabel(
            "<small>A team ledger counts every analyst's releases against one budget per dataset. Its administrator "
            "gives you its URL, a login (your password goes in ~/.pgpass, or the app asks for it and keeps it in "
            "memory only) and the team's key file, which you import once with <code>dp-workbench ledger key import "
            "FILE --ledger URL</code>. Without the server (away from the office network) nothing of the team's "
            "datasets can be released: the app says so, and never uses a ledger on this computer instead.</small>"
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(note)
        layout.addWidget(self.status)
        row = QHBoxLayout()
        row.addStretch()
        row.addWidget(buttons)
        layout.addLayout(row)

    def location(self) -> str | Path:
        return self.url.text().strip() if self.team.isChecked() else Path(self.path.text().strip())

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Ledger file", self.path.text(), "Ledger (*.sqlite);;All files (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.path.setText(path)
            self.local.setChecked(True)

    def test_connection(self) -> bool:
        """Connect to the team ledger and say what is there (or why not); True if it can be used."""
        location = self.url.text().strip()
        self.team.setChecked(True)
        if not is_server_url(location):
            self.status.setText(f"Write the team ledger's URL, for example {PLACEHOLDER_URL}.")
            return False
        self.status.setText(f"Connecting to {in_words(location)}…")
        self.repaint()
        try:
            ledger = opened_asking(self, location)
            datasets = ledger.datasets()
            key = "the team's key is here" if _key_here(ledger) else (
                "<b>the team's key is not here yet</b>: ask the administrator for the key file and import it "
                "(<code>dp-workbench ledger key import FILE --ledger URL</code>); until then nothing can be released")
        except WorkbenchError as exc:
            self.status.setText(f"<span style='color:#c0392b'>{_html(str(exc))}</span>")
            return False
        names = ", ".join(f"'{_html(r.name)}'" for r in datasets[:6]) + ("…" if len(datasets) > 6 else "")
        self.status.setText(
            f"✔ Connected. {_html(ledger.server.line)}.<br>{len(datasets)} dataset(s)"
            f"{': ' + names if names else ''}; {key}."
        )
        return True

    def accept(self) -> None:
        location = self.location()
        if isinstance(location, str) and not self.test_connection():
            return  # a team ledger is kept only once it answered
        choose(None if location == default_ledger_location() else location)
        super().accept()


def _key_here(ledger: Ledger) -> bool:
    try:
        ledger.check_key()
        return True
    except WorkbenchError:
        return False


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
