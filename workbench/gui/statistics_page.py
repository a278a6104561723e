"""Step 4: the statistics to release: add, remove, reorder; each optionally by group."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.data import CategoricalColumn, NumericColumn
from workbench.core.errors import WorkbenchError
from workbench.core.privacy import MechanismKind
from workbench.core.release import Budget, PlannedStatistic, PlannedSynthetic, PostProcessing, can_be_made_consistent
from workbench.core.release.planner import budget_plan, group_size
from workbench.core.report import interval_cost_words
from workbench.core.statistics import (
    STATISTIC_TYPES,
    WEIGHTED_TYPES,
    Count,
    CrossTab,
    Histogram,
    Mean,
    Proportion,
    Quantiles,
    Statistic,
    Sum,
)
from workbench.core.statistics.quantiles import level_problem, level_words, snapped_level
from workbench.gui.document import PlanDocument
from workbench.gui.formatting import parse_number
from workbench.gui.synthetic_dialog import SyntheticDialog

NEEDS = {
    "count": None, "sum": NumericColumn, "mean": NumericColumn, "variance": NumericColumn,
    "stddev": NumericColumn, "histogram": (CategoricalColumn, NumericColumn), "quantiles": NumericColumn,
    "crosstab": CategoricalColumn, "proportion": (CategoricalColumn, NumericColumn),
}
WORDS = {
    "count": "the number of rows",
    "sum": "the total of a numeric column",
    "mean": "the average of a numeric column",
    "variance": "the spread of a numeric column (sample variance, divisor n - 1)",
    "stddev": "the standard deviation of a numeric column (square root of the variance)",
    "histogram": "how many rows fall in each category, or in each interval of a numeric column between edges you "
                 "give (by another column: a cross-tabulation)",
    "quantiles": "values below which given shares of the rows lie: the median (0.5), quartiles, deciles",
    "crosstab": "how many rows fall in each combination of the categories of two or three columns",
    "proportion": "the share of rows in each category (or interval between edges), of the whole table or of each "
                  "group: 'share of employed by region'; as a proportion or in percent",
}
MECHANISM_WORDS = {
    "laplace": "Laplace noise: pure ε-differential privacy (δ = 0)",
    "gaussian": "Gaussian noise: (ε, δ)-differential privacy; smaller errors when many statistics are released",
    "exponential": "Selection among points of the bounds, likelier the closer to the level: pure ε-DP (quantiles)",
}
DEFAULT_LEVELS = "0.25, 0.5, 0.75"
EDGES_TIP = ("Where the intervals of a numeric column begin, separated by commas, strictly between its bounds: "
             "18, 65 with bounds 0 and 100 counts [0, 18), [18, 65) and [65, 100]. Public values, never read from "
             "the data.")
NO_GROUP = "(all rows)"
POST_PROCESSING_CHOICES = {  # a new statistic gets PostProcessing.default_for: "clamp" where its range is limited
    "clamp": PostProcessing(clamp=True),
    "none": PostProcessing(),
    "clamp, round to 1": PostProcessing(clamp=True, round_to=1.0),
    "clamp, round to 5": PostProcessing(clamp=True, round_to=5.0),
    "clamp, round to 10": PostProcessing(clamp=True, round_to=10.0),
    "round to 1": PostProcessing(round_to=1.0),
    "sum to the count": PostProcessing(consistent=True),
    "consistent with margins": PostProcessing(consistent=True),  # a cross-tabulation's (release.tables)
}
CONSISTENT_WORDS = {"histogram": "sum to the count", "crosstab": "consistent with margins"}


def post_processing_text(post: PostProcessing, statistic: Statistic | None = None) -> str:
    """How a choice reads in the list: 'none', 'clamp', 'clamp, round to 10', 'consistent with margins'."""
    parts = (["clamp"] if post.clamp else []) + ([f"round to {post.round_to:g}"] if post.round_to else [])
    kind = statistic.type_name if statistic is not None else "histogram"
    parts += [CONSISTENT_WORDS.get(kind, "sum to the count")] if post.consistent else []
    return ", ".join(parts) or "none"
NO_THIRD = "(two columns)"
NO_MORE = "(no more)"
UNWEIGHTED = "(unweighted)"


class StatisticsPage(QWidget):
    def __init__(self, document: PlanDocument) -> None:
        super().__init__()
        self.document = document
        self.type = QComboBox()
        self.type.addItems(list(STATISTIC_TYPES))
        for i, name in enumerate(STATISTIC_TYPES):
            self.type.setItemData(i, WORDS.get(name, ""), 3)
        self.type.setAccessibleName("statistic")
        self.column = QComboBox()
        self.column.setAccessibleName("column")
        self.by = QComboBox()
        self.by_more = (QComboBox(), QComboBox())  # a second and third grouping column: "by region and sex"
        self.by_and_labels = (QLabel("and"), QLabel("and"))
        self.second, self.third = QComboBox(), QComboBox()
        for box in (self.column, self.by, *self.by_more, self.second, self.third):
            _readable_width(box)
        self.by.setAccessibleName("by group")
        self.by.setToolTip("Release the statistic for each category of this column. The groups share one ε.")
        for box, which in zip(self.by_more, ("second", "third")):
            box.setAccessibleName(f"{which} grouping column")
            box.setToolTip("Also group by this column: one value per combination of the categories (up to three "
                           "columns). All groups still share one ε.")
        self.levels = QLineEdit(DEFAULT_LEVELS)
        self.levels.setAccessibleName("quantile levels")
        self.levels.setToolTip("Quantile levels between 0 and 1, separated by commas: 0.5 is the median.")
        self.levels_label = QLabel("at levels")
        self.edges = QLineEdit()
        self.edges.setAccessibleName("interval edges")
        self.edges.setPlaceholderText("e.g. 18, 30, 45, 65")
        self.edges.setToolTip(EDGES_TIP)
        self.edges_label = QLabel("cut at")
        self.weighted = QComboBox()  # a survey weight column (numeric, positive bounds)
        self.weighted.setAccessibleName("weighted by")
        self.weighted.setToolTip("A survey weight column: counts, sums, means and shares are then weighted estimates. "
                                 "Its bounds are the smallest and largest weight of the design. The error bar covers "
                                 "the privacy noise only, not the sampling error.")
        _readable_width(self.weighted)
        self.weighted_label = QLabel("weighted by")
        self.interval = QCheckBox("with 95% interval")
        self.interval.setAccessibleName("quantile interval in the column's units")
        self.interval.setToolTip(
            "Also release an interval in the column's units that holds the true quantile with 95% probability, "
            "whatever the data. It uses 60% of this statistic's ε; the values get the other 40%, so their error in "
            "ranks is about 2.5 times what it would be. Budget and preview (step 5) shows both errors: the value's in "
            "ranks, with and without the interval, and the interval's expected width in the column's units.")
        self.interval_cost = QLabel()  # what the interval costs the values, with the two errors, while it is ticked
        self.interval_cost.setWordWrap(True)
        self.interval_cost.setAccessibleName("what the interval costs the quantile's values")
        self.interval_cost.hide()
        self.percent = QCheckBox("in %")
        self.percent.setAccessibleName("shares in percent")
        self.percent.setToolTip("Release the shares in percent (0 to 100) rather than as proportions (0 to 1).")
        self.second.setAccessibleName("second column")
        self.third.setAccessibleName("third column")
        self.crossed_labels = (QLabel("×"), QLabel("×"))
        self.mechanism = QComboBox()
        self.mechanism.setAccessibleName("mechanism")
        self.add = QPushButton("&Add")
        self.synthetic = QPushButton("S&ynthetic microdata…")
        self.synthetic.setToolTip("Add a public-use file of synthetic rows, drawn from a model fitted to noisy "
                                  "marginals (OpenDP's contingency tables). It shares the budget like a statistic.")
        self.remove = QPushButton("&Remove")
        self.up = QPushButton("Move &up")
        self.down = QPushButton("Move &down")
        self.list = QTableWidget(0, 5)
        self.list.setAccessibleName("Statistics to release")
        self.list.setHorizontalHeaderLabels(["Statistic", "Mechanism", "Weight", "Post-processing", "Method"])
        self.list.horizontalHeaderItem(3).setToolTip(
            "Optional, applied to released values only: clamping into the possible range (a count is never below 0) "
            "keeps the error bound but biases values near the edge; rounding adds half the step to the error bound."
        )
        self.list.horizontalHeaderItem(2).setToolTip(
            "Statistics share the total ε in proportion to their weights (Budget & preview step)."
        )
        self.list.verticalHeader().hide()
        self.list.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.list.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.list.horizontalHeader().setStretchLastSection(True)

        chooser = QHBoxLayout()
        for label, widget in (("Statistic:", self.type), ("of", self.column), (self.levels_label, self.levels),
                              (self.edges_label, self.edges), ("", self.percent), ("", self.interval),
                              (self.crossed_labels[0], self.second), (self.crossed_labels[1], self.third)):
            if label != "":  # the percent box names itself
                chooser.addWidget(label if isinstance(label, QLabel) else QLabel(label))
            chooser.addWidget(widget)
        chooser.addStretch()
        grouping = QHBoxLayout()  # a row of its own: three grouping columns do not fit beside the statistic at 1366 px
        for label, widget in (("by", self.by), (self.by_and_labels[0], self.by_more[0]),
                              (self.by_and_labels[1], self.by_more[1]), (self.weighted_label, self.weighted),
                              ("with", self.mechanism)):
            grouping.addWidget(label if isinstance(label, QLabel) else QLabel(label))
            grouping.addWidget(widget)
        grouping.addWidget(self.add)
        grouping.addStretch()
        grouping.addWidget(self.synthetic)
        order = QHBoxLayout()
        for button in (self.remove, self.up, self.down):
            order.addWidget(button)
        order.addStretch()
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h3>What to release</h3>"))
        layout.addLayout(chooser)
        layout.addLayout(grouping)
        layout.addWidget(self.interval_cost)
        layout.addWidget(self.list)
        layout.addLayout(order)

        self.type.currentTextChanged.connect(self._offer_columns)
        self.levels.textChanged.connect(self._check_levels)
        self.edges.textChanged.connect(self._check_levels)
        self.column.currentTextChanged.connect(self._show_edges)
        self.by.currentTextChanged.connect(self._offer_more_groupings)
        self.by_more[0].currentTextChanged.connect(self._offer_more_groupings)
        self.add.clicked.connect(self._add)
        self.interval.toggled.connect(self._show_interval_cost)
        for box in (self.type, self.column, self.by, *self.by_more, self.mechanism):
            box.currentTextChanged.connect(self._show_interval_cost)
        self.levels.textChanged.connect(self._show_interval_cost)
        self.synthetic.clicked.connect(lambda: self.edit_synthetic())
        self.list.cellDoubleClicked.connect(lambda row, _column: self._edit_row(row))
        self.remove.clicked.connect(self._remove)
        self.up.clicked.connect(lambda: self._move(-1))
        self.down.clicked.connect(lambda: self._move(1))
        document.changed.connect(self.refresh)
        self._shown: tuple | None = None
        self.ask = True  # tests and the smoke test fill dialogs in themselves
        self.refresh()

    def refresh(self) -> None:
        shown = (self.document.plan.schema, self.document.plan.statistics)
        if shown == self._shown:
            return  # e.g. the total ε moved on the preview step: nothing listed here changed
        self._shown = shown
        self._offer_columns()
        groups = [s.name for s in self.document.plan.schema.columns if isinstance(s, CategoricalColumn)]
        current = self.by.currentText()
        self.by.clear()
        self.by.addItems([NO_GROUP, *groups])
        self.by.setCurrentText(current if current in groups else NO_GROUP)
        _fit_popup(self.by)
        self._offer_more_groupings()
        plan = self.document.plan
        selected = self.list.currentRow()
        self.list.setRowCount(len(plan.statistics))
        for row, planned in enumerate(plan.statistics):
            try:
                method = planned.statistic.method(plan.schema)
            except Exception as exc:  # the column was described differently since: say so in the row
                method = f"⚠ {exc}"
            weight = "locked ε" if planned.weight is None else f"{planned.weight:g}"
            texts = (planned.statistic.label, planned.mechanism.value, weight,
                     post_processing_text(planned.post, planned.statistic), method)
            for column, text in enumerate(texts):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.list.setItem(row, column, item)
            self._show_mechanism(row, planned)
            self._show_post_processing(row, planned)
        if 0 <= selected < len(plan.statistics):
            self.list.selectRow(selected)
        self._show_interval_cost()

    def _row_combo(self, row: int, column: int, changed) -> QComboBox:
        """The combo box in a cell of the list, created once; ``changed(row, text)`` on a choice."""
        box = self.list.cellWidget(row, column)
        if not isinstance(box, QComboBox):
            box = QComboBox()
            box.currentTextChanged.connect(lambda text, r=row: changed(r, text))
            self.list.setCellWidget(row, column, box)
        return box

    def _show_mechanism(self, row: int, planned: PlannedStatistic) -> None:
        """A combo box per row: the mechanism of a statistic can be changed in place, among those
        that can release it."""
        box = self._row_combo(row, 1, self._mechanism_changed)
        box.blockSignals(True)
        _offer_mechanisms(box, planned.statistic.mechanisms)
        box.setCurrentText(planned.mechanism.value)
        box.setAccessibleName(f"mechanism of statistic {row + 1}")
        box.blockSignals(False)

    def _show_post_processing(self, row: int, planned: PlannedStatistic) -> None:
        """A combo box per row with the usual choices (rounding is not offered for quantiles)."""
        if isinstance(planned, PlannedSynthetic):  # its rows are drawn from the model: nothing to choose
            self.list.removeCellWidget(row, 3)
            self.list.setItem(row, 3, QTableWidgetItem("rows drawn from the model"))
            return
        box = self._row_combo(row, 3, self._post_processing_changed)
        box.blockSignals(True)
        statistic = planned.statistic
        offered = [text for text, post in POST_PROCESSING_CHOICES.items()
                   if not (post.round_to and statistic.error_unit)
                   and not (post.consistent and (text != CONSISTENT_WORDS.get(statistic.type_name)
                                                 or not can_be_made_consistent(statistic)))]
        current = post_processing_text(planned.post, statistic)
        if current not in offered:
            offered.append(current)  # a choice from a plan file that the list does not name
        if [box.itemText(i) for i in range(box.count())] != offered:
            box.clear()
            box.addItems(offered)
        box.setCurrentText(current)
        box.setAccessibleName(f"post-processing of statistic {row + 1}")
        box.blockSignals(False)

    def _post_processing_changed(self, row: int, text: str) -> None:
        plan = self.document.plan
        if 0 <= row < len(plan.statistics) and text in POST_PROCESSING_CHOICES:
            statistics = list(plan.statistics)
            statistics[row] = replace(statistics[row], post=POST_PROCESSING_CHOICES[text])
            self.document.update(replace(plan, statistics=tuple(statistics)))

    def _mechanism_changed(self, row: int, text: str) -> None:
        plan = self.document.plan
        if 0 <= row < len(plan.statistics):
            statistics = list(plan.statistics)
            mechanism = MechanismKind(text)
            planned = replace(statistics[row], mechanism=mechanism)
            if planned.weight is None:  # a locked statistic keeps its ε; its δ follows the mechanism
                gaussians = 1 + sum(p.mechanism is MechanismKind.GAUSSIAN for i, p in enumerate(statistics) if i != row)
                delta = plan.total.delta / gaussians if mechanism is MechanismKind.GAUSSIAN else 0.0
                planned = replace(planned, budget=Budget(planned.budget.epsilon, delta))
            statistics[row] = planned
            self.document.update(replace(plan, statistics=tuple(statistics)))

    def _offer_more_groupings(self) -> None:
        """A second grouping column once a first is chosen, a third once a second is: each offers the
        categorical columns not grouped by already."""
        categorical = [s.name for s in self.document.plan.schema.columns if isinstance(s, CategoricalColumn)]
        earlier = [self.by.currentText()]
        for box, label in zip(self.by_more, self.by_and_labels):
            shown = earlier[-1] not in ("", NO_GROUP, NO_MORE)
            box.setVisible(shown)
            label.setVisible(shown)
            offered = [NO_MORE, *(c for c in categorical if c not in earlier)]
            current = box.currentText()
            if [box.itemText(i) for i in range(box.count())] != offered:
                box.blockSignals(True)
                box.clear()
                box.addItems(offered)
                box.setCurrentText(current if current in offered else NO_MORE)
                box.blockSignals(False)
                _fit_popup(box)
            if not shown and box.currentText() != NO_MORE:
                box.blockSignals(True)
                box.setCurrentText(NO_MORE)
                box.blockSignals(False)
            earlier.append(box.currentText())

    def grouping_columns(self) -> tuple[str, ...]:
        """The chosen grouping columns, in order, up to the first box left at 'no more'."""
        columns = []
        for box in (self.by, *self.by_more):
            if box.currentText() in ("", NO_GROUP, NO_MORE):  # a hidden box is kept at 'no more'
                break
            columns.append(box.currentText())
        return tuple(columns)

    def _offer_columns(self) -> None:
        kind = STATISTIC_TYPES.get(self.type.currentText())
        if kind is not None:
            _offer_mechanisms(self.mechanism, kind.mechanisms)
        quantiles = kind is Quantiles
        self.percent.setVisible(kind is Proportion)
        numeric = [s.name for s in self.document.plan.schema.columns if isinstance(s, NumericColumn)]
        weighable = self.type.currentText() in WEIGHTED_TYPES and bool(numeric)
        self.weighted.setVisible(weighable)
        self.weighted_label.setVisible(weighable)
        chosen_weight = self.weighted.currentText()
        if [self.weighted.itemText(i) for i in range(self.weighted.count())] != [UNWEIGHTED, *numeric]:
            self.weighted.clear()
            self.weighted.addItems([UNWEIGHTED, *numeric])
            self.weighted.setCurrentText(chosen_weight if chosen_weight in numeric else UNWEIGHTED)
            _fit_popup(self.weighted)
        self.levels.setVisible(quantiles)
        self.interval.setVisible(quantiles)
        self.levels_label.setVisible(quantiles)
        crossed = kind is CrossTab
        for widget in (self.second, self.third, *self.crossed_labels):
            widget.setVisible(crossed)
        need = NEEDS.get(self.type.currentText())
        current = self.column.currentText()
        names = [s.name for s in self.document.plan.schema.columns if need is not None and isinstance(s, need)]
        self.column.clear()
        self.column.addItems(names or (["rows"] if need is None else []))
        self.column.setEnabled(need is not None)
        if current in names:
            self.column.setCurrentText(current)
        categorical = [s.name for s in self.document.plan.schema.columns if isinstance(s, CategoricalColumn)]
        for box, extra in ((self.second, []), (self.third, [NO_THIRD])):
            chosen = box.currentText()
            box.clear()
            box.addItems([*extra, *categorical])
            if chosen in extra + categorical:
                box.setCurrentText(chosen)
        for box in (self.column, self.second, self.third):
            _fit_popup(box)
        self._show_edges()

    def _numeric_histogram(self) -> bool:
        if STATISTIC_TYPES.get(self.type.currentText()) not in (Histogram, Proportion) or not self.column.currentText():
            return False
        return any(isinstance(s, NumericColumn) and s.name == self.column.currentText()
                   for s in self.document.plan.schema.columns)

    def _show_edges(self) -> None:
        numeric = self._numeric_histogram()
        self.edges.setVisible(numeric)
        self.edges_label.setVisible(numeric)
        self._check_levels()

    def parsed_edges(self) -> tuple[float, ...]:
        """The typed interval edges of a numeric histogram; a WorkbenchError says what is wrong with them."""
        parts = [p for p in self.edges.text().replace(";", ",").split(",") if p.strip()]
        try:
            return tuple(parse_number(part) for part in parts)
        except ValueError:
            raise WorkbenchError(
                f"'{self.edges.text().strip()}' are not all numbers; type edges such as 18, 30, 45, 65."
            ) from None

    def parsed_levels(self) -> tuple[float, ...]:
        """The typed quantile levels; a WorkbenchError says what is wrong with them."""
        parts = [p for p in self.levels.text().replace(";", ",").split(",") if p.strip()]
        if not parts:
            raise WorkbenchError("Type at least one level, e.g. 0.5 for the median.")
        levels = []
        for part in parts:
            try:
                levels.append(parse_number(part))
            except ValueError:
                raise WorkbenchError(f"'{part.strip()}' is not a number; type levels such as 0.25, 0.5, 0.75.") from None
        for level in levels:
            if not 0 < level < 1:
                raise WorkbenchError(f"{level:g} is not a level: levels lie strictly between 0 and 1 (0.5: the median).")
            problem = level_problem(snapped_level(level))  # the plan's own check: finer than OpenDP computes with
            if problem:
                raise WorkbenchError(problem)
        return tuple(levels)

    def _check_levels(self) -> None:
        """Mark the levels red with the reason while they cannot be used; Add waits for them."""
        need = NEEDS.get(self.type.currentText())
        ready = need is None or self.column.count() > 0
        problem = ""
        if STATISTIC_TYPES.get(self.type.currentText()) is Quantiles:
            try:
                self.parsed_levels()
            except WorkbenchError as exc:
                problem = str(exc)
        self.levels.setStyleSheet("border: 1px solid #c0392b;" if problem else "")
        self.levels.setToolTip(problem or "Quantile levels between 0 and 1, separated by commas: 0.5 is the median.")
        edges_problem = ""
        if self._numeric_histogram():
            try:  # the same check as the plan's: increasing, strictly inside the column's bounds
                Histogram(self.column.currentText(), edges=self.parsed_edges()).queries(self.document.plan.schema)
            except WorkbenchError as exc:
                edges_problem = str(exc)
        self.edges.setStyleSheet("border: 1px solid #c0392b;" if edges_problem and self.edges.text() else "")
        self.edges.setToolTip(edges_problem or EDGES_TIP)
        self.add.setEnabled(ready and not problem and not edges_problem)

    def new_statistic(self) -> Statistic:
        kind = STATISTIC_TYPES[self.type.currentText()]
        by = self.grouping_columns()
        weight = self.weighted.currentText() if self.weighted.isVisibleTo(self) else UNWEIGHTED
        weighted_by = None if weight in ("", UNWEIGHTED) else weight
        if kind is Count:
            return Count(by=by, weighted_by=weighted_by)
        if kind is Quantiles:
            return Quantiles(column=self.column.currentText(), by=by, levels=self.parsed_levels(),
                             interval=self.interval.isChecked())
        if kind is Histogram and self._numeric_histogram():
            return Histogram(column=self.column.currentText(), by=by, edges=self.parsed_edges(), weighted_by=weighted_by)
        if kind is Histogram:
            return Histogram(column=self.column.currentText(), by=by, weighted_by=weighted_by)
        if kind is Proportion:
            edges = self.parsed_edges() if self._numeric_histogram() else ()
            return Proportion(column=self.column.currentText(), by=by, percent=self.percent.isChecked(), edges=edges,
                              weighted_by=weighted_by)
        if kind in (Sum, Mean):
            return kind(column=self.column.currentText(), by=by, weighted_by=weighted_by)  # type: ignore[call-arg]
        if kind is CrossTab:
            third = () if self.third.currentText() in ("", NO_THIRD) else (self.third.currentText(),)
            return CrossTab(columns=(self.column.currentText(), self.second.currentText(), *third), by=by)
        return kind(column=self.column.currentText(), by=by)  # type: ignore[call-arg]

    def _show_interval_cost(self) -> None:
        words = self.interval_cost_words()
        self.interval_cost.setText(words)
        self.interval_cost.setVisible(bool(words))

    def interval_cost_words(self) -> str:
        """While "with 95% interval" is ticked: what the interval check costs the quantile about to be added, at the
        ε it would get beside the plan's statistics (weight 1), with its values' error in ranks with and without the
        interval and the interval's planned width, by the core's preview as step 5's cell has it (no data read)."""
        if not (self.interval.isChecked() and STATISTIC_TYPES.get(self.type.currentText()) is Quantiles):
            return ""
        plan = self.document.plan
        try:
            statistic = self.new_statistic()
            mechanism = MechanismKind(self.mechanism.currentText())
            trial = budget_plan(replace(plan, statistics=(
                *plan.statistics, PlannedStatistic(statistic, mechanism, Budget(plan.total.epsilon), weight=1.0))))
            planned = trial.statistics[-1]
            rows = group_size(planned, trial.schema, trial.schema.public_size or trial.dataset.size_estimate)
            preview = statistic.interval_preview(planned.noises(trial.schema, verified=False), trial.schema, rows,
                                                 trial.confidence)
        except (WorkbenchError, ValueError):  # no bounds yet, levels being typed: the fields say what is wrong
            return ""
        if preview is None:
            return ""
        levels = statistic.levels
        what = f"the {level_words(levels[0])}" if len(levels) == 1 else "the values"
        return interval_cost_words(preview, rows, what)

    def _add(self) -> None:
        plan = self.document.plan
        mechanism = MechanismKind(self.mechanism.currentText())
        try:
            statistic = self.new_statistic()
            statistic.queries(plan.schema)  # refuse what cannot be released (e.g. a column crossed with itself)
        except WorkbenchError as exc:
            QMessageBox.warning(self, "This statistic cannot be added", str(exc))
            return
        planned = PlannedStatistic(statistic, mechanism, Budget(plan.total.epsilon), weight=1.0)
        self.document.update(replace(plan, statistics=(*plan.statistics, planned)))
        self.list.selectRow(len(plan.statistics))

    def edit_synthetic(self, row: int | None = None) -> SyntheticDialog:
        """The synthetic-microdata dialog: a new entry, or the one at ``row`` to change. Returns the dialog (tests and
        the smoke test fill it in themselves when ``ask`` is off)."""
        plan = self.document.plan
        current = plan.statistics[row] if row is not None else None
        dialog = SyntheticDialog(plan.schema, self, current.statistic if isinstance(current, PlannedSynthetic) else None)
        dialog.accepted.connect(lambda: self._synthetic_chosen(dialog, row))
        if self.ask:
            dialog.open()
        return dialog

    def _synthetic_chosen(self, dialog: SyntheticDialog, row: int | None) -> None:
        plan = self.document.plan
        try:
            table = dialog.table()
        except WorkbenchError as exc:
            QMessageBox.warning(self, "This synthetic table cannot be added", str(exc))
            return
        if row is not None:
            statistics = list(plan.statistics)
            statistics[row] = replace(statistics[row], statistic=table)
            self.document.update(replace(plan, statistics=tuple(statistics)))
            return
        mechanism = MechanismKind.GAUSSIAN if plan.total.delta > 0 else MechanismKind.LAPLACE
        planned = PlannedSynthetic(table, mechanism, Budget(plan.total.epsilon), weight=1.0)
        self.document.update(replace(plan, statistics=(*plan.statistics, planned)))
        self.list.selectRow(len(plan.statistics))

    def _edit_row(self, row: int) -> None:
        if 0 <= row < len(self.document.plan.statistics) and isinstance(self.document.plan.statistics[row],
                                                                         PlannedSynthetic):
            self.edit_synthetic(row)

    def _remove(self) -> None:
        row = self.list.currentRow()
        plan = self.document.plan
        if 0 <= row < len(plan.statistics):
            statistics = plan.statistics[:row] + plan.statistics[row + 1 :]
            self.document.update(replace(plan, statistics=statistics))

    def _move(self, step: int) -> None:
        row = self.list.currentRow()
        plan = self.document.plan
        target = row + step
        if 0 <= row < len(plan.statistics) and 0 <= target < len(plan.statistics):
            statistics = list(plan.statistics)
            statistics[row], statistics[target] = statistics[target], statistics[row]
            self.document.update(replace(plan, statistics=tuple(statistics)))
            self.list.selectRow(target)




def _offer_mechanisms(box: QComboBox, mechanisms: tuple[MechanismKind, ...]) -> None:
    """Fill ``box`` with ``mechanisms`` (keeping the choice if it is still offered)."""
    if [box.itemText(i) for i in range(box.count())] == [m.value for m in mechanisms]:
        return
    current = box.currentText()
    box.clear()
    for i, m in enumerate(mechanisms):
        box.addItem(m.value)
        box.setItemData(i, MECHANISM_WORDS[m.value], 3)
    if current in [m.value for m in mechanisms]:
        box.setCurrentText(current)


COLUMN_PICKER_CHARACTERS = 18  # wide enough to read most column names, narrow enough never to widen the window


def _readable_width(box: QComboBox) -> None:
    """A column picker as wide as about 18 characters, whatever it holds when first shown (it was sized
    while still empty, too narrow to read the names); longer names show in full in its list."""
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(COLUMN_PICKER_CHARACTERS)


def _fit_popup(box: QComboBox) -> None:
    """The open list of a column picker wide enough for its longest name."""
    view = box.view()
    view.setMinimumWidth(max(box.width(), view.sizeHintForColumn(0) + 24) if box.count() else 0)
