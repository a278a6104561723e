"""Step 1: the loaded table: its first rows, and per column the storage type, the proposed
kind and the number of missing values. Loading itself happens in the main window."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.core.data import ColumnProposal, Table, propose_kinds
from workbench.gui.table_model import PREVIEW_ROWS, ColumnProposalModel, FramePreviewModel
from workbench.gui.workers import show_fraction

RESIZED_COLUMNS = 60  # preview columns sized to their contents; sizing thousands would freeze the window


@dataclass(frozen=True, eq=False)
class LoadedTable:
    """A table and what the first step shows of it, all computed off the GUI thread."""

    table: Table
    proposals: tuple[ColumnProposal, ...]
    missing: tuple[int, ...]

    @classmethod
    def of(cls, table: Table) -> "LoadedTable":
        proposals = propose_kinds(table)
        return cls(table, proposals, tuple(p.missing for p in proposals))


class DataPage(QWidget):
    """The welcome screen until a table is open (or being opened); then the table."""

    def __init__(self, welcome: QWidget) -> None:
        super().__init__()
        self.welcome = welcome
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy until the reading reports how far it is
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip("Stop loading this file; the table shown stays as it was.")
        loading = QHBoxLayout()
        loading.addWidget(self.progress, 1)
        loading.addWidget(self.cancel)
        self.loading = QWidget()
        self.loading.setLayout(loading)
        self.loading.hide()
        self.preview = QTableView()
        self.preview.setAccessibleName("First rows of the table")
        self.preview.setAlternatingRowColors(True)
        self.preview.horizontalHeader().setResizeContentsPrecision(50)  # size columns from 50 rows, not all 500
        self.columns = QTableView()
        self.columns.setAccessibleName("Columns and their proposed kinds")
        self.columns.verticalHeader().hide()
        self.columns.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.preview)
        splitter.addWidget(self.columns)
        splitter.setSizes([420, 240])
        self.table_view = QWidget()
        layout = QVBoxLayout(self.table_view)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.loading)
        layout.addWidget(splitter)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(welcome)
        self.stack.addWidget(self.table_view)

    def show_welcome(self) -> None:
        self.stack.setCurrentWidget(self.welcome)

    def show_loading(self, name: str) -> None:
        self.stack.setCurrentWidget(self.table_view)
        self.summary.setText(f"Loading <b>{name}</b>…")
        self.progress.setRange(0, 0)
        self.loading.show()

    def show_progress(self, fraction: float) -> None:
        show_fraction(self.progress, fraction, "read")

    def hide_loading(self) -> None:
        self.loading.hide()

    def show_table(self, loaded: LoadedTable) -> None:
        self.stack.setCurrentWidget(self.table_view)
        table = loaded.table
        frame = table.frame
        self.preview.setModel(FramePreviewModel(frame, self, table.label_maps))
        self.columns.setModel(ColumnProposalModel(loaded.proposals, loaded.missing, self))
        self.columns.horizontalHeader().setResizeContentsPrecision(200)  # thousands of columns: size from 200
        self.columns.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.columns.horizontalHeader().setStretchLastSection(True)
        for column in range(min(frame.shape[1], RESIZED_COLUMNS)):  # the rest keep the default width
            self.preview.resizeColumnToContents(column)
        shown = min(PREVIEW_ROWS, len(frame))
        if table.sample_rows is not None:
            read = (f"so only its first {len(frame):,} rows were read" if len(frame) >= table.sample_rows
                    else f"so it was read as a sample of its first rows: all {len(frame):,} of them")
            self.summary.setText(
                f"<b>{table.source.name}</b> is too large to hold in this computer's memory, {read}: the first "
                f"{shown} are shown, and the kinds proposed below are proposed from those {len(frame):,} rows (check "
                "them in step 3). The release reads the whole file out of core, with the same exact answers. What you "
                "see here stays on this computer." + _encoding_words(table)
            )
            return
        self.summary.setText(
            f"<b>{table.source.name}</b>: {len(frame):,} rows, {frame.shape[1]} columns; the first {shown} rows are "
            "shown. Below, the proposed kind of each column: confirm or change it in step 3. "
            "What you see here stays on this computer." + _encoding_words(table)
        )


def _encoding_words(table) -> str:
    """What step 1 says of a text file not in UTF-8: the encoding it was read in, which the plan declares."""
    from workbench.core.release.template import declarable_encoding

    encoding = declarable_encoding(table)
    if encoding is None:
        return ""
    return (f" The text is read as <b>{encoding}</b> (not UTF-8; guessed from the file's content unless the plan "
            "declared it): check that accented letters look right above, and if not choose the right one with File > "
            "Text encoding…. The plan records this encoding, and the release reads the file in it: a release never "
            "guesses.")
