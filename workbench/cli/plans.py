"""Commands that prepare a plan: ``inspect`` a file, write a ``plan-template``, fill in ε with
``plan-budget``, and estimate a column's ``bounds`` or find its ``categories`` with DP (which spends budget)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from workbench.cli.arguments import (
    data_arguments,
    declared_encoding,
    dataset_budget,
    dataset_budget_argument,
    ledger_argument,
    delimiter,
    load,
    load_for_looking,
)
from workbench.core.data.engines import choose_engine
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.cli.output import print_table, say
from workbench.core.data import ColumnKind, PrivacyUnit, propose_kinds
from workbench.core.errors import WorkbenchError
from workbench.core.release import (
    NEUTRAL_NAME,
    PRIVACY_TRADE_OFF,
    PROPOSAL_WORDS,
    Ledger,
    ReleasePlan,
    budget_plan,
    check_delta_for_size,
    error_basis,
    estimate_bounds,
    expected_error,
    plan_template,
    proposed_identifiers,
    size_for_error,
    with_bounds,
    with_privacy,
)
from workbench.core.release.bounds import search_schema
from workbench.core.release.category_discovery import (
    DEFAULT_DELTA,
    DEFAULT_EPSILON,
    default_delta,
    discover_categories,
    discovery_terms,
    with_categories,
)
from workbench.core.release.template import declarable_encoding
from workbench.core.report import released_error, reliable_from_words


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``inspect``, ``plan-template``, ``plan-budget``, ``bounds`` and ``categories``."""
    inspect = commands.add_parser("inspect", help="list the columns of a data file and their proposed kinds")
    data_arguments(inspect)
    inspect.set_defaults(run=_inspect)

    template = commands.add_parser("plan-template", help="write a starting plan whose bounds you fill in")
    data_arguments(template)
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
    template.add_argument("--id-column", metavar="COLUMN",
                          help="the column that says which person a row belongs to (default: none, one row is one "
                               "person); the template names a column that looks like one, and leaves the choice to you")
    template.add_argument("--max-rows", type=int, default=1, metavar="K",
                          help="with --id-column, the most rows one person may have (public knowledge; default 1)")
    template.add_argument("--force", action="store_true", help="overwrite an existing plan file")
    template.set_defaults(run=_template)

    budget = commands.add_parser(
        "plan-budget", help="fill in ε from accuracy targets and weights, and show each statistic's expected error"
    )
    budget.add_argument("plan", type=Path, help="the plan file (JSON)")
    budget.add_argument("--out", "-o", type=Path, help="write the plan with the ε filled in to this file")
    budget.set_defaults(run=_plan_budget)

    bounds = commands.add_parser(
        "bounds", help="estimate a numeric column's bounds with DP (spends ε, charged to the ledger)"
    )
    data_arguments(bounds)
    bounds.add_argument("--plan", "-p", type=Path, required=True, help="the plan: dataset, privacy unit, relation")
    bounds.add_argument("--column", "-c", required=True, help="the numeric column whose bounds you do not know")
    bounds.add_argument("--epsilon", type=float, required=True, help="the ε this estimate may spend")
    bounds.add_argument("--coverage", type=float, default=0.98,
                        help="the share of values the bounds should enclose (default 0.98: 1st to 99th percentile)")
    bounds.add_argument("--search", nargs=2, type=float, metavar=("LOW", "HIGH"), default=(-1e9, 1e9),
                        help="public range to search (default -1e9 1e9; e.g. 0 1e9 for values that cannot be negative)")
    bounds.add_argument("--write", action="store_true", help="write the suggested bounds into the plan file")
    dataset_budget_argument(bounds)
    ledger_argument(bounds)
    bounds.set_defaults(run=_bounds)

    categories = commands.add_parser(
        "categories", help="find the values a column holds in many rows, with DP (spends ε and δ, charged to the "
                           "ledger); without --epsilon, only say what it would spend and list"
    )
    data_arguments(categories)
    categories.add_argument("--plan", "-p", type=Path, required=True, help="the plan: dataset, privacy unit, relation")
    categories.add_argument("--column", "-c", required=True, help="the column whose categories you do not know")
    categories.add_argument("--epsilon", type=float,
                            help="the ε to spend; without it nothing is read or spent, the terms are shown")
    categories.add_argument("--delta", type=float,
                            help=f"the chance that a value one person holds is listed (default {DEFAULT_DELTA:g}, or "
                            "far below one over the plan's number of persons where that is less)")
    categories.add_argument("--write", action="store_true",
                            help="write the categories found into the plan (the column described as categorical)")
    dataset_budget_argument(categories)
    ledger_argument(categories)
    categories.set_defaults(run=_categories)


