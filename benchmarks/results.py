"""One measured comparison, and the table of all of them.

A result is our number next to a baseline measured in the same run on the same machine,
their ratio, and the target it is held to: a largest ratio, a largest value of ours, or
both. Targets are checked here and printed; no test asserts a time (machines are noisy).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Result:
    name: str  # what is measured, e.g. "CSV load: time"
    ours: float
    baseline: float
    unit: str  # of ours and baseline: "s", "ms", "MB", "ε", "error"
    baseline_name: str  # what the baseline is, e.g. "pandas.read_csv (C engine)"
    max_ratio: float | None = None  # target: ours / baseline at most this
    max_value: float | None = None  # target: ours at most this (in ``unit``)
    min_ratio: float | None = None  # target: ours / baseline at least this (e.g. ε within 1% of a reference)
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.ours / self.baseline if self.baseline else float("inf")

    @property
    def met(self) -> bool | None:
        """Whether every target holds; None where none is set (reported only)."""
        checks = []
        if self.max_ratio is not None:
            checks.append(self.ratio <= self.max_ratio)
        if self.min_ratio is not None:
            checks.append(self.ratio >= self.min_ratio)
        if self.max_value is not None:
            checks.append(self.ours <= self.max_value)
        return all(checks) if checks else None

    @property
    def target(self) -> str:
        parts = []
        if self.min_ratio is not None and self.max_ratio is not None:
            parts.append(f"{self.min_ratio:g}x–{self.max_ratio:g}x")
        elif self.max_ratio is not None:
            parts.append(f"≤ {self.max_ratio:g}x")
        elif self.min_ratio is not None:
            parts.append(f"≥ {self.min_ratio:g}x")
        if self.max_value is not None:
            parts.append(f"≤ {_number(self.max_value)} {self.unit}")
        return ", ".join(parts) or "reported"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio, "met": self.met, "target": self.target}


def _number(value: float) -> str:
    if value == 0 or 0.01 <= abs(value) < 1e5:
        return f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{value:.3g}"


def table(results: list[Result]) -> str:
    """The results as one plain-text table (also valid Markdown)."""
    rows = [("benchmark", "ours", "baseline", "ratio", "target", "met")]
    for r in results:
        met = {True: "yes", False: "NO", None: "–"}[r.met]
        rows.append((
            r.name,
            f"{_number(r.ours)} {r.unit}",
            f"{_number(r.baseline)} {r.unit} ({r.baseline_name})",
            f"{r.ratio:.2f}x",
            r.target,
            met,
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def run_alone(run: Callable[[bool, int | None], list[Result]], description: str, argv: list[str] | None = None) -> None:
    """A benchmark module run on its own (``python -m benchmarks.NAME [--quick] [--rows N]``): its table and notes."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rows", type=int)
    args = parser.parse_args(argv)
    results = run(args.quick, args.rows)
    print(table(results))
    for result in results:
        if result.note:
            print(f"- {result.name}: {result.note}")
