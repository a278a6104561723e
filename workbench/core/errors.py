"""Errors a user can cause, each with a message a statistician can act on.

The GUI shows ``str(error)`` in a dialog and the command line prints it and exits 2;
no traceback reaches a user. Messages say what is wrong, where, and what to do. Where the
problem is fixed is also data (``Place``): the step of the workflow, the field, and the column or
statistic it is about, so that the app takes the user there without reading the message (issue 37, 6).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Iterator

STEPS = ("data", "unit", "columns", "statistics", "budget", "release")  # the workflow, in order


@dataclass(frozen=True)
class Place:
    """Where a problem is fixed: a step of ``STEPS``, the field of that step ("bounds", "categories", "missing",
    "kind" of a column; "unit" or "public size" of who is protected; "statistic" or "add" among the statistics;
    "epsilon", "delta", "size", "sampling", "confidence" of the budget, "dataset delta" (a new dataset's total δ), or a statistic's accuracy "target" or "weight" there; "file" of the data;
    "dataset name" or "ledger" of the release), and what it is about."""

    step: str
    field: str = ""
    column: str | None = None
    statistic: str | None = None  # the statistic's label, as the plan names it

    def __post_init__(self) -> None:
        if self.step not in STEPS:
            raise ValueError(f"a place's step is one of {STEPS}, not {self.step!r}")


class WorkbenchError(Exception):
    """A problem with the user's input, not a bug in the program; ``place`` says where it is fixed, if known."""

    def __init__(self, *args: object, place: Place | None = None) -> None:
        super().__init__(*args)
        self.place = place

    def placed(self, place: Place) -> "WorkbenchError":
        """This error, at ``place`` unless it names a place already (the innermost knows best)."""
        if self.place is None:
            self.place = place
        return self

    def __reduce__(self):  # keeps the place (and a subclass's own attributes) when the error is pickled
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


def _rebuild(kind: type, args: tuple, state: dict) -> WorkbenchError:
    error = kind.__new__(kind)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class FailedAfterNoise(WorkbenchError):
    """A release stopped after its noise may have been drawn: it is charged all the same (a failure that depends
    on the noisy answers says something about the data, and a free second try would draw the noise again)."""


class DataFileError(WorkbenchError):
    """A data file cannot be read as a table."""


class SchemaError(WorkbenchError):
    """The description of the columns or of the privacy unit is incomplete or inconsistent."""


class PlanError(WorkbenchError):
    """A release plan is malformed, from another version, or does not fit the data."""


class BudgetError(WorkbenchError):
    """A privacy budget is invalid or would be exceeded."""


class Cancelled(WorkbenchError):
    """The user stopped a long task (loading a file); nothing was changed."""


def unexpected_error(exc: BaseException) -> str:
    """The words for an error that is not a ``WorkbenchError``: its kind, never its text, which was not written for
    a user and may quote what the code was handed (a release's noisy values before the charge, rows of the data).
    Its frames (file, line, code; no message) go to standard error, for a bug report."""
    import sys
    import traceback

    frames = "".join(traceback.format_tb(exc.__traceback__))
    print(f"Unexpected {type(exc).__name__} (its message left out: it may hold values from the data):\n{frames}",
          file=sys.stderr)
    return (f"Unexpected error ({type(exc).__name__}). Its details are not shown: they may hold values from the data "
            "that were never charged. Please report it, with the steps that led to it")


# whether the release computed in this thread (``drawing_noise``) has drawn noise yet (``noise_drawn``)
_NOISE_DRAWN: ContextVar[bool] = ContextVar("noise_drawn", default=False)


@contextmanager
def drawing_noise() -> Iterator[Callable[[], bool]]:
    """A release's computing, which yields whether it has drawn noise yet. From its first noise, whatever stops it
    (an error, Ctrl+C) is charged: how long the work after the noise took, or the words it said, may depend on the
    noisy values (a synthetic table's fit: AIM's rounds), and a stop seen to cost nothing would be a free re-roll
    (DESIGN rule 5)."""
    token = _NOISE_DRAWN.set(False)
    try:
        yield _NOISE_DRAWN.get
    finally:
        _NOISE_DRAWN.reset(token)


def noise_drawn() -> None:
    """Mark the release computed in this thread (``drawing_noise``) as having drawn noise: called before each call
    into OpenDP that draws noise, and before any work that reads a noisy value (``after_noise``)."""
    _NOISE_DRAWN.set(True)


@contextmanager
def after_noise(what: str) -> Iterator[None]:
    """Whatever stops the work inside, once noise was drawn, is a ``FailedAfterNoise`` (charged, nothing shown): a
    failure there may depend on the noisy values, and uncharged it would be a free look at them (DESIGN rule 5)."""
    noise_drawn()
    try:
        yield
    except FailedAfterNoise:
        raise
    except WorkbenchError as exc:
        raise FailedAfterNoise(f"{what} stopped: {str(exc).rstrip('.')}.", place=exc.place) from None
    except Exception as exc:  # noqa: BLE001 - any failure past the noise, a bug's too
        unexpected_error(exc)  # its frames to standard error, for a bug report; its message never shown
        raise FailedAfterNoise(f"{what} stopped on an unexpected {type(exc).__name__} (its details are left out; "
                               "please report it).") from None
