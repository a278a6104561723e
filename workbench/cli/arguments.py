"""Arguments several commands share (the data file, the ledger, a new dataset's budget), and
reading the data file the way they were given."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from workbench.core.data import Table, load_table
from workbench.core.errors import WorkbenchError
from workbench.core.privacy import Guarantee


def data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", type=Path, metavar="DATA", help="CSV, TSV, Excel, Parquet, SPSS, Stata or SAS file")
    parser.add_argument("--delimiter", help="the delimiter of a text file (detected if not given)")
    parser.add_argument("--encoding", help="the encoding of a text file (detected if not given)")
    parser.add_argument("--sheet", help="the sheet of an Excel workbook")


def load(args: argparse.Namespace, progress: Callable[[float], None] | None = None) -> Table:
    return load_table(args.data, delimiter=delimiter(args), encoding=args.encoding, sheet=args.sheet, progress=progress)


def delimiter(args: argparse.Namespace) -> str | None:
    """--delimiter as given, with a tab written as \\t or "tab"."""
    return {"\\t": "\t", "tab": "\t"}.get(args.delimiter, args.delimiter)


def ledger_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ledger", metavar="FILE|URL",
        help="the ledger: a file, or a team ledger on a server, postgresql://server/database (its password comes from "
        "~/.pgpass or a service file, never from the URL); default: $DP_WORKBENCH_LEDGER, else ledger.sqlite in "
        "your data folder",
    )


def dataset_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset-budget", nargs="+", type=float, metavar=("EPSILON", "DELTA"),
        help="for a dataset new to the ledger: the total ε (and δ) it may ever spend",
    )


def dataset_budget(args: argparse.Namespace) -> Guarantee | None:
    if not args.dataset_budget:
        return None
    if len(args.dataset_budget) > 2:
        raise WorkbenchError("--dataset-budget takes ε and optionally δ, e.g. --dataset-budget 2 1e-6.")
    epsilon, delta = (*args.dataset_budget, 0.0)[:2]
    return Guarantee(epsilon, delta, "total budget")
