"""Commands that publish: ``release`` a plan on a data file (charged to the ledger before any
value is printed), and write the ``report`` of a release from its results.json."""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import Callable

from workbench.cli.arguments import (
    data_arguments,
    declared_encoding,
    dataset_budget,
    dataset_budget_argument,
    delimiter,
    ledger_argument,
    load,
)
from workbench.cli.output import print_table, say, shortened
from workbench.cli.progress import CommandProgress
from workbench.core.data import OTHER_BIN, Table
from workbench.core.data.engines import EngineChoice, choose_engine
from workbench.core.data.out_of_core import OUT_OF_CORE_SUFFIXES, OutOfCoreData, file_source
from workbench.core.data.prepare_stream import BlockPreparer
from workbench.core.data.sql_engine import FileSource, SqlData
from workbench.core.errors import WorkbenchError
from workbench.core.process_exit import make_held_stop, stops_deferred
from workbench.core.privacy import Guarantee, spent_in_words
from workbench.core.release import (
    Flag, Ledger, Release, ReleasePlan, budget_plan, check_categories, engine_hashes_rows, release,
)
from workbench.core.release.ledger import default_ledger_location, is_server_url
from workbench.core.release.postprocess import CLAMPED
from workbench.core.report import (
    PAPER_SIZES,
    REPORT_FORMATS,
    coefficient_of_variation,
    released_error,
    released_number,
    write_report,
    write_results,
)
from workbench.core.report.shown import shown_cells
from workbench.core.report.synthetic_files import SYNTHETIC_FORMATS, check_formats, skipped, write_synthetic
from workbench.core.statistics import Cell
from workbench.core.synthetic import SyntheticTable


SHOW_OTHER_HELP = (
    "also show the groups of a statistic by group that hold rows outside the public categories ('(other)' in a "
    "grouping column): by default they are left out of the printed table, report.html, report.pdf and "
    "results.csv, and one line says how many; results.json always holds them")
