"""Read-only Qt models over a loaded Table: its first rows, and its column proposals."""

from __future__ import annotations

from typing import Any, Sequence

import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from workbench.core.io import ColumnProposal

PREVIEW_ROWS = 500

_Index = QModelIndex | QPersistentModelIndex


class FramePreviewModel(QAbstractTableModel):
    """The first ``PREVIEW_ROWS`` rows of a data frame, shown as text; missing values blank."""

    def __init__(self, frame: pd.DataFrame, parent: Any = None) -> None:
        super().__init__(parent)
        self._frame = frame.head(PREVIEW_ROWS)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._frame)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._frame.shape[1]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self._frame.iat[index.row(), index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return "" if pd.isna(value) else str(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and pd.api.types.is_number(value):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return str(self._frame.columns[section])
        return str(section + 1)


class ColumnProposalModel(QAbstractTableModel):
    """One row per column: name, storage type, proposed kind, missing values, and why that kind."""

    HEADERS = ("column", "stored as", "proposed kind", "missing values", "why this kind")

    def __init__(self, proposals: Sequence[ColumnProposal], missing: Sequence[int], parent: Any = None) -> None:
        super().__init__(parent)
        self._rows = [
            (p.name, p.storage, p.kind.value, str(m), p.reason) for p, m in zip(proposals, missing, strict=True)
        ]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if index.isValid() and role == Qt.ItemDataRole.DisplayRole:
            return self._rows[index.row()][index.column()]
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None
