"""Draw packaging/dp-workbench.png (256 px): a Laplace density over a table grid. Run once; the PNG is committed."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

figure = plt.figure(figsize=(2.56, 2.56), dpi=100)
axes = figure.add_axes([0, 0, 1, 1])
axes.set_xlim(0, 1)
axes.set_ylim(0, 1)
axes.axis("off")
axes.add_patch(FancyBboxPatch((0.04, 0.04), 0.92, 0.92, boxstyle="round,pad=0,rounding_size=0.16", color="#1f4e79"))
for y in (0.28, 0.40, 0.52):
    axes.plot([0.16, 0.84], [y, y], color="#9fc5e8", linewidth=3, solid_capstyle="round")
x = np.linspace(0.12, 0.88, 400)
axes.fill_between(x, 0.2, 0.2 + 0.58 * np.exp(-np.abs(x - 0.5) / 0.09), color="#f6b26b", alpha=0.95)
axes.text(0.5, 0.09, "DP", color="white", ha="center", va="bottom", fontsize=26, fontweight="bold")
figure.savefig(Path(__file__).with_name("dp-workbench.png"), transparent=True)