SHOW_OTHER_HOW = "--show-other shows them"


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``release`` and ``report``."""
    run = commands.add_parser("release", help="release the statistics of a plan on a data file")
    data_arguments(run)
    run.add_argument("--plan", "-p", type=Path, required=True, help="the plan file (JSON)")
    run.add_argument("--out", "-o", type=Path, required=True, help="folder for results.csv and results.json")
    run.add_argument("--report", action="store_true", help="also write report.html and report.pdf into that folder")
    run.add_argument("--paper", choices=PAPER_SIZES, default="a4", help="PDF paper size with --report (default a4)")
    run.add_argument("--synthetic-format", nargs="+", choices=SYNTHETIC_FORMATS, default=["csv"], metavar="FORMAT",
                     help="a synthetic table of the plan is written as synthetic.csv into --out, and also in these "
                          f"formats: {', '.join(SYNTHETIC_FORMATS)} (SPSS and Stata with the plan's variable labels "
                          "and the public categories as value labels, coded 1, 2, … in their order)")
    run.add_argument("--keep-input-codes", action="store_true",
                     help="a synthetic table written as SPSS or Stata codes its public categories as the input file's "
                          "value labels do: those labels are then taken as public (labels made from the rows, as "
                          "Stata's encode or SPSS's autorecode make them, tell which values the data hold)")
    run.add_argument("--accept-category-warnings", action="store_true",
                     help="release even when a public category list does not fit the data (checked before any ε is spent)")
    run.add_argument("--engine", choices=[c.value for c in EngineChoice], default=EngineChoice.AUTO.value,
                     help="where the exact answers are computed: 'memory' (pandas), 'out-of-core' (DuckDB on the file, "
                          "for CSV, TSV and Parquet larger than memory), 'spark' (PySpark where the file lives: DATA may "
                          "be hdfs://... or s3a://...; only aggregates come back), or 'auto' (default: out of core when "
                          "the file would take more than half of this machine's memory). All give identical answers.")
    run.add_argument("--memory-limit", metavar="SIZE",
                     help="with the out-of-core engine, the most memory it may use, e.g. 2GB (it spills the rest to "
                          "a temporary folder); default: most of this machine's memory")
    run.add_argument("--spark-master", metavar="URL",
                     help="with --engine spark, the cluster (e.g. yarn, spark://host:7077, local[4]); default: what "
                          "Spark's own configuration says, else local mode")
    run.add_argument("--show-other", action="store_true", help=SHOW_OTHER_HELP)
    dataset_budget_argument(run)
    ledger_argument(run)
    run.set_defaults(run=_release)

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
    report.add_argument("--show-other", action="store_true", help=SHOW_OTHER_HELP)
    report.set_defaults(run=_report)


def _release(args: argparse.Namespace) -> int:
    plan = budget_plan(ReleasePlan.load(args.plan))  # ε from targets and weights, as plan-budget shows it
    plan.validate()  # refuse an unsound plan before opening the data
    for planned in plan.statistics:  # a format that cannot hold the rows asked for is refused before anything is spent
        if isinstance(planned.statistic, SyntheticTable):
            check_formats(args.synthetic_format, planned.statistic.rows)
    choice = EngineChoice(args.engine)
    shown = CommandProgress()  # on standard error, for a release that takes more than a few seconds
    table: Table | None = None
    result: Release | None = None
    closing: BaseException | None = None
    try:
        label_maps: dict = {}  # the input's value labels, for a synthetic file written as SPSS or Stata
        if choice is EngineChoice.SPARK:
            from workbench.core.data.spark_engine import SparkData, spark_source

            source = spark_source(args.data_text, delimiter=delimiter(args), encoding=declared_encoding(args, plan))
            say(f"Computing on Spark ({args.spark_master or 'as its configuration says'}): only aggregates come back.")
            ledger, hashes = _ledger_before_reading(args, source, shown)
            with SparkData(source, plan.used_schema(), master=args.spark_master, hashes_content=hashes,
                           progress=shown.stage("Reading the data file on Spark")) as data:
                result = _checked_release(data, source, plan, args, shown, ledger=ledger)
        elif choice is EngineChoice.OUT_OF_CORE or _auto_out_of_core(args, choice, plan):
            source = file_source(args.data, delimiter=delimiter(args), encoding=declared_encoding(args, plan))
            if choice is EngineChoice.OUT_OF_CORE:
                say("Reading the data file out of core (DuckDB on the file, as asked).")
            ledger, hashes = _ledger_before_reading(args, source, shown)
            with OutOfCoreData(source, plan.used_schema(), memory_limit=args.memory_limit, hashes_content=hashes,
                               progress=shown.stage("Reading the data file")) as data:
                result = _checked_release(data, source, plan, args, shown, ledger=ledger)
        else:
            # only the columns the plan reads are kept; every column is hashed for the ledger as the file is read; a
            # text file's are prepared as they are read under a row-level unit, their text let go block by block
            schema = plan.used_schema()
            preparing = BlockPreparer(schema, args.data.name) if BlockPreparer.streams(schema) else None
            ledger, hashes = None, True  # a CSV, TSV or Parquet file the ledger records is not hashed again
            if (args.data.suffix.lower() in OUT_OF_CORE_SUFFIXES and args.data.is_file()
                    and _existing_ledger(args) is not None):
                source = file_source(args.data, delimiter=delimiter(args), encoding=declared_encoding(args, plan))
                ledger, hashes = _ledger_before_reading(args, source, shown)
            table = load(args, progress=shown.stage("Reading the data file"), plan=plan,
                         columns=[spec.name for spec in schema.columns], prepare=preparing, hashes_content=hashes)
            label_maps = dict(table.label_maps)
            result = _checked_release(table, table, plan, args, shown,
                                      preparing if preparing is not None and preparing.streamed else None,
                                      ledger=ledger)
    except (KeyboardInterrupt, SystemExit) as stop:
        if result is None:
            raise
        closing = stop  # as the engine closed, after the charge: the release is shown and written, then it stops
    finally:
        shown.finish()  # also when the release stops: no stage is said after the command ends
        if table is not None:  # a refusal or Ctrl-C: the hashing nothing will use is stopped, not waited for
            table.abandon_digest()
    assert result is not None
    with stops_deferred():  # charged: shown and written whole, as its user paid for it
        _print_and_write(result, args, label_maps)
    if closing is not None:
        raise closing
    make_held_stop()  # one heard while the ledger was charged
    return 0


def _print_and_write(result: Release, args: argparse.Namespace, label_maps: dict) -> None:
    _print_release(result, args.show_other)  # charged: the ledger holds it durably now
    if result.synthetic:
        files = write_synthetic(result, args.out, args.synthetic_format, label_maps if args.keep_input_codes else {})
        print("\nWrote the synthetic microdata: " + ", ".join(str(p) for p in files) + "."
              + "".join(f"\nNot written: {words}." for words in skipped(result, args.synthetic_format)))
    if args.report:
        written = write_report(result, args.out, paper=args.paper, show_other=args.show_other,
                               how=SHOW_OTHER_HOW)
        print("\nWrote " + ", ".join(str(p) for p in written) + ".")
    else:
        csv_path, json_path = write_results(result, args.out, show_other=args.show_other, how=SHOW_OTHER_HOW)
        print(f"\nWrote {csv_path} and {json_path}.")


def _ledger_before_reading(args: argparse.Namespace, source: FileSource,
                           shown: CommandProgress) -> tuple[Ledger | None, bool]:
    """The ledger, if it exists already, opened before the file is read; and whether the engine must hash every row
    of the file for its content fingerprint: not when the ledger records it for an earlier release of this very
    file, read the same way (``engine_hashes_rows``; most of the first pass is that hashing). The file's bytes are
    then hashed here, with their progress shown, once for the release too. A new ledger is not made before the
    release."""
    where = _existing_ledger(args)
    if where is None or not source.path.is_file() or not source.decided:
        # no ledger yet; or a file Spark reads elsewhere (its bytes not hashed here) or decides how to read
        return None, True
    looking = "Looking the data file up in the ledger"
    shown.waiting(looking)
    ledger = Ledger(where)
    return ledger, engine_hashes_rows(ledger, source, shown.interlude(looking))


def _existing_ledger(args: argparse.Namespace) -> str | None:
    """Where the release's ledger is (``--ledger``, else the default), if it exists already: a release makes it."""
    where = args.ledger if args.ledger is not None else default_ledger_location()
    return where if is_server_url(where) or Path(where).is_file() else None