def _inspect(args: argparse.Namespace) -> int:
    table, how = load_for_looking(args)
    proposals = propose_kinds(table)
    details = f"{table.file_format}"
    if table.encoding:
        details += f", encoding {table.encoding}, delimiter {table.delimiter!r}"
    rows_read = len(table.frame)  # as step 1 of the app says it: the curator's own view, never exported
    say(f"{table.source.name} ({details}): {rows_read:,} rows{' read' if table.sample_rows else ''}, "
        f"{len(proposals)} columns. {how}")
    guessed = declarable_encoding(table)
    if guessed and not args.encoding:
        say(f"The encoding {guessed} was guessed from the file's content (it is not UTF-8). A release never guesses: "
            f"it reads the encoding the plan declares (plan-template writes this one) or --encoding {guessed}.")
    print()
    labelled = any(p.label for p in proposals)  # the file's description of each column, as steps 1 and 3 show it
    rows = [("column", *(("label",) if labelled else ()), "stored as", "missing", "proposed kind", "why")]
    rows += [(p.name, *((p.label,) if labelled else ()), p.storage, f"{p.missing:,}", p.kind.value, p.reason)
             for p in proposals]
    print_table(rows, right=frozenset({3 if labelled else 2}))
    labelled = [p for p in proposals if p.offered_categories]
    for proposal in labelled:
        print()
        say(f"Categories offered by the file's value labels for '{proposal.name}': {', '.join(proposal.offered_categories)}")
    print()
    say("Confirm or change each kind in your plan. Bounds and categories must come from public knowledge, "
        "not from the data: `dp-workbench plan-template` writes a plan with places for them.")
    return 0


def _template(args: argparse.Namespace) -> int:
    table, _ = load_for_looking(args)  # its encoding guessed, for the curator to confirm: the plan declares it
    out = args.out or args.data.with_name(args.data.stem + ".plan.json")
    if out.exists() and not args.force:
        raise WorkbenchError(f"{out} already exists. Choose another name with --out, or add --force to replace it.")
    unit = PrivacyUnit(args.id_column, args.max_rows) if args.id_column else PrivacyUnit()
    plan = plan_template(table, total_epsilon=args.epsilon, name=args.name, unit=unit)
    if args.delta:
        check_delta_for_size(args.delta, plan.size())
        plan = with_privacy(plan, approximate=True, delta=args.delta)
    plan.save(out)
    numeric = [c.name for c in plan.schema.columns if getattr(c, "kind", "") == ColumnKind.NUMERIC.value]
    categorical = [c.name for c in plan.schema.columns if getattr(c, "kind", "") == ColumnKind.CATEGORICAL.value]
    print(f"Wrote {out}.")
    if plan.dataset.encoding:
        say(f"The file is not UTF-8: its encoding was {'given' if args.encoding else 'guessed from its content'} as "
            f"{plan.dataset.encoding}, and the plan declares it ('encoding' under 'dataset'), since a release never "
            "guesses. Check that accented letters look right (dp-workbench inspect), and correct it if not.")
    if args.name == NEUTRAL_NAME:
        say(f"The dataset is called '{NEUTRAL_NAME}': give it the name reports and the ledger should show "
              "(--name, or 'name' under 'dataset' in the plan). The file's name is never used.")
    say(unit_words(plan.schema.unit, proposed_identifiers(plan.schema)))
    say(PROPOSAL_WORDS)
    if numeric:
        say(f"Fill in 'lower' and 'upper' for: {', '.join(numeric)}.")
    empty = [c.name for c in plan.schema.columns if getattr(c, "categories", None) == ()]
    if empty:
        say(f"Fill in the public 'categories' for: {', '.join(empty)}.")
    elif categorical:
        say(f"Check the categories taken from the file's value labels for: {', '.join(categorical)}.")
    guarantee = f"(ε, δ)-DP with δ = {args.delta:g}" if args.delta else "pure ε-DP (δ = 0)"
    say(f"The plan promises {guarantee}. {PRIVACY_TRADE_OFF}")
    say("Then check the privacy unit, the statistics and their ε, and run `dp-workbench release`.")
    return 0


def unit_words(unit: PrivacyUnit, identifiers: list[str]) -> str:
    """What the template protects, and the question it leaves to the user about a proposed identifier."""
    if unit.id_column:
        return (f"The plan protects each person identified by '{unit.id_column}', with at most {unit.max_rows_per_person} "
                f"row{'s' if unit.max_rows_per_person != 1 else ''} each (a person's later rows are left out): "
                "'id_column' and 'max_rows_per_person' under 'privacy_unit'.")
    others = [name for name in identifiers if name != unit.id_column]
    if not others:
        return "The plan protects one row: each row is taken to be one person ('privacy_unit' in the plan)."
    named = ", ".join(f"'{name}'" for name in others)
    return (f"{named} looks like an identifier, but the plan protects one row (id_column null): is one row one person? "
            f"If several rows can belong to one person (or household), run again with --id-column {others[0]} "
            "--max-rows K, K the most rows one may have (public knowledge); rows beyond K are left out.")


