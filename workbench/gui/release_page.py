"""Step 6: release. Confirm what will be spent, run the release in the background, show the
released values with their error bounds, and export the report (HTML, PDF, CSV, JSON)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.errors import Cancelled, FailedAfterNoise, WorkbenchError, unexpected_error
from workbench.core.privacy import Guarantee
from workbench.core.release import (
    CHOSEN_AFTER_LOOKING_WORDS,
    NEUTRAL_NAME,
    CategoryWarning,
    Registration,
    Release,
    Terms,
    check_categories,
    engine_hashes_rows,
    release,
)
from workbench.core.report import error_words, released_number, reliability_words, write_report
from workbench.core.report.shown import ShownCells, shown_cells
from workbench.core.report.synthetic_files import FORMAT_NAMES, skipped, write_synthetic
from workbench.core.synthetic import SyntheticTable
from workbench.gui.document import PlanDocument
from workbench.gui.fix_places import Place, place_of
from workbench.gui.ledger_setting import chosen_location, exists, in_words, open_ledger, opened_asking
from workbench.gui.synthetic_quality import SyntheticQuality
from workbench.gui.workers import Task, show_fraction

INPUT_FAMILY = {".sav": "sav", ".zsav": "sav", ".dta": "dta", ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx"}

SHOW_OTHER_HOW = "tick \"Show '(other)' groups\" in step 6 to show them"
# the words of each pass a release makes over its file, on the bar after its percentage
LOOKED_UP = "of the file read to look it up in the ledger"
OUT_OF_CORE = "of the file read out of core"
RECOGNISED = "of the file read again, for the ledger to recognise it"

HEADERS = ["Statistic", "Cell", "Released value", "± error (95%)", "Reliability", "ε", "δ", "Mechanism", "Note"]


class ReleasePage(QWidget):
    released = Signal(object)  # the Release, once charged and shown
    charged = Signal()  # a release that failed after its noise was drawn was charged all the same
    go_to = Signal(object)  # a Place (fix_places) the user clicked on, to fix what stops the release

    def __init__(self, document: PlanDocument, dataset_budget: Callable[[], Guarantee]) -> None:
        super().__init__()
        self.document = document
        self.dataset_budget = dataset_budget
        self._checked: tuple[tuple, list[CategoryWarning]] | None = None  # the last category check and its key
        self._check_failure: tuple[tuple, str] | None = None  # why the last background check could not finish
        self._checking: tuple[tuple, Task] | None = None  # a check of a whole file read again, still running
        self.name = QLineEdit()
        self.name.setAccessibleName("dataset name")
        self.name.setToolTip(
            "The name the report's title and the privacy ledger show. Every release of this data is charged under "
            "it. Choose a name you would publish: the file's name is never used."
        )
        self.name.editingFinished.connect(self._name_changed)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.linkActivated.connect(self._problem_clicked)
        self.places: list[Place] = []  # where each problem listed is fixed
        self.release_button = QPushButton("&Release…")
        self.release_button.setToolTip("Compute the noisy statistics and charge their cost to the ledger.")
        self.export_button = QPushButton("&Export report…")
        self.export_button.setToolTip(
            "Write report.html, report.pdf, results.csv and results.json into a folder: the released values, "
            "their error, the method and the guarantee in plain words. Nothing private is in them."
        )
        self.export_button.setEnabled(False)
        self.paper = QComboBox()
        self.paper.addItems(["A4", "Letter"])
        self.paper.setAccessibleName("PDF paper size")
        self.paper.setToolTip("Paper size of the PDF report.")
        self.synthetic_format = QComboBox()
        self.synthetic_format.setAccessibleName("synthetic table also written as")
        self.synthetic_format.addItem("CSV only", "")
        for key in ("sav", "dta", "parquet", "xlsx"):
            self.synthetic_format.addItem(f"CSV and {FORMAT_NAMES[key]}", key)
        self.synthetic_format.setToolTip("The synthetic table is exported as synthetic.csv beside the report, and also "
                                         "in this format (SPSS and Stata with the plan's variable labels and the public "
                                         "categories as value labels, coded 1, 2, … in their order).")
        self.synthetic_format_label = QLabel("Synthetic file:")
        self.keep_codes = QCheckBox("Keep the input's codes")
        self.keep_codes.setToolTip(
            "An SPSS or Stata synthetic file codes its public categories as the input file's value labels do, so that "
            "a codebook's numbers still apply. Those labels are then taken as public: labels made from the rows (as "
            "Stata's encode or SPSS's autorecode make them) tell which values the data hold. Unticked: 1, 2, … in "
            "the order of the public categories.")
        self.show_other = QCheckBox("Show '(other)' groups")
        self.show_other.setToolTip(
            "Groups with '(other)' in a grouping column hold only rows outside the public categories: they are "
            "released and charged like every group, but mostly empty or too noisy to read. Unticked, the table and "
            "the report leave them out and say how many; results.json always holds them.")
        self.show_other.toggled.connect(self._show_other_toggled)
        self.quality = SyntheticQuality()
        self.busy = QProgressBar()
        self._pass_words = OUT_OF_CORE  # the words of the pass the bar measures (``Task.reporter``)
        self.busy.setRange(0, 0)
        self.busy.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop reading the file: nothing is released and no budget is spent.")
        self.cancel_button.hide()
        self.results = QTableWidget(0, len(HEADERS))
        self.results.setAccessibleName("Released values and their errors")
        self.results.setHorizontalHeaderLabels(HEADERS)
        self.results.verticalHeader().hide()
        self.results.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.results.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.results.horizontalHeader().setStretchLastSection(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.release_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(QLabel("PDF paper:"))
        buttons.addWidget(self.paper)
        buttons.addWidget(self.synthetic_format_label)
        buttons.addWidget(self.synthetic_format)
        buttons.addWidget(self.keep_codes)
        buttons.addWidget(self.show_other)
        buttons.addStretch()
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h3>Release</h3>"))
        naming = QHBoxLayout()
        naming.addWidget(QLabel("Dataset name (in the report and the ledger):"))
        naming.addWidget(self.name, 1)
        layout.addLayout(naming)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        progress = QHBoxLayout()
        progress.addWidget(self.busy, 1)
        progress.addWidget(self.cancel_button)
        layout.addLayout(progress)
        layout.addWidget(self.results, 3)
        layout.addWidget(self.quality, 2)
        self.release_button.clicked.connect(self.confirm_and_release)
        self.export_button.clicked.connect(self.choose_export)
        self.cancel_button.clicked.connect(self.cancel_release)
        document.changed.connect(self.refresh)
        self.result: Release | None = None
        self.task: Task | None = None
        self.export_task: Task | None = None
        self.written: list[Path] = []
        self.ask = True  # tests and the smoke test answer the confirmation themselves
        self.refresh()

    def showEvent(self, event) -> None:  # checked when the step is opened, not on every edit elsewhere
        super().showEvent(event)
        self.refresh()

    def _name_changed(self) -> None:
        text, plan = self.name.text().strip(), self.document.plan
        if text and text != plan.dataset.name:
            self.document.update(replace(plan, dataset=replace(plan.dataset, name=text)))
        elif not text:
            self.name.setText(plan.dataset.name)

    def refresh(self) -> None:
        if self.task is not None or not self.isVisible():
            return
        if not self.name.hasFocus():
            self.name.setText(self.document.plan.dataset.name)
        synthetic = self.has_synthetic()
        self.synthetic_format.setVisible(synthetic)
        self.synthetic_format_label.setVisible(synthetic)
        table = self.document.table
        self.keep_codes.setVisible(synthetic and table is not None and bool(table.label_maps))
        family = INPUT_FAMILY.get(table.source.suffix.lower(), "") if table is not None else ""
        if synthetic and not self.synthetic_format.property("chosen"):
            self.synthetic_format.setCurrentIndex(max(0, self.synthetic_format.findData(family)))
        problems = self.document.problems()
        self.release_button.setEnabled(not problems)
        self.places = [place_of(problem, self.document.plan) for problem in problems]
        if problems:
            self.status.setText("Before releasing, fix these (click one to go there):<ul>" + "".join(
                f'<li><a href="fix:{i}">{_html(place.words)}</a>: {_html(problem)}</li>'
                for i, (place, problem) in enumerate(zip(self.places, problems))) + "</ul>")
        else:
            warnings = self.category_warnings()
            if self.checking:
                self.status.setText(f"Checking the public categories against all of {self.document.table.source.name}… "
                                    "(the first rows shown in step 1 are not all of it; nothing is released)")
                return
            unnamed = (f"<p>The dataset is called '{NEUTRAL_NAME}'. Name it above as the report and the ledger should "
                       "show it.</p>" if self.document.plan.dataset.name == NEUTRAL_NAME else "")
            failure = self.check_failure()
            unnamed += (f"<p>⚠ <b>The public categories could not be checked against all of "
                        f"{_html(self.document.table.source.name)}</b>: {_html(failure)}. Releasing reads the file "
                        "again and names the problem before anything is spent.</p>" if failure else "")
            caution = unnamed + ("<b>Check before releasing</b> (this compares the plan with the open file; nothing of it is "
                       "released):<ul>" + "".join(f"<li>⚠ {_html(w.message)}</li>" for w in warnings) + "</ul>"
                       if warnings else "")
            self.status.setText(
                caution + "Ready. Releasing computes every statistic with noise on the real data and records its cost "
                f"in the privacy ledger ({in_words(chosen_location())}) before showing anything."
            )

    def has_synthetic(self) -> bool:
        return any(isinstance(p.statistic, SyntheticTable) for p in self.document.plan.statistics)

    def category_warnings(self) -> list[CategoryWarning]:
        """The curator's check of the public categories against the whole open file (before any ε is spent);
        computed again only when the file or the plan changes. A file of which only the first rows were loaded
        is read again in the background; until that is done, the check has no warnings and ``checking`` is set."""
        table, plan = self.document.table, self.document.plan
        if table is None:
            return []
        key = (id(table), plan.schema, tuple(p.statistic for p in plan.statistics))
        if self._checked is not None and self._checked[0] == key:
            return self._checked[1]
        if table.sample_rows is None:
            self._checked = (key, check_categories(table, plan))
            return self._checked[1]
        if self._checking is None or self._checking[0] != key:
            self._start_checking(key, table, plan)
        return []

    def check_failure(self) -> str:
        """Why the background check of the current file and plan could not finish ("" when it did or has not run)."""
        if self._check_failure is None or self._checked is None or self._check_failure[0] != self._checked[0]:
            return ""
        return self._check_failure[1]

    @property
    def checking(self) -> bool:
        return self._checking is not None

    def _start_checking(self, key: tuple, table, plan) -> None:
        if self._checking is not None:
            self._checking[1].cancel()
        task = Task(lambda: check_categories(table, plan, progress=task.report))
        self._checking = (key, task)

        def done(warnings: list[CategoryWarning]) -> None:
            if self._checking is not None and self._checking[1] is task:
                self._checking, self._checked = None, (key, warnings)
                self.refresh()

        def failed(exc: BaseException) -> None:  # said beside "Ready": the release reads the file again and names it
            if self._checking is not None and self._checking[1] is task:
                self._checking, self._checked = None, (key, [])
                self._check_failure = (key, str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc))
                self.refresh()

        task.finished.connect(done)
        task.failed.connect(failed)
        task.start()

    def confirmation_text(self) -> str:
        plan = self.document.budgeted()
        cost = plan.guarantee()
        name = plan.dataset.name
        location = chosen_location()
        ledger = opened_asking(self, location) if exists(location) else None  # a team ledger that is away: refused
        if ledger is not None:
            ledger.check_key()  # raises for a ledger copied here without its key, before anything is asked
        if ledger is not None and ledger.has_dataset(name):
            record = ledger.dataset(name)
            ledger.check_terms(name, Terms.of(plan.schema))  # raises: another unit, k, relation or public size
            ledger.check_affordable(name, plan.events())  # raises, naming the overspend
            context = (
                f"'{name}' has spent ε = {record.spent.epsilon:.4g} of its total ε = {record.budget.epsilon:g} "
                f"(δ = {record.budget.delta:g}) in {record.releases} release(s); this release fits in what is left "
                f"({record.remaining_in_words})."
            )
        else:
            if ledger is not None:
                ledger.check_may_register(name)  # a team ledger's analyst: its administrator registers datasets
            total = self.dataset_budget()
            Registration(total, Terms.of(plan.schema), plan.dataset.size_estimate).check_affordable(
                name, plan.events())  # raises, naming the overspend and where to set a larger total
            context = (
                f"'{name}' is new to the ledger: it will be recorded with the total budget ε = {total.epsilon:g}, "
                f"δ = {total.delta:g}, which all its releases share."
            )
        warnings = "".join(f"⚠ {w.message}\n\n" for w in self.category_warnings())
        return (
            f"{warnings}This release spends ε = {cost.epsilon:.4g}, δ = {cost.delta:.3g} ({cost.method}) on '{name}'.\n\n"
            f"{context}\n\n{CHOSEN_AFTER_LOOKING_WORDS}\n\nSpent budget cannot be given back. Release now?"
        )

    def confirm_and_release(self) -> None:
        if self.document.problems():
            self.refresh()
            return
        self.category_warnings()
        if self.checking:  # the status says so; the button works again once the check has finished
            self.refresh()
            return
        try:
            text = self.confirmation_text()
        except WorkbenchError as exc:
            self._refuse("This release cannot be made", exc)
            return
        if self.ask:
            answer = QMessageBox.question(self, "Spend this budget?", text)
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.start_release()

    def start_release(self) -> None:
        """Release in the background. A text file is read as the plan declares: a table shown read in another
        encoding is refused (``PlanDocument.encoding_problem``), before anything is charged."""
        table, plan = self.document.table, self.document.budgeted()
        assert table is not None
        if self.document.encoding_problem() is not None:
            self.refresh()  # the problem is listed, with File > Text encoding… to fix it
            return
        location, budget = chosen_location(), self.dataset_budget()

        def run() -> Release:
            again = task.reporter(RECOGNISED)  # the file's bytes hashed for the ledger at the charge
            ledger = open_ledger(location)
            known = ledger.has_dataset(plan.dataset.name)
            # once the data are read, nothing stops the release: its noise is drawn, then charged (DESIGN rule 5; a
            # synthetic table's fit takes a while, and its length may depend on the noisy marginals)
            words = task.say if synthetic else None
            if table.sample_rows is None:
                task.commit()
                return release(table, plan, ledger, dataset_budget=None if known else budget, progress=words,
                               file_progress=again)
            # the plan's encoding, as the command line reads it (the table shown was read in the same one)
            source = file_source(table.source, delimiter=table.delimiter, encoding=plan.dataset.encoding)
            # a file this ledger recorded for an earlier release, unchanged: its rows are not hashed again (its
            # bytes are, with the bar showing them read, and Cancel stopping it)
            hashes = engine_hashes_rows(ledger, source, task.reporter(LOOKED_UP))
            with OutOfCoreData(source, plan.used_schema(), progress=task.reporter(OUT_OF_CORE),
                               hashes_content=hashes) as data:
                task.commit()  # the file is read; from here the release is charged and shown, not stopped
                return release(source, plan, ledger, dataset_budget=None if known else budget, data=data,
                               progress=words, file_progress=again)

        synthetic = self.has_synthetic()

        self.task = task = Task(run)
        task.finished.connect(self._released)
        task.failed.connect(self._failed)
        task.stopped.connect(self._stopped)
        task.progress.connect(self._progress)
        task.said.connect(self._said)
        task.passing.connect(self._passing)
        self.release_button.setEnabled(False)
        self.busy.setRange(0, 0)
        self.busy.show()
        self.cancel_button.setVisible(table.sample_rows is not None)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setToolTip("Stop reading the file: nothing is released and no budget is spent.")
        self.status.setText("Releasing… (the window stays usable)" if table.sample_rows is None else
                            f"Reading {table.source.name} out of core, then releasing… (the window stays usable)")
        task.start()

    def _passing(self, words: str) -> None:
        self._pass_words = words

    def _progress(self, fraction: float) -> None:
        """A pass over the file (looked up in the ledger, read out of core, read again to recognise it) measured,
        with its words (``Task.reporter``); between passes, and while the statistics are computed after the last,
        the bar is busy again."""
        if fraction >= 1.0:
            self.busy.setRange(0, 0)
            return
        show_fraction(self.busy, fraction, self._pass_words)

    def _said(self, words: str) -> None:
        if self.task is not None:
            self.status.setText(f"Releasing: synthetic table: {words}… (the window stays usable; the release runs "
                                "to its end and is then charged)")

    def releasing(self) -> bool:
        """Whether a release has begun (its noise is drawn or being drawn): it runs to its charge."""
        return self.task is not None and self.task.committed

    def cancel_release(self) -> None:
        """Stop reading a file out of core, before anything is computed; refused once the release has begun (its
        noise is then drawn, and it runs to its charge and is shown, DESIGN rule 5). A cancelled reading stops at
        its next block (``_stopped``)."""
        if self.task is None:
            return
        if not self.task.cancel():
            self.status.setText("The release has begun: it can no longer be stopped, and is charged when it ends.")
            return
        self.cancel_button.setEnabled(False)
        self.status.setText("Cancelling: the reading stops at its next block… Nothing is charged.")

    def _stopped(self, _reason: object) -> None:
        self.task = None
        self.busy.hide()
        self.cancel_button.hide()
        self.refresh()
        self.release_button.setEnabled(not self.document.problems())
        self.status.setText("Release cancelled before it was charged: nothing was released and no budget was spent.")

    def _released(self, result: Release) -> None:
        self.task = None
        self.busy.hide()
        self.cancel_button.hide()
        self.result = result
        self.show_result(result)
        self.export_button.setEnabled(True)
        self.released.emit(result)  # the budget panel reads the ledger again
        self.document.changed.emit()
        self.status.setText(
            f"Released and recorded in the ledger as entry {result.ledger['entry']}. "
            "Only the values below may be published; export the report to publish them with their error and guarantee."
        )

    def _failed(self, exc: BaseException) -> None:
        self.task = None
        self.busy.hide()
        self.cancel_button.hide()
        self.refresh()
        if isinstance(exc, FailedAfterNoise):  # charged: say so, never "cancelled"
            self.charged.emit()  # the budget panel reads the ledger again
            self.status.setText("The release failed after its noise was drawn, so its budget was charged all the "
                                "same; nothing was released. The message says which ledger entry records it.")
        if isinstance(exc, WorkbenchError) and not isinstance(exc, Cancelled):
            self._refuse("The release failed", exc)
        else:
            message = str(exc) if isinstance(exc, Cancelled) else f"{unexpected_error(exc)}. Nothing was shown."
            QMessageBox.warning(self, "The release failed", message)

    def _refuse(self, title: str, error: WorkbenchError) -> None:
        """A refusal names the step and field to fix (the error's own place); once the message is closed, the app
        shows that field."""
        place, message = place_of(error, self.document.plan), str(error)
        QMessageBox.warning(self, title, f"{message}\n\nWhere to fix it: {place.words}. Closing this message "
                                         "takes you there.")
        self.go_to.emit(place)

    def _show_other_toggled(self) -> None:
        if self.result is not None:
            self.show_result(self.result)

    def show_result(self, result: Release) -> None:
        """Every released cell, but a statistic by group's '(other)' groups (unless the box is ticked): one row says
        how many are not shown (``shown.shown_cells``, as the command line and the report)."""
        self.quality.show_statistic(next((s for s in result.statistics if s.synthetic), None))
        rows: list[tuple] = []
        for statistic in result.statistics:
            shown = shown_cells(statistic, self.show_other.isChecked(), SHOW_OTHER_HOW)
            rows += [(statistic, c) for c in shown.cells] + ([(statistic, shown)] if shown.folded_groups else [])
        self.results.setRowCount(len(rows))
        for row, (statistic, cell) in enumerate(rows):
            if isinstance(cell, ShownCells):
                texts = [statistic.label, cell.short, "not shown", "", "", "", "", "", cell.words]
                for column, text in enumerate(texts):
                    self.results.setItem(row, column, QTableWidgetItem(text))
                continue
            texts = [
                statistic.label, cell.label,
                "" if cell.value is None else
                released_number(cell.value, None if cell.error_unit else cell.error) if cell.reliable else "not reliable",
                "" if cell.error is None else error_words(cell.error, cell.error_unit, cell.lower, cell.upper),
                reliability_words(cell.flag, cell.cv),
                f"{statistic.epsilon:.3g}", f"{statistic.delta:.2g}", statistic.mechanism, cell.note,
            ]
            for column, text in enumerate(texts):
                self.results.setItem(row, column, QTableWidgetItem(text))

    def choose_export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export the report to a folder")
        if folder:
            self.start_export(Path(folder))

    def start_export(self, folder: Path) -> None:
        """Build and write the report in the background (pictures and PDF take a few seconds)."""
        assert self.result is not None
        result, paper = self.result, self.paper.currentText().lower()
        formats, labels = self.chosen_formats(), self.label_maps()
        show_other = self.show_other.isChecked()
        self.export_task = Task(lambda: write_report(result, folder, paper=paper, show_other=show_other,
                                                     how=SHOW_OTHER_HOW)
                                + write_synthetic(result, folder, formats, labels))
        self.export_task.finished.connect(self._exported)
        self.export_task.failed.connect(self._export_failed)
        self.export_button.setEnabled(False)
        self.busy.show()
        self.status.setText(f"Writing the report into {folder}…")
        self.export_task.start()

    def chosen_formats(self) -> list[str]:
        """The synthetic table's formats besides CSV."""
        self.synthetic_format.setProperty("chosen", True)
        return [self.synthetic_format.currentData()] if self.synthetic_format.currentData() else []

    def label_maps(self) -> dict:
        """The input's value labels, whose codes a synthetic table written as SPSS or Stata keeps: only when the
        user ticks "Keep the input's codes", taking them as public (``synthetic_files._coded``)."""
        table = self.document.table
        return dict(table.label_maps) if table is not None and self.keep_codes.isChecked() else {}

    def _exported(self, written: list[Path]) -> None:
        self.export_task = None
        self.busy.hide()
        self.export_button.setEnabled(True)
        self.written = written
        left_out = skipped(self.result, self.chosen_formats()) if self.result is not None else []
        self.status.setText("Wrote " + ", ".join(str(p) for p in written) + "."
                            + "".join(f" Not written: {words}." for words in left_out))

    def _export_failed(self, exc: BaseException) -> None:
        self.export_task = None
        self.busy.hide()
        self.export_button.setEnabled(True)
        message = str(exc) if isinstance(exc, WorkbenchError) else f"{unexpected_error(exc)}."
        QMessageBox.warning(self, "The report could not be written", f"{message} Choose another folder.")

    def export_to(self, folder: Path) -> list[Path] | None:
        """Write the report at once (the smoke test and scripts); the button uses ``start_export``."""
        assert self.result is not None
        try:
            written = (write_report(self.result, folder, paper=self.paper.currentText().lower(),
                                    show_other=self.show_other.isChecked(), how=SHOW_OTHER_HOW)
                       + write_synthetic(self.result, folder, self.chosen_formats(), self.label_maps()))
        except (OSError, WorkbenchError) as exc:
            QMessageBox.warning(self, "The report could not be written", f"{exc} Choose another folder.")
            return None
        self._exported(written)
        return written

    def _problem_clicked(self, link: str) -> None:
        if link.startswith("fix:"):
            self.go_to.emit(self.places[int(link[4:])])


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
