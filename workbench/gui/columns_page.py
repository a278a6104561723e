"""Step 3: describe every column: its kind, public bounds, public categories, missing values.

Bounds and categories are typed by the user, never filled in from the data: they are
part of the privacy guarantee. The data may suggest them only through a DP release that is
charged to the ledger (bounds: low and high percentiles; categories: the values whose noisy
count reaches a threshold), after the user has seen what it spends and means. Bad input is
marked at the field.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.data import (
    OTHER_BIN,
    CategoricalColumn,
    ColumnSpec,
    IdentifierColumn,
    IgnoredColumn,
    MissingAction,
    MissingPolicy,
    NumericColumn,
    OutsideCategories,
)
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.errors import WorkbenchError, unexpected_error
from workbench.core.privacy import Guarantee
from workbench.core.release.category_discovery import (
    DEFAULT_DELTA,
    DEFAULT_EPSILON,
    DiscoveredCategories,
    DiscoveryTerms,
    default_delta,
    discover_categories,
    discovery_terms,
)
from workbench.core.release import (
    SEARCH_RANGE,
    BoundsEstimate,
    ReleasePlan,
    categorical_column,
    estimate_bounds,
    with_bounds,
)
from workbench.core.release.bounds import search_schema
from workbench.gui.document import PlanDocument
from workbench.gui.formatting import parse_number
from workbench.gui.ledger_setting import chosen_location, open_ledger
from workbench.gui.workers import Task, charged

KINDS = {
    "numeric": "A number with public bounds (e.g. age 0 to 120)",
    "categorical": "One of a public list of categories",
    "identifier": "Says which person a row belongs to; never released",
    "ignored": "Not used",
}
INVALID = "background-color: #ffd6d6; color: #000000;"
MAX_ROWS = 200  # columns shown at once; more are found by name
NOT_NEEDED = "not needed yet"
NOT_NEEDED_WORDS = ("No statistic uses this column yet, so it needs no bounds or categories; give them when a "
                    "statistic in step 4 uses it (they must come from public knowledge, not from the data).")
HEADERS = ["Column", "Kind", "Lower bound", "Upper bound", "Categories", "Missing values become"]


class CategoriesDialog(QDialog):
    """Edit a public category list, one per line; pasting works. Not sure which categories exist? ``find`` (given
    when a table is open) releases the values held by many rows with differential privacy, charged to the ledger
    after the user has seen what it spends and lists."""

    def __init__(self, column: str, categories: tuple[str, ...], parent: QWidget,
                 outside: OutsideCategories = OutsideCategories.OTHER,
                 find: Callable[[float, float], DiscoveredCategories] | None = None,
                 terms: Callable[[float, float], DiscoveryTerms] | None = None,
                 delta: float = DEFAULT_DELTA) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Categories of {column}")
        self.column, self._find, self._terms = column, find, terms
        self._delta = delta  # the search's δ proposed for the plan's number of persons (``default_delta``)
        self.ask = True  # confirm before spending (tests answer for the user)
        self.task: Task | None = None
        self.found: DiscoveredCategories | None = None
        self.charged = False  # a search charged to the ledger (found, or stopped past its noise)
        self.text = QPlainTextEdit("\n".join(categories))
        self.text.setAccessibleName("categories, one per line")
        self.other = QCheckBox(f"Count values outside this list in an '{OTHER_BIN}' category")
        self.other.setChecked(outside is OutsideCategories.OTHER)
        self.other.setToolTip(
            f"Ticked: a row whose value is not in the list is counted in '{OTHER_BIN}', which is released like "
            "every category. Unticked: such rows are left out of statistics on this column; choose this when the "
            f"list is complete (a codebook's), so that no '{OTHER_BIN}' that is empty by construction is published."
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "List the categories that exist publicly (for example the answer options of the questionnaire), "
            "one per line. Every category is released, even if nobody is in it."
        )
        intro.setWordWrap(True)  # unwrapped, it made the dialog 959 px wide
        layout.addWidget(intro)
        layout.addWidget(self.text)
        layout.addWidget(self.other)
        self.find_epsilon = QDoubleSpinBox()
        self.find_epsilon.setRange(0.01, 10.0)
        self.find_epsilon.setDecimals(2)
        self.find_epsilon.setValue(DEFAULT_EPSILON)
        self.find_epsilon.setAccessibleName("ε for finding the categories")
        self.find_delta = QLineEdit(f"{delta:g}")
        self.find_delta.setAccessibleName("δ for finding the categories")
        self.find_delta.setMaximumWidth(90)
        self.find_button = QPushButton("Find them with differential privacy…")
        self.find_button.setToolTip("Spends budget of this dataset, charged to the ledger; the terms are shown first.")
        self.find_button.clicked.connect(self.confirm_and_find)
        self.find_terms = QLabel()
        self.find_terms.setWordWrap(True)
        row = QHBoxLayout()
        for widget in (QLabel("Not sure which exist?  ε"), self.find_epsilon, QLabel("δ"), self.find_delta,
                       self.find_button):
            row.addWidget(widget)
        row.addStretch(1)
        if find is not None and terms is not None:
            layout.addLayout(row)
            layout.addWidget(self.find_terms)
            self.find_epsilon.valueChanged.connect(self._show_terms)
            self.find_delta.textChanged.connect(self._show_terms)
            self._show_terms()
        layout.addWidget(buttons)
        self.resize(560, 520)

    def _chosen_terms(self) -> DiscoveryTerms:
        assert self._terms is not None
        try:
            delta = parse_number(self.find_delta.text())
        except ValueError:
            raise WorkbenchError("δ must be a number, such as 1e-7.") from None
        return self._terms(self.find_epsilon.value(), delta if delta is not None else self._delta)

    def _show_terms(self) -> None:
        try:
            self.find_terms.setText(self._chosen_terms().in_words())
            self.find_button.setEnabled(self.task is None)
        except WorkbenchError as exc:
            self.find_terms.setText(str(exc))
            self.find_button.setEnabled(False)

    def confirm_and_find(self) -> None:
        """Spend the chosen ε and δ on the values held by many rows, after the user agrees; add them to the list."""
        try:
            terms = self._chosen_terms()
        except WorkbenchError as exc:
            self.find_terms.setText(str(exc))
            return
        if self.ask:
            answer = QMessageBox.question(self, "Spend budget on categories?", terms.in_words() + "\n\nSpend it now?")
            if answer != QMessageBox.StandardButton.Yes:
                return
        assert self._find is not None
        find = self._find
        self.task = Task(lambda: find(terms.epsilon, terms.delta))
        self.task.finished.connect(self._found)
        self.task.failed.connect(self._not_found)
        self.find_button.setEnabled(False)
        self.find_terms.setText(f"Finding the categories of '{self.column}'…")
        self.task.start()

    def done(self, result: int) -> None:  # noqa: D401 (Qt's name: OK, Cancel, Esc and the window's close all end here)
        """Stay open while a search runs: it is charged when it ends, and its categories are added here. Closed
        mid-search, the dialog dropped them unseen though they were paid for, and the budget panel was not told."""
        if self.task is not None:
            self.find_terms.setText(f"Still finding the categories of '{self.column}': it is charged to the ledger "
                                    "when it ends, and the values found are added to the list here. Close this "
                                    "window once they are.")
            return
        super().done(result)

    def _found(self, found: DiscoveredCategories) -> None:
        self.task, self.found, self.charged = None, found, True
        listed = self.categories()
        self.text.setPlainText("\n".join((*listed, *(c for c in found.categories if c not in listed))))
        self.find_terms.setText(found.in_words())
        self.find_button.setEnabled(True)

    def _not_found(self, exc: BaseException) -> None:
        self.task = None
        self.charged = self.charged or charged(exc)  # stopped past the noise: charged all the same
        self.find_button.setEnabled(True)
        self.find_terms.setText(str(exc) if isinstance(exc, WorkbenchError) else
                                f"{unexpected_error(exc)}. The budget panel (step 5) shows whether anything was charged.")

    def categories(self) -> tuple[str, ...]:
        lines = [line.strip() for line in self.text.toPlainText().splitlines()]
        return tuple(dict.fromkeys(line for line in lines if line))

    def outside(self) -> OutsideCategories:
        return OutsideCategories.OTHER if self.other.isChecked() else OutsideCategories.DROP


def used_columns(plan: ReleasePlan) -> frozenset[str]:
    """The columns a release reads: those of its statistics and the person's identifier (``used_schema``)."""
    return frozenset(c.name for c in plan.used_schema().columns)


