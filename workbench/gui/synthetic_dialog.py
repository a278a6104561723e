"""Step 4's "Synthetic microdata…": choose the columns of a public-use file, the public edges that cut each numeric
column, how many rows to write, relationships to keep, the algorithm. Every choice is public input: nothing here
reads the data. The dialog builds a ``SyntheticTable`` and checks it against the plan's columns as it is typed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from workbench.core.data import CategoricalColumn, NumericColumn, Schema
from workbench.core.errors import WorkbenchError
from workbench.core.synthetic import ALGORITHMS, MAX_ROWS, SyntheticTable
from workbench.gui.formatting import parse_number

INTRO = (
    "A public-use file of synthetic rows: OpenDP measures each column's counts and the relationships that matter "
    "most with noise, fits a model to them, and draws rows from it. Pick the columns; a numeric column is cut at "
    "edges you type, as for a histogram. Relationships not measured are not preserved, and no row is a real person."
)
NUMERIC_VALUES_WORDS = {"interval": "the interval, e.g. [18, 30)", "uniform": "a value drawn inside the interval"}


class SyntheticDialog(QDialog):
    def __init__(self, schema: Schema, parent=None, table: SyntheticTable | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Synthetic microdata")
        self.schema = schema
        self.columns = [s for s in schema.columns if isinstance(s, (CategoricalColumn, NumericColumn))]
        chosen = set(table.columns) if table else set()
        self.list = QTableWidget(len(self.columns), 3)
        self.list.setAccessibleName("columns of the synthetic table")
        self.list.setHorizontalHeaderLabels(["Column", "Kind", "Edges (numeric columns)"])
        self.list.verticalHeader().hide()
        self.list.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.list.horizontalHeader().setStretchLastSection(True)
        for row, spec in enumerate(self.columns):
            name = QTableWidgetItem(spec.name)
            name.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            name.setCheckState(Qt.CheckState.Checked if spec.name in chosen else Qt.CheckState.Unchecked)
            self.list.setItem(row, 0, name)
            kind = (f"{len(spec.bins)} categories" if isinstance(spec, CategoricalColumn)
                    else f"numeric [{spec.lower:g}, {spec.upper:g}]" if spec.lower is not None and spec.upper is not None
                    else "numeric (no bounds yet)")
            self.list.setItem(row, 1, _fixed(kind))
            if isinstance(spec, NumericColumn):
                edges = table.edges_of(spec.name) if table else ()
                self.list.setItem(row, 2, QTableWidgetItem(", ".join(f"{e:g}" for e in edges)))
            else:
                self.list.setItem(row, 2, _fixed(""))
        self.rows = QLineEdit("" if table is None or table.rows is None else str(table.rows))
        self.rows.setPlaceholderText("as many as the release counts")
        self.rows.setAccessibleName("rows to write")
        self.keep = QLineEdit("; ".join(" × ".join(g) for g in table.keep) if table else "")
        self.keep.setPlaceholderText("e.g. education × income; region × sex × age")
        self.keep.setAccessibleName("relationships to keep")
        self.keep.setToolTip("Pairs or triples of columns whose relationship must be measured (separated by ';'); "
                             "the algorithm chooses the others.")
        self.numeric_values = QComboBox()
        self.numeric_values.setAccessibleName("numeric values written as")
        for key, words in NUMERIC_VALUES_WORDS.items():
            self.numeric_values.addItem(words, key)
        self.numeric_values.setCurrentIndex(list(NUMERIC_VALUES_WORDS).index(table.numeric_values) if table else 0)
        self.algorithm = QComboBox()
        self.algorithm.setAccessibleName("algorithm")
        self.algorithm.addItem("MST (faster; every column linked to another)", "mst")
        self.algorithm.addItem("AIM (adaptive; slower)", "aim")
        self.algorithm.setCurrentIndex(list(ALGORITHMS).index(table.algorithm) if table else 0)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #c0392b;")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Rows to write:", self.rows)
        form.addRow("Keep the relationship of:", self.keep)
        form.addRow("A numeric column holds:", self.numeric_values)
        form.addRow("Algorithm:", self.algorithm)
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.list.itemChanged.connect(self.check)
        for field in (self.rows, self.keep):
            field.textChanged.connect(self.check)
        self.resize(760, 560)
        self.check()

    def table(self) -> SyntheticTable:
        """The synthetic table as typed; a WorkbenchError says what is wrong, and where."""
        columns, edges = [], []
        for row, spec in enumerate(self.columns):
            if self.list.item(row, 0).checkState() != Qt.CheckState.Checked:
                continue
            columns.append(spec.name)
            if isinstance(spec, NumericColumn):
                text = self.list.item(row, 2).text()
                parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
                try:
                    values = tuple(parse_number(p) for p in parts)
                except ValueError:
                    raise WorkbenchError(f"The edges of '{spec.name}' ('{text}') are not all numbers; type edges such "
                                         "as 18, 30, 65.") from None
                if values:
                    edges.append((spec.name, values))
        rows = None
        if self.rows.text().strip():
            try:
                value = parse_number(self.rows.text())
            except ValueError:
                value = None
            if value is None or value != int(value) or not 1 <= value <= MAX_ROWS:
                raise WorkbenchError(f"Rows to write: a whole number from 1 to {MAX_ROWS:,}, or empty for as many as "
                                     "the release counts.")
            rows = int(value)
        keep = tuple(tuple(name.strip() for name in group.replace("×", "x").split(" x ") if name.strip())
                     for group in self.keep.text().split(";") if group.strip())
        table = SyntheticTable(tuple(columns), edges=tuple(edges), rows=rows, keep=keep,
                               numeric_values=self.numeric_values.currentData(), algorithm=self.algorithm.currentData())
        table.axes(self.schema)
        return table

    def check(self) -> None:
        try:
            self.table()
            problem = ""
        except WorkbenchError as exc:
            problem = str(exc)
        self.problem.setText(problem)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)


def _fixed(text: str) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled)
    return item
