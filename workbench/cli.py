"""``dp-workbench``: the headless way to inspect a table, start a plan, and release it.

A thin layer over ``workbench.core``: the same functions the GUI calls. User errors are
printed as one paragraph and exit with status 2; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import textwrap
from pathlib import Path
from typing import Sequence

from workbench.core.release import PrintVersion
from workbench.core.privacy import Guarantee, spent_in_words
from workbench.core.errors import WorkbenchError
from workbench.core.report import PAPER_SIZES, REPORT_FORMATS, write_report, write_results
from workbench.core.data import ColumnKind, load_table, propose_kinds
from workbench.core.release import Ledger
from workbench.core.release import ReleasePlan
from workbench.core.release import estimate_bounds, with_bounds
from workbench.core.release import check_categories
from workbench.core.release import (
    PRIVACY_TRADE_OFF, budget_plan, error_basis, expected_error, size_for_error, with_privacy,
)
from workbench.core.release import Release, release
from workbench.core.data import Neighbouring
from workbench.core.release import NEUTRAL_NAME, PROPOSAL_WORDS, plan_template

EXIT_USER_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except WorkbenchError as exc:
        lines = f"Error: {exc}".splitlines()  # a list of problems keeps its lines
        print("\n".join(textwrap.fill(line, width=100, subsequent_indent="  " if line.startswith("- ") else "")
                        for line in lines), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was piped into a program that stopped reading (| head)
        sys.stderr.close()
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dp-workbench",
        description="Prepare differentially private releases of a table, offline.",
    )
    parser.add_argument("--version", action=PrintVersion)
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    inspect = commands.add_parser("inspect", help="list the columns of a data file and their proposed kinds")
    _data_arguments(inspect)
    inspect.set_defaults(run=_inspect)

    template = commands.add_parser("plan-template", help="write a starting plan whose bounds you fill in")
    _data_arguments(template)
    template.add_argument("--out", "-o", type=Path, help="plan file to write (default: DATA name + .plan.json)")
    template.add_argument("--epsilon", type=float, default=1.0, help="total ε of the plan (default 1.0)")
    template.add_argument(
        "--delta", type=float, default=0.0,
        help="total δ: 0 (default) for pure ε-DP with Laplace noise; e.g. 1e-7 for (ε, δ)-DP with Gaussian noise, "
             "more accurate when there are many statistics",
    )
    template.add_argument("--name", default=NEUTRAL_NAME,
                          help=f"the dataset's name, as reports and the ledger show it (default '{NEUTRAL_NAME}'; "
                               "never taken from the file's name)")
    template.add_argument("--force", action="store_true", help="overwrite an existing plan file")
    template.set_defaults(run=_template)

    budget = commands.add_parser(
        "plan-budget", help="fill in ε from accuracy targets and weights, and show each statistic's expected error"
    )
    budget.add_argument("plan", type=Path, help="the plan file (JSON)")
    budget.add_argument("--out", "-o", type=Path, help="write the plan with the ε filled in to this file")
    budget.set_defaults(run=_plan_budget)

    run = commands.add_parser("release", help="release the statistics of a plan on a data file")
    _data_arguments(run)
    run.add_argument("--plan", "-p", type=Path, required=True, help="the plan file (JSON)")
    run.add_argument("--out", "-o", type=Path, required=True, help="folder for results.csv and results.json")
    run.add_argument("--report", action="store_true", help="also write report.html and report.pdf into that folder")
    run.add_argument("--paper", choices=PAPER_SIZES, default="a4", help="PDF paper size with --report (default a4)")
    run.add_argument("--accept-category-warnings", action="store_true",
                     help="release even when a public category list does not fit the data (checked before any ε is spent)")
    _dataset_budget_argument(run)
    _ledger_argument(run)
    run.set_defaults(run=_release)

    bounds = commands.add_parser(
        "bounds", help="estimate a numeric column's bounds with DP (spends ε, charged to the ledger)"
    )
    _data_arguments(bounds)
    bounds.add_argument("--plan", "-p", type=Path, required=True, help="the plan: dataset, privacy unit, relation")
    bounds.add_argument("--column", "-c", required=True, help="the numeric column whose bounds you do not know")
    bounds.add_argument("--epsilon", type=float, required=True, help="the ε this estimate may spend")
    bounds.add_argument("--coverage", type=float, default=0.98,
                        help="the share of values the bounds should enclose (default 0.98: 1st to 99th percentile)")
    bounds.add_argument("--search", nargs=2, type=float, metavar=("LOW", "HIGH"), default=(-1e9, 1e9),
                        help="public range to search (default -1e9 1e9; e.g. 0 1e9 for values that cannot be negative)")
    bounds.add_argument("--write", action="store_true", help="write the suggested bounds into the plan file")
    _dataset_budget_argument(bounds)
    _ledger_argument(bounds)
    bounds.set_defaults(run=_bounds)

    report = commands.add_parser(
        "report", help="write the report of a release (HTML, PDF, CSV, JSON) from its results.json",
        description="Build the report of a release from the results.json it wrote. The report states the released "
        "values, their error, the method and the guarantee in plain words; it reads nothing but results.json, "
        "which holds only released values and public context.",
    )
    report.add_argument("results", type=Path, help="the results.json written by a release")
    report.add_argument("--out", "-o", type=Path, required=True, help="folder for the report files")
    report.add_argument("--format", nargs="+", choices=REPORT_FORMATS, default=list(REPORT_FORMATS),
                        help="which files to write (default: all: report.html report.pdf results.csv results.json)")
    report.add_argument("--paper", choices=PAPER_SIZES, default="a4", help="PDF paper size (default a4)")
    report.add_argument("--title", help="the report's title (default: the dataset's name)")
    report.set_defaults(run=_report)

    ledger = commands.add_parser("ledger", help="show, verify or export the privacy ledger")
    actions = ledger.add_subparsers(title="ledger commands", required=True, metavar="ACTION")
    show = actions.add_parser("show", help="datasets, budgets, what was spent, and every release")
    show.add_argument("dataset", nargs="?", help="only this dataset")
    _ledger_argument(show)
    show.set_defaults(run=_ledger_show)
    verify = actions.add_parser("verify", help="check that no entry was edited, deleted or reordered")
    _ledger_argument(verify)
    verify.set_defaults(run=_ledger_verify)
    export = actions.add_parser("export", help="write the ledger as JSON or CSV, without private fingerprints")
    export.add_argument("dataset", nargs="?", help="only this dataset")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("--out", "-o", type=Path, required=True, help="file to write")
    _ledger_argument(export)
    export.set_defaults(run=_ledger_export)
    raise_ = actions.add_parser("raise", help="raise a dataset's total budget (recorded in the ledger)")
    raise_.add_argument("dataset")
    raise_.add_argument("--epsilon", type=float, required=True, help="the new total ε")
    raise_.add_argument("--delta", type=float, help="the new total δ (default: unchanged)")
    raise_.add_argument("--reason", default="", help="why the budget is raised, for the record")
    _ledger_argument(raise_)
    raise_.set_defaults(run=_ledger_raise)

    from workbench import cli_randomized_response

    cli_randomized_response.add_commands(commands)
    return parser


def _dataset_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset-budget", nargs="+", type=float, metavar=("EPSILON", "DELTA"),
        help="for a dataset new to the ledger: the total ε (and δ) it may ever spend",
    )


def _ledger_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ledger", type=Path, help="the ledger file (default: $DP_WORKBENCH_LEDGER, else your data folder)"
    )


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
    missing = table.frame.isna().sum()  # the curator's view of the file, as step 1 of the app shows it
    labelled = any(p.label for p in proposals)  # the file's description of each column, as steps 1 and 3 show it
    rows = [("column", *(("label",) if labelled else ()), "stored as", "missing", "proposed kind", "why")]
    rows += [(p.name, *((p.label,) if labelled else ()), p.storage, f"{int(missing[p.name]):,}", p.kind.value, p.reason)
             for p in proposals]
    _print_table(rows, right=frozenset({3 if labelled else 2}))
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
    plan = plan_template(table, total_epsilon=args.epsilon, name=args.name)
    if args.delta:
        plan = with_privacy(plan, approximate=True, delta=args.delta)
    plan.save(out)
    numeric = [c.name for c in plan.schema.columns if getattr(c, "kind", "") == ColumnKind.NUMERIC.value]
    categorical = [c.name for c in plan.schema.columns if getattr(c, "kind", "") == ColumnKind.CATEGORICAL.value]
    print(f"Wrote {out}.")
    if args.name == NEUTRAL_NAME:
        print(f"The dataset is called '{NEUTRAL_NAME}': give it the name reports and the ledger should show "
              "(--name, or 'name' under 'dataset' in the plan). The file's name is never used.")
    print(PROPOSAL_WORDS)
    if numeric:
        print(f"Fill in 'lower' and 'upper' for: {', '.join(numeric)}.")
    empty = [c.name for c in plan.schema.columns if getattr(c, "categories", None) == ()]
    if empty:
        print(f"Fill in the public 'categories' for: {', '.join(empty)}.")
    elif categorical:
        print(f"Check the categories taken from the file's value labels for: {', '.join(categorical)}.")
    guarantee = f"(ε, δ)-DP with δ = {args.delta:g}" if args.delta else "pure ε-DP (δ = 0)"
    print(f"The plan promises {guarantee}. {PRIVACY_TRADE_OFF}")
    print("Then check the privacy unit, the statistics and their ε, and run `dp-workbench release`.")
    return 0


def _plan_budget(args: argparse.Namespace) -> int:
    plan = budget_plan(ReleasePlan.load(args.plan))
    plan.validate()
    size = plan.schema.public_size or plan.dataset.size_estimate
    percent = f"{plan.confidence * 100:g}%"
    rows = [("statistic", "mechanism", "ε", "δ", f"at most ± ({percent})", "for", "target ±")]
    needs = []
    for planned in plan.statistics:
        error = expected_error(planned, plan.schema, size, plan.confidence)
        rows.append((
            planned.statistic.label, planned.mechanism.value, f"{planned.budget.epsilon:.4g}",
            f"{planned.budget.delta:g}", "needs a size estimate" if math.isinf(error)
            else _with_unit(_format_value(error, error), planned.statistic.error_unit),
            error_basis(planned, plan.schema, size) or ("each cell" if planned.statistic.by else ""),
            "" if planned.target_error is None else f"{planned.target_error:g}",
        ))
        if planned.statistic.by and planned.target_error is not None and planned.smallest_group is None:
            rows_needed = size_for_error(planned, plan.schema, planned.target_error, plan.confidence)
            if rows_needed is not None and rows_needed > 1:
                needs.append(f"{planned.statistic.label}: the target ± {planned.target_error:g} holds for a group of "
                             f"at least {rows_needed:,} rows; smaller groups get a wider error bar. Give "
                             "'smallest_group' to buy it for the smallest group you will publish.")
    _print_table(rows, right=frozenset({2, 3, 4, 6}))
    for line in needs:
        _say(line)
    total = plan.guarantee()
    print(f"\nTotal: ε = {total.epsilon:.4g}, δ = {total.delta:g} by {total.method} "
          f"(plan budget ε = {plan.total.epsilon:g}, δ = {plan.total.delta:g}).")
    if size:
        print(f"Errors of means assume {size:,} rows (the public size estimate); computed without reading any data.")
    _say("'At most ±' is the largest error bar the release can state at that size, for any true value within the "
         "bounds (a mean near the middle of its bounds gets a narrower one). For a statistic by group it is for "
         "the group named under 'for': give 'smallest_group' (the rows of the smallest group you will publish) "
         "for a promise that holds for every group of at least that size.")
    if args.out:
        plan.save(args.out)
        print(f"Wrote {args.out}.")
    return 0


def _dataset_budget(args: argparse.Namespace) -> Guarantee | None:
    if not args.dataset_budget:
        return None
    if len(args.dataset_budget) > 2:
        raise WorkbenchError("--dataset-budget takes ε and optionally δ, e.g. --dataset-budget 2 1e-6.")
    epsilon, delta = (*args.dataset_budget, 0.0)[:2]
    return Guarantee(epsilon, delta, "total budget")


def _bounds(args: argparse.Namespace) -> int:
    plan = ReleasePlan.load(args.plan)
    low, high = args.search
    if not low < high:
        raise WorkbenchError(f"The search range must run from a lower to a higher number, not {low:g} to {high:g}.")
    estimate = estimate_bounds(
        _load(args), plan, args.column, args.epsilon, Ledger(args.ledger), _dataset_budget(args), args.coverage, (low, high)
    )
    print(estimate.in_words())  # charged: the ledger holds it durably now
    if args.write:
        with_bounds(plan, args.column, estimate.lower, estimate.upper).save(args.plan)
        print(f"Wrote the bounds of '{args.column}' into {args.plan}.")
    else:
        print("Add --write to put them into the plan, or enter them yourself (File > Open plan in the app).")
    return 0


def _release(args: argparse.Namespace) -> int:
    plan = budget_plan(ReleasePlan.load(args.plan))  # ε from targets and weights, as plan-budget shows it
    plan.validate()  # refuse an unsound plan before opening the data
    table = _load(args)
    warnings = check_categories(table, plan)  # the curator's own view of the file: nothing of it is released
    if warnings and not args.accept_category_warnings:
        raise WorkbenchError(
            "Nothing was released and no budget was spent:\n" + "\n".join(f"- {w.message}" for w in warnings)
            + "\nCorrect the plan, or add --accept-category-warnings to release it as it is."
        )
    result = release(table, plan, Ledger(args.ledger), dataset_budget=_dataset_budget(args))
    _print_release(result)  # charged: the ledger holds it durably now
    if args.report:
        written = write_report(result, args.out, paper=args.paper)
        print("\nWrote " + ", ".join(str(p) for p in written) + ".")
    else:
        csv_path, json_path = write_results(result, args.out)
        print(f"\nWrote {csv_path} and {json_path}.")
    return 0


def _report(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.results.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkbenchError(f"There is no file {args.results}. Give the results.json that the release wrote.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WorkbenchError(
            f"{args.results} cannot be read as a results file ({exc}). Give the results.json that the release wrote."
        ) from None
    result = Release.from_json(data)
    if args.out.resolve() == args.results.parent.resolve() and "json" in args.format:
        args.format = [f for f in args.format if f != "json"]  # it is already there: never rewrite the source
    written = write_report(result, args.out, args.format, args.paper, args.title)
    print("Wrote " + ", ".join(str(p) for p in written) + ".")
    return 0


def _ledger_show(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    records = [ledger.dataset(args.dataset)] if args.dataset else ledger.datasets()
    print(f"Ledger {ledger.path}")
    if not records:
        print("No dataset has been released yet.")
    for record in records:
        relation = Neighbouring(record.neighbouring).in_words
        print(f"\n{record.name}: privacy unit {record.privacy_unit}; neighbours differ by {relation}")
        _say(
            f"  {spent_in_words(record.spent, record.budget)}, in {record.releases} release(s); left "
            f"{record.remaining_in_words} ({record.spent.method})"
        )
        for entry in ledger.entries(record.name):
            data = entry.data
            if entry.kind == "release":
                labels = ", ".join(s["label"] for s in data["release"]["statistics"])
                cost = data["cost"]
                print(f"  #{entry.seq} {entry.created[:19]} release ε = {cost['epsilon']:g}, δ = {cost['delta']:g}: {labels}")
            elif entry.kind == "budget":
                reason = f" ({data['reason']})" if data.get("reason") else ""
                print(f"  #{entry.seq} {entry.created[:19]} budget raised to ε = {data['budget']['epsilon']:g}, "
                      f"δ = {data['budget']['delta']:g}{reason}")
            else:
                print(f"  #{entry.seq} {entry.created[:19]} registered")
    seq, digest = ledger.head()
    print(f"\nNewest entry #{seq}, hash {digest[:16]}… (note it to detect removal of later entries)")
    return 0


def _ledger_verify(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    problems = ledger.verify()
    if not problems:
        seq, digest = ledger.head()
        print(f"The ledger {ledger.path} is intact: {seq} entries, newest hash {digest[:16]}….")
        return 0
    print(f"The ledger {ledger.path} has been tampered with or damaged:", file=sys.stderr)
    for problem in problems:
        print(f"  entry {problem.entry}: {problem.message}", file=sys.stderr)
    return 1


def _ledger_export(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    if args.dataset:
        ledger.dataset(args.dataset)  # a clear error for an unknown name
    entries = [e.public_json() for e in ledger.entries(args.dataset)]
    try:
        if args.format == "json":
            args.out.write_text(json.dumps({"format": "dp-workbench-ledger", "version": 1, "entries": entries},
                                           indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        else:
            with args.out.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(["entry", "dataset", "kind", "created", "epsilon", "delta", "statistics"])
                for e in entries:
                    budget = e.get("cost") or e.get("budget") or {}
                    labels = "; ".join(s["label"] for s in e.get("release", {}).get("statistics", []))
                    writer.writerow([e["entry"], e["dataset"], e["kind"], e["created"],
                                     budget.get("epsilon", ""), budget.get("delta", ""), labels])
    except OSError as exc:
        raise WorkbenchError(f"{args.out} cannot be written ({exc.strerror or exc}). Choose another file.") from None
    print(f"Wrote {len(entries)} entries to {args.out}.")
    return 0


def _ledger_raise(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    current = ledger.dataset(args.dataset)
    delta = current.budget.delta if args.delta is None else args.delta
    entry = ledger.raise_budget(args.dataset, Guarantee(args.epsilon, delta, "total budget"), args.reason)
    print(f"Raised the budget of '{args.dataset}' to ε = {args.epsilon:g}, δ = {delta:g} (ledger entry {entry.seq}).")
    return 0


def _print_release(result: Release) -> None:
    percent = f"{result.confidence * 100:g}%"
    print(f"{result.dataset_name}: differentially private release")
    _say(f"Privacy unit: {result.privacy_unit}; neighbours differ by {result.neighbouring}.")
    print()
    rows = [("statistic", "cell", "value", f"± ({percent})", "ε", "δ", "")]
    notes: list[str] = []  # under the table, numbered: a note in a column would widen the table past 100 columns
    treated: dict[str, list[str]] = {}
    for statistic in result.statistics:
        for words in statistic.post_processing:  # the same sentence for several statistics is said once
            treated.setdefault(words, []).append(statistic.label)
        first = True
        for cell in statistic.cells:
            marker = ""
            if cell.note:
                notes.append(f"{statistic.label}{' / ' + cell.label if cell.label else ''}: {cell.note}")
                marker = f"[{len(notes)}]"
            rows.append((
                _shortened(statistic.label, 34) if first else "",
                _shortened(cell.label, 22),
                _format_value(cell.value, None if cell.error_unit else cell.error) if cell.reliable else "not reliable",
                "n/a" if cell.error is None else _with_unit(_format_value(cell.error, cell.error), cell.error_unit),
                f"{statistic.epsilon:.3g}" if first else "",
                f"{statistic.delta:.2g}" if first else "",
                marker,
            ))
            first = False
    _print_table(rows, right=frozenset({2, 3, 4, 5}))
    mechanisms = sorted({s.mechanism for s in result.statistics})
    print(f"Mechanisms: {', '.join(mechanisms)} (each statistic's method is in results.json and the report).")
    if notes:
        print("\nNotes:")
        for i, note in enumerate(notes, 1):
            print(textwrap.fill(note, width=100, initial_indent=f"  [{i}] ", subsequent_indent="      "))
    for words, labels in treated.items():
        print()
        _say(f"Post-processing of {', '.join(labels)}: {words}")
    total = result.guarantee
    print()
    _say(f"Total: ε = {total.epsilon:g}, δ = {total.delta:g} by {total.method}.")
    if result.ledger:
        spent, budget = result.ledger["spent_including_this_release"], result.ledger["dataset_budget"]
        _say(
            f"Charged to the ledger (entry {result.ledger['entry']}): '{result.dataset_name}' has now "
            f"{spent_in_words(Guarantee.from_json(spent), Guarantee.from_json(budget))}."
        )
    if result.sampling:
        alone, together = result.sampling["this_release"], result.sampling["all_releases"]
        _say(
            f"Claimed sampling rate {result.sampling['rate']:g}: for a person of the population this release is "
            f"(ε = {alone['epsilon']:.4g}, δ = {alone['delta']:.3g})-DP, and all releases of this sample together "
            f"(ε = {together['epsilon']:.4g}, δ = {together['delta']:.3g})-DP. {result.sampling['conditions']}"
        )
    _say(f"'±' is the half-width of an interval that holds the noise with {percent} probability.")
    if any(cell.error_unit == "ranks" for statistic in result.statistics for cell in statistic.cells):
        _say("For quantiles it counts ranks: how many rows the released value's position may lie from the level's.")


def _say(text: str) -> None:
    """A sentence for the console, wrapped at 100 columns."""
    print(textwrap.fill(text, width=100, subsequent_indent="  "))


def _shortened(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with an ellipsis (the whole label is in results.json and the report)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _with_unit(text: str, unit: str) -> str:
    return f"{text} {unit}" if unit else text


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
            print("  ".join("-" * w for w in widths).rstrip())


if __name__ == "__main__":
    sys.exit(main())
