"""Step 6: how good a released synthetic table is. Each marginal the algorithm measured, with the total variation
distance between the synthetic rows and the noisy measurement, a bar chart of one of them (synthetic beside
measured), and the plain warnings: relationships not measured are not preserved; the file holds no real person.
Everything shown is released (DP) or public: the real rows are never compared with anything."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from workbench.core.release import ReleasedStatistic
from workbench.core.synthetic import synthetic_quality_lines

SYNTHETIC_BRUSH, MEASURED_BRUSH = pg.mkBrush("#1f5fa8"), pg.mkBrush("#e0a030")
SHOWN_CELLS = 40
LABELLED_TICKS = 10


class SyntheticQuality(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.choice = QComboBox()
        self.choice.setAccessibleName("marginal shown")
        self.choice.setToolTip("The marginal drawn: synthetic rows (blue) beside the noisy measurement (orange).")
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(150)
        self.plot.setMaximumHeight(240)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.setLabel("left", "share of rows")
        self.plot.addLegend(offset=(-10, 5))
        self.synthetic_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush=SYNTHETIC_BRUSH, name="synthetic rows")
        self.measured_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush=MEASURED_BRUSH, name="measured (noisy)")
        self.plot.addItem(self.synthetic_bars)
        self.plot.addItem(self.measured_bars)
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Marginal:"))
        chooser.addWidget(self.choice, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.words)
        layout.addLayout(chooser)
        layout.addWidget(self.plot)
        self.marginals: list[dict] = []
        self.choice.currentIndexChanged.connect(self.draw)
        self.hide()

    def show_statistic(self, statistic: ReleasedStatistic | None) -> None:
        if statistic is None or not statistic.synthetic:
            self.hide()
            return
        synthetic = statistic.synthetic
        lines = synthetic_quality_lines(synthetic)
        self.words.setText("<b>Synthetic microdata</b>: " + " ".join(f"<p>{_html(line)}</p>" for line in lines[:1])
                           + "".join(f"<p>⚠ {_html(line)}</p>" for line in synthetic.get("warnings", ())))
        self.marginals = sorted(synthetic.get("marginals", []),
                                key=lambda m: (not m["one_way"], -m["total_variation_distance"]))
        self.choice.blockSignals(True)
        self.choice.clear()
        for m in self.marginals:
            self.choice.addItem(f"{' × '.join(m['columns'])}: total variation distance "
                                f"{100 * m['total_variation_distance']:.2g}% of rows")
        self.choice.blockSignals(False)
        self.show()
        self.draw()

    def draw(self) -> None:
        index = self.choice.currentIndex()
        if not 0 <= index < len(self.marginals):
            return
        marginal = self.marginals[index]
        labels = marginal["labels"][:SHOWN_CELLS]
        x = np.arange(len(labels))
        self.synthetic_bars.setOpts(x=x - 0.2, height=marginal["synthetic"][:SHOWN_CELLS])
        self.measured_bars.setOpts(x=x + 0.2, height=marginal["measured"][:SHOWN_CELLS])
        every = max(1, -(-len(labels) // LABELLED_TICKS))  # at most about a dozen labels, never overlapping
        self.plot.getAxis("bottom").setTicks([[(i, label) for i, label in enumerate(labels) if i % every == 0]])
        self.plot.setTitle(f"{' × '.join(marginal['columns'])}: synthetic beside measured"
                           + (f" (first {SHOWN_CELLS} of {len(marginal['labels'])} cells)"
                              if len(marginal["labels"]) > SHOWN_CELLS else ""), size="9pt")
        self.plot.autoRange()


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
