"""``dp-workbench ledger``: show what each dataset has spent, verify that no entry was changed,
export the public view, register a dataset or raise its budget (recorded, with its reason), move
the key of the ledger's fingerprints to another machine or user, and set up a team ledger on a
PostgreSQL server (``init-server``) or move a local ledger into one (``migrate``)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import textwrap
from pathlib import Path

from workbench.cli.arguments import ledger_argument
from workbench.cli.output import say
from workbench.core.data import Neighbouring
from workbench.core.errors import WorkbenchError
from workbench.core.privacy import Guarantee, spent_in_words
from workbench.core.release import Ledger, ReleasePlan, Terms
from workbench.core.release.ledger import Entry, default_ledger_path, is_server_url
from workbench.core.release.ledger_keys import write_private_file
from workbench.core.release.ledger_postgres import ANALYSTS, PostgresLedger, init_server, migrate


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``ledger show``, ``verify``, ``export``, ``register``, ``raise``, ``key export|import``, ``init-server`` and
    ``migrate``."""
    ledger = commands.add_parser("ledger", help="show, verify or export the privacy ledger")
    actions = ledger.add_subparsers(title="ledger commands", required=True, metavar="ACTION")
    show = actions.add_parser("show", help="datasets, budgets, what was spent, and every release")
    show.add_argument("dataset", nargs="?", help="only this dataset")
    ledger_argument(show)
    show.set_defaults(run=_ledger_show)
    verify = actions.add_parser("verify", help="check that no entry was edited, deleted or reordered")
    ledger_argument(verify)
    verify.set_defaults(run=_ledger_verify)
    export = actions.add_parser("export", help="write the ledger as JSON or CSV, without private fingerprints")
    export.add_argument("dataset", nargs="?", help="only this dataset")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("--out", "-o", type=Path, required=True, help="file to write")
    ledger_argument(export)
    export.set_defaults(run=_ledger_export)
    raise_ = actions.add_parser("raise", help="raise a dataset's total budget (recorded in the ledger)")
    raise_.add_argument("dataset")
    raise_.add_argument("--epsilon", type=float, required=True, help="the new total ε")
    raise_.add_argument("--delta", type=float, help="the new total δ (default: unchanged)")
    raise_.add_argument("--reason", default="", help="why the budget is raised, for the record")
    ledger_argument(raise_)
    raise_.set_defaults(run=_ledger_raise)
    register = actions.add_parser(
        "register", help="add a dataset with its total budget, before its first release (a team ledger's "
        "administrator does this for the team)",
        description="The dataset's terms (privacy unit, k, neighbouring relation, public size) are the plan's: every "
        "release of the dataset must use the same.",
    )
    register.add_argument("dataset", help="the dataset's name, as the plans name it")
    register.add_argument("--plan", type=Path, required=True, help="a plan of the dataset: its terms are recorded")
    register.add_argument("--epsilon", type=float, required=True, help="the total ε over all its releases")
    register.add_argument("--delta", type=float, default=0.0, help="the total δ (default 0)")
    ledger_argument(register)
    register.set_defaults(run=_ledger_register)
    init = actions.add_parser(
        "init-server", help="set up a team ledger in a PostgreSQL database (its administrator, once)",
        description="Creates the ledger's tables in the database of URL, connected as the administrator (who owns "
        "them), the role whose members may read the ledger and append releases, and the team's fingerprint key, "
        "kept for you: hand it to each analyst with `ledger key export`. The password comes from ~/.pgpass or a "
        "service file.",
    )
    init.add_argument("url", metavar="URL", help="postgresql://[admin@]server[:port]/database")
    init.add_argument("--analysts", default=ANALYSTS, help=f"the analysts' role (default {ANALYSTS}; made if missing)")
    init.set_defaults(run=_init_server)
    move = actions.add_parser(
        "migrate", help="move a local ledger into a new team ledger, its hash chain kept and verified",
        description="Every entry is copied as it is (numbers, times, hashes) into the empty team ledger of URL, and "
        "the chain is verified on both sides. The local ledger's fingerprint key stays the key: export it for the "
        "analysts with `ledger key export --ledger URL`. The local file is left as it was; stop using it.",
    )
    move.add_argument("url", metavar="URL", help="the team ledger, set up with `ledger init-server`")
    move.add_argument("--from", dest="source", type=Path, help="the local ledger file (default: yours)")
    move.set_defaults(run=_migrate)
    key = actions.add_parser(
        "key", help="move the key of the ledger's fingerprints to another machine or user",
        description="The ledger's fingerprints (which recognise data it has seen under another name) are keyed "
        "hashes; their key is kept outside the ledger, for this user (the system keyring or a private key file). "
        "A ledger copied to another machine or user needs its key there: export it here, import it there.",
    )
    key_actions = key.add_subparsers(title="key commands", required=True, metavar="ACTION")
    export_key = key_actions.add_parser("export", help="write the ledger's key to a file readable by you alone")
    export_key.add_argument("--out", "-o", type=Path, required=True, help="the key file to write (must not exist)")
    ledger_argument(export_key)
    export_key.set_defaults(run=_key_export)
    import_key = key_actions.add_parser("import", help="keep a ledger's key from a file written by `ledger key export`")
    import_key.add_argument("file", type=Path, help="the key file")
    ledger_argument(import_key)
    import_key.set_defaults(run=_key_import)


def _ledger_in_words(ledger: Ledger) -> str:
    """The ledger's first line: its file, or the team ledger's server and who is connected."""
    return ledger.server.line if isinstance(ledger, PostgresLedger) else f"Ledger {ledger.path}"


