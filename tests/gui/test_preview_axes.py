"""Step 5's plot axes (issue 39, 6): both are drawn anew at every ε-slider move, from pyqtgraph's specs computed by
``SteadyLabelAxis`` in about half pyqtgraph's time; these must be pyqtgraph's own, to the bit."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QPainter, QPicture

from workbench.gui.preview_page import SteadyLabelAxis


def _specs(axis, generate):
    picture = QPicture()
    painter = QPainter(picture)
    if axis.style["tickFont"]:
        painter.setFont(axis.style["tickFont"])
    specs = generate(axis, painter)
    painter.end()
    if specs is None:
        return None
    (pen, start, end), ticks, texts = specs
    point = lambda p: (p.x(), p.y())  # noqa: E731
    return ((pen, point(start), point(end)), [(pen, point(a), point(b)) for pen, a, b in ticks],
            [((r.x(), r.y(), r.width(), r.height()), int(flags), text) for r, flags, text in texts])


def test_the_axes_are_drawn_from_the_specs_pyqtgraph_gives(qtbot):
    plot = pg.PlotWidget(background="w", axisItems={side: SteadyLabelAxis(side) for side in
                                                   ("bottom", "left", "top", "right")})
    qtbot.addWidget(plot)
    plot.resize(906, 220)
    plot.show()
    plot.getAxis("left").setStyle(autoReduceTextSpace=False)
    plot.setLabel("bottom", "noise")
    rng = np.random.default_rng(39)
    for _ in range(60):  # spans from far below one to billions, as a statistic's units may have them
        span, top = 10 ** rng.uniform(-4, 9), 10 ** rng.uniform(-9, 1)
        plot.setRange(xRange=(-span, span), yRange=(0.0, top), padding=0.02)
        plot.getViewBox().updateMatrix()
        for side in ("bottom", "left", "top", "right"):
            axis = plot.getAxis(side)
            assert _specs(axis, SteadyLabelAxis.generateDrawSpecs) == _specs(axis, pg.AxisItem.generateDrawSpecs)


def test_the_tick_values_are_pyqtgraphs(qtbot):
    axis = SteadyLabelAxis("bottom")
    rng = np.random.default_rng(6)
    for _ in range(3000):
        low = rng.uniform(-1, 1) * 10 ** rng.uniform(-12, 12)
        high = low + rng.choice([1, -1]) * 10 ** rng.uniform(-12, 12)
        size = rng.uniform(1, 3000)
        assert axis.tickValues(low, high, size) == pg.AxisItem.tickValues(axis, low, high, size)


def test_an_axis_style_the_fast_specs_do_not_cover_gets_pyqtgraphs(qtbot):
    plot, axis = _shown_plot(qtbot, 600, 200)
    axis.setTicks([[(0.0, "zero"), (0.5, "half")]])
    plot.setRange(xRange=(-1, 1), padding=0)
    specs = _specs(axis, SteadyLabelAxis.generateDrawSpecs)
    assert specs == _specs(axis, pg.AxisItem.generateDrawSpecs) and [t[2] for t in specs[2]] == ["zero", "half"]


def test_tick_texts_measured_in_one_font_are_measured_again_in_another(qtbot):
    """The axis keeps each tick text's size per font: after the tick font changes, its specs are pyqtgraph's again."""
    from PySide6.QtGui import QFont

    plot, axis = _shown_plot(qtbot, 700, 220)
    plot.setRange(xRange=(-1234.5, 1234.5), padding=0)
    plot.getViewBox().updateMatrix()
    first = _specs(axis, SteadyLabelAxis.generateDrawSpecs)
    assert first == _specs(axis, pg.AxisItem.generateDrawSpecs)
    big = QFont()
    big.setPointSize(big.pointSize() * 3)
    axis.setStyle(tickFont=big)
    larger = _specs(axis, SteadyLabelAxis.generateDrawSpecs)
    assert larger == _specs(axis, pg.AxisItem.generateDrawSpecs) and larger != first


def _shown_plot(qtbot, width: int, height: int):
    """A plot shown at ``width`` x ``height`` whose bottom axis is ours, and that axis."""
    plot = pg.PlotWidget(axisItems={"bottom": SteadyLabelAxis("bottom")})
    qtbot.addWidget(plot)
    plot.resize(width, height)
    plot.show()
    return plot, plot.getAxis("bottom")
