"""``dp-workbench rr design|estimate``: randomised response for survey designers (local model)."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.core.errors import DataFileError, PlanError
from workbench.core.privacy import ResponseDesign, design_table, estimate_shares
from workbench.core.privacy.randomized_response import MAX_EPSILON, epsilon_text, probability_text


def add_commands(commands: argparse._SubParsersAction) -> None:
    rr = commands.add_parser("rr", help="randomised response: design a survey question, estimate from its answers")
    actions = rr.add_subparsers(title="actions", required=True, metavar="ACTION")
    design = actions.add_parser("design", help="response probabilities, expected error, and the cost of local privacy")
    _design_arguments(design)
    design.add_argument("--respondents", type=int, required=True, help="the planned number of respondents")
    design.add_argument("--shares", default="0.05,0.2,0.5", help="assumed true shares to show errors for")
    design.set_defaults(run=_design)
    estimate = actions.add_parser("estimate", help="estimate true shares from collected randomised answers")
    _design_arguments(estimate)
    estimate.add_argument("responses", type=Path, help="a text file with one randomised answer per line")
    estimate.add_argument("--confidence", type=float, default=0.95)
    estimate.set_defaults(run=_estimate)


def _design_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--epsilon", type=float, required=True,
                        help=f"ε for one respondent's answer, at most {MAX_EPSILON:g} (0.5 to 3 are usual)")
    parser.add_argument("--categories", required=True, help="the answer categories, comma-separated, e.g. yes,no")


def _design_of(args: argparse.Namespace) -> ResponseDesign:
    return ResponseDesign(tuple(c.strip() for c in args.categories.split(",") if c.strip()), args.epsilon)


def _design(args: argparse.Namespace) -> int:
    design = _design_of(args)
    try:
        shares = [float(s) for s in args.shares.split(",")]
    except ValueError:
        raise PlanError(f"--shares must be numbers between 0 and 1, like 0.05,0.2,0.5 (not {args.shares!r}).") from None
    k = len(design.categories)
    print(f"Randomised response with {k} categories at ε = {epsilon_text(design.epsilon)} (each respondent's own "
          "answer is ε-DP, checked by OpenDP's privacy map of the randomiser):")
    print(f"  report the true answer with probability p = {probability_text(design.truth_probability)}; each other "
          f"answer with q = {probability_text(design.other_probability, up=True)}.")
    print("  Estimate of a true share: (share of reports - q) / (p - q); unbiased.\n")
    print(f"95% ± of an estimated share with {args.respondents:,} respondents:")
    print(f"  {'true share':>10}  {'randomised response':>19}  {'trusted curator':>15}  {'ratio':>5}")
    for row in design_table(design, args.respondents, shares):
        print(f"  {row['share']:>10.3g}  {row['randomised_response']:>19.4f}  {row['central']:>15.4f}  {row['ratio']:>5.1f}")
    print("\n'trusted curator': the central model, where one party counts the true answers and adds Laplace noise "
          "at the same ε; local randomisation needs no trusted party but costs this factor in accuracy.")
    return 0


def _estimate(args: argparse.Namespace) -> int:
    design = _design_of(args)
    try:
        lines = args.responses.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError(f"{args.responses}: cannot be read ({exc}). Give a UTF-8 text file, one answer per line.") from None
    estimates, n = estimate_shares(design, [line for line in lines if line.strip()], args.confidence)
    print(f"{n:,} randomised answers, ε = {epsilon_text(design.epsilon)} if each was randomised by this design "
          f"before it was collected (raw answers are not protected, and their shares come out wrong); "
          f"{args.confidence:.0%} intervals (clipped to [0, 1]):")
    for e in estimates:
        print(f"  {e.category:<20} reported {e.reported:>8,}  estimated share {e.share:7.4f}  [{e.low:.4f}, {e.high:.4f}]")
    return 0
