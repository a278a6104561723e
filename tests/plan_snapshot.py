"""Everything a release computes that does not depend on the noise, as plain JSON.

For the sample plan and a plan that uses every statistic, mechanism and post-processing:
the plan as read, its events and total (ε, δ), each statistic's queries and calibrated
noise (scale, sensitivity, ε, δ), its exact answers, the previews' error bounds, and the
cells that estimation and post-processing make when the "noisy" answers are the exact
ones. OpenDP cannot be seeded, so the noisy values themselves are left out.

``tests/data/plan_snapshot.json`` was written by this module before the core was split
into packages (issue 20); ``test_plan_snapshot.py`` checks the split changed none of it.
Run ``python tests/plan_snapshot.py`` to print the snapshot.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.data.io import Table, load_table
from workbench.core.data.prepare import prepare
from workbench.core.release.plan import ReleasePlan
from workbench.core.release.planner import budget_plan, expected_error, group_size

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "resources" / "sample"
SNAPSHOT = Path(__file__).resolve().parent / "data" / "plan_snapshot.json"

EVERY_KIND_STATISTICS = [
    {"type": "count", "mechanism": "laplace", "epsilon": 0.1},
    {"type": "count", "by": "region", "mechanism": "gaussian", "epsilon": 0.2, "delta": 1e-7, "smallest_group": 3},
    {"type": "sum", "column": "wage", "mechanism": "laplace", "epsilon": 0.1},
    {"type": "sum", "column": "wage", "by": "sex", "mechanism": "gaussian", "epsilon": 0.1, "delta": 1e-7},
    {"type": "mean", "column": "wage", "mechanism": "laplace", "epsilon": 0.1},
    {"type": "mean", "column": "wage", "by": "region", "mechanism": "gaussian", "epsilon": 0.3, "delta": 1e-7},
    {"type": "variance", "column": "wage", "mechanism": "laplace", "epsilon": 0.2},
    {"type": "stddev", "column": "wage", "by": "employed", "mechanism": "laplace", "epsilon": 0.2},
    {"type": "histogram", "column": "region", "mechanism": "laplace", "epsilon": 0.1,
     "post_processing": {"round_to": 5, "clamp": True}},
    {"type": "histogram", "column": "wage", "edges": [500, 1000, 2000], "mechanism": "laplace", "epsilon": 0.1},
    {"type": "crosstab", "columns": ["region", "sex"], "by": "employed", "mechanism": "laplace", "epsilon": 0.1},
    {"type": "quantiles", "column": "wage", "levels": [0.25, 0.5, 0.9], "mechanism": "exponential", "epsilon": 0.3},
    {"type": "quantiles", "column": "wage", "by": "sex", "mechanism": "exponential", "epsilon": 0.1},
    {"type": "mean", "column": "wage", "mechanism": "laplace", "weight": 1},
    {"type": "histogram", "column": "ethnicity", "mechanism": "laplace", "target_error": 40},
]


def every_kind_plan_json() -> dict[str, Any]:
    """A plan on ``realistic_tables.labour_force`` with every statistic, mechanism and planner input."""
    from realistic_tables import ETHNICITIES, REGIONS, WAGE_BOUNDS

    return {
        "format": "dp-workbench-plan", "version": 1,
        "dataset": {"name": "Labour force (snapshot)", "size_estimate": 3000},
        "schema": {
            "columns": [
                {"name": "person", "kind": "identifier"},
                {"name": "region", "kind": "categorical", "categories": list(REGIONS), "outside": "other"},
                {"name": "state", "kind": "ignored"},
                {"name": "sex", "kind": "categorical", "categories": [0, 1], "outside": "drop"},
                {"name": "employed", "kind": "categorical", "categories": [0, 1], "outside": "drop"},
                {"name": "ethnicity", "kind": "categorical", "categories": list(ETHNICITIES), "outside": "other"},
                {"name": "wage", "kind": "numeric", "lower": WAGE_BOUNDS[0], "upper": WAGE_BOUNDS[1],
                 "missing": {"action": "drop"}},
            ],
            "privacy_unit": {"id_column": "person", "max_rows_per_person": 2},
            "neighbouring": "substitute", "public_size": 3000,
        },
        "statistics": EVERY_KIND_STATISTICS,
        "total_budget": {"epsilon": 3.0, "delta": 1e-6},
        "confidence": 0.9,
    }


def _plain(value: Any) -> Any:
    """JSON-able, with exact integers kept as integers and floats as their exact repr."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if hasattr(value, "to_json"):
        return _plain(value.to_json())
    if hasattr(value, "value") and not isinstance(value, (int, float, str, bool)):  # an Enum
        return value.value
    return value


