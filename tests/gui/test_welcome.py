"""The welcome screen: the sample with its plan, a file or plan of one's own, recent files and plans, the tour."""

from gui_helpers import load
from PySide6.QtCore import Qt

from workbench.gui.welcome import SAMPLE_DATA, SAMPLE_PLAN, TOUR, TourDialog


def test_a_new_window_shows_the_welcome_screen_in_step_one(window):
    assert window.tabs.currentIndex() == 0
    assert window.data_page.stack.currentWidget() is window.welcome and window.welcome.isVisible()
    assert window.welcome.sample.isEnabled()
    assert window.welcome.recent.count() == 1 and window.welcome.recent.item(0).text() == "(none yet)"


def test_the_sample_opens_with_its_plan(qtbot, window):
    window.welcome.sample.click()
    qtbot.waitUntil(lambda: window.loading is None and window.shown is not None, timeout=60_000)
    assert window.document.table.source == SAMPLE_DATA
    assert window.document.plan.dataset.name == "Household survey (synthetic sample)"
    assert window.document.plan.statistics and window.document.problems() == []
    assert window.data_page.stack.currentWidget() is window.data_page.table_view


def test_recent_files_and_plans_are_listed_and_open_from_the_list(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    listed = [window.welcome.recent.item(i).data(Qt.ItemDataRole.UserRole) for i in range(window.welcome.recent.count())]
    assert listed == [str(sample_plan_path.resolve()), str(sample_path.resolve())]
    window.document.dirty = False
    item = window.welcome.recent.item(1)
    window.welcome.recent.itemActivated.emit(item)  # Enter or a double-click
    qtbot.waitUntil(lambda: window.loading is None, timeout=60_000)
    assert window.document.table.source == sample_path.resolve() or window.document.table.source == sample_path


def test_cancelling_the_first_load_goes_back_to_the_welcome_screen(qtbot, window):
    window.open_path(SAMPLE_DATA)
    assert window.data_page.stack.currentWidget() is window.data_page.table_view
    window.cancel_loading()
    assert window.data_page.stack.currentWidget() is window.welcome


def test_the_tour_shows_the_six_steps_with_pictures_and_words(qtbot, window):
    window.welcome.tour.click()
    tour: TourDialog = window.welcome.tour_dialog
    qtbot.addWidget(tour)
    assert tour.pages.count() == 6 == len(TOUR)
    for index in range(6):
        image = tour.pages.widget(index).findChildren(type(tour.position))[1]
        assert not image.pixmap().isNull() and image.pixmap().width() == 760  # the picture was found
    assert not tour.back.isEnabled() and tour.position.text() == "Step 1 of 6"
    qtbot.keyClick(tour, Qt.Key.Key_Right)
    assert tour.pages.currentIndex() == 1 and tour.back.isEnabled()
    qtbot.keyClick(tour, Qt.Key.Key_Left)
    assert tour.pages.currentIndex() == 0
    for _ in range(5):
        tour.next.click()
    assert tour.position.text() == "Step 6 of 6" and tour.next.text() == "&Close"
    tour.next.click()
    assert tour.result() == TourDialog.DialogCode.Accepted


def test_the_sample_files_exist_where_the_welcome_screen_looks():
    assert SAMPLE_DATA.is_file() and SAMPLE_PLAN.is_file()


def test_a_single_recent_file_is_one_entry_not_its_letters(qtbot, window, sample_path):
    from workbench.gui.main_window import RECENT_KEY

    window.settings.setValue(RECENT_KEY, str(sample_path))  # as QSettings reads back a list of one
    window._fill_recent()
    assert window.welcome.recent.count() == 1 and window.recent_menu.actions()[0].text() == str(sample_path)
    window._remember(sample_path.with_name("household_survey.plan.json"))
    assert window.welcome.recent.count() == 2 and len(window.recent_menu.actions()) == 2
