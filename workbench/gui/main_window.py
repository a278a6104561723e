"""The main window: the six steps of a release as tabs, with File menu, recent files and drag & drop.

Load, describe, choose, preview, release: each step is a page that observes the open
``PlanDocument``; no page computes DP itself.

The window is shown before its steps are built: they import pandas, OpenDP and pyqtgraph (about a
second), which would keep the window off the screen. It opens with its menus and the six tabs, and
builds the steps just after its first paint, or at once when anything asks for a step or the document.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QLabel, QMainWindow, QMessageBox, QTabWidget

from workbench import __version__
from workbench.core.errors import WorkbenchError
from workbench.gui.help import SECTIONS, STEP_SECTIONS, HelpWindow
from workbench.gui.welcome import SAMPLE_DATA, SAMPLE_PLAN, WelcomePanel
from workbench.gui.workers import Task

if TYPE_CHECKING:
    from workbench.core.data import Table
    from workbench.core.privacy import Guarantee
    from workbench.gui.data_page import LoadedTable

RECENT_KEY, RECENT_MAX = "recent_files", 8
PLAN_SUFFIX = ".json"
GUESS_CHOICE = "Guess from its content (as when it was opened)"  # File > Text encoding…'s way back to a guess
STEPS = (
    ("&1 Data", "The table you opened"),
    ("&2 Who is protected", "One row, or a person with several rows; which neighbours"),
    ("&3 Columns", "Kinds, public bounds and categories"),
    ("&4 Statistics", "What to release"),
    ("&5 Budget && preview", "ε, δ, expected errors and the ledger"),
    ("&6 Release", "Release and export"),
)


class _Built:
    """A part of the window that exists once the steps are built: asking for it builds them first."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attribute = "_" + name

    def __get__(self, window: "MainWindow | None", owner: type | None = None):
        if window is None:
            return self
        window.build_steps()
        return getattr(window, self.attribute)


class AfterFirstPaint(QObject):
    """Calls ``then`` once, in the event loop's next turn after ``widget`` is first painted."""

    def __init__(self, widget: QMainWindow, then) -> None:
        super().__init__(widget)
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._then)
        return False