def _cell(cell: Any) -> dict[str, Any]:
    return {"label": cell.label, "value": cell.value, "error": cell.error, "note": cell.note,
            "error_unit": cell.error_unit, "raw_value": cell.raw_value, "reliable": cell.reliable}


def snapshot_of(plan: ReleasePlan, table: Table) -> dict[str, Any]:
    plan = budget_plan(plan)
    plan.validate()
    schema, size = plan.schema, plan.dataset.size_estimate
    data = prepare(table, plan.used_schema())
    statistics = []
    for planned in plan.statistics:
        statistic = planned.statistic
        queries = statistic.queries(schema)
        noises = planned.noises(schema)
        entry: dict[str, Any] = {
            "plan": planned.to_json(),
            "label": statistic.label,
            "method": statistic.method(schema),
            "groups": list(statistic.groups(schema)),
            "possible_range": list(statistic.possible_range(schema)),
            "queries": [{"name": q.name, "unit": q.unit, "scalar": q.scalar} for q in queries],
            "noises": [{"kind": n.kind.value, "sensitivity": n.sensitivity, "scale": n.scale,
                        "epsilon": n.epsilon, "delta": n.delta, "halfwidth": n.halfwidth(plan.confidence)}
                       for n in noises],
            "preview_size": group_size(planned, schema, size),
            "preview_error": expected_error(planned, schema, size, plan.confidence),
            "post_processing": planned.post.describe(statistic, schema),
        }
        if hasattr(statistic, "candidates"):
            candidates = statistic.candidates(schema)
            entry["candidates"] = [len(candidates), candidates[0], candidates[len(candidates) // 2], candidates[-1]]
            entry["error_bound"] = statistic.error_bound(noises, schema, None, plan.confidence)
        else:
            exact = statistic.exact(data)
            entry["exact"] = [list(answers) for answers in exact]
            as_if_noisy = [np.asarray(answers, dtype=object) for answers in exact]
            cells = statistic.estimate(as_if_noisy, noises, schema, plan.confidence)
            entry["cells"] = [_cell(c) for c in planned.post.apply(cells, statistic, schema)]
        statistics.append(entry)
    return _plain({
        "plan": plan.to_json(),
        "guarantee": plan.guarantee(),
        "events": plan.events(),
        "rows_prepared": len(data.frame),
        "statistics": statistics,
    })


def snapshot() -> dict[str, Any]:
    """The snapshot of the sample plan on the sample data, and of the every-kind plan on a generated table."""
    from realistic_tables import labour_force

    sample_plan = ReleasePlan.load(SAMPLE / "household_survey.plan.json")
    sample = load_table(SAMPLE / "household_survey.csv")
    frame = labour_force(3000, seed=20)
    table = Table(frame=frame, source=Path("labour_force.csv"), file_format="csv")
    return {
        "sample": snapshot_of(sample_plan, sample),
        "every_kind": snapshot_of(ReleasePlan.from_json(every_kind_plan_json()), table),
    }


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    text = json.dumps(snapshot(), indent=1, ensure_ascii=False)
    if len(sys.argv) > 1 and sys.argv[1] == "--write":
        SNAPSHOT.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
