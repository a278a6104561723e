"""The main window: the six steps of a release as tabs, with File menu, recent files and drag & drop.

Load, describe, choose, preview, release: each step is a page that observes the open
``PlanDocument``; no page computes DP itself.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMessageBox, QTabWidget

from workbench import __version__
from workbench.core.data import SUPPORTED, SheetNeeded, Table, load_sample, load_table
from workbench.core.data.engines import out_of_core_is_needed
from workbench.core.errors import WorkbenchError
from workbench.gui.columns_page import ColumnsPage
from workbench.gui.data_page import DataPage, LoadedTable
from workbench.gui.document import PlanDocument
from workbench.gui.preview_page import PreviewPage
from workbench.gui.release_page import ReleasePage
from workbench.gui.statistics_page import StatisticsPage
from workbench.gui.unit_page import UnitPage
from workbench.gui.workers import Task

RECENT_KEY, RECENT_MAX = "recent_files", 8
PLAN_SUFFIX = ".json"


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.document = PlanDocument()
        self.loading: Task | None = None
        self.settings = QSettings("DP Workbench", "DP Workbench")  # recent files; opened once (slow to open)
        self.shown: LoadedTable | None = None  # the table on show, with its proposals
        self.resize(1280, 820)
        self.setAcceptDrops(True)

        self.data_page = DataPage()
        self.unit_page = UnitPage(self.document)
        self.columns_page = ColumnsPage(self.document)
        self.statistics_page = StatisticsPage(self.document)
        self.preview_page = PreviewPage(self.document)
        self.release_page = ReleasePage(self.document, self.preview_page.budget.dataset_budget)
        self.tabs = QTabWidget()
        for page, title, tip in (
            (self.data_page, "&1 Data", "The table you opened"),
            (self.unit_page, "&2 Who is protected", "One row, or a person with several rows; which neighbours"),
            (self.columns_page, "&3 Columns", "Kinds, public bounds and categories"),
            (self.statistics_page, "&4 Statistics", "What to release"),
            (self.preview_page, "&5 Budget && preview", "ε, δ, expected errors and the ledger"),
            (self.release_page, "&6 Release", "Release and export"),
        ):
            self.tabs.setTabToolTip(self.tabs.addTab(page, title), tip)
        self.setCentralWidget(self.tabs)
        self.data_page.cancel.clicked.connect(self.cancel_loading)
        self.release_page.released.connect(lambda _: self.preview_page.budget.invalidate())
        self.columns_page.dataset_budget = self.preview_page.budget.dataset_budget
        self.columns_page.bounds_released.connect(lambda _: self.preview_page.budget.invalidate())
        self.document.changed.connect(self._update_title)

        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(QAction("&Open data…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.choose_file))
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        file_menu.addAction(QAction("Open &plan…", self, shortcut=QKeySequence("Ctrl+Shift+O"), triggered=self.choose_plan))
        file_menu.addAction(QAction("&Save plan", self, shortcut=QKeySequence.StandardKey.Save, triggered=self.save_plan))
        file_menu.addAction(QAction("Save plan &as…", self, shortcut=QKeySequence.StandardKey.SaveAs, triggered=self.save_plan_as))
        file_menu.addSeparator()
        file_menu.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        tools_menu = self.menuBar().addMenu("&Tools")
        tools_menu.addAction(QAction("&Randomised response designer…", self, triggered=self.open_randomized_response))
        self._fill_recent()
        self.statusBar().showMessage("Ready. Nothing you open leaves this computer.")
        self._update_title()

    # -- data ----------------------------------------------------------------------------------
    def choose_file(self) -> None:
        patterns = " ".join(f"*{suffix}" for suffix in SUPPORTED.split(", "))
        path, _ = QFileDialog.getOpenFileName(self, "Open a table", "", f"Tables ({patterns});;All files (*)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path, sheet: str | None = None) -> None:
        """Load ``path`` off the GUI thread; on a user error show its message and keep the current table."""
        if self.loading is not None:
            self.loading.cancel()
        self.data_page.show_loading(path.name)
        self.statusBar().showMessage(f"Loading {path}…")
        if out_of_core_is_needed(path):  # too large for memory: its first rows, and the release reads the file
            task = Task(lambda: LoadedTable.of(load_sample(path)))
        else:
            task = Task(lambda: LoadedTable.of(load_table(path, sheet=sheet, progress=task.report)))
        task.progress.connect(self.data_page.show_progress)
        task.finished.connect(lambda table: self._loaded(task, table))
        task.failed.connect(lambda exc: self._load_failed(task, path, exc))
        self.loading = task
        task.start()

    def cancel_loading(self) -> None:
        if self.loading is not None:
            self.loading.cancel()
            self.loading = None
        self.data_page.hide_loading()
        self.statusBar().showMessage("Loading cancelled; nothing changed.")
        if self.shown is not None:
            self.data_page.show_table(self.shown)
        else:
            self.data_page.summary.setText("Open a table with File > Open, or drop a file onto this window.")

    def _loaded(self, task: Task, loaded: LoadedTable) -> None:
        if task is not self.loading:
            return
        self.loading = None
        self.show_table(loaded)

    def _load_failed(self, task: Task, path: Path, exc: BaseException) -> None:
        if task is not self.loading:
            return
        self.loading = None
        self.data_page.hide_loading()
        if self.shown is not None:
            self.data_page.show_table(self.shown)
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
        self.statusBar().showMessage(f"{path.name} was not opened.")
        QMessageBox.warning(self, "The file cannot be opened", message)

    def show_table(self, loaded: LoadedTable | Table) -> None:
        if isinstance(loaded, Table):
            loaded = LoadedTable.of(loaded)
        table = loaded.table
        self.shown = loaded
        self.data_page.hide_loading()
        self.document.set_table(table, loaded.proposals)
        self.data_page.show_table(loaded)
        self._remember(table.source)
        self.statusBar().showMessage(f"Loaded {table.source}")

    def open_randomized_response(self) -> None:
        from workbench.gui.randomized_response_dialog import RandomizedResponseDialog

        self.randomized_response = RandomizedResponseDialog(self)
        self.randomized_response.show()

    # -- recent files and drag & drop --------------------------------------------------------------
    def _remember(self, path: Path) -> None:
        settings = self.settings
        recent = [p for p in (settings.value(RECENT_KEY) or []) if p != str(path.resolve())]
        settings.setValue(RECENT_KEY, [str(path.resolve()), *recent][:RECENT_MAX])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.value(RECENT_KEY) or []
        for path in recent if isinstance(recent, list) else [recent]:
            self.recent_menu.addAction(QAction(path, self, triggered=lambda _=False, p=path: self.open_any(Path(p))))
        self.recent_menu.setEnabled(bool(recent))

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
        if self.shown is not None:
            self.document.set_table(self.shown.table, self.shown.proposals)  # describe columns the plan does not mention
            self.document.dirty = False
        self.statusBar().showMessage(f"Opened the plan {path}")
        problems = self.document.plan_problems()
        if problems:
            QMessageBox.warning(
                self, "The plan needs attention",
                f"{path.name} is open, but it cannot be released as it is:\n\n" + "\n\n".join(problems)
                + "\n\nCorrect it in steps 2 to 5; the release step lists what is still wrong.",
            )
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
        return True

    def _may_discard(self) -> bool:
        """Ask before unsaved changes to the plan would be lost; True if it is fine to go on."""
        if not self.document.dirty:
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
        if self._may_discard():
            event.accept()
        else:
            event.ignore()

    def _update_title(self) -> None:
        name = self.document.path.name if self.document.path else self.document.plan.dataset.name
        self.setWindowTitle(f"{name}{' *' if self.document.dirty else ''} — DP Workbench {__version__}")


