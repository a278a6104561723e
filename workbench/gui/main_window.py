"""The main window: open a table and see its first rows and the proposed column kinds.

This is the first slice of the desktop workflow; describing columns, choosing statistics,
previewing noise and releasing follow (issue 5). Long loads move off the GUI thread there.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from PySide6.QtCore import Qt

from workbench import __version__
from workbench.core.errors import WorkbenchError
from workbench.core.io import SUPPORTED, Table, load_table, propose_kinds
from workbench.gui.table_model import PREVIEW_ROWS, ColumnProposalModel, FramePreviewModel


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.table: Table | None = None
        self.setWindowTitle(f"DP Workbench {__version__}")
        self.resize(1200, 760)

        self.summary = QLabel("Open a table with File > Open.")
        self.summary.setWordWrap(True)
        self.preview = QTableView()
        self.preview.setAlternatingRowColors(True)
        self.columns = QTableView()
        self.columns.verticalHeader().hide()
        self.columns.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.preview)
        splitter.addWidget(self.columns)
        splitter.setSizes([460, 240])
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.summary)
        layout.addWidget(splitter)
        self.setCentralWidget(body)

        open_action = QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.choose_file)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close)
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(open_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        self.statusBar().showMessage("Ready")

    def choose_file(self) -> None:
        patterns = " ".join(f"*{suffix}" for suffix in SUPPORTED.split(", "))
        path, _ = QFileDialog.getOpenFileName(self, "Open a table", "", f"Tables ({patterns});;All files (*)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        """Load ``path``; on a user error show its message and keep the current table."""
        try:
            table = load_table(path)
        except WorkbenchError as exc:
            QMessageBox.warning(self, "The file cannot be opened", str(exc))
            return False
        self.show_table(table)
        return True

    def show_table(self, table: Table) -> None:
        self.table = table
        frame = table.frame
        self.preview.setModel(FramePreviewModel(frame, self))
        missing = [int(frame[c].isna().sum()) for c in frame.columns]
        self.columns.setModel(ColumnProposalModel(propose_kinds(table), missing, self))
        self.columns.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.columns.horizontalHeader().setStretchLastSection(True)
        self.preview.resizeColumnsToContents()
        shown = min(PREVIEW_ROWS, len(frame))
        self.summary.setText(
            f"<b>{table.source.name}</b>: {frame.shape[1]} columns; the first {shown} rows are shown. "
            "Below, the proposed kind of each column, to be confirmed before any release. "
            "What you see here stays on this computer."
        )
        self.setWindowTitle(f"{table.source.name} — DP Workbench {__version__}")
        self.statusBar().showMessage(f"Loaded {table.source}")
