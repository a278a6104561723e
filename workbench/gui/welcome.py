"""The welcome screen: what step 1 shows until a table is open, on the first start and after.

It offers what a first hour needs: the sample dataset with its plan, a file or a plan of one's own,
the recent files and plans, and a two-minute tour of the six steps (pictures and words, in the app).
Qt only: it is on screen before the core, pandas and OpenDP are imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"  # beside the package, and in the bundle
SAMPLE_DATA, SAMPLE_PLAN = SAMPLE / "household_survey.csv", SAMPLE / "household_survey.plan.json"

# The tour: one page per step, with a picture of it (workbench/resources/tour, taken on the sample data)
TOUR = (
    ("1 Data", "01-data.png",
     "Open your table: CSV, Excel, Parquet, SPSS, Stata or SAS. You see its first rows, and for each column the "
     "kind DP Workbench proposes. Nothing you open leaves this computer."),
    ("2 Who is protected", "02-who-is-protected.png",
     "Say what one person is: one row, or all the rows that share an id (at most k of them). The guarantee is "
     "about persons: whether any one person is in the table or not changes the released numbers very little."),
    ("3 Columns", "03-columns.png",
     "Describe each column with public knowledge only: numbers get bounds that anyone could know (0 to 120 "
     "years, not the largest age in your file), categories get their public list."),
    ("4 Statistics", "04-statistics.png",
     "Choose what to release: counts, sums, means, quantiles, histograms and tables, by group if you like. "
     "Each gets a share of the privacy budget."),
    ("5 Budget and preview", "05-budget-and-preview.png",
     "Choose ε: smaller means more privacy and more noise. The preview shows at once how large the error of "
     "every statistic will be, before any data is touched; or state the accuracy you need and get the ε."),
    ("6 Release", "06-release.png",
     "Release: the budget spent is written to the ledger of this dataset, which refuses to overspend. Export "
     "the numbers with their errors and a report in plain words (HTML, PDF, CSV, JSON)."),
)


class WelcomePanel(QWidget):
    """The first screen. Its buttons call what the main window gives it; it knows no document or table."""

    def __init__(self, open_sample: Callable[[], None], open_file: Callable[[], None], open_plan: Callable[[], None],
                 open_recent: Callable[[Path], None]) -> None:
        super().__init__()
        self._open_recent = open_recent
        title = QLabel("<h2>Welcome to DP Workbench</h2>")
        intro = QLabel(
            "Prepare differentially private releases of your tables: statistics with a guarantee that no one "
            "can learn much about any one person from them. Everything happens on this computer; nothing you "
            "open leaves it. Start with the sample, or open a file of your own (or drop it onto this window)."
        )
        intro.setWordWrap(True)
        self.sample = QPushButton("Open the &sample dataset and its plan")
        self.sample.setToolTip(f"A synthetic household survey of 20,000 persons: {SAMPLE_DATA.name}")
        self.file = QPushButton("&Open a data file…")
        self.plan = QPushButton("Open a &plan…")
        self.tour = QPushButton("&Take the two-minute tour of the six steps")
        for button, action in ((self.sample, open_sample), (self.file, open_file), (self.plan, open_plan),
                               (self.tour, self.show_tour)):
            button.setAccessibleName(button.text().replace("&", "").rstrip("…"))
            button.clicked.connect(action)
        self.sample.setEnabled(SAMPLE_DATA.is_file() and SAMPLE_PLAN.is_file())
        self.recent = QListWidget()
        self.recent.setAccessibleName("Recent files and plans")
        self.recent.itemActivated.connect(lambda item: self._open_recent(Path(item.data(Qt.ItemDataRole.UserRole))))
        recent_label = QLabel("&Recent files and plans (double-click or Enter to open):")
        recent_label.setBuddy(self.recent)

        buttons = QVBoxLayout()
        for button in (self.sample, self.file, self.plan, self.tour):
            buttons.addWidget(button)
        buttons.addStretch(1)
        recent = QVBoxLayout()
        recent.addWidget(recent_label)
        recent.addWidget(self.recent)
        columns = QHBoxLayout()
        columns.addLayout(buttons, 1)
        columns.addLayout(recent, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(40, 24, 40, 24)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addLayout(columns, 1)

    def show_recent(self, paths: Sequence[str]) -> None:
        self.recent.clear()
        for path in paths:
            item = QListWidgetItem(f"{Path(path).name}  —  {Path(path).parent}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent.addItem(item)
        if not paths:
            self.recent.addItem(QListWidgetItem("(none yet)"))

    def show_tour(self) -> "TourDialog":
        self.tour_dialog = TourDialog(self)
        self.tour_dialog.show()
        return self.tour_dialog


class TourDialog(QDialog):
    """The six steps, one page each: a picture of the step and what to do there. Back and Next, or the arrow keys."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("The six steps of a release")
        self.pages = QStackedWidget()
        for heading, picture, words in TOUR:
            page = QWidget()
            image = QLabel()
            pixmap = QPixmap(str(RESOURCES / "tour" / picture))
            image.setPixmap(pixmap.scaledToWidth(760, Qt.TransformationMode.SmoothTransformation))
            image.setAccessibleName(f"Picture of step {heading}")
            text = QLabel(f"<h3>Step {heading}</h3><p>{words}</p>")
            text.setWordWrap(True)
            layout = QVBoxLayout(page)
            layout.addWidget(text)
            layout.addWidget(image, 1)
            self.pages.addWidget(page)
        self.position = QLabel()
        self.back = QPushButton("&Back")
        self.next = QPushButton("&Next")
        self.back.clicked.connect(lambda: self.go(self.pages.currentIndex() - 1))
        self.next.clicked.connect(self._next)
        row = QHBoxLayout()
        row.addWidget(self.position)
        row.addStretch(1)
        row.addWidget(self.back)
        row.addWidget(self.next)
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addLayout(row)
        self.go(0)

    def go(self, index: int) -> None:
        index = max(0, min(index, self.pages.count() - 1))
        self.pages.setCurrentIndex(index)
        last = index == self.pages.count() - 1
        self.position.setText(f"Step {index + 1} of {self.pages.count()}")
        self.back.setEnabled(index > 0)
        self.next.setText("&Close" if last else "&Next")
        self.next.setDefault(True)
        self.next.setFocus()

    def _next(self) -> None:
        if self.pages.currentIndex() == self.pages.count() - 1:
            self.accept()
        else:
            self.go(self.pages.currentIndex() + 1)

    def keyPressEvent(self, event) -> None:  # type: ignore[override]
        if event.key() == Qt.Key.Key_Right:
            self.go(self.pages.currentIndex() + 1)
        elif event.key() == Qt.Key.Key_Left:
            self.go(self.pages.currentIndex() - 1)
        else:
            super().keyPressEvent(event)
