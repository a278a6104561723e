"""The user guide, bundled with the app (workbench/resources/guide) and shown offline in a help window.

F1 opens the section of the step on show; the Help menu opens the guide at a chosen section.
Links inside the guide move within it; a link to anywhere else is not followed (the app never goes online).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QDialog, QTextBrowser, QVBoxLayout, QWidget

GUIDE = Path(__file__).resolve().parents[1] / "resources" / "guide" / "guide.html"
STEP_SECTIONS = ("data", "unit", "bounds", "statistics", "epsilon", "release")  # F1 in step 1 … 6
SECTIONS = (  # the Help menu: its words, and the section it opens
    ("&User guide", "start"),
    ("What differential privacy &promises", "promise"),
    ("Choosing &ε and δ", "epsilon"),
    ("Public &bounds and categories", "bounds"),
    ("Reading the &report", "release"),
    ("The &ledger", "ledger"),
    ("&Keyboard and undo", "keyboard"),
)


class HelpWindow(QDialog):
    """The guide in a window of its own, beside the main window (not modal)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("DP Workbench: user guide")
        self.resize(760, 680)
        self.browser = QTextBrowser()
        self.browser.setAccessibleName("User guide")
        self.browser.setOpenExternalLinks(False)
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        self.browser.setSource(QUrl.fromLocalFile(str(GUIDE)))
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)

    def show_section(self, section: str) -> None:
        self.browser.scrollToAnchor(section)
        self.show()
        self.raise_()
        self.activateWindow()

    def _follow(self, url: QUrl) -> None:
        if url.hasFragment() and (not url.path() or url.isLocalFile() or url.isRelative()):
            self.browser.scrollToAnchor(url.fragment())  # within the guide; nothing else is opened
