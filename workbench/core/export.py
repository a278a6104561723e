"""Write a Release as results.csv and results.json: released values and public context only."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from workbench.core.errors import WorkbenchError
from workbench.core.release import Release

CSV_COLUMNS = ("statistic", "cell", "value", "error", "confidence", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity")


def result_rows(result: Release) -> list[dict[str, object]]:
    """One row per released cell, in plan order."""
    rows = []
    for statistic in result.statistics:
        scale = "; ".join(f"{n.label}: {n.scale:.6g}" for n in statistic.noise) or "none"
        sens = "; ".join(f"{n.label}: {n.sensitivity:.6g}" for n in statistic.noise) or "0"
        for cell in statistic.cells:
            rows.append(
                {
                    "statistic": statistic.label,
                    "cell": cell.label,
                    "value": "" if cell.value is None else cell.value,
                    "error": "" if cell.error is None else cell.error,
                    "confidence": result.confidence,
                    "epsilon": statistic.epsilon,
                    "delta": statistic.delta,
                    "mechanism": statistic.mechanism,
                    "noise_scale": scale,
                    "sensitivity": sens,
                }
            )
    return rows


def write_results(result: Release, out_dir: str | Path) -> tuple[Path, Path]:
    """Write results.csv and results.json into ``out_dir`` (created if needed)."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        csv_path, json_path = out / "results.csv", out / "results.json"
        with csv_path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(result_rows(result))
        json_path.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise WorkbenchError(
            f"The results cannot be written to {out}: {exc.strerror or exc}. Choose a folder you can write to."
        ) from None
    return csv_path, json_path