def not_needed_yet(spec: ColumnSpec, used: frozenset[str]) -> bool:
    """A column no statistic reads, with a bound or its categories still empty: nothing is wrong with it, yet."""
    if spec.name in used:
        return False
    if isinstance(spec, NumericColumn):
        return spec.lower is None or spec.upper is None
    return isinstance(spec, CategoricalColumn) and not spec.categories


class ColumnsPage(QWidget):
    bounds_released = Signal(object)  # a BoundsEstimate, charged to the ledger
    categories_released = Signal(object)  # DiscoveredCategories, charged to the ledger

    def __init__(self, document: PlanDocument) -> None:
        super().__init__()
        self.document = document
        self.dataset_budget: Callable[[], Guarantee] | None = None  # for a dataset new to the ledger (main window)
        self.ask = True  # confirm before spending (tests answer for the user)
        self.task: Task | None = None
        self.grid = QTableWidget(0, len(HEADERS))
        self.grid.setAccessibleName("Columns: kind, public bounds and categories")
        self.grid.setHorizontalHeaderLabels(HEADERS)
        self.grid.verticalHeader().hide()
        header = self.grid.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        tips = [
            "",
            "How the column is used. Check each proposal.",
            "Public smallest value; values below are raised to it. Type it: it must not come from the data.",
            "Public largest value; values above are lowered to it. Type it: it must not come from the data.",
            "The public list of categories.",
            "Empty: rows missing this value are left out of statistics that use it. "
            "Otherwise the public value that replaces a missing one.",
        ]
        for i, tip in enumerate(tips):
            self.grid.horizontalHeaderItem(i).setToolTip(tip)
        self.note = QLabel(
            "Describe each column. Bounds and categories are public choices you type in; they are never read "
            "from the data. Fields marked red need attention; hover over them for the reason."
        )
        self.note.setWordWrap(True)
        self.bounds_column = QComboBox()
        self.bounds_column.setAccessibleName("column whose bounds to estimate")
        self.bounds_epsilon = QDoubleSpinBox()
        self.bounds_epsilon.setRange(0.01, 10.0)
        self.bounds_epsilon.setDecimals(2)
        self.bounds_epsilon.setValue(0.1)
        self.bounds_epsilon.setAccessibleName("ε for the bounds estimate")
        self.negative = QCheckBox("values can be negative")
        self.negative.setToolTip(
            "Public knowledge: leave unticked for amounts that cannot be below 0 (income, age, hours). The search "
            "then runs from 0 to 1e9 instead of -1e9 to 1e9, which makes the estimate sharper."
        )
        self.estimate = QPushButton("&Estimate bounds with DP…")
        self.estimate.setToolTip(
            "Reads the data and releases its 1st and 99th percentiles with differential privacy, spending this ε "
            "of the dataset's budget (charged to the ledger like any release). About 1% of the values on each side "
            "will then be clamped."
        )
        self.estimate.clicked.connect(self.confirm_and_estimate)
        self.bounds_status = QLabel("")
        self.bounds_status.setWordWrap(True)
        helper = QHBoxLayout()
        for widget in (QLabel("Bounds not known? For"), self.bounds_column, self.negative, QLabel("spend ε ="),
                       self.bounds_epsilon, self.estimate):
            helper.addWidget(widget)
        helper.addStretch()
        self.find = QLineEdit()
        self.find.setPlaceholderText("Find a column by name…")
        self.find.setAccessibleName("find a column")
        self.find.setClearButtonEnabled(True)
        self.find.textChanged.connect(self._find_changed)
        self.shown_note = QLabel("")
        finding = QHBoxLayout()
        finding.addWidget(self.find, 1)
        finding.addWidget(self.shown_note, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addLayout(finding)
        layout.addWidget(self.grid)
        layout.addLayout(helper)
        layout.addWidget(self.bounds_status)
        self.problems: dict[str, str] = {}  # column -> what is wrong with its fields
        document.changed.connect(self.refresh)
        self._shown: tuple[ColumnSpec, ...] = ()
        self._used: frozenset[str] = frozenset()  # the columns a statistic reads, as the rows show them
        self.visible: list[int] = []  # schema positions of the grid's rows
        self.refresh()

    # -- showing ------------------------------------------------------------------------------
    def refresh(self) -> None:
        columns = self.document.plan.schema.columns
        numeric = [c.name for c in columns if isinstance(c, NumericColumn)]
        if [self.bounds_column.itemText(i) for i in range(self.bounds_column.count())] != numeric:
            chosen = self.bounds_column.currentText()
            self.bounds_column.clear()
            self.bounds_column.addItems(numeric)
            if chosen in numeric:
                self.bounds_column.setCurrentText(chosen)
        self.estimate.setEnabled(bool(numeric) and self.task is None)
        used, was_used = used_columns(self.document.plan), self._used
        if columns == self._shown and used == was_used:
            return
        self._used = used
        matching = self._matching(columns)
        visible = matching[:MAX_ROWS]  # a table of thousands of columns is found by name, not built as widgets
        if visible == self.visible and len(columns) == len(self._shown):
            for row, index in enumerate(visible):  # the same rows: redraw only the columns that changed
                name = columns[index].name
                if columns[index] != self._shown[index] or (name in used) != (name in was_used):
                    self._show_row(row, columns[index])
        else:
            self.visible = visible
            self.grid.setRowCount(len(visible))
            for row, index in enumerate(visible):
                self._show_row(row, columns[index])
        self._shown = columns
        if len(matching) > len(visible):
            self.shown_note.setText(
                f"Showing the first {len(visible)} of {len(matching):,} columns"
                f"{' that match' if self.find.text() else ''}. Type part of a name above to find the others."
            )
        elif self.find.text():
            self.shown_note.setText(f"{len(matching):,} of {len(columns):,} columns match.")
        else:
            self.shown_note.setText("")

    def _matching(self, columns: tuple[ColumnSpec, ...]) -> list[int]:
        """Positions of the columns whose name contains the search text."""
        text = self.find.text().strip().casefold()
        return [i for i, spec in enumerate(columns) if text in spec.name.casefold()]

    def _find_changed(self) -> None:
        self._shown = ()
        self.visible = []
        self.refresh()

    def focus_column(self, name: str, control: str) -> None:
        """Show the row of column ``name`` (clearing a search that hides it) and put the focus on its ``control``:
        "bounds" (the lower bound), "categories", "missing" or "kind"."""
        names = [spec.name for spec in self.document.plan.schema.columns]
        if name not in names:
            return
        if self._row_of(names.index(name)) is None:
            self.find.clear()  # the search hid it
        row = self._row_of(names.index(name))
        if row is None:
            return
        self.grid.scrollTo(self.grid.model().index(row, 0))
        self.grid.selectRow(row)
        widget = self.grid.cellWidget(row, {"bounds": 2, "categories": 4, "missing": 5}.get(control, 1))
        if widget is not None:
            widget.setFocus()

    def _row_of(self, index: int) -> int | None:
        try:
            return self.visible.index(index)
        except ValueError:
            return None

    def _show_row(self, row: int, spec: ColumnSpec) -> None:
        index = self.visible[row]
        name = QLabel(f"  {spec.name}  ")
        if spec.label:  # the file's variable label under the name, as step 1 shows it
            name.setText(f"&nbsp;&nbsp;{html.escape(spec.name)}<br>&nbsp;&nbsp;<small>{html.escape(spec.label)}</small>")
            name.setToolTip(spec.label)
        self._install(row, 0, name)
        kind = QComboBox()
        kind.addItems(list(KINDS))
        for i, words in enumerate(KINDS.values()):
            kind.setItemData(i, words, 3)  # tooltip role
        kind.setCurrentText(spec.kind)
        kind.setAccessibleName(f"kind of {spec.name}")
        kind.currentTextChanged.connect(lambda text, i=index: self._kind_changed(i, text))
        self._install(row, 1, kind)
        lower, upper, missing = QLineEdit(), QLineEdit(), QLineEdit()
        for field, label in ((lower, "lower bound"), (upper, "upper bound"), (missing, "value for missing")):
            field.setAccessibleName(f"{label} of {spec.name}")
            field.editingFinished.connect(lambda i=index: self._fields_changed(i))
        categories = QPushButton()
        categories.setAccessibleName(f"categories of {spec.name}")
        categories.clicked.connect(lambda _=False, i=index: self._edit_categories(i))
        if isinstance(spec, NumericColumn):
            lower.setText("" if spec.lower is None else f"{spec.lower:g}")
            upper.setText("" if spec.upper is None else f"{spec.upper:g}")
            if spec.name not in self._used:  # nothing reads it yet: its bounds are not missing, only not needed
                for field in (lower, upper):
                    field.setPlaceholderText(NOT_NEEDED)
        if isinstance(spec, CategoricalColumn):
            shown = ", ".join(spec.categories[:4]) + (" …" if len(spec.categories) > 4 else "")
            other = f" + {OTHER_BIN}" if spec.outside is OutsideCategories.OTHER else ""
            categories.setText(f"{len(spec.categories)}: {shown}{other}" if spec.categories else "Enter categories…")
        missing_policy = getattr(spec, "missing", None)
        if missing_policy is not None and missing_policy.action is MissingAction.IMPUTE:
            value = missing_policy.value
            missing.setText(f"{value:g}" if isinstance(value, float) else str(value))
        missing.setPlaceholderText("left out")
        numeric, categorical = isinstance(spec, NumericColumn), isinstance(spec, CategoricalColumn)
        lower.setEnabled(numeric)
        upper.setEnabled(numeric)
        categories.setEnabled(categorical)
        missing.setEnabled(numeric or categorical)
        for column, widget in ((2, lower), (3, upper), (4, categories), (5, missing)):
            self._install(row, column, widget)
        if spec.label:
            self.grid.setRowHeight(row, max(self.grid.rowHeight(row), name.sizeHint().height() + 6))
        self._mark(row, spec)

    def _install(self, row: int, column: int, widget: QWidget) -> None:
        """Put ``widget`` in the cell, hiding the one it replaces at once: Qt deletes that one only when the event
        loop next runs, and one made while step 3 was hidden has no place yet (0, 0), where it was drawn over the
        top-left cell (a stray 'left out' field) until then."""
        old = self.grid.cellWidget(row, column)
        if old is not None:
            old.hide()
        self.grid.setCellWidget(row, column, widget)

    def _mark(self, row: int, spec: ColumnSpec) -> None:
        """Colour the fields of ``row`` that the core would refuse, with the reason as tooltip."""
        lower, upper = self.grid.cellWidget(row, 2), self.grid.cellWidget(row, 3)
        categories = self.grid.cellWidget(row, 4)
        for widget in (lower, upper, categories):
            widget.setStyleSheet("")
            widget.setToolTip("")
        problem = self.problems.get(spec.name)
        if problem is None and not_needed_yet(spec, self._used):
            for widget in (lower, upper) if isinstance(spec, NumericColumn) else (categories,):
                widget.setToolTip(NOT_NEEDED_WORDS)
            return
        if problem is None:
            try:
                spec.validate()
            except Exception as exc:  # SchemaError: shown at the field
                problem = str(exc)
        if problem is None:
            return
        if isinstance(spec, NumericColumn):
            targets = [lower, upper]
        elif isinstance(spec, CategoricalColumn):
            targets = [categories]
        else:
            targets = []
        for widget in targets:
            widget.setStyleSheet(INVALID)
            widget.setToolTip(problem)

    # -- editing (by the column's position in the schema) ---------------------------------------
    def _replace(self, index: int, spec: ColumnSpec) -> None:
        plan = self.document.plan
        columns = list(plan.schema.columns)
        columns[index] = spec
        self.document.update(replace(plan, schema=replace(plan.schema, columns=tuple(columns))))  # refresh follows

    def _kind_changed(self, index: int, kind: str) -> None:
        old = self.document.plan.schema.columns[index]
        if kind == old.kind:
            return
        new: ColumnSpec
        if kind == "numeric":
            new = NumericColumn(old.name)
        elif kind == "categorical":
            offered = self.document.table.value_labels.get(old.name, ()) if self.document.table else ()
            new = categorical_column(old.name, tuple(offered))
        elif kind == "identifier":
            new = IdentifierColumn(old.name)
        else:
            new = IgnoredColumn(old.name)
        self.problems.pop(old.name, None)
        self._replace(index, new)

    def _fields_changed(self, index: int) -> None:
        spec = self.document.plan.schema.columns[index]
        row = self._row_of(index)
        if row is None:
            return
        texts = [self.grid.cellWidget(row, c).text() for c in (2, 3, 5)]
        self.problems.pop(spec.name, None)
        if isinstance(spec, NumericColumn):
            try:
                lower, upper = parse_number(texts[0]), parse_number(texts[1])
            except ValueError:
                self.problems[spec.name] = f"'{spec.name}': bounds must be numbers written with a decimal point, like 0 or 120.5."
                self._mark(row, spec)
                return
            try:
                fill = parse_number(texts[2])
            except ValueError:
                self.problems[spec.name] = f"'{spec.name}': the value for missing entries must be a number."
                self._mark(row, spec)
                return
            missing = MissingPolicy(MissingAction.IMPUTE, fill) if fill is not None else MissingPolicy()
            updated = replace(spec, lower=lower, upper=upper, missing=missing)
        elif isinstance(spec, CategoricalColumn):
            fill_text = texts[2].strip()
            missing = MissingPolicy(MissingAction.IMPUTE, fill_text) if fill_text else MissingPolicy()
            updated = replace(spec, missing=missing)
        else:
            return
        if updated == spec:
            self._mark(row, spec)  # the same values: clear a mark left by unparsable text
        else:
            self._replace(index, updated)

    def _edit_categories(self, index: int) -> None:
        spec = self.document.plan.schema.columns[index]
        assert isinstance(spec, CategoricalColumn)
        table = self.document.table
        find = terms = None
        if table is not None and spec.name in table.columns:
            plan, location = self.document.plan, chosen_location()
            budget = self.dataset_budget() if self.dataset_budget else None

            def find(epsilon: float, delta: float) -> DiscoveredCategories:
                ledger = open_ledger(location)
                known = ledger.has_dataset(plan.dataset.name)
                return discover_categories(table, plan, spec.name, epsilon, delta, ledger, None if known else budget)

            def terms(epsilon: float, delta: float) -> DiscoveryTerms:
                return discovery_terms(plan.schema, spec.name, epsilon, delta, plan.size())

        dialog = CategoriesDialog(spec.name, spec.categories, self, spec.outside, find, terms,
                                  default_delta(self.document.plan.size()))
        dialog.ask = self.ask
        self.open_dialog = dialog  # for tests
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        if dialog.charged:
            self.categories_released.emit(dialog.found)  # the list kept or not (None: stopped past the noise)
        if accepted:
            self._replace(index, replace(spec, categories=dialog.categories(), outside=dialog.outside()))

    # -- bounds help (a DP release) -------------------------------------------------------------
    def confirm_and_estimate(self) -> None:
        """Spend the chosen ε on a DP estimate of the column's bounds, after the user agrees."""
        column, epsilon = self.bounds_column.currentText(), self.bounds_epsilon.value()
        if self.document.table is None:
            QMessageBox.warning(self, "No data yet", "Open the data file first (step 1): the estimate reads it.")
            return
        plan = self.document.plan
        if self.ask:
            answer = QMessageBox.question(
                self, "Spend budget on bounds?",
                f"This reads '{column}' and releases its 1st and 99th percentiles with differential privacy, "
                f"spending ε = {epsilon:g} of the budget of '{plan.dataset.name}'. It is charged to the ledger like "
                "any release and cannot be undone. The suggested bounds are filled in for you to check.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        table, location = self.document.table, chosen_location()
        budget = self.dataset_budget() if self.dataset_budget else None
        search = SEARCH_RANGE if self.negative.isChecked() else (0.0, SEARCH_RANGE[1])

        def run() -> BoundsEstimate:
            ledger = open_ledger(location)
            new_budget = None if ledger.has_dataset(plan.dataset.name) else budget
            if table.sample_rows is None:
                return estimate_bounds(table, plan, column, epsilon, ledger, new_budget, search=search)
            # a file too large for memory, of which only the first rows are loaded: its ranks counted by DuckDB on
            # the whole file, as the command line does (the loaded rows alone are not the data the ledger charges)
            source = file_source(table.source, delimiter=table.delimiter, encoding=plan.dataset.encoding)
            with OutOfCoreData(source, search_schema(plan, column, search)) as data:
                return estimate_bounds(source, plan, column, epsilon, ledger, new_budget, search=search, data=data)

        self.task = Task(run)
        self.task.finished.connect(self._estimated)
        self.task.failed.connect(self._estimate_failed)
        self.estimate.setEnabled(False)
        self.bounds_status.setText(f"Estimating the bounds of '{column}'… (the window stays usable)")
        self.task.start()

    def _estimated(self, estimate: BoundsEstimate) -> None:
        self.task = None
        self.estimate.setEnabled(True)
        plan = self.document.plan
        self.document.update(with_bounds(plan, estimate.column, estimate.lower, estimate.upper))
        self.bounds_status.setText(estimate.in_words())
        self.bounds_released.emit(estimate)

    def _estimate_failed(self, exc: BaseException) -> None:
        self.task = None
        self.estimate.setEnabled(True)
        self.bounds_status.setText("")
        if charged(exc):  # though it failed: the budget panel reads the ledger again
            self.bounds_released.emit(None)
        message = (str(exc) if isinstance(exc, WorkbenchError) else
                   f"{unexpected_error(exc)}. The budget panel (step 5) shows whether anything was charged.")
        QMessageBox.warning(self, "The bounds could not be estimated", message)