def _checked_release(data: Table | SqlData, source: Table | FileSource, plan: ReleasePlan, args: argparse.Namespace,
                     shown: CommandProgress, prepared: BlockPreparer | None = None,
                     ledger: Ledger | None = None) -> Release:
    """The release of ``plan`` after the curator's check of its public categories, each stage shown as it starts.
    ``prepared``: the table's plan columns, prepared as the file was read (its frame holds none of their rows);
    ``ledger``: the one opened before the file was read (``_ledger_before_reading``), else ``--ledger``'s."""
    shown.waiting("Checking the public categories against the file")
    _refuse_on_category_warnings(data, plan, args, prepared)
    computing = "Computing the statistics, adding the noise and charging the ledger"
    shown.waiting(computing)
    engine = data if isinstance(data, SqlData) else prepared.prepared if prepared is not None else None
    return release(source, plan, ledger if ledger is not None else Ledger(args.ledger), dataset_budget=dataset_budget(args),
                   data=engine, progress=_synthetic_progress(plan, shown),
                   file_progress=shown.interlude("Reading the data file again to recognise it", then=computing))


def _synthetic_progress(plan: ReleasePlan, shown: CommandProgress) -> Callable[[str], None] | None:
    """A synthetic table's fit takes a while: each of its steps is shown as a stage of its own."""
    if not any(isinstance(p.statistic, SyntheticTable) for p in plan.statistics):
        return None
    return lambda words: shown.announce(f"Synthetic table: {words}")


def _auto_out_of_core(args: argparse.Namespace, choice: EngineChoice, plan: ReleasePlan) -> bool:
    """AUTO's choice from the file and the plan's used columns, said before anything is read."""
    if choice is not EngineChoice.AUTO:
        return False
    decision = choose_engine(args.data, len(plan.used_schema().columns))
    say(decision.in_words())
    return decision.out_of_core


def _grouped_clamping(words: str) -> tuple[str, str]:
    """A clamping sentence without its range, and the range: statistics of one kind clamped to different ranges
    (a mean of age, a mean of income) then share one explanation, said once."""
    if not words.startswith(CLAMPED + " (") or "): " not in words:
        return words, ""
    head, tail = words.split("): ", 1)
    return f"{CLAMPED}: {tail}", head[len(CLAMPED) + 2:]


def _refuse_on_category_warnings(data: Table | SqlData, plan: ReleasePlan, args: argparse.Namespace,
                                 prepared: BlockPreparer | None = None) -> None:
    # the curator's own view of the file: nothing of it is released
    warnings = check_categories(data, plan, presences=prepared.presences if prepared is not None else None)
    if warnings and not args.accept_category_warnings:
        raise WorkbenchError(
            "Nothing was released and no budget was spent:\n" + "\n".join(f"- {w.message}" for w in warnings)
            + "\nCorrect the plan, or add --accept-category-warnings to release it as it is."
        )


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
    written = write_report(result, args.out, args.format, args.paper, args.title, show_other=args.show_other,
                           how=SHOW_OTHER_HOW)
    print("Wrote " + ", ".join(str(p) for p in written) + ".")
    return 0


