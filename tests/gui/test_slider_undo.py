"""Step 5's ε slider is one undo step per gesture: a drag across many values (press, moves, release), or a run of
key presses on it, is undone at once back to the ε from before it and redone to the last; a value typed in the ε
field is a step of its own."""

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QStyle, QStyleOptionSlider

from workbench.gui.preview_page import epsilon_to_slider, slider_to_epsilon


def preview(qtbot, window, sample_plan_path):
    assert window.open_plan(sample_plan_path)
    window.tabs.setCurrentWidget(window.preview_page)
    page = window.preview_page
    qtbot.waitUntil(lambda: page.slider.isVisible() and page.slider.width() > 300, timeout=5000)
    page.recompute()
    return page


def handle_centre(slider) -> QPoint:
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    return slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                         QStyle.SubControl.SC_SliderHandle, slider).center()


def drag(qtbot, slider, steps: int, pixels: int) -> list[int]:
    """Press the handle, move the mouse ``pixels`` to the right in ``steps`` moves, release; the slider's positions."""
    start = handle_centre(slider)
    positions = []
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
    assert slider.isSliderDown()
    for step in range(1, steps + 1):
        qtbot.mouseMove(slider, QPoint(start.x() + round(pixels * step / steps), start.y()))
        positions.append(slider.value())
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=QPoint(start.x() + pixels, start.y()))
    return positions


def test_a_drag_of_the_slider_is_one_undo_step(qtbot, window, sample_plan_path):
    page = preview(qtbot, window, sample_plan_path)
    document, history = window.document, window.document.history
    original = document.plan.total.epsilon
    steps = history.count()
    seen = []
    document.changed.connect(lambda: seen.append(document.plan.total.epsilon))

    positions = drag(qtbot, page.slider, steps=60, pixels=min(300, page.slider.width() // 2 - 20))
    final = document.plan.total.epsilon
    assert len(set(positions)) > 30 and len(set(seen)) > 30  # the preview followed every move, as before
    assert final == slider_to_epsilon(positions[-1]) != original
    assert page.epsilon.value() == final
    assert history.count() == steps + 1 and window.undo_action.text() == "&Undo the budget"

    window.undo_action.trigger()
    assert document.plan.total.epsilon == original  # the ε from before the drag, not from one move before its end
    qtbot.waitUntil(lambda: page.epsilon.value() == original, timeout=5000)
    assert page.slider.value() == epsilon_to_slider(original)
    window.redo_action.trigger()
    assert document.plan.total.epsilon == final
    qtbot.waitUntil(lambda: page.slider.value() == positions[-1], timeout=5000)

    # a value typed in the field is a step of its own, and so is a second drag
    page.epsilon.setFocus()
    page.epsilon.selectAll()
    qtbot.keyClicks(page.epsilon, "0.3")
    qtbot.keyClick(page.epsilon, Qt.Key.Key_Return)
    assert document.plan.total.epsilon == 0.3 and history.count() == steps + 2
    page.recompute()
    drag(qtbot, page.slider, steps=40, pixels=150)
    dragged = document.plan.total.epsilon
    assert dragged != 0.3 and history.count() == steps + 3
    window.undo_action.trigger()
    assert document.plan.total.epsilon == 0.3
    window.undo_action.trigger()
    assert document.plan.total.epsilon == final
    window.undo_action.trigger()
    assert document.plan.total.epsilon == original and history.count() == steps + 3
    for expected in (final, 0.3, dragged):
        window.redo_action.trigger()
        assert document.plan.total.epsilon == expected


def test_a_drag_back_to_where_it_began_leaves_no_step(qtbot, window, sample_plan_path):
    page = preview(qtbot, window, sample_plan_path)
    original, steps = window.document.plan.total.epsilon, window.document.history.count()
    start = handle_centre(page.slider)
    qtbot.mousePress(page.slider, Qt.MouseButton.LeftButton, pos=start)
    for x in list(range(5, 120, 5)) + list(range(120, -1, -5)):
        qtbot.mouseMove(page.slider, QPoint(start.x() + x, start.y()))
    qtbot.mouseRelease(page.slider, Qt.MouseButton.LeftButton, pos=start)
    assert window.document.plan.total.epsilon == original and window.document.history.count() == steps


def test_a_run_of_key_presses_on_the_slider_is_one_undo_step(qtbot, window, sample_plan_path):
    page = preview(qtbot, window, sample_plan_path)
    document, history = window.document, window.document.history
    original, steps = document.plan.total.epsilon, history.count()
    page.slider.setFocus()
    for _ in range(25):
        qtbot.keyClick(page.slider, Qt.Key.Key_Right)
    qtbot.keyClick(page.slider, Qt.Key.Key_PageUp)
    after_keys = document.plan.total.epsilon
    assert after_keys > original and history.count() == steps + 1
    drag(qtbot, page.slider, steps=20, pixels=-100)  # a drag after the keys: a step of its own
    assert history.count() == steps + 2
    window.undo_action.trigger()
    assert document.plan.total.epsilon == after_keys
    window.undo_action.trigger()
    assert document.plan.total.epsilon == original


def test_a_run_of_wheel_steps_is_one_undo_step_and_a_pause_ends_it(qtbot, window, sample_plan_path, monkeypatch):
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from workbench.gui import preview_page

    page = preview(qtbot, window, sample_plan_path)
    document, history = window.document, window.document.history
    original, steps = document.plan.total.epsilon, history.count()
    clock = [1000.0]
    monkeypatch.setattr(preview_page, "monotonic", lambda: clock[0])

    def wheel(notches: int) -> None:
        centre = QPointF(page.slider.rect().center())
        for _ in range(notches):
            clock[0] += 0.05
            QApplication.sendEvent(page.slider, QWheelEvent(
                centre, QPointF(page.slider.mapToGlobal(centre)), QPoint(), QPoint(0, 120), Qt.MouseButton.NoButton,
                Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))

    wheel(10)
    first = document.plan.total.epsilon
    assert first > original and history.count() == steps + 1
    clock[0] += 2 * preview_page.RUN_PAUSE  # the wheel rests, then turns again: another step
    wheel(5)
    assert document.plan.total.epsilon > first and history.count() == steps + 2
    window.undo_action.trigger()
    assert document.plan.total.epsilon == first
    window.undo_action.trigger()
    assert document.plan.total.epsilon == original
