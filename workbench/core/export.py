"""Write a Release as results.csv and results.json: released values and public context only."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

from workbench.core.errors import WorkbenchError
from workbench.core.release import Release

CSV_COLUMNS = ("statistic", "cell", "value", "error", "error_unit", "confidence", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity")


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
                    "error_unit": cell.error_unit or "value",
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
        table = io.StringIO(newline="")
        writer = csv.DictWriter(table, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(result_rows(result))
        _write_atomically(csv_path, table.getvalue())
        _write_atomically(json_path, json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        entry = (result.ledger or {}).get("entry")
        kept = f" The release is recorded in the ledger as entry {entry}: export it from there." if entry else ""
        raise WorkbenchError(
            f"The results cannot be written to {out}: {exc.strerror or exc}. Choose a folder you can write to.{kept}"
        ) from None
    return csv_path, json_path


def _write_atomically(path: Path, text: str) -> None:
    """Write beside ``path`` and rename over it: a reader sees the old file or the whole new one."""
    temporary = path.with_name(f".{path.name}.tmp")
    with temporary.open("w", encoding="utf-8", newline="") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