def _print_release(result: Release, show_other: bool = False) -> None:
    percent = f"{result.confidence * 100:g}%"
    print(f"{result.dataset_name}: differentially private release")
    say(f"Privacy unit: {result.privacy_unit}; neighbours differ by {result.neighbouring}.")
    print()
    rows = [("statistic", "cell", "value", f"± ({percent})", "CV", "ε", "δ", "")]
    notes: dict[tuple[str, str], list[str]] = {}  # (statistic, note): its cells; numbered under the table (a note
    # in a column would widen it past 100 columns), the same note on several cells of a statistic said once
    treated: dict[str, dict[str, list[str]]] = {}  # words: for each range clamped to (or ""), the statistics
    folded = False  # a statistic by group whose '(other)' groups are not shown (one row says how many)
    for statistic in result.statistics:
        for words in statistic.post_processing:  # the same sentence for several statistics is said once
            words, clamped_to = _grouped_clamping(words)
            treated.setdefault(words, {}).setdefault(clamped_to, []).append(statistic.label)
        first = True
        shown = shown_cells(statistic, show_other)
        for cell in shown.cells:
            marker = ""
            if cell.note:
                cells = notes.setdefault((statistic.label, cell.note), [])
                cells += [cell.label] if cell.label else []
                marker = f"[{list(notes).index((statistic.label, cell.note)) + 1}]"
            rows.append((
                shortened(statistic.label, 34) if first else "",
                shortened(cell.label, 22),
                ("n/a" if cell.value is None else released_number(cell.value, None if cell.error_unit else cell.error))
                if cell.reliable else "not reliable",
                "n/a" if cell.error is None else released_error(cell.error, cell.error_unit),
                _reliability(cell),
                f"{statistic.epsilon:.3g}" if first else "",
                f"{statistic.delta:.2g}" if first else "",
                marker,
            ))
            first = False
        if shown.folded_groups:
            folded = True
            rows.append((shortened(statistic.label, 34) if first else "", shown.short, "not shown", "", "", "", "", ""))
    print_table(rows, right=frozenset({2, 3, 5, 6}))
    mechanisms = sorted({s.mechanism for s in result.statistics})
    print(f"Mechanisms: {', '.join(mechanisms)} (each statistic's method is in results.json and the report).")
    if folded:
        say(f"'{OTHER_BIN}' groups: groups with '{OTHER_BIN}' in a grouping column hold only rows outside the public "
            f"categories and are not shown; their values are in results.json ({SHOW_OTHER_HOW}).")
    if notes:
        print("\nNotes:")
        for i, ((label, note), cells) in enumerate(notes.items(), 1):
            text = f"{label}{' / ' + ', '.join(cells) if cells else ''}: {note}"
            print(textwrap.fill(text, width=100, initial_indent=f"  [{i}] ", subsequent_indent="      "))
    for words, ranges in treated.items():
        print()
        labels = "; ".join(", ".join(labels) + (f" ({clamped_to})" if clamped_to else "")
                           for clamped_to, labels in ranges.items())
        say(f"Post-processing of {labels}: {words}")
    total = result.guarantee
    print()
    say(f"Total: ε = {total.epsilon:g}, δ = {total.delta:g} by {total.method}.")
    if result.ledger:
        spent, budget = result.ledger["spent_including_this_release"], result.ledger["dataset_budget"]
        say(
            f"Charged to the ledger (entry {result.ledger['entry']}): '{result.dataset_name}' has now "
            f"{spent_in_words(Guarantee.from_json(spent), Guarantee.from_json(budget))}."
        )
    if result.sampling:
        alone, together = result.sampling["this_release"], result.sampling["all_releases"]
        say(
            f"Claimed sampling rate {result.sampling['rate']:g}: for a person of the population this release is "
            f"(ε = {alone['epsilon']:.4g}, δ = {alone['delta']:.3g})-DP, and all releases of this sample together "
            f"(ε = {together['epsilon']:.4g}, δ = {together['delta']:.3g})-DP. {result.sampling['conditions']}"
        )
    say(f"'±' is the half-width of an interval that holds the noise with {percent} probability.")
    if result.reliability:
        say(f"CV: the noise's coefficient of variation. Above {result.reliability['caution_above']:.1%} a cell is to "
            f"be used with caution, above {result.reliability['suppress_above']:.1%} it is too unreliable to publish "
            "(the report shows it as suppressed).")
    if any(cell.error_unit == "ranks" for statistic in result.statistics for cell in statistic.cells):
        say("For quantiles it counts ranks: how many rows the released value's position may lie from the level's.")


_SHORT_FLAGS = {Flag.CAUTION.value: " caution", Flag.SUPPRESS.value: " suppress"}


def _reliability(cell: Cell) -> str:
    """'4.3%', '21% caution', '45% suppress': the CV and, where it is not reliable, the flag in a word."""
    if not cell.flag:
        return ""
    return (coefficient_of_variation(cell.cv) if cell.cv is not None else "") + _SHORT_FLAGS.get(cell.flag, "")
