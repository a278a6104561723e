"""Step 5: choose ε and see, at once, the noise and the expected error of every statistic.

Everything shown here comes from public inputs (bounds, categories, the size estimate, ε,
δ) through the core's planner; no private value is read. Recomputation is coalesced: a
burst of slider moves triggers one update when the event loop is next idle.

The slider's moves are one undo step per gesture, not one per move: a drag (press, moves, release),
or a run of keyboard, wheel or page steps without a pause, focus leaving the slider or a press between
them; Undo then brings back the ε from before it. A value typed in the ε field is a step of its own.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import replace
from time import monotonic
from typing import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.data import Neighbouring
from workbench.core.errors import WorkbenchError
from workbench.core.privacy import SAMPLING_CONDITIONS, Noise, compose, noise_probability, reading
from workbench.core.release import (
    PRIVACY_TRADE_OFF,
    Budget,
    PlannedStatistic,
    PlannedSynthetic,
    error_basis,
    expected_error,
    group_size,
    relative_reference,
    smallest_group_caveat,
    suggested_delta,
    synthetic_preview,
    synthetic_words,
    with_privacy,
)
from workbench.core.report import error_words, interval_preview_words, released_error, reliable_from_words
from workbench.core.statistics import Query
from workbench.gui.budget_panel import TIPS, BudgetPanel
from workbench.gui.document import PlanDocument
from workbench.gui.formatting import parse_number
from workbench.gui.layout_barrier import LayoutBarrier

LOG_MIN, LOG_MAX, STEPS = -2.0, 1.0, 600  # the slider spans ε = 0.01 to 10 on a log scale
PURE, APPROXIMATE = "pure ε-DP (δ = 0, Laplace noise)", "(ε, δ)-DP (Gaussian noise where possible)"
SAMPLING_TIP = (
    "Optional, off by default. If the file is a random sample of a population in which each person was included "
    "with this probability, the guarantee for a person of the population is stronger: ε' = ln(1 + rate·(e^ε − 1)). "
    + SAMPLING_CONDITIONS
)
# long headers on two lines, and a cell's basis or CV under its value: the table fits 1366 pixels (issue 37, 5)
HEADERS = ["Statistic", "Weight", "Lock\nε", "ε", "± error\n(95%)", "Relative\nerror", "Target ±\n(95%)",
           "Smallest\ngroup (rows)", "Reliable\nfrom"]
NAME_WIDTH = 170  # the least width of the statistic's name, which wraps onto a second line below it
TEXT_WIDTH = 90  # the least width of the other texts (they wrap too) and of the target and group fields
WRAPPED = (0, 4, 5, 6, 7, 8)  # the columns that can be narrowed (the others hold numbers, a weight and a tick)
RUN_PAUSE = 1.0  # seconds without a keyboard or wheel step of the slider that end a run of them (one undo step)
FILL_PAUSE = 100  # ms without a slider move after which the rows out of the table's view are brought up to date


STATISTIC_AXIS = "noise added (in the statistic's units)"
SUM_AXIS = "noise added to the sum (in the column's units)"
RANK_AXIS = "distance of the released value's rank from the level's (rows)"
PROBABILITY = "probability"
DENSITY = "probability density"
RANK_CHANCE = "chance of being taken (relative)"


def slider_to_epsilon(position: int) -> float:
    return float(f"{10 ** (LOG_MIN + (LOG_MAX - LOG_MIN) * position / STEPS):.3g}")


def epsilon_to_slider(epsilon: float) -> int:
    log = min(max(math.log10(max(epsilon, 1e-12)), LOG_MIN), LOG_MAX)
    return int(round((log - LOG_MIN) / (LOG_MAX - LOG_MIN) * STEPS))


_TEXT_FLAGS = {  # pyqtgraph's for a tick text, by the axis's side
    "left": Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "right": Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "top": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom | Qt.TextFlag.TextDontClip,
    "bottom": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextDontClip,
}


class SteadyLabelAxis(pg.AxisItem):
    """An axis that lays out its title again only when the title changes.

    pyqtgraph sets the title's HTML and resizes the axis at every change of range, which on
    every ε-slider move re-lays out the plot; only the ticks need redrawing then."""

    def _updateLabel(self) -> None:
        text = self.labelString()
        if text == getattr(self, "_shown_label", None):
            self.picture = None  # the ticks: redrawn at the next paint
            self.update()
            return
        self._shown_label = text
        super()._updateLabel()

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph's name)
        """pyqtgraph's specs (the same ones, tested), in about half its time: every slider move draws both axes anew
        at a new range. The points are QPointF (pyqtgraph's Point is one, built in Python), each level's pen and the
        text flags are made once, and a tick text is measured once per font. Any style this plot does not use (set
        ticks, a grid, log scale, ticks that stop the axis, tick alpha, no values) goes to pyqtgraph's own."""
        style = self.style
        tick_pen = self.tickPen()  # a new pen at each call (pyqtgraph's mkPen): once, copied for each level below
        if (self._tickLevels is not None or self.grid is not False or self.logMode or style["tickAlpha"] is not None
                or tuple(style["stopAxisAtTick"]) != (False, False) or not style["showValues"]
                or tick_pen.brush().style() != Qt.BrushStyle.SolidPattern):
            return super().generateDrawSpecs(p)
        if style["tickFont"] is not None:
            p.setFont(style["tickFont"])
        bounds = self.mapRectFromParent(self.geometry())
        orientation = self.orientation
        if orientation == "left":
            span = (bounds.topRight() + QPointF(-1.0, -1.0), bounds.bottomRight() + QPointF(-1.0, 1.0))
            tick_start = tick_stop = bounds.right()
            tick_dir, axis = -1, 0
        elif orientation == "right":
            span = (bounds.topLeft() + QPointF(1.0, -1.0), bounds.bottomLeft() + QPointF(1.0, 1.0))
            tick_start = tick_stop = bounds.left()
            tick_dir, axis = 1, 0
        elif orientation == "top":
            span = (bounds.bottomLeft() + QPointF(-1.0, -1.0), bounds.bottomRight() + QPointF(1.0, -1.0))
            tick_start = tick_stop = bounds.bottom()
            tick_dir, axis = -1, 1
        else:
            span = (bounds.topLeft() + QPointF(-1.0, 1.0), bounds.topRight() + QPointF(1.0, 1.0))
            tick_start = tick_stop = bounds.top()
            tick_dir, axis = 1, 1
        points = [self.mapToDevice(point) for point in span]
        if None in points:
            return None
        length = math.hypot(points[1].x() - points[0].x(), points[1].y() - points[0].y())
        if length == 0:
            return None
        levels = self.tickValues(self.range[0], self.range[1], length)

        low, high = self.range
        dif = high - low
        if dif == 0:
            scale, offset = 1, 0
        elif axis == 0:
            scale = -bounds.height() / dif
            offset = low * scale - bounds.height()
        else:
            scale = bounds.width() / dif
            offset = low * scale
        ends = [low * scale - offset, high * scale - offset]
        least, most = min(ends), max(ends)

        positions: list[list[float | None]] = []
        tick_specs = []
        for i, (_, values) in enumerate(levels):
            tip = tick_stop + style["tickLength"] / ((i * 0.5) + 1.0) * tick_dir
            pen = QPen(tick_pen)
            color = QColor(pen.color())
            color.setAlpha(int(255 / (i + 1)))
            pen.setColor(color)
            shown: list[float | None] = []
            positions.append(shown)
            for value in values:
                x = (value * scale) - offset
                if x < least or x > most:
                    shown.append(None)
                    continue
                shown.append(x)
                if axis == 0:
                    tick_specs.append((pen, QPointF(tick_start, x), QPointF(tip, x)))
                else:
                    tick_specs.append((pen, QPointF(x, tick_start), QPointF(x, tip)))
        axis_spec = (self.pen(), span[0], span[1])

        text_offset = style["tickTextOffset"][axis]
        text_size2 = last_text_size2 = 0
        text_rects: list[QRectF] = []
        text_specs: list[tuple[QRectF, object, str]] = []
        sizes = self._text_sizes(p)
        flags = _TEXT_FLAGS[orientation]
        area = self.boundingRect()
        gap = max(0, style["tickLength"]) + text_offset
        for i in range(min(len(levels), style["maxTextLevel"] + 1)):
            spacing, values = levels[i]
            strings = self.tickStrings(values, self.autoSIPrefixScale * self.scale, spacing)
            if len(strings) == 0:
                continue
            rects: list[QRectF | None] = []
            for j, string in enumerate(strings):
                if positions[i][j] is None:
                    rects.append(None)
                    continue
                size = sizes.get(string)
                if size is None:
                    measured = p.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, string)
                    size = sizes[string] = (measured.width(), measured.height() * 0.8)
                rect = QRectF(0.0, 0.0, size[0], size[1])
                rects.append(rect)
                text_rects.append(rect)
            if text_rects:
                if axis == 0:
                    text_size = np.sum([r.height() for r in text_rects])
                    text_size2 = np.max([r.width() for r in text_rects])
                else:
                    text_size = np.sum([r.width() for r in text_rects])
                    text_size2 = np.max([r.height() for r in text_rects])
            else:
                text_size = text_size2 = 0
            if i > 0:  # the first level always; the others while the texts are not too crowded
                ratio = float(text_size) / length
                if any(len(text_specs) >= texts and ratio >= limit for texts, limit in style["textFillLimits"]):
                    break
            last_text_size2 = text_size2
            for j, string in enumerate(strings):
                rect = rects[j]
                if rect is None:
                    continue
                x, width, height = positions[i][j], rect.width(), rect.height()
                if orientation == "left":
                    rect = QRectF(tick_stop - gap - width, x - (height / 2), width, height)
                elif orientation == "right":
                    rect = QRectF(tick_stop + gap, x - (height / 2), width, height)
                elif orientation == "top":
                    rect = QRectF(x - width / 2., tick_stop - gap - height, width, height)
                else:
                    rect = QRectF(x - width / 2., tick_stop + gap, width, height)
                if area & rect != rect:
                    continue
                text_specs.append((rect, flags, string))
        self._updateMaxTextSize(last_text_size2)
        return axis_spec, tick_specs, text_specs

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803 (pyqtgraph's names)
        """pyqtgraph's tick values, a level's ticks at those of the levels before it left out as there: within a
        hundredth of its spacing, by the difference numpy's isclose takes (for finite values, the same test).

        In Python floats, by numpy's operations in its order (the same values to the bit, tested): the levels hold
        some dozens of ticks, for which numpy's arrays cost more than the arithmetic. A tick is compared with the
        nearest seen ticks on either side only: the rounded difference grows with the distance."""
        if self.logMode:
            return super().tickValues(minVal, maxVal, size)
        minVal, maxVal = sorted((float(minVal), float(maxVal)))
        scale = self.scale
        minVal *= scale
        maxVal *= scale
        ticks = []
        seen: list[float] = []  # sorted
        for spacing, offset in self.tickSpacing(minVal, maxVal, size):
            start = (math.ceil((minVal - offset) / spacing) * spacing) + offset
            values = [(i * spacing + start) / scale for i in range(int((maxVal - start) / spacing) + 1)]
            if seen and values:
                near = spacing / scale * 0.01
                kept = []
                for value in values:
                    at = bisect_left(seen, value)
                    if (at < len(seen) and abs(seen[at] - value) <= near) or (at and abs(seen[at - 1] - value) <= near):
                        continue
                    kept.append(value)
                values = kept
            seen = sorted(seen + values)
            ticks.append((spacing / scale, values))
        return ticks

    def _text_sizes(self, painter) -> dict:
        """The width and (0.8 of the) height pyqtgraph gives each tick text, by the painter's font."""
        font = painter.font()  # compared as a font (its attributes), not by its key: a string built at each call
        if getattr(self, "_sizes_for", None) != font or len(self._sizes) > 2000:
            self._sizes_for, self._sizes = QFont(font), {}
        return self._sizes


class PreviewPage(QWidget):
    def __init__(self, document: PlanDocument) -> None:
        super().__init__()
        self.document = document
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, STEPS)
        self.slider.setAccessibleName("total ε, logarithmic")
        self.slider.setToolTip(TIPS["epsilon"])
        self.epsilon = QDoubleSpinBox()
        self.epsilon.setRange(0.0001, 100.0)
        self.epsilon.setDecimals(4)
        self.epsilon.setSingleStep(0.1)
        self.epsilon.setAccessibleName("total ε")
        self.epsilon.setToolTip(TIPS["epsilon"])
        self.delta = QLineEdit()
        self.delta.setAccessibleName("total δ")
        self.delta.setToolTip(TIPS["delta"])
        self.size = QSpinBox()
        self.size.setRange(0, 2_000_000_000)
        self.size.setSpecialValueText("unknown")
        self.size.setAccessibleName("public size estimate")
        self.size.setToolTip(
            "A public guess of the number of rows (e.g. from the survey design). Used only for previews "
            "and relative errors; never read from the data."
        )
        self.privacy = QComboBox()
        self.privacy.addItems([PURE, APPROXIMATE])
        self.privacy.setAccessibleName("kind of guarantee")
        self.privacy.setToolTip(PRIVACY_TRADE_OFF)
        self.sampling = QLineEdit()
        self.sampling.setPlaceholderText("not a sample (off)")
        self.sampling.setAccessibleName("sampling rate")
        self.sampling.setToolTip(SAMPLING_TIP)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setAccessibleName("Expected error of each statistic")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # sized once per change of the statistics, not on every slider move (that re-measures every cell)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(False)  # fit_table gives the room to the name
        self.table.viewport().installEventFilter(self)
        self._sized_for: tuple = ()
        self._unfilled: set[int] = set()  # rows a slider move left out of view (``recompute``, ``_fill_rows``)
        self._unfilled_for: object | None = None  # the plan they are behind
        self.table.horizontalHeaderItem(6).setToolTip(
            "The accuracy you need, e.g. 50 for 'within ±50 with 95% confidence'. The statistic then gets the "
            "smallest ε that achieves it; the others share what is left of the total. Empty: by weight."
        )
        self.table.horizontalHeaderItem(4).setToolTip(
            "Half-width of the interval that holds the noise with 95% probability, in the statistic's units."
        )
        # the hidden top and right axes follow the range too: as pyqtgraph's own, they set their title's HTML and
        # resized themselves at every move
        self.plot = pg.PlotWidget(
            background="w", axisItems={side: SteadyLabelAxis(side) for side in ("bottom", "left", "top", "right")}
        )
        self.plot.hideAxis("top")  # shown, as any axis handed to pyqtgraph
        self.plot.hideAxis("right")
        self.plot.setLabel("bottom", STATISTIC_AXIS)
        self.plot.setLabel("left", PROBABILITY)
        self.plot.setMinimumHeight(220)
        # one curve and two lines, updated in place (clearing and re-adding items on every slider
        # move is slow, and crashed PySide6 with pyqtgraph in a refcount error); no dynamic range limit, which
        # handed the curve its data a second time at every change of range, for coordinates far off the view
        # that this plot never has (its range is set to its data)
        self.curve = self.plot.plot([], [], pen=pg.mkPen("#2c6fbb", width=2), fillLevel=0, brush=(44, 111, 187, 60),
                                    dynamicRangeLimit=None)
        # its area filled as one path: pyqtgraph cuts it into strips of 50 points (for long curves, in its tests
        # faster), which for this curve of 401 points made nine paths at every move, to the same pixels (tested).
        # A private method of pyqtgraph 0.14.0's PlotCurveItem: where a version lacks it, this only costs speed
        self.curve.curve._shouldUseFillPathList = lambda: False
        # the red lines at ± the error: two segments of one item, reaching past the plot's range. Two InfiniteLines
        # found their new extent while being painted, after each move, and had the plot painted a second time
        self.edges = self.plot.plot([], [], pen=pg.mkPen("#c0392b", style=Qt.PenStyle.DashLine), connect="pairs",
                                    dynamicRangeLimit=None)
        self.plot.disableAutoRange()  # the range is set with the data: auto-ranging re-measured every item per move
        # the probability axis widens for longer tick labels and no longer narrows again: narrowing re-laid the
        # plot out and painted it a second time on many moves (and shifted it sideways under the slider)
        self.plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot_title = QLabel("Select a statistic to see its noise.")
        self.plot_title.setWordWrap(True)  # unwrapped, a long title widened the window past the screen (issue 19, 6)
        self.plot_title.setMinimumWidth(200)
        self.reading = QLabel()  # what the chosen ε and δ mean, in words (core.risk)
        self.reading.setWordWrap(True)
        self.reading.setAccessibleName("what this guarantee means")
        self.reading.setStyleSheet("color: palette(link);")  # the theme's own link colour: legible when dark too
        self.budget = BudgetPanel()
        self.budget.total_epsilon.valueChanged.connect(self.schedule)
        self.budget.total_delta.editingFinished.connect(self.schedule)

        controls = QFormLayout()
        slider_row = QHBoxLayout()
        slider_row.addWidget(QLabel("0.01"))
        slider_row.addWidget(self.slider, 1)
        slider_row.addWidget(QLabel("10"))
        slider_row.addWidget(self.epsilon)
        controls.addRow("Total ε of this plan:", slider_row)
        controls.addRow("What it means:", LayoutBarrier(self.reading))  # changes on every move
        controls.addRow("Guarantee:", self.privacy)
        controls.addRow("Total δ of this plan:", self.delta)
        controls.addRow("Public size estimate:", self.size)
        controls.addRow("Sampling rate (claimed):", self.sampling)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(controls)
        left_layout.addWidget(self.table, 2)
        left_layout.addWidget(LayoutBarrier(self.plot_title))  # so does the title
        left_layout.addWidget(self.plot, 1)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(self.budget)
        splitter.setSizes([800, 380])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.recompute)
        # the tightest accounting (PLD; tenths of a second for many statistics) once the slider rests
        self._tight_timer = QTimer(self)
        self._tight_timer.setSingleShot(True)
        self._tight_timer.setInterval(300)
        self._tight_timer.timeout.connect(self.show_tightest)
        # a slider move recomputes the rows in the table's view only; the others once the slider rests, or at once
        # when they scroll into view (``_fill_rows``)
        self._fill_timer = QTimer(self)
        self._fill_timer.setSingleShot(True)
        self._fill_timer.setInterval(FILL_PAUSE)
        self._fill_timer.timeout.connect(self._fill_rows)
        self.table.verticalScrollBar().valueChanged.connect(self._fill_rows)
        self.slider.valueChanged.connect(self._slid)
        # one undo step per gesture of the slider: a drag, or a run of keyboard/wheel steps (``_slider_gesture``)
        self._drag: object | None = None  # the key of the drag under way, from press to release
        self._run: object | None = None  # the key of the run of keyboard/wheel steps under way
        self._run_at = 0.0  # when its last step was
        self.slider.sliderPressed.connect(self._slider_pressed)
        self.slider.sliderReleased.connect(self._slider_released)
        self.slider.installEventFilter(self)  # focus leaving it ends a run
        self.epsilon.valueChanged.connect(self._typed_epsilon)
        self.delta.editingFinished.connect(self._typed_delta)
        self.size.valueChanged.connect(self._typed_size)
        self.privacy.currentTextChanged.connect(self._chose_privacy)
        self.sampling.editingFinished.connect(self._typed_sampling)
        self.table.itemSelectionChanged.connect(self.draw_noise)
        document.changed.connect(self.schedule)
        self._syncing = False
        self.errors: list[float | None] = []
        self._controls_for: dict[int, object] = {}  # row -> the planned statistic its controls show
        self.schedule()

    # -- input ---------------------------------------------------------------------------------
    def _slid(self, position: int) -> None:
        if self._syncing:
            return
        self._syncing = True  # the field follows; its change is this move's, not a typed value
        try:
            self.epsilon.setValue(slider_to_epsilon(position))
        finally:
            self._syncing = False
        plan = self.document.plan
        pending = self._timer.isActive()  # another change waits for its recompute: that one shows every row
        # merged into the step of the gesture under way: one drag is one undo step
        self.document.update(replace(plan, total=Budget(self.epsilon.value(), plan.total.delta)),
                             merge=self._slider_gesture())
        # at once, not at the timer: the timer ran after the slider had been repainted, so every move was
        # painted twice (the slider, then the numbers it moved)
        self.recompute(in_view=not pending)

    def _slider_gesture(self) -> object:
        """The merge key of this move of the slider: the drag's while it is held down; otherwise (keyboard, wheel,
        a click beside the handle) the run's, a new one after a pause of ``RUN_PAUSE`` seconds."""
        if self.slider.isSliderDown() and self._drag is not None:
            return self._drag
        now = monotonic()
        if self._run is None or now - self._run_at > RUN_PAUSE:
            self._run = object()
        self._run_at = now
        return self._run

    def _slider_pressed(self) -> None:
        self._drag, self._run = object(), None  # a new step, apart from the keys' before it and after it

    def _slider_released(self) -> None:
        self._drag = None

    def focus_field(self, control: str, statistic: int | None = None) -> None:
        """The focus on the field a problem is about: "epsilon", "delta", "size", "sampling" or "dataset delta" (a
        new dataset's total δ); "target" or "weight" of the statistic in row ``statistic``."""
        self.recompute()  # the fields show the plan as it is now before one takes the focus (a focused field is
        # not overwritten by a later refresh)
        if control in ("target", "weight") and statistic is not None and statistic < self.table.rowCount():
            cell = self.table.cellWidget(statistic, 6 if control == "target" else 1)
            if cell is not None:
                self.table.scrollTo(self.table.model().index(statistic, 0))
                cell.setFocus()
                return
        field = {"delta": self.delta, "size": self.size, "sampling": self.sampling,
                 "dataset delta": self.budget.total_delta}.get(control, self.epsilon)
        field.setFocus()
        field.selectAll()

    def _typed_epsilon(self, value: float) -> None:
        if self._syncing:
            return
        plan = self.document.plan
        self.document.update(replace(plan, total=Budget(value, plan.total.delta)))

    def _typed_delta(self) -> None:
        if not self.delta.isModified():  # left without typing: the text is what the plan says, nothing to change
            return
        plan = self.document.plan
        try:
            delta = float(self.delta.text() or 0)
        except ValueError:
            self.delta.setStyleSheet("background-color: #ffd6d6; color: #000000;")
            self.delta.setToolTip("δ must be a number such as 1e-6 (or 0 for Laplace only).")
            return
        self.delta.setStyleSheet("")
        self.delta.setToolTip(TIPS["delta"])
        self.delta.setModified(False)
        self.document.update(replace(plan, total=Budget(plan.total.epsilon, delta)))

    def _typed_size(self, value: int) -> None:
        if self._syncing:
            return
        plan = self.document.plan
        self.document.update(replace(plan, dataset=replace(plan.dataset, size_estimate=value or None)))

    def _chose_privacy(self, text: str) -> None:
        """Pure ε-DP turns Gaussian statistics into Laplace ones (δ = 0); (ε, δ)-DP the reverse."""
        if self._syncing:
            return
        plan = self.document.plan
        size = plan.schema.public_size or plan.dataset.size_estimate
        delta = plan.total.delta or suggested_delta(size)
        self.document.update(with_privacy(plan, approximate=text == APPROXIMATE, delta=delta))

    def _typed_sampling(self) -> None:
        if not self.sampling.isModified():
            return
        plan = self.document.plan
        try:
            rate = parse_number(self.sampling.text())
            if rate is not None and not 0 < rate < 1:
                raise ValueError(self.sampling.text())
        except ValueError:
            self.sampling.setStyleSheet("background-color: #ffd6d6; color: #000000;")
            self.sampling.setToolTip("The sampling rate must be a probability strictly between 0 and 1, or empty.")
            return
        self.sampling.setStyleSheet("")
        self.sampling.setToolTip(SAMPLING_TIP)
        self.sampling.setModified(False)
        if rate != plan.dataset.sampling_rate:
            self.document.update(replace(plan, dataset=replace(plan.dataset, sampling_rate=rate)))

    def _weight_changed(self, row: int, value: float) -> None:
        plan = self.document.plan
        statistics = list(plan.statistics)
        statistics[row] = replace(statistics[row], weight=value)
        self.document.update(replace(plan, statistics=tuple(statistics)))

    def _target_changed(self, row: int, field: QLineEdit) -> None:
        target = _typed_number(field, lambda v: v > 0, "The target must be a positive number, such as 50, or empty.")
        if target is not _INVALID:
            planned = self.document.plan.statistics[row]
            self._replace_statistic(row, target_error=target, weight=planned.weight if planned.weight is not None else 1.0)

    def _smallest_changed(self, row: int, field: QLineEdit) -> None:
        rows = _typed_number(field, lambda v: v >= 1 and v == int(v),
                             "The smallest group is a whole number of rows, such as 30, or empty for the average.")
        if rows is not _INVALID:
            self._replace_statistic(row, smallest_group=None if rows is None else int(rows))

    def _replace_statistic(self, row: int, **changes) -> None:
        plan = self.document.plan
        statistics = list(plan.statistics)
        statistics[row] = replace(statistics[row], **changes)
        self.document.update(replace(plan, statistics=tuple(statistics)))  # an unchanged plan changes nothing

    def _lock_changed(self, row: int, locked: bool) -> None:
        plan = self.document.plan
        budgeted = self.document.budgeted().statistics[row]
        statistics = list(plan.statistics)
        statistics[row] = replace(budgeted, weight=None) if locked else replace(statistics[row], weight=1.0)
        self.document.update(replace(plan, statistics=tuple(statistics)))

    # -- output --------------------------------------------------------------------------------
    def schedule(self) -> None:
        self._timer.start()

    def show_reading(self, epsilon: float, delta: float, substitute: bool) -> None:
        try:
            lines = reading(epsilon, delta).sentences(substitute)
        except (WorkbenchError, ValueError) as exc:
            self.reading.setText(str(exc))
            return
        self.reading.setText(" ".join(lines[:2]))
        self.reading.setToolTip("\n\n".join(lines))

    def recompute(self, in_view: bool = False) -> None:
        """Everything shown from the plan as it is now. ``in_view`` (a slider move): the table's rows out of its
        view are left for ``_fill_rows`` (the error bounds of every row cost a slider move a frame)."""
        self._timer.stop()  # a recompute scheduled before this one is done by it
        plan = self.document.plan
        self._syncing = True
        self.epsilon.setValue(plan.total.epsilon)
        self.slider.setValue(epsilon_to_slider(plan.total.epsilon))
        if not self.delta.hasFocus():
            self.delta.setText(f"{plan.total.delta:g}")
        if self.size.value() != (plan.dataset.size_estimate or 0):  # a spin box repaints on every setValue, even
            self.size.setValue(plan.dataset.size_estimate or 0)  # of its own value: once per slider move
        self.privacy.setCurrentText(APPROXIMATE if plan.total.delta > 0 else PURE)
        if not self.sampling.hasFocus():
            rate = plan.dataset.sampling_rate
            self.sampling.setText("" if rate is None else f"{rate:g}")
        self._syncing = False
        self.show_reading(plan.total.epsilon, plan.total.delta, plan.schema.neighbouring is Neighbouring.SUBSTITUTE)

        problem = None
        try:
            budgeted = self.document.budgeted()
        except WorkbenchError as exc:
            budgeted, problem = None, str(exc)
        selected = self.table.currentRow()
        count = len(plan.statistics)
        same_rows = self.table.rowCount() == count and tuple(p.statistic for p in plan.statistics) == self._sized_for
        shown = self._rows_in_view(count, selected) if in_view and same_rows else range(count)
        self.table.setRowCount(count)
        self._unfilled = set(range(count)).difference(shown)
        self.errors = [None] * count  # an unfilled row's until it is filled
        self._unfilled_for = plan
        for row in shown:
            self._show_row(row, plan, budgeted)
        for row, planned in enumerate(plan.statistics):
            self._show_controls(row, planned)
        if self._unfilled:
            self._fill_timer.start()
        else:
            self._fill_timer.stop()
        self._after_rows(plan, budgeted, selected, problem)

    def _rows_in_view(self, count: int, selected: int) -> set[int]:
        """The rows of the table in its view, and the selected one (its error is in the plot's title); all of them
        while the table is not shown. Row heights change only with the statistics (``fit_table``), not per move."""
        if not self.table.isVisible():
            return set(range(count))
        first = self.table.rowAt(0)
        last = self.table.rowAt(self.table.viewport().height() - 1)
        if first < 0:
            return set(range(count))
        rows = set(range(first, (last if last >= 0 else count - 1) + 1))
        if 0 <= selected < count:
            rows.add(selected)
        return rows

    def _fill_rows(self) -> None:
        """The rows a slider move left out of view, brought up to date: when the slider rests, or as soon as the
        table scrolls, is resized or a row is selected."""
        self._fill_timer.stop()
        if not self._unfilled:
            return
        plan = self.document.plan
        if plan is not self._unfilled_for or self.table.rowCount() != len(plan.statistics):
            self.recompute()  # the plan changed since: all of it again
            return
        try:
            budgeted = self.document.budgeted()
        except WorkbenchError:
            budgeted = None
        rows, self._unfilled = sorted(self._unfilled), set()
        for row in rows:
            self._show_row(row, plan, budgeted)

    def _show_row(self, row: int, plan, budgeted) -> None:
        """The texts of one row of the table (its controls apart), and its error in ``errors``."""
        planned = plan.statistics[row]
        size = plan.schema.public_size or plan.dataset.size_estimate
        shown = budgeted.statistics[row] if budgeted else planned
        epsilon_text, error_text, relative_text, reliable_text = f"{shown.budget.epsilon:.3g}", "—", "", ""
        error_detail = ""  # the error cell's tooltip, where it says more than the cell
        error = None
        try:
            if isinstance(shown, PlannedSynthetic):  # ± rows per one-way cell, and each marginal's expected TVD
                error_text, relative_text = synthetic_words(synthetic_preview(shown, plan.schema, size,
                                                                              plan.confidence))
            else:
                error_text, error_detail, relative_text, reliable_text, error = self._statistic_words(
                    shown, plan, size)
        except WorkbenchError as exc:
            error_text, error_detail = f"⚠ {exc}", ""
        self.errors[row] = error
        items = [planned.statistic.label, None, None, epsilon_text, error_text, relative_text, None, None, reliable_text]
        for column, text in enumerate(items):
            if text is None:
                continue
            item = self.table.item(row, column)
            if item is None:
                item = QTableWidgetItem()
                self.table.setItem(row, column, item)
            tip = error_detail if column == 4 and error_detail else text
            if item.text() != text or item.toolTip() != tip:
                item.setText(text)
                item.setToolTip(tip)

    def _statistic_words(self, shown, plan, size) -> tuple[str, str, str, str, float]:
        """A statistic's planned error in words: (error, what the error cell's tooltip says more (or ''), relative
        error, reliable from, the error itself)."""
        relative_text, error_detail = "", ""
        error = expected_error(shown, plan.schema, size, plan.confidence, verified=False)
        error_text = error_words(error, shown.statistic.error_unit) if math.isfinite(error) else "needs a size estimate"
        basis = error_basis(shown, plan.schema, size)
        if (shown.statistic.by or shown.statistic.weighted_by) and basis and math.isfinite(error):
            error_text += f"\n({basis})"
            caveat = smallest_group_caveat(shown)
            error_detail = f"{error_text}; {caveat}" if caveat else ""
        interval = interval_words(shown, plan.schema, size, plan.confidence)
        if interval:  # the cell stays narrow: the width in the cell, what it costs in the tooltip
            error_detail = (error_detail or error_text) + interval[1]
            error_text += interval[0]
        reference, words = relative_reference(shown.statistic, plan.schema, size)
        if reference and math.isfinite(error):
            relative_text = f"{100 * error / reference:.3g}% {words}"
        else:
            relative_text = words if not reference else ""
        reliable_text = reliable_from_words(shown, error, plan)
        if reliable_text:
            reliable_text += f"\n(CV ≤ {plan.reliability.caution_above:.1%})"
        return error_text, error_detail, relative_text, reliable_text, error

    def _after_rows(self, plan, budgeted, selected: int, problem: str | None) -> None:
        wanted = selected if 0 <= selected < len(plan.statistics) else 0
        if plan.statistics and (selected != wanted or not self.table.selectionModel().isRowSelected(wanted)):
            self.table.selectRow(wanted)
        shape = tuple(p.statistic for p in plan.statistics)
        if shape != self._sized_for:
            self._sized_for = shape
            self.fit_table()

        cost, problem_text = None, None
        if budgeted is not None:
            try:
                cost = compose(budgeted.events(verified=False), delta=budgeted.total.delta, tight=False)
            except WorkbenchError as exc:
                problem_text = str(exc)
        else:
            problem_text = problem
        self.budget.show_plan(budgeted or plan, cost, problem_text)
        if cost is not None:
            self._tight_timer.start()
        self.draw_noise()

    def fit_table(self) -> None:
        """Columns sized to their contents, then the statistic's name narrowed (it wraps) until the table needs no
        horizontal scroll; rows as tall as their wrapped text."""
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        widths = {c: header.sectionSize(c) for c in range(self.table.columnCount())}
        excess = sum(widths.values()) - self.table.viewport().width() + 2  # its frame: no scroll bar for 2 pixels
        while excess > 0:  # narrow the widest text column (the name last); its words wrap onto more lines
            narrowable = [c for c in WRAPPED if widths[c] > (NAME_WIDTH if c == 0 else TEXT_WIDTH)]
            if not narrowable:
                break
            widest = max(narrowable, key=lambda c: widths[c])
            step = min(excess, 8, widths[widest] - (NAME_WIDTH if widest == 0 else TEXT_WIDTH))
            widths[widest] -= step
            excess -= step
        if excess < 0:  # room left: to the statistic's name, whose whole label is read most
            widths[0] -= excess
        for column in WRAPPED:
            header.resizeSection(column, widths[column])
        self.table.resizeRowsToContents()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fill_rows()  # rows come into view, and are sized to their texts
            self.fit_table()  # the window, or the splitter beside the budget, gave the table another width
        elif watched is self.slider and event.type() == QEvent.Type.FocusOut:
            self._run = None  # the keys' next step on the slider is a step of its own
        return super().eventFilter(watched, event)

    def show_tightest(self) -> None:
        """The plan's cost by the tightest valid accountant, with verified noise scales."""
        try:
            budgeted = self.document.budgeted()
            cost = budgeted.guarantee()
        except WorkbenchError:
            return
        self.budget.show_plan(budgeted, cost, tight=True)

    def _show_controls(self, row: int, planned) -> None:
        """The weight and lock of a row; existing widgets are updated in place so focus stays."""
        if self._controls_for.get(row) is planned and isinstance(self.table.cellWidget(row, 7), QLineEdit):
            return  # the slider moved the total only: this row's statistic is the same object as before
        self._controls_for[row] = planned
        weight, lock = self.table.cellWidget(row, 1), self.table.cellWidget(row, 2)
        if not isinstance(weight, QDoubleSpinBox) or not isinstance(lock, QCheckBox):
            weight, lock = QDoubleSpinBox(), QCheckBox()
            weight.setRange(0.01, 1000)
            weight.valueChanged.connect(lambda v, r=row: self._weight_changed(r, v))
            lock.setToolTip("Keep this statistic's ε fixed while the total moves.")
            lock.toggled.connect(lambda on, r=row: self._lock_changed(r, on))
            self.table.setCellWidget(row, 1, weight)
            self.table.setCellWidget(row, 2, lock)
        for widget in (weight, lock):
            widget.blockSignals(True)
        shown_weight = planned.weight if planned.weight is not None else 1.0
        if weight.value() != shown_weight:  # setting an unchanged value still costs a repaint per row
            weight.setValue(shown_weight)
        weight.setAccessibleName(f"weight of {planned.statistic.label}")
        if lock.isChecked() != (planned.weight is None):
            lock.setChecked(planned.weight is None)
        lock.setAccessibleName(f"lock ε of {planned.statistic.label}")
        for widget in (weight, lock):
            widget.blockSignals(False)
        target = self.table.cellWidget(row, 6)
        if not isinstance(target, QLineEdit):
            target = QLineEdit()
            target.setPlaceholderText("by weight")
            target.editingFinished.connect(lambda r=row, f=target: self._target_changed(r, f))
            self.table.setCellWidget(row, 6, target)
        target.setAccessibleName(f"accuracy target of {planned.statistic.label}")
        if not target.hasFocus():
            target.setText("" if planned.target_error is None else f"{planned.target_error:g}")
        lock.setEnabled(planned.target_error is None)
        weight.setEnabled(planned.weight is not None and planned.target_error is None)
        smallest = self.table.cellWidget(row, 7)
        if not isinstance(smallest, QLineEdit):
            smallest = QLineEdit()
            smallest.editingFinished.connect(lambda r=row, f=smallest: self._smallest_changed(r, f))
            self.table.setCellWidget(row, 7, smallest)
        grouped = bool(planned.statistic.by)
        if isinstance(planned, PlannedSynthetic):  # its ε is fixed or shared by weight; no accuracy target
            target.setEnabled(False)
            target.setPlaceholderText("")
            target.setToolTip("A synthetic table's ε is set by its weight or fixed; its preview is in the Error "
                              "column.")
        smallest.setEnabled(grouped)
        smallest.setPlaceholderText("average group" if grouped else "")
        smallest.setToolTip(
            "The rows of the smallest group you will publish, known without looking at the data (for example "
            "from the census). The error and any target are then for that group; larger groups get smaller errors."
            if grouped else "Only for a statistic by group."
        )
        smallest.setAccessibleName(f"smallest group of {planned.statistic.label}")
        if not smallest.hasFocus():
            smallest.setText("" if planned.smallest_group is None else str(planned.smallest_group))

    def _draw_synthetic(self, planned: PlannedSynthetic) -> None:
        """The noise of every one-way cell of a synthetic table (its scale is OpenDP's, from public inputs)."""
        plan = self.document.plan
        preview = synthetic_preview(planned, plan.schema, plan.schema.public_size or plan.dataset.size_estimate,
                                    plan.confidence)
        cost = planned.cost(verified=False)
        kind = "gaussian" if cost.rho is not None else "laplace"
        # its own ε and δ, as every statistic's title states them (δ where it is not 0), and ρ, what OpenDP spends
        measure = (f"ε = {cost.epsilon:.3g}" + (f", δ = {cost.delta:.2g}" if cost.delta else "")
                   + (f", ρ = {cost.rho:.3g} zCDP" if cost.rho is not None else ""))
        worst = (f" Expected total variation distance of each one-way marginal: "
                 + ", ".join(f"{name} {distance:.1%}" for name, distance in preview.distances) + "."
                 if preview.distances else " Give a size estimate to see each marginal's expected error.")
        self.plot_title.setText(  # before the plot: see ``draw_noise``
            f"Noise of each one-way cell of <b>{planned.statistic.label}</b> ({kind}, {measure}; half of its budget): "
            f"{plan.confidence * 100:g}% of draws fall between the red lines (± {released_error(preview.per_cell)} rows)."
            f"{worst} The pairs "
            "the algorithm measures get the other half."
        )
        span = max(1.6 * preview.per_cell, 3.0)
        steps = np.linspace(-span, span, 401)
        probability = noise_probability(kind, preview.scale, steps)
        self.curve.setData(steps, probability)
        top = float(probability.max()) * 1.05
        self._set_range(span, top)
        self._show_edges(preview.per_cell, top)
        self._label_axis("bottom", STATISTIC_AXIS)
        self._label_axis("left", PROBABILITY)

    def _clear_plot(self) -> None:
        self.curve.setData([], [])
        self.edges.setData([], [])

    def _set_range(self, span: float, top: float) -> None:
        """The plot from -``span`` to ``span`` and from 0 to ``top``, the view's transform set at once: pyqtgraph set
        it as the plot began to paint, where the curves it moved asked for a second paint of the view on every move."""
        self.plot.setRange(xRange=(-span, span), yRange=(0.0, top), padding=0.02)
        self.plot.getViewBox().updateMatrix()

    def _show_edges(self, edge: float, top: float) -> None:
        """The red lines at -``edge`` and ``edge``, from below the plot's range to above it (``top`` is its top)."""
        self.edges.setData([-edge, -edge, edge, edge], [-top, 2 * top, -top, 2 * top])

    def _label_axis(self, side: str, text: str) -> None:
        if self.plot.getAxis(side).labelText != text:  # laying the axis out again costs a frame
            self.plot.setLabel(side, text)

    def draw_noise(self) -> None:
        row = self.table.currentRow()
        if row in self._unfilled:  # selected before it scrolled into view: its error is in the title
            self._fill_rows()
        plan = self.document.plan
        if not 0 <= row < len(plan.statistics):
            self._clear_plot()
            return
        try:
            planned = self.document.budgeted().statistics[row]
            if isinstance(planned, PlannedSynthetic):
                self._draw_synthetic(planned)
                return
            noise = planned.noises(plan.schema, verified=False)[0]
            queries = planned.statistic.queries(plan.schema)
            unit = queries[0].unit
        except (WorkbenchError, IndexError):
            self.plot_title.setText("No noise to show for this statistic yet.")
            self._clear_plot()
            return
        halfwidth = noise.halfwidth(plan.confidence)
        # the title first: its text is measured (its label's layout request) before the plot's change, which repaints
        # the window at once; set after it, the title was measured after that repaint and painted a second time
        self.plot_title.setText(self._noise_title(row, planned, noise, queries, halfwidth, unit))
        span = max(1.6 * halfwidth, 3.0)
        steps = np.linspace(-span, span, 401)
        # P(noise = k) per unit of the axis: a density where one step k is worth ``unit`` (a sum's fine grid)
        probability = noise_probability(noise.kind.value, noise.scale, steps) / unit
        self.curve.setData(steps * unit, probability)
        top = float(probability.max()) * 1.05
        self._set_range(span * unit, top)
        self._show_edges(halfwidth * unit, top)
        derived = planned.statistic.computed_from_noisy_sums
        ranks = planned.statistic.error_unit == "ranks"
        self._label_axis("bottom", RANK_AXIS if ranks else SUM_AXIS if derived else STATISTIC_AXIS)
        self._label_axis("left", RANK_CHANCE if ranks else PROBABILITY if unit == 1 else DENSITY)

    def _noise_title(self, row: int, planned: PlannedStatistic, noise: Noise, queries: Sequence[Query],
                     halfwidth: int, unit: float) -> str:
        """The plot's title: the statistic's mechanism, and the noise's ``halfwidth`` (in steps of ``unit``) at the
        plan's confidence."""
        share = f"{self.document.plan.confidence * 100:g}%"
        if planned.statistic.error_unit == "ranks":
            return (
                f"<b>{planned.statistic.label}</b> (exponential mechanism, ε = {noise.epsilon:.3g} per level): how "
                "likely a point is to be taken, by how many rows its rank is from the level's. Whatever the data, "
                f"the released value's rank is within the red lines (± {released_error(halfwidth)} rows) {share} of the time."
            )
        mechanism = f"{noise.kind.value}, ε = {noise.epsilon:.3g}{f', δ = {noise.delta:.2g}' if noise.delta else ''}"
        if not planned.statistic.computed_from_noisy_sums:
            return (
                f"Noise of <b>{planned.statistic.label}</b> ({mechanism}): {share} of draws fall between the red lines "
                f"(± {released_error(halfwidth * unit)})."
            )
        error = self.errors[row] if row < len(self.errors) else None
        own = f"± {released_error(error)}, as in the table" if error is not None and math.isfinite(error) else "in the table"
        return (
            f"Noise added to the <b>{queries[0].name}</b>, one of the measurements <b>{planned.statistic.label}</b> is "
            f"computed from ({', '.join(query.name for query in queries)}; {mechanism}): {share} of draws fall between "
            f"the red lines (± {released_error(halfwidth * unit)}, in the units of the sum). The statistic's own error is "
            f"{own}."
        )


_INVALID = object()  # what ``_typed_number`` returns for text it refuses


def _typed_number(field: QLineEdit, valid: Callable[[float], bool], problem: str) -> float | None | object:
    """The number typed in ``field`` (None when empty), or ``_INVALID`` with the field marked and ``problem`` as tip."""
    try:
        value = parse_number(field.text())
        if value is not None and not valid(value):
            raise ValueError(field.text())
    except ValueError:
        field.setStyleSheet("background-color: #ffd6d6; color: #000000;")
        field.setToolTip(problem)
        return _INVALID
    field.setStyleSheet("")
    return value


def interval_words(planned, schema, size: float | None, confidence: float) -> tuple[str, str]:
    """For a quantile with its interval (issue 37, 3): the words for the error cell (the interval's planned width
    in the column's units) and for its tooltip (with what the interval costs the value); empty otherwise."""
    preview = getattr(planned.statistic, "interval_preview", None)
    if preview is None:
        return ("", "")
    rows = group_size(planned, schema, size)
    found = preview(planned.noises(schema, verified=False), schema, rows, confidence)
    if found is None:
        return ("", "")
    return (interval_preview_words(found, rows, short=True), interval_preview_words(found, rows))
