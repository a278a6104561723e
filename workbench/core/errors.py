"""Errors a user can cause, each with a message a statistician can act on.

The GUI shows ``str(error)`` in a dialog and the command line prints it and exits 2;
no traceback reaches a user. Messages say what is wrong, where, and what to do.
"""


class WorkbenchError(Exception):
    """A problem with the user's input, not a bug in the program."""


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
