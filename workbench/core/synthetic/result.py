"""What a synthetic release gives back: its rows and its quality figures (the marginals beside each other)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from workbench.core.synthetic.table import SyntheticTable


@dataclass(frozen=True)
class Marginal:
    """One marginal of the synthetic table beside the noisy one the algorithm measured (shares of rows)."""

    columns: tuple[str, ...]
    labels: tuple[str, ...]  # each cell: 'North' or 'North / female'
    synthetic: tuple[float, ...]  # shares of the synthetic rows
    measured: tuple[float, ...]  # the noisy measured counts, negative ones set to 0, as shares
    distance: float  # total variation distance between the two
    noise: float  # the standard deviation of each measured cell's noise (rows)
    one_way: bool

    def to_json(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "labels": list(self.labels), "synthetic": list(self.synthetic),
                "measured": list(self.measured), "total_variation_distance": self.distance,
                "noise_standard_deviation": self.noise, "one_way": self.one_way}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Marginal":
        return cls(tuple(data["columns"]), tuple(data["labels"]), tuple(float(v) for v in data["synthetic"]),
                   tuple(float(v) for v in data["measured"]), float(data["total_variation_distance"]),
                   float(data["noise_standard_deviation"]), bool(data["one_way"]))


@dataclass(frozen=True)
class SyntheticResult:
    """What a synthetic release gives: the rows (private to nobody: drawn from a DP model, but never stored in
    the ledger) and the quality figures (which are)."""

    table: SyntheticTable
    frame: pd.DataFrame = field(repr=False)
    marginals: tuple[Marginal, ...]
    oneway_scale: float  # OpenDP's noise scale of each one-way cell
    counted_rows: float  # the rows the measured marginals add up to (a noisy count)
    capped: bool  # the counted rows were more than a synthetic file holds: MAX_ROWS were written

    @property
    def rows(self) -> int:
        return len(self.frame)


def synthetic_quality_lines(synthetic: dict) -> tuple[str, ...]:
    """How good a synthetic table is, in words: what it holds, what each distance means, what it does not keep."""
    marginals = synthetic.get("marginals", [])
    one_way = [m for m in marginals if m["one_way"]]
    more = [m for m in marginals if not m["one_way"]]
    rows = synthetic.get("rows", 0)
    counted = synthetic.get("rows_counted")
    asked = synthetic.get("rows_asked")
    how_many = (f"{rows:,} rows, as asked" if asked is not None else
                f"{rows:,} rows: as many as the measured marginals add up to (a noisy count)"
                + (", capped at the most a file holds" if synthetic.get("rows_capped") else ""))
    numeric = ("a numeric column as its interval" if synthetic.get("numeric_values") == "interval" else
               "a numeric column as a value drawn uniformly in its interval")
    worst = max((m["total_variation_distance"] for m in one_way), default=0.0)
    lines = [
        f"The synthetic table (synthetic.csv) has {how_many}, and the columns {', '.join(synthetic['columns'])}; "
        f"{numeric}.",
        "Quality: each line of the table above is a marginal the algorithm measured, with the total variation "
        "distance (TVD) between the synthetic rows' shares and the noisy measured shares, in % of rows: half the sum "
        "of their differences, from 0% (identical) to 100% (nothing in common); 1% means 1% of the rows would have to "
        f"move to another cell. The largest one-way distance is {100 * worst:.2g}%. The measured shares themselves differ from the "
        f"true ones by the noise: each one-way cell's noise has a standard deviation of about "
        f"{one_way[0]['noise_standard_deviation']:.3g} rows." if one_way else "",
        (f"Relationships measured: {', '.join(' × '.join(m['columns']) for m in more)}." if more else
         "No relationship between columns was measured."),
        *synthetic.get("warnings", ()),
    ]
    if counted is not None and asked is not None:
        lines.append(f"The measured marginals add up to about {counted:,.0f} rows (a noisy count).")
    return tuple(line for line in lines if line)
