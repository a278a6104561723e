"""Help: F1 and the Help menu open the bundled guide, offline, at the section of the step on show."""

import re

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QKeySequence

from workbench.gui.help import GUIDE, SECTIONS, STEP_SECTIONS


def test_the_guide_covers_what_the_first_hour_needs_and_every_section_named_exists():
    text = GUIDE.read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a name="(\w+)">', text))
    assert set(STEP_SECTIONS) | {section for _, section in SECTIONS} <= anchors
    for heading in ("What differential privacy promises", "choosing ε and δ", "public bounds", "Reading the report",
                    "The ledger"):
        assert heading.lower() in text.lower(), heading
    assert set(re.findall(r'href="#(\w+)"', text)) <= anchors  # the contents' links all land
    assert "http" not in text  # offline: nothing in it points to the web


HEADINGS = ("Step 1: data", "Step 2: who is protected", "Step 3: public bounds", "Step 4: statistics",
            "Step 5: choosing ε", "Step 6: release")


def visible_text(browser) -> str:
    """The part of the guide in view."""
    viewport = browser.viewport()
    first = browser.cursorForPosition(QPoint(2, 2)).position()
    last = browser.cursorForPosition(QPoint(viewport.width() - 2, viewport.height() - 2)).position()
    return browser.toPlainText()[first:last]


def test_f1_opens_the_section_of_each_step(qtbot, window):
    window.activateWindow()
    positions = []
    for index in range(6):
        window.tabs.setCurrentIndex(index)
        qtbot.keyClick(window, Qt.Key.Key_F1)
        browser = window.help_window.browser
        qtbot.waitUntil(window.help_window.isVisible)
        positions.append(browser.verticalScrollBar().value())
        assert HEADINGS[index] in visible_text(browser), index
    assert positions == sorted(positions) and positions[0] > 0  # the sections, in the guide's order
    assert window.help_window.browser.source().isLocalFile()


def test_the_what_is_this_link_and_the_help_menu_open_the_guide(qtbot, window):
    window.tabs.setCurrentIndex(2)
    window.tabs.cornerWidget().linkActivated.emit("help")
    bounds = window.help_window.browser.verticalScrollBar().value()
    assert bounds > 0
    help_menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&Help")
    words = [action.text() for action in help_menu.actions() if action.text()]
    assert words[0] == "Help on this &step" and "The &ledger" in words and "&Tour of the six steps" in words
    ledger = next(action for action in help_menu.actions() if action.text() == "The &ledger")
    ledger.trigger()
    assert window.help_window.browser.verticalScrollBar().value() > bounds


def test_links_leave_neither_the_guide_nor_the_computer(window):
    window.show_help("start")
    browser = window.help_window.browser
    source = browser.source()
    browser.anchorClicked.emit(QUrl("https://example.org/tracking"))
    assert browser.source() == source  # not followed
    browser.anchorClicked.emit(QUrl("#ledger"))
    assert browser.verticalScrollBar().value() > 0


def test_ctrl_and_a_number_go_to_that_step(qtbot, window):
    window.activateWindow()
    for index in (3, 5, 0):
        sequence = QKeySequence(f"Ctrl+{index + 1}")[0]
        qtbot.keyClick(window, sequence.key(), sequence.keyboardModifiers())
        assert window.tabs.currentIndex() == index