def _ledger_show(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    records = [ledger.dataset(args.dataset)] if args.dataset else ledger.datasets()
    say(_ledger_in_words(ledger))
    if not records:
        print("No dataset has been released yet.")
    for record in records:
        relation = Neighbouring(record.neighbouring).in_words
        print()
        say(f"{record.name}: privacy unit {record.privacy_unit}; neighbours differ by {relation}")
        say(
            f"  {spent_in_words(record.spent, record.budget)}, in {record.releases} release(s); left "
            f"{record.remaining_in_words} ({record.spent.method})"
        )
        for entry in ledger.entries(record.name):
            print(textwrap.fill(_entry_line(entry), width=100, subsequent_indent="      ", break_on_hyphens=False))
    seq, digest = ledger.head()
    print(f"\nNewest entry #{seq}, hash {digest[:16]}… (note it to detect removal of later entries)")
    return 0


def _entry_line(entry: Entry) -> str:
    """One entry of ``ledger show``: number, time (UTC), who, and what."""
    data, start = entry.data, f"  #{entry.seq} {entry.created[:19].replace('T', ' ')} {entry.by}:"
    if entry.kind == "release":
        labels = ", ".join(s["label"] for s in data["release"]["statistics"])
        cost = data["cost"]
        return f"{start} release ε = {cost['epsilon']:g}, δ = {cost['delta']:g}: {labels}"
    if entry.kind == "budget":
        reason = f" ({data['reason']})" if data.get("reason") else ""
        return f"{start} budget raised to ε = {data['budget']['epsilon']:g}, δ = {data['budget']['delta']:g}{reason}"
    return f"{start} registered with ε = {data['budget']['epsilon']:g}, δ = {data['budget']['delta']:g}"


def _ledger_verify(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    problems = ledger.verify()
    where = ledger.where
    if not problems:
        seq, digest = ledger.head()
        print(f"{where[:1].upper()}{where[1:]} is intact: {seq} entries, newest hash {digest[:16]}….")
        return 0
    print(f"{where[:1].upper()}{where[1:]} has been tampered with or damaged:", file=sys.stderr)
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


def _ledger_register(args: argparse.Namespace) -> int:
    plan = ReleasePlan.load(args.plan)
    ledger = Ledger(args.ledger)
    entry = ledger.register(args.dataset, Guarantee(args.epsilon, args.delta, "total budget"), Terms.of(plan.schema),
                            size_estimate=plan.dataset.size_estimate)
    say(f"Registered '{args.dataset}' in {ledger.where} with the total budget ε = {args.epsilon:g}, δ = "
        f"{args.delta:g}, privacy unit {plan.schema.unit.in_words} (ledger entry {entry.seq}). Every release of it "
        "is counted against that total.")
    return 0


def _init_server(args: argparse.Namespace) -> int:
    if not is_server_url(args.url):
        raise WorkbenchError(f"'{args.url}' is not a PostgreSQL URL: write postgresql://server/database.")
    ledger = init_server(args.url, args.analysts)
    say(f"Set up {ledger.where}. Analysts may read it and append releases as members of the role {args.analysts} "
        f"(GRANT {args.analysts} TO their login role). Register each dataset with its total budget "
        "(`dp-workbench ledger register NAME --plan PLAN --epsilon E --ledger URL`), then hand each analyst the team's "
        "fingerprint key: `dp-workbench ledger key export --ledger URL --out team.key` (a file that must travel as "
        "the data would; the server never holds it).")
    return 0


def _migrate(args: argparse.Namespace) -> int:
    source_path = args.source or default_ledger_path()
    if not source_path.is_file():
        raise WorkbenchError(f"There is no ledger file {source_path}. Name the local ledger with --from FILE.")
    source = Ledger(source_path)
    target = Ledger(args.url)
    if not isinstance(target, PostgresLedger):
        raise WorkbenchError(f"'{args.url}' is not a team ledger's URL: write postgresql://server/database.")
    moved = migrate(source, target)
    seq, digest = target.head()
    say(f"Moved {moved} entries from {source.where} into {target.where}; the chain is intact on both (newest entry "
        f"#{seq}, hash {digest[:16]}…). From now on release against the team ledger (--ledger URL, or "
        "DP_WORKBENCH_LEDGER=URL) and keep the local file only as a record; give the analysts its key with "
        "`dp-workbench ledger key export --ledger URL --out team.key`.")
    return 0


def _key_export(args: argparse.Namespace) -> int:
    ledger = Ledger(args.ledger)
    text = json.dumps(ledger.export_key()) + "\n"
    try:
        write_private_file(args.out, text)
    except FileExistsError:
        raise WorkbenchError(f"{args.out} already exists. Choose another file; a key file is never overwritten.") from None
    except OSError as exc:
        raise WorkbenchError(f"{args.out} cannot be written ({exc.strerror or exc}). Choose another file.") from None
    say(f"Wrote the key of {ledger.where} to {args.out}, readable by you alone. With the ledger, it lets its "
        "holder test whether a guessed data file was released: move it as you would the data, import it with "
        "`dp-workbench ledger key import FILE` where the ledger is used, then delete the file.")
    return 0


def _key_import(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkbenchError(f"{args.file}: no such key file. Check the path.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WorkbenchError(f"{args.file} cannot be read as a ledger key file ({exc}). Export the key again.") from None
    ledger = Ledger(args.ledger)
    ledger.import_key(data, str(args.file))
    say(f"The key of {ledger.where} is now kept in {ledger.keys.where}. You may delete {args.file}.")
    return 0
