"""The report's pictures, drawn with matplotlib (no display, no Qt) as PNG bytes that the HTML
and PDF renderers both embed. Everything drawn is released or public: released values with
their error bars, noise distributions from public scales, and the privacy profile."""

from __future__ import annotations

import io
import math
from typing import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from workbench.core.privacy import MechanismEvent, quantile_rank_halfwidth

DPI = 150
BLUE, GREY = "#1f5fa8", "#666666"


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def bars_with_errors(labels: Sequence[str], values: Sequence[float], errors: Sequence[float], title: str) -> bytes:
    """Released cells as bars, with their error bounds as error bars."""
    width = min(max(4.5, 0.45 * len(labels) + 1.5), 9.0)
    figure = Figure(figsize=(width, 3.0))
    axes = figure.add_subplot()
    positions = np.arange(len(labels))
    axes.bar(positions, values, color=BLUE, alpha=0.8)
    axes.errorbar(positions, values, yerr=errors, fmt="none", ecolor="black", capsize=3, linewidth=1)
    axes.axhline(0, color=GREY, linewidth=0.6)
    axes.set_xticks(positions, labels, rotation=45 if len(labels) > 4 or max(map(len, labels), default=0) > 10 else 0,
                    ha="right" if len(labels) > 4 else "center", fontsize=8)
    axes.set_title(title, fontsize=10)
    axes.tick_params(axis="y", labelsize=8)
    axes.grid(axis="y", alpha=0.3)
    return _png(figure)


def paired_bars(labels: Sequence[str], synthetic: Sequence[float], measured: Sequence[float], title: str) -> bytes:
    """A synthetic table's marginal (shares) beside the noisy measured one, cell by cell."""
    width = min(max(4.5, 0.35 * len(labels) + 1.5), 9.0)
    figure = Figure(figsize=(width, 2.8))
    axes = figure.add_subplot()
    positions = np.arange(len(labels))
    axes.bar(positions - 0.2, synthetic, width=0.4, color=BLUE, label="synthetic rows")
    axes.bar(positions + 0.2, measured, width=0.4, color="#e0a030", label="measured (noisy)")
    axes.set_xticks(positions, labels, rotation=45 if len(labels) > 4 or max(map(len, labels), default=0) > 10 else 0,
                    ha="right" if len(labels) > 4 else "center", fontsize=7)
    axes.set_ylabel("share of rows", fontsize=8)
    axes.set_title(title, fontsize=10)
    axes.tick_params(axis="y", labelsize=8)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=7)
    return _png(figure)


def quantiles_with_errors(
    levels: Sequence[float],
    values: Sequence[float],
    level_error: float | None,
    title: str,
    unit_label: str,
    intervals: Sequence[tuple[float, float]] | None = None,
) -> bytes:
    """Released quantiles against their levels. ``level_error`` (the rank bound divided by a
    released count) is drawn sideways: the released value is the true quantile of some level
    within that distance. ``intervals`` (lower, upper), where released, are drawn upright in the
    column's units: each holds the true quantile of its level."""
    figure = Figure(figsize=(5.5, 3.0))
    axes = figure.add_subplot()
    xerr = None if level_error is None else [level_error] * len(levels)
    yerr = None
    if intervals is not None:
        yerr = [[max(v - lower, 0.0) for v, (lower, _) in zip(values, intervals)],
                [max(upper - v, 0.0) for v, (_, upper) in zip(values, intervals)]]
    axes.errorbar(levels, values, xerr=xerr, yerr=yerr, fmt="o", color=BLUE, ecolor="black", capsize=3, linewidth=1)
    axes.set_xlim(0, 1)
    axes.set_xlabel("level", fontsize=8)
    axes.set_ylabel(unit_label, fontsize=8)
    axes.set_title(title, fontsize=10)
    axes.tick_params(labelsize=8)
    axes.grid(alpha=0.3)
    return _png(figure)


def noise_distributions(events: Sequence[MechanismEvent], confidence: float, title: str) -> bytes:
    """The distribution of the noise added to each query, in the statistic's units (a
    selection's acceptance probability by rank distance for quantiles, with its own rank bound:
    an interval's ends are selected at a larger scale than the values)."""
    shown = list(events)[:3]
    figure = Figure(figsize=(6.0, 2.2))
    for i, event in enumerate(shown):
        axes = figure.add_subplot(1, len(shown), i + 1)
        _draw_noise(axes, event, confidence)
        axes.set_title(event.label, fontsize=8)
        axes.tick_params(labelsize=7)
        axes.locator_params(axis="x", nbins=4)
        axes.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
        axes.xaxis.get_offset_text().set_fontsize(7)
        axes.set_yticks([])
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return _png(figure)


def _draw_noise(axes, event: MechanismEvent, confidence: float) -> None:
    if event.scale <= 0:
        axes.text(0.5, 0.5, "no noise", ha="center", va="center", transform=axes.transAxes)
        return
    if event.mechanism == "exponential":
        bound = quantile_rank_halfwidth(event.scale, confidence)
        ranks = np.linspace(0, max(bound * 1.3, 1.0), 200)
        axes.plot(ranks, np.exp(-ranks / event.scale), color=BLUE)
        axes.axvline(bound, color="black", linestyle="--", linewidth=0.8)
        axes.set_xlabel(f"ranks worse than the best\n(dashed: {confidence:.0%} bound)", fontsize=7)
        return
    steps = event.scale / event.unit  # the noise scale in integer steps
    reach = 4.5 * steps
    ks = np.arange(-math.ceil(reach), math.ceil(reach) + 1) if reach < 400 else np.linspace(-reach, reach, 801)
    if event.mechanism == "gaussian":
        weights = np.exp(-(ks**2) / (2 * steps**2))
    else:
        weights = np.exp(-np.abs(ks) / steps)
    weights = weights / weights.sum()
    x = ks * event.unit
    if reach < 40:
        axes.vlines(x, 0, weights, color=BLUE, linewidth=2)
    else:
        axes.fill_between(x, weights, color=BLUE, alpha=0.6, linewidth=0)
    axes.set_xlabel(f"{event.mechanism}, scale {event.scale:.3g}", fontsize=7)


def privacy_profile(points: Sequence[tuple[float, float]], spent: tuple[float, float]) -> bytes:
    """ε' against δ': every pair the release satisfies; the stated guarantee marked."""
    figure = Figure(figsize=(5.5, 3.0))
    axes = figure.add_subplot()
    positive = [(d, e) for d, e in points if d > 0 and math.isfinite(e)]  # no finite ε′ below the events' own δ
    axes.plot([d for d, _ in positive], [e for _, e in positive], "o-", color=BLUE, markersize=3, label="(ε′, δ′) the release satisfies")
    axes.set_xscale("log")
    epsilon, delta = spent
    if delta > 0:
        axes.plot([delta], [epsilon], "s", color="black", label=f"stated: ε = {epsilon:.3g}, δ = {delta:.2g}")
    else:
        axes.axhline(epsilon, color="black", linestyle="--", linewidth=0.8, label=f"stated: ε = {epsilon:.3g}, δ = 0")
    axes.set_xlabel("δ′", fontsize=8)
    axes.set_ylabel("ε′", fontsize=8)
    axes.set_ylim(bottom=0)
    axes.set_title("Privacy profile of this release", fontsize=10)
    axes.tick_params(labelsize=8)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7)
    return _png(figure)
