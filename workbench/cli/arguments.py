"""Arguments several commands share (the data file, the ledger, a new dataset's budget), and
reading the data file the way they were given."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable, Collection

from workbench.core.data import Table, load_sample, load_table
from workbench.core.data.engines import choose_engine
from workbench.core.data.io import GUESS
from workbench.core.data.prepare_stream import BlockPreparer
from workbench.core.errors import WorkbenchError
from workbench.core.privacy import Guarantee
from workbench.core.release.plan import ReleasePlan


class _DataLocation(argparse.Action):
    """DATA as a path (``data``), and as written (``data_text``): a Path makes 'hdfs:///x' (the default namenode)
    and 'hdfs://x' (a host named x) one text, which the Spark engine reads as written."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001 - argparse's own
        setattr(namespace, self.dest, Path(values))
        namespace.data_text = values


def data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", action=_DataLocation, metavar="DATA",
                        help="CSV, TSV, Excel, Parquet, SPSS, Stata or SAS file")
    parser.add_argument("--delimiter", help="the delimiter of a text file (default: the one that splits its header)")
    parser.add_argument("--encoding", help="the encoding of a text file, e.g. cp1252 (default: the plan's, else as "
                        "its byte-order mark says, else UTF-8; inspect and plan-template guess it)")
    parser.add_argument("--sheet", help="the sheet of an Excel workbook")


def load(args: argparse.Namespace, progress: Callable[[float], None] | None = None,
         plan: ReleasePlan | None = None, columns: Collection[str] | None = None,
         prepare: BlockPreparer | None = None, hashes_content: bool = True) -> Table:
    """The data file as a release reads it: a text file in the encoding declared (``declared_encoding``).
    ``columns``: keep only these, every column hashed as the file is read unless not ``hashes_content``
    (``load_table``); ``prepare``: a text file's prepared as it is read, their text not kept."""
    return load_table(args.data, delimiter=delimiter(args), encoding=declared_encoding(args, plan), sheet=args.sheet,
                      progress=progress, columns=columns, prepare=prepare, hashes_content=hashes_content)


def declared_encoding(args: argparse.Namespace, plan: ReleasePlan | None = None) -> str | None:
    """--encoding as given, else the plan's dataset's; None: as the byte-order mark says, else UTF-8. Never a
    guess from the rows, which one person's row could change."""
    return args.encoding or (plan.dataset.encoding if plan is not None else None)


def load_for_looking(args: argparse.Namespace) -> tuple[Table, str]:
    """The table as step 1 of the app loads it (a text file's encoding guessed unless given), and a sentence saying
    how: whole in memory, or, for a CSV, TSV or Parquet file too large for half this machine's memory, its first
    rows (a sample), as the app does."""
    decision = choose_engine(args.data)
    if not decision.out_of_core:
        return load_table(args.data, delimiter=delimiter(args), encoding=args.encoding or GUESS,
                          sheet=args.sheet), "Read whole, in memory."
    table = load_sample(args.data, delimiter=delimiter(args), encoding=args.encoding or GUESS)
    read = (f"only its first {len(table.frame):,} rows were read" if len(table.frame) >= (table.sample_rows or 0)
            else f"it was read as a sample of its first rows: all {len(table.frame):,} of them")
    return table, (f"The file is too large to read whole here ({decision.estimate_words()}), so {read}, "
                   "and what follows is proposed from them. A release reads the whole file out of core.")


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