def _plan_budget(args: argparse.Namespace) -> int:
    plan = budget_plan(ReleasePlan.load(args.plan))
    plan.validate()
    size = plan.schema.public_size or plan.dataset.size_estimate
    percent = f"{plan.confidence * 100:g}%"
    rows = [("statistic", "mechanism", "ε", "δ", f"at most ± ({percent})", "for", "target ±", "reliable from")]
    needs = []
    for planned in plan.statistics:
        error = expected_error(planned, plan.schema, size, plan.confidence)
        rows.append((
            planned.statistic.label, planned.mechanism.value, f"{planned.budget.epsilon:.4g}",
            f"{planned.budget.delta:g}", "needs a size estimate" if math.isinf(error)
            else released_error(error, planned.statistic.error_unit),
            error_basis(planned, plan.schema, size) or ("each cell" if planned.statistic.by else ""),
            "" if planned.target_error is None else f"{planned.target_error:g}",
            reliable_from_words(planned, error, plan),
        ))
        if planned.statistic.by and planned.target_error is not None and planned.smallest_group is None:
            rows_needed = size_for_error(planned, plan.schema, planned.target_error, plan.confidence)
            if rows_needed is not None and rows_needed > 1:
                needs.append(f"{planned.statistic.label}: the target ± {planned.target_error:g} holds for a group of "
                             f"at least {rows_needed:,} rows; smaller groups get a wider error bar. Give "
                             "'smallest_group' to buy it for the smallest group you will publish.")
    if all(planned.budget.delta == 0 for planned in plan.statistics):  # pure ε-DP: a column of zeros says nothing
        rows = [row[:3] + row[4:] for row in rows]
        print_table(rows, right=frozenset({2, 3, 5, 6}))
    else:
        print_table(rows, right=frozenset({2, 3, 4, 6, 7}))
    for line in needs:
        say(line)
    total = plan.guarantee()
    print()
    say(f"Total: ε = {total.epsilon:.4g}, δ = {total.delta:g} by {total.method} "
          f"(plan budget ε = {plan.total.epsilon:g}, δ = {plan.total.delta:g}).")
    say(f"'Reliable from': the smallest value (rows, for a count) whose cell has a coefficient of variation of at "
        f"most {plan.reliability.caution_above:.1%} at this ε; above {plan.reliability.suppress_above:.1%} a cell is "
        "too unreliable to publish.")
    if size:
        say(f"Errors of means assume {size:,} rows (the public size estimate); computed without reading any data.")
    say("'At most ±' is the largest error bar the release can state at that size, for any true value within the "
         "bounds (a mean near the middle of its bounds gets a narrower one). For a statistic by group it is for "
         "the group named under 'for': give 'smallest_group' (the rows of the smallest group you will publish) "
         "for a promise that holds for every group of at least that size.")
    if args.out:
        plan.save(args.out)
        print(f"Wrote {args.out}.")
    return 0


def _categories(args: argparse.Namespace) -> int:
    plan = ReleasePlan.load(args.plan)
    delta = args.delta if args.delta is not None else default_delta(plan.size())
    if args.epsilon is None:  # nothing is read: what it would spend and list
        print(discovery_terms(plan.schema, args.column, DEFAULT_EPSILON, delta, plan.size()).in_words())
        print("\nGive --epsilon to spend it (charged to the ledger), and --write to put the list into the plan.")
        return 0
    found = discover_categories(load(args, plan=plan), plan, args.column, args.epsilon, delta, Ledger(args.ledger),
                                dataset_budget(args))
    print(found.terms.in_words())  # charged: the ledger holds it durably now
    print()
    cells = found.released.statistics[0].cells
    print_table([("category", "noisy count of rows")] + [(c.label, f"{c.value:,.0f}") for c in cells], right=frozenset({1}))
    print(f"\n{found.in_words()}")
    if args.write:
        with_categories(plan, args.column, found.categories).save(args.plan)
        print(f"Wrote the categories of '{args.column}' into {args.plan}.")
    else:
        print("Add --write to put them into the plan, or type them yourself (File > Open plan in the app).")
    return 0


def _bounds(args: argparse.Namespace) -> int:
    plan = ReleasePlan.load(args.plan)
    low, high = args.search
    if not low < high:
        raise WorkbenchError(f"The search range must run from a lower to a higher number, not {low:g} to {high:g}.")
    decision = choose_engine(args.data, len(search_schema(plan, args.column, (low, high)).columns))
    say(decision.in_words())
    if decision.out_of_core:  # exact ranks from DuckDB on the file: nothing but counts comes back
        source = file_source(args.data, delimiter=delimiter(args), encoding=declared_encoding(args, plan))
        with OutOfCoreData(source, search_schema(plan, args.column, (low, high))) as data:
            estimate = estimate_bounds(source, plan, args.column, args.epsilon, Ledger(args.ledger),
                                       dataset_budget(args), args.coverage, (low, high), data=data)
    else:
        estimate = estimate_bounds(load(args, plan=plan), plan, args.column, args.epsilon, Ledger(args.ledger),
                                   dataset_budget(args), args.coverage, (low, high))
    say(estimate.in_words())  # charged: the ledger holds it durably now
    if args.write:
        with_bounds(plan, args.column, estimate.lower, estimate.upper).save(args.plan)
        print(f"Wrote the bounds of '{args.column}' into {args.plan}.")
    else:
        say("Add --write to put them into the plan, or enter them yourself (File > Open plan in the app).")
    return 0