class MainWindow(QMainWindow):
    document = _Built()
    tabs = _Built()
    data_page = _Built()
    unit_page = _Built()
    columns_page = _Built()
    statistics_page = _Built()
    preview_page = _Built()
    release_page = _Built()
    undo_action = _Built()
    redo_action = _Built()

    def __init__(self) -> None:
        super().__init__()
        self.loading: Task | None = None
        self.settings = QSettings("DP Workbench", "DP Workbench")  # recent files; opened once (slow to open)
        self.shown: LoadedTable | None = None  # the table on show, with its proposals
        self.unreadable: Path | None = None  # a text file that failed to open for its encoding: File > Text encoding…
        self.built = False
        self._closing = QTimer(self, interval=250)  # asked to close while a release runs: closes once it is charged
        self._closing.timeout.connect(self._close_if_charged)
        self.resize(1280, 820)
        self.setAcceptDrops(True)
        self.welcome = WelcomePanel(self.open_sample, self.choose_file, self.choose_plan, self.open_any)
        self._tabs = QTabWidget()
        for title, tip in STEPS:  # each step's page comes in ``build_steps``; until then, the welcome screen
            waiting = self.welcome if not self._tabs.count() else QLabel("")
            self._tabs.setTabToolTip(self._tabs.addTab(waiting, title), tip)
        self.setCentralWidget(self._tabs)

        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(QAction("&Open data…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.choose_file))
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        file_menu.addAction(QAction("Open &plan…", self, shortcut=QKeySequence("Ctrl+Shift+O"), triggered=self.choose_plan))
        file_menu.addAction(QAction("Text &encoding…", self, triggered=self.choose_encoding))
        file_menu.addAction(QAction("&Save plan", self, shortcut=QKeySequence.StandardKey.Save, triggered=self.save_plan))
        file_menu.addAction(QAction("Save plan &as…", self, shortcut=QKeySequence.StandardKey.SaveAs, triggered=self.save_plan_as))
        file_menu.addSeparator()
        file_menu.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        self._edit_menu = self.menuBar().addMenu("&Edit")  # undo and redo every edit of steps 2 to 5
        for words in ("&Undo", "&Redo"):  # until the document exists; then its history's own actions
            self._edit_menu.addAction(QAction(words, self, enabled=False))
        tools_menu = self.menuBar().addMenu("&Tools")
        tools_menu.addAction(QAction("&Randomised response designer…", self, triggered=self.open_randomized_response))
        tools_menu.addAction(QAction("Privacy &ledger…", self, triggered=self.open_ledger_settings))
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(QAction("Help on this &step", self, shortcut=QKeySequence.StandardKey.HelpContents,
                                    triggered=self.help_on_step))
        help_menu.addSeparator()
        for words, section in SECTIONS:
            help_menu.addAction(QAction(words, self, triggered=lambda _=False, s=section: self.show_help(s)))
        help_menu.addAction(QAction("&Tour of the six steps", self, triggered=self.welcome.show_tour))
        what = QLabel('<a href="help">What is this step? (F1)</a>')
        what.setAccessibleName("What is this step? Opens the user guide at this step")
        what.linkActivated.connect(lambda _: self.help_on_step())
        self._tabs.setCornerWidget(what)
        for index in range(len(STEPS)):  # Ctrl+1 … Ctrl+6 go to a step (Alt and the underlined number too)
            QShortcut(QKeySequence(f"Ctrl+{index + 1}"), self, activated=lambda i=index: self._tabs.setCurrentIndex(i))
        self._fill_recent()
        self.statusBar().showMessage("Ready. Nothing you open leaves this computer.")
        self.setWindowTitle(f"DP Workbench {__version__}")
        AfterFirstPaint(self, self.build_steps)

    def build_steps(self) -> None:
        """Build the document and the six steps (once): the imports of the core, pandas and pyqtgraph happen here."""
        if self.built:
            return
        self.built = True
        from workbench.gui.columns_page import ColumnsPage
        from workbench.gui.data_page import DataPage
        from workbench.gui.document import PlanDocument
        from workbench.gui.preview_page import PreviewPage
        from workbench.gui.release_page import ReleasePage
        from workbench.gui.statistics_page import StatisticsPage
        from workbench.gui.unit_page import UnitPage

        current = self._tabs.currentIndex()
        waiting = [self._tabs.widget(index) for index in range(self._tabs.count())]
        self._tabs.clear()  # the placeholders leave the tabs (the welcome screen moves into step 1's page)
        self._document = document = PlanDocument()
        self._data_page = DataPage(self.welcome)
        self._unit_page = UnitPage(document)
        self._columns_page = ColumnsPage(document)
        self._statistics_page = StatisticsPage(document)
        self._preview_page = PreviewPage(document)
        # a new dataset's total, its δ proposed for the plan as it is now (the preview may not have shown it yet)
        self._release_page = ReleasePage(document, self._dataset_budget)
        pages = (self._data_page, self._unit_page, self._columns_page, self._statistics_page, self._preview_page,
                 self._release_page)
        for page, (title, tip) in zip(pages, STEPS):
            self._tabs.setTabToolTip(self._tabs.addTab(page, title), tip)
        for placeholder in waiting:
            if placeholder is not self.welcome:
                placeholder.deleteLater()
        self._tabs.setCurrentIndex(current)
        self._data_page.cancel.clicked.connect(self.cancel_loading)
        self._release_page.released.connect(lambda _: self._preview_page.budget.invalidate())
        self._release_page.charged.connect(self._preview_page.budget.invalidate)
        self._release_page.go_to.connect(self.go_to)
        self._columns_page.dataset_budget = self._dataset_budget
        self._columns_page.bounds_released.connect(lambda _: self._preview_page.budget.invalidate())
        self._columns_page.categories_released.connect(lambda _: self._preview_page.budget.invalidate())
        document.changed.connect(self._update_title)
        self._undo_action = document.history.createUndoAction(self, "&Undo")  # "Undo the budget"
        self._undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self._redo_action = document.history.createRedoAction(self, "&Redo")
        self._redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence.StandardKey.Redo])
        self._edit_menu.clear()
        self._edit_menu.addActions([self._undo_action, self._redo_action])
        self._update_title()

    # -- data ----------------------------------------------------------------------------------
    def choose_file(self) -> None:
        from workbench.core.data import SUPPORTED

        patterns = " ".join(f"*{suffix}" for suffix in SUPPORTED.split(", "))
        path, _ = QFileDialog.getOpenFileName(self, "Open a table", "", f"Tables ({patterns});;All files (*)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path, sheet: str | None = None, encoding: str | None = None) -> None:
        """Load ``path`` off the GUI thread; on a user error show its message and keep the current table. A text
        file is read in ``encoding`` (the curator's choice, declared once the file reads in it; ``GUESS``: guessed
        again), else in the one declared for it, else in the one guessed from its content, to show it."""
        from workbench.core.data import load_sample, load_table
        from workbench.core.data.engines import out_of_core_is_needed
        from workbench.gui.data_page import LoadedTable

        if self.loading is not None:
            self.loading.cancel()
        self.data_page.show_loading(path.name)
        self.statusBar().showMessage(f"Loading {path}…")
        from workbench.core.data.io import GUESS

        chosen = encoding
        read_in = chosen or self.document.encoding_for(path) or GUESS  # declared, else guessed for the curator to see
        if out_of_core_is_needed(path):  # too large for memory: its first rows, and the release reads the file
            task = Task(lambda: LoadedTable.of(load_sample(path, encoding=read_in)))
        else:
            task = Task(lambda: LoadedTable.of(load_table(path, sheet=sheet, encoding=read_in, progress=task.report)))
        task.progress.connect(self.data_page.show_progress)
        task.finished.connect(lambda table: self._loaded(task, table, chosen))
        task.failed.connect(lambda exc: self._load_failed(task, path, exc))
        self.loading = task
        task.start()

    ENCODINGS = ("utf-8", "cp1252", "latin-1", "iso-8859-15", "cp1250", "iso-8859-2", "cp1251", "mac-roman", "utf-16",
                 "shift_jis", "gb18030")

    def choose_encoding(self) -> None:
        """Declare the text file's encoding (when step 1's guess reads accented letters wrongly, or the file could
        not be opened in it): the file is read again in it, and once it reads, the plan records it and the release
        reads it so. The file is the one that just failed to open for its encoding, else the one on show."""
        from workbench.core.data.io import GUESS

        shown = self.shown.table if self.shown is not None else None
        path = self.unreadable or (shown.source if shown is not None and shown.file_format == "text" else None)
        if path is None:
            QMessageBox.information(self, "Text encoding", "Open a CSV or TSV file first: only a text file has an "
                                    "encoding to declare.")
            return
        now = shown.encoding if shown is not None and shown.source == path else None
        current = now or self.document.encoding_for(path)  # what step 1 shows, else the encoding declared
        choices = list(dict.fromkeys((*([current] if current else []), *self.ENCODINGS, GUESS_CHOICE)))
        how = f"(Now read as {now}.)" if now else "(It could not be read in the encoding tried.)"
        chosen, ok = QInputDialog.getItem(
            self, "Text encoding", f"Which encoding is {path.name} written in? {how} It is read again in the one you "
            "choose; the plan then records it, and the release reads the file in it.", choices, 0, True)
        chosen = chosen.strip()
        if not ok or not chosen:
            return
        if chosen == GUESS_CHOICE:
            self.open_path(path, encoding=GUESS)
            return
        try:
            "a".encode(chosen)  # a text encoding: codecs also knows base64, zlib, …, which a plan cannot declare
        except LookupError:
            QMessageBox.warning(self, "Text encoding", f"'{chosen}' is not a text encoding this program knows. Choose "
                                "one from the list (cp1252 is Windows' Western European one).")
            return
        self.open_path(path, encoding=chosen)

    def cancel_loading(self) -> None:
        if self.loading is not None:
            self.loading.cancel()
            self.loading = None
        self.data_page.hide_loading()
        self.statusBar().showMessage("Loading cancelled; nothing changed.")
        if self.shown is not None:
            self.data_page.show_table(self.shown)
        else:
            self.data_page.show_welcome()

    def _loaded(self, task: Task, loaded: LoadedTable, chosen: str | None = None) -> None:
        """Show a table read; one read in an encoding the curator chose declares it (GUESS: none, guessed again)."""
        if task is not self.loading:
            return
        from workbench.core.data.io import GUESS

        self.loading = None
        self.unreadable = None
        if chosen is not None and loaded.table.file_format == "text":
            self.document.declare_encoding(None if chosen == GUESS else chosen, loaded.table.source)
        self.show_table(loaded)

    def _load_failed(self, task: Task, path: Path, exc: BaseException) -> None:
        if task is not self.loading:
            return
        self.loading = None
        self.data_page.hide_loading()
        if self.shown is not None:
            self.data_page.show_table(self.shown)
        else:
            self.data_page.show_welcome()
        from workbench.core.data import SheetNeeded

        if isinstance(exc, SheetNeeded):
            sheet, chosen = QInputDialog.getItem(
                self, "Which sheet?", f"{path.name} has several sheets. Which one holds the table?",
                list(exc.sheets), 0, False,
            )
            if chosen:
                self.open_path(path, sheet)
            else:
                self.statusBar().showMessage(f"{path.name} was not opened: no sheet chosen.")
            return
        message = str(exc) if isinstance(exc, WorkbenchError) else f"{path.name} could not be read: {exc}"
        from workbench.core.data.io import TEXT_SUFFIXES

        self.unreadable = None
        if isinstance(exc, WorkbenchError) and path.suffix.lower() in TEXT_SUFFIXES and "encoding" in message:
            self.unreadable = path  # File > Text encoding… reads this file again, in the encoding chosen
            message += ("\n\nIn this app, choose its encoding with File > Text encoding…: the file is read again in "
                        "it, and once it reads, the plan declares it.")
        self.statusBar().showMessage(f"{path.name} was not opened.")
        QMessageBox.warning(self, "The file cannot be opened", message)

    def show_table(self, loaded: LoadedTable | Table) -> None:
        from workbench.core.data import Table
        from workbench.gui.data_page import LoadedTable

        if isinstance(loaded, Table):
            loaded = LoadedTable.of(loaded)
        table = loaded.table
        self.shown = loaded
        self.data_page.hide_loading()
        self.document.set_table(table, loaded.proposals)
        self.data_page.show_table(loaded)
        self._remember(table.source)
        self.statusBar().showMessage(f"Loaded {table.source}")

    def _dataset_budget(self) -> "Guarantee":
        """The total budget step 5 gives a dataset new to the ledger, its δ proposed for the plan as it is now."""
        return self._preview_page.budget.dataset_budget(self._document.plan)

    def go_to(self, place) -> None:
        """Show the step and the field where a problem is fixed (a fix_places.Place), with the keyboard focus on it."""
        self.tabs.setCurrentIndex(place.step)
        if place.control == "file":
            self.choose_file()
        elif place.control == "encoding":
            self.choose_encoding()
        elif place.step == 1:
            self.unit_page.focus_first()
        elif place.step == 2 and place.column is not None:
            self.columns_page.focus_column(place.column, place.control)
        elif place.step == 3 and place.statistic is not None:
            self.statistics_page.list.selectRow(place.statistic)
            self.statistics_page.list.setFocus()
        elif place.step == 3:
            self.statistics_page.add.setFocus()
        elif place.step == 4:
            self.preview_page.focus_field(place.control, place.statistic)
        elif place.control == "dataset name":
            self.release_page.name.setFocus()
            self.release_page.name.selectAll()
        self.statusBar().showMessage(f"Fix it here: {place.words}.")

    def show_help(self, section: str) -> None:
        if getattr(self, "help_window", None) is None:
            self.help_window = HelpWindow(self)
        self.help_window.show_section(section)

    def help_on_step(self) -> None:
        """F1: the guide at the section of the step on show."""
        self.show_help(STEP_SECTIONS[max(self._tabs.currentIndex(), 0)])

    def open_randomized_response(self) -> None:
        from workbench.gui.randomized_response_dialog import RandomizedResponseDialog

        self.randomized_response = RandomizedResponseDialog(self)
        self.randomized_response.show()

    def open_ledger_settings(self) -> None:
        """Tools ▸ Privacy ledger…: this computer's file or the team's server; the budget is read again after."""
        from workbench.gui.ledger_setting import LedgerSettingsDialog

        self.ledger_settings = dialog = LedgerSettingsDialog(self)
        if dialog.exec() == LedgerSettingsDialog.DialogCode.Accepted and self.built:
            budget = self._preview_page.budget
            budget.invalidate()
            if budget._last is not None:
                budget.show_plan(*budget._last)
            self._release_page.refresh()

    # -- recent files and drag & drop --------------------------------------------------------------
    def _recent(self) -> list[str]:
        """The recent files and plans, newest first (QSettings gives a lone entry as a string, not a list)."""
        recent = self.settings.value(RECENT_KEY) or []
        return [recent] if isinstance(recent, str) else [str(path) for path in recent]

    def _remember(self, path: Path) -> None:
        recent = [p for p in self._recent() if p != str(path.resolve())]
        self.settings.setValue(RECENT_KEY, [str(path.resolve()), *recent][:RECENT_MAX])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self._recent()
        for path in recent:
            self.recent_menu.addAction(QAction(path, self, triggered=lambda _=False, p=path: self.open_any(Path(p))))
        self.recent_menu.setEnabled(bool(recent))
        self.welcome.show_recent(recent)

    def open_any(self, path: Path) -> None:
        if path.suffix.lower() == PLAN_SUFFIX:
            self.open_plan(path)
        else:
            self.open_path(path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open_any(Path(urls[0].toLocalFile()))
            event.acceptProposedAction()

    # -- plans -------------------------------------------------------------------------------------
    def open_sample(self) -> None:
        """The sample survey and its plan: the first thing to try (from the welcome screen)."""
        if self._may_discard() and self.open_plan(SAMPLE_PLAN):
            self.open_path(SAMPLE_DATA)

    def choose_plan(self) -> None:
        if not self._may_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open a plan", "", "Plans (*.json);;All files (*)")
        if path:
            self.open_plan(Path(path))

    def open_plan(self, path: Path) -> bool:
        try:
            self.document.open_plan(path)
        except (WorkbenchError, OSError) as exc:
            QMessageBox.warning(self, "The plan cannot be opened", f"{exc}\n\nYour current plan is unchanged.")
            return False
        from workbench.gui.document import reads_differently

        message = f"Opened the plan {path}"
        shown = self.shown.table if self.shown is not None else None
        if shown is not None and shown.file_format == "text" and self.document.declared_encoding:
            self.document.declared_for = shown.source  # the plan is taken to be this file's; another is guessed
        if shown is not None and reads_differently(shown, self.document.declared_encoding):
            # the plan declares another encoding than the file was read in: read it again as the release will
            self.open_path(shown.source)
            message += f"; reading {shown.source.name} again in {self.document.declared_encoding}, as it declares"
        elif self.shown is not None:
            declared = self.document.plan.dataset.encoding
            self.document.set_table(self.shown.table, self.shown.proposals)  # describe columns the plan does not mention
            gained = self.document.plan.dataset.encoding
            # describing columns is no change to save; an encoding the plan did not declare is (the release reads it)
            self.document.dirty = gained != declared
            if gained != declared:
                message += (f"; it now declares the encoding {gained}, which {shown.source.name} is shown read in: "
                            "save the plan to keep it")
            self._update_title()
        self.statusBar().showMessage(message)
        self._remember(path)
        problems = self.document.plan_problems()
        if problems:
            from workbench.gui.fix_places import place_of

            places = [place_of(problem, self.document.plan) for problem in problems]
            QMessageBox.warning(
                self, "The plan needs attention",
                f"{path.name} is open, but it cannot be released as it is:\n\n"
                + "\n\n".join(f"{place.words}: {problem}" for place, problem in zip(places, problems))
                + "\n\nClosing this message takes you to the first of them; step 6 lists them all, and a click on one "
                "goes to its field.",
            )
            self.go_to(places[0])
        return True

    def save_plan(self) -> bool:
        if self.document.path is None:
            return self.save_plan_as()
        return self._save_to(self.document.path)

    def save_plan_as(self) -> bool:
        suggested = f"{self.document.plan.dataset.name}.plan.json"
        path, _ = QFileDialog.getSaveFileName(self, "Save the plan", suggested, "Plans (*.json)")
        return bool(path) and self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        try:
            self.document.save_plan(path)
        except (WorkbenchError, OSError) as exc:
            QMessageBox.warning(self, "The plan could not be saved", f"{exc}\n\nChoose another place.")
            return False
        self.statusBar().showMessage(f"Saved the plan to {path}")
        self._remember(path)
        return True

    def _may_discard(self) -> bool:
        """Ask before unsaved changes to the plan would be lost; True if it is fine to go on."""
        if not self.built or not self.document.dirty:
            return True
        answer = QMessageBox.question(
            self,
            "Save the plan?",
            "The plan has changes that are not saved. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save_plan()
        return answer == QMessageBox.StandardButton.Discard

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.charging():
            event.ignore()
            self._close_once_charged()
        elif self._may_discard():
            event.accept()
        else:
            event.ignore()

    def charging(self) -> bool:
        """Whether a release (or a bounds estimate, a release too) has begun: its noise is drawn, so it runs to its
        charge (DESIGN rule 5). The app ended then would drop it uncharged, a free stop after a wait whose length
        may depend on the noisy values (a synthetic table's fit)."""
        return self.built and (self.release_page.releasing() or self.columns_page.task is not None)

    def _close_once_charged(self) -> None:
        if self._closing.isActive():
            return
        answer = QMessageBox.question(
            self, "A release is running",
            "A release is running. Once begun, a release cannot be stopped (its noise is drawn as it runs): it "
            "runs to its end and is then charged to the ledger, which records its values.\n\nClose the window as "
            "soon as it is charged?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.statusBar().showMessage("The window closes once the release is charged…")
            self._closing.start()

    def _close_if_charged(self) -> None:
        if not self.charging() and QApplication.activeModalWidget() is None:  # a message naming the entry is read
            self._closing.stop()
            self.close()

    def _update_title(self) -> None:
        name = self.document.path.name if self.document.path else self.document.plan.dataset.name
        self.setWindowTitle(f"{name}{' *' if self.document.dirty else ''} — DP Workbench {__version__}")


