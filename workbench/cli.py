"""``dp-workbench``: the headless way to inspect a table, start a plan, and release it.

A thin layer over ``workbench.core``: the same functions the GUI calls. User errors are
printed as one paragraph and exit with status 2; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from pathlib import Path
from typing import Sequence

from workbench import __version__
from workbench.core.errors import WorkbenchError
from workbench.core.export import write_results
from workbench.core.io import ColumnKind, load_table, propose_kinds
from workbench.core.plan import ReleasePlan
from workbench.core.release import Release, release
from workbench.core.template import plan_template

EXIT_USER_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except WorkbenchError as exc:
        print(textwrap.fill(f"Error: {exc}", width=100), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dp-workbench",
        description="Prepare differentially private releases of a table, offline.",
    )
    parser.add_argument("--version", action="version", version=f"DP Workbench {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    inspect = commands.add_parser("inspect", help="list the columns of a data file and their proposed kinds")
    _data_arguments(inspect)
    inspect.set_defaults(run=_inspect)

    template = commands.add_parser("plan-template", help="write a starting plan whose bounds you fill in")
    _data_arguments(template)
    template.add_argument("--out", "-o", type=Path, help="plan file to write (default: DATA name + .plan.json)")
    template.add_argument("--epsilon", type=float, default=1.0, help="total ε of the plan (default 1.0)")
    template.add_argument("--force", action="store_true", help="overwrite an existing plan file")
    template.set_defaults(run=_template)

    run = commands.add_parser("release", help="release the statistics of a plan on a data file")
    _data_arguments(run)
    run.add_argument("--plan", "-p", type=Path, required=True, help="the plan file (JSON)")
    run.add_argument("--out", "-o", type=Path, required=True, help="folder for results.csv and results.json")
    run.set_defaults(run=_release)
    return parser


def _data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", type=Path, metavar="DATA", help="CSV, TSV, Excel, Parquet, SPSS, Stata or SAS file")
    parser.add_argument("--delimiter", help="the delimiter of a text file (detected if not given)")
    parser.add_argument("--encoding", help="the encoding of a text file (detected if not given)")
    parser.add_argument("--sheet", help="the sheet of an Excel workbook")


def _load(args: argparse.Namespace):
    delimiter = {"\\t": "\t", "tab": "\t"}.get(args.delimiter, args.delimiter)
    return load_table(args.data, delimiter=delimiter, encoding=args.encoding, sheet=args.sheet)


def _inspect(args: argparse.Namespace) -> int:
    table = _load(args)
    proposals = propose_kinds(table)
    details = f"{table.file_format}"
    if table.encoding:
        details += f", encoding {table.encoding}, delimiter {table.delimiter!r}"
    print(f"{table.source.name} ({details}): {len(proposals)} columns\n")
    rows = [("column", "stored as", "proposed kind", "why")]
    rows += [(p.name, p.storage, p.kind.value, p.reason) for p in proposals]
    _print_table(rows)
    labelled = [p for p in proposals if p.offered_categories]
    for proposal in labelled:
        print(f"\nCategories offered by the file's value labels for '{proposal.name}': {', '.join(proposal.offered_categories)}")
    print(
        "\nConfirm or change each kind in your plan. Bounds and categories must come from public knowledge, "
        "not from the data: `dp-workbench plan-template` writes a plan with places for them."
    )
    return 0


def _template(args: argparse.Namespace) -> int:
    table = _load(args)
    out = args.out or args.data.with_name(args.data.stem + ".plan.json")
    if out.exists() and not args.force:
        raise WorkbenchError(f"{out} already exists. Choose another name with --out, or add --force to replace it.")
    plan = plan_template(table, total_epsilon=args.epsilon)
    plan.save(out)
    numeric = [c.name for c in plan.schema.columns if getattr(c, "kind", "") == ColumnKind.NUMERIC.value]
    categorical = [c.name for c in plan.schema.columns if getattr(c, "kind", "") == ColumnKind.CATEGORICAL.value]
    print(f"Wrote {out}.")
    if numeric:
        print(f"Fill in 'lower' and 'upper' for: {', '.join(numeric)}.")
    empty = [c.name for c in plan.schema.columns if getattr(c, "categories", None) == ()]
    if empty:
        print(f"Fill in the public 'categories' for: {', '.join(empty)}.")
    elif categorical:
        print(f"Check the categories taken from the file's value labels for: {', '.join(categorical)}.")
    print("Then check the privacy unit, the statistics and their ε, and run `dp-workbench release`.")
    return 0


def _release(args: argparse.Namespace) -> int:
    plan = ReleasePlan.load(args.plan)
    plan.validate()  # refuse an unsound plan before opening the data
    table = _load(args)
    result = release(table, plan)
    csv_path, json_path = write_results(result, args.out)
    _print_release(result)
    print(f"\nWrote {csv_path} and {json_path}.")
    return 0


def _print_release(result: Release) -> None:
    percent = f"{result.confidence * 100:g}%"
    print(f"{result.dataset_name}: differentially private release")
    print(f"Privacy unit: {result.privacy_unit}; neighbours differ by {result.neighbouring}.\n")
    rows = [("statistic", "cell", "value", f"± ({percent})", "ε", "δ", "mechanism")]
    for statistic in result.statistics:
        for cell in statistic.cells:
            rows.append(
                (
                    statistic.label,
                    cell.label,
                    _format_value(cell.value, cell.error),
                    "n/a" if cell.error is None else _format_value(cell.error, cell.error),
                    f"{statistic.epsilon:g}",
                    f"{statistic.delta:g}",
                    statistic.mechanism,
                )
            )
            if cell.note:
                rows.append(("", f"  note: {cell.note}", "", "", "", "", ""))
    _print_table(rows, right=frozenset({2, 3, 4, 5}))
    total = result.guarantee
    print(f"\nTotal: ε = {total.epsilon:g}, δ = {total.delta:g} by {total.method}.")
    print(f"'±' is the half-width of an interval that holds the noise with {percent} probability.")


def _format_value(value: float | None, error: float | None) -> str:
    if value is None:
        return "n/a"
    if error is None or error <= 0 or not math.isfinite(error):
        digits = 0 if float(value).is_integer() else 2
    else:
        digits = max(0, 1 - math.floor(math.log10(error)))
    return f"{value:,.{digits}f}"


def _print_table(rows: list[tuple[str, ...]], right: frozenset[int] = frozenset()) -> None:
    """Print rows as aligned columns under a ruled header; columns in ``right`` align right."""
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [str(c).rjust(w) if i in right and n else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    sys.exit(main())
