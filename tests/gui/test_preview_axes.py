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
    plot = pg.PlotWidget(axisItems={"bottom": SteadyLabelAxis("bottom")})
    qtbot.addWidget(plot)
    plot.resize(600, 200)
    plot.show()
    axis = plot.getAxis("bottom")
    axis.setTicks([[(0.0, "zero"), (0.5, "half")]])
    plot.setRange(xRange=(-1, 1), padding=0)
    specs = _specs(axis, SteadyLabelAxis.generateDrawSpecs)
    assert specs == _specs(axis, pg.AxisItem.generateDrawSpecs) and [t[2] for t in specs[2]] == ["zero", "half"]
