"""The open document: a table, the plan being edited, where it is saved, and whether it changed.

Widgets observe ``PlanDocument.changed`` and replace the plan with ``update``; the plan
itself is the core's immutable ``ReleasePlan`` (napari style: the model knows no widget).
Every ``update`` is a step on ``history``, Qt's undo stack: undo and redo put the plan before or
after it back, and the widgets follow through ``changed`` as they do for any edit. Updates given the same
``merge`` key one after another (one drag of step 5's ε slider) are one step: Qt merges each into the
last (``QUndoCommand.mergeWith``), which keeps the plan from before the first; a run that ends where it
began leaves no step.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from workbench.core.data import ColumnProposal, Schema, Table, check_columns_exist, propose_kinds
from workbench.core.errors import Place, WorkbenchError
from workbench.core.privacy import MechanismKind
from workbench.core.release import NEUTRAL_NAME, Budget, DatasetDescription, ReleasePlan, budget_plan, describe_columns
from workbench.core.release.template import declarable_encoding
from workbench.gui.fix_places import Problem


def empty_plan(name: str = NEUTRAL_NAME) -> ReleasePlan:
    return ReleasePlan(DatasetDescription(name), Schema(()), (), Budget(1.0))


class PlanDocument(QObject):
    """What one window edits. ``changed`` fires after every edit."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.plan: ReleasePlan = empty_plan()
        self.table: Table | None = None
        self.path: Path | None = None  # where the plan was saved or opened
        self.dirty = False
        # a text file's encoding as an opened plan or File > Text encoding… declares it (not guessed), and the file it
        # is declared for (None: a plan opened before its file, so the next text file opened); any other file is guessed
        self.declared_encoding: str | None = None
        self.declared_for: Path | None = None
        self.confidence = 0.95
        self._budgeted: tuple[ReleasePlan, ReleasePlan] | None = None  # the last plan and its budgeted form
        self.history = QUndoStack(self)  # the edits of steps 2 to 5, for Edit > Undo and Redo

    # -- edits -----------------------------------------------------------------------------
    def update(self, plan: ReleasePlan, merge: object = None) -> None:
        """Replace the plan, as one step of ``history``; with a ``merge`` key (any object but None), into the last
        step if that was made with the same key and has not been undone since (a drag of a slider is one step)."""
        if plan != self.plan:
            self.history.push(_PlanEdit(self, self.plan, plan, merge))  # pushing applies it

    def _show(self, plan: ReleasePlan) -> None:
        self.plan = plan
        self.dirty = True
        self.changed.emit()

    def set_table(self, table: Table, proposals: Sequence[ColumnProposal] | None = None) -> None:
        """Use ``table``; keep the plan's descriptions of columns it has, describe the others afresh. A text file's
        encoding: the one declared for it, else the one it was read in (guessed in step 1, which the curator saw);
        a declaration for another file is dropped, since that file's encoding says nothing about this one's."""
        self.table = table
        known = {spec.name: spec for spec in self.plan.schema.columns}
        proposed = describe_columns(proposals if proposals is not None else propose_kinds(table))
        described = tuple(known.get(spec.name, spec) for spec in proposed)
        absent = tuple(spec for spec in self.plan.schema.columns if spec.name not in table.columns)
        columns = described + absent  # a plan for other data keeps its columns; the release step says so
        dataset = self.plan.dataset
        if table.file_format == "text":
            declared = self.encoding_for(table.source)
            self.declared_encoding, self.declared_for = declared, table.source if declared else None
            dataset = replace(dataset, encoding=declared or declarable_encoding(table))
        self.plan = replace(self.plan, dataset=dataset,  # the name is the user's
                            schema=replace(self.plan.schema, columns=columns))
        self.history.clear()  # another table: undoing into the last one's descriptions would mislead
        self.dirty = True
        self.changed.emit()

    def encoding_for(self, path: Path) -> str | None:
        """The encoding declared for the text file ``path``; None: none is, and step 1 guesses it."""
        if self.declared_encoding is None:
            return None
        if self.declared_for is not None and not _same_file(self.declared_for, path):
            return None
        return self.declared_encoding

    def declare_encoding(self, encoding: str | None, path: Path) -> None:
        """The curator says which encoding the text file ``path`` is in (None: guess it again); called once the file
        has been read in it, just before ``set_table`` shows it, which records it in the plan (a failed reading
        declares nothing)."""
        self.declared_encoding, self.declared_for = encoding, path if encoding else None

    def open_plan(self, path: Path) -> None:
        self.plan = ReleasePlan.load(path)
        self.declared_encoding, self.declared_for = self.plan.dataset.encoding, None  # the window says for which file
        self.history.clear()
        self.path, self.dirty = path, False
        self.changed.emit()

    def save_plan(self, path: Path) -> None:
        self.plan.save(path)
        self.path, self.dirty = path, False
        self.changed.emit()

    # -- what the widgets read ---------------------------------------------------------------
    def budgeted(self) -> ReleasePlan:
        """The plan with ε spread over the statistics by their weights (locked ones keep theirs),
        and the total δ shared equally by the weighted Gaussian statistics."""
        plan = self.plan
        if self._budgeted is not None and self._budgeted[0] is plan:
            return self._budgeted[1]  # asked several times per slider move, for the same plan
        shared = [p for p in plan.statistics if p.weight is not None and p.mechanism is MechanismKind.GAUSSIAN]
        locked_delta = sum(p.budget.delta for p in plan.statistics if p.weight is None)
        each = max(plan.total.delta - locked_delta, 0.0) / len(shared) if shared else 0.0
        statistics = tuple(
            replace(p, budget=Budget(p.budget.epsilon, each if p.mechanism is MechanismKind.GAUSSIAN else 0.0))
            if p.weight is not None else p
            for p in plan.statistics
        )
        budgeted = budget_plan(replace(plan, statistics=statistics))
        self._budgeted = (plan, budgeted)
        return budgeted

    def problems(self) -> list[str]:
        """Everything that stops a release, in words (empty when the plan is sound); each a ``Problem``, which
        carries the core's place for it (``fix_places``)."""
        opened = [] if self.table is not None else [Problem.of("Open the data file (File > Open).")]
        encoding = self.encoding_problem()
        return opened + ([encoding] if encoding else []) + self.plan_problems()

    def encoding_problem(self) -> Problem | None:
        """The open text file was read in another encoding than the plan declares: the release would release that
        table, not the file as the plan (and the command line) reads it, so it is refused until they agree."""
        table = self.table
        if table is None or table.file_format != "text" or not table.encoding:
            return None
        declared = self.plan.dataset.encoding
        differs = reads_differently(table, declared) if declared else declarable_encoding(table) is not None
        if not differs:
            return None
        return Problem.of(WorkbenchError(
            f"{table.source.name} is shown read as {table.encoding}, but the plan declares "
            f"{declared or 'no encoding (so UTF-8)'}, and a release reads the file as its plan declares. Choose the "
            "file's encoding with File > Text encoding… (the file is read again in it, and the plan declares it), "
            "or correct \"encoding\" in the plan's dataset and open the plan again.",
            place=Place("data", "encoding")))

    def plan_problems(self) -> list[str]:
        """What is wrong with the plan itself, or with the plan for the open table (``Problem``s)."""
        problems = []
        if not self.plan.statistics:
            problems.append(Problem.of("Add at least one statistic."))
        try:
            if self.table is not None:
                check_columns_exist(self.table, self.plan.schema)  # the most basic problem first
            self.budgeted().validate()
        except WorkbenchError as exc:
            problems.append(Problem.of(exc))
        return problems


_MERGED = 1  # the id of every edit made with a merge key (Qt merges only commands of one id); the key decides


class _PlanEdit(QUndoCommand):
    """One edit of the plan: the plan before and after it, and what it changed, in words for the Edit menu.
    Edits with the same ``merge`` key merge while they follow one another (see ``PlanDocument.update``)."""

    def __init__(self, document: PlanDocument, before: ReleasePlan, after: ReleasePlan, merge: object = None) -> None:
        super().__init__(edit_words(before, after))
        self._document, self._before, self._after, self._merge = document, before, after, merge

    def id(self) -> int:  # noqa: A003 (Qt's name)
        return -1 if self._merge is None else _MERGED

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 (Qt's name)
        """Take ``other``'s plan as this edit's result when it continues this edit's run (same key). Qt has applied
        it already; an edit that now changes nothing is marked obsolete, and Qt drops it."""
        if self._merge is None or not isinstance(other, _PlanEdit) or other._merge is not self._merge:
            return False
        self._after = other._after
        if self._after == self._before:
            self.setObsolete(True)
        else:
            self.setText(edit_words(self._before, self._after))
        return True

    def redo(self) -> None:
        self._document._show(self._after)

    def undo(self) -> None:
        self._merge = None  # undone (and perhaps redone): a later edit of the same run is a step of its own
        self._document._show(self._before)


def edit_words(before: ReleasePlan, after: ReleasePlan) -> str:
    """What an edit changed, as the Edit menu names it ("Undo the budget")."""
    if (before.schema.unit, before.schema.neighbouring) != (after.schema.unit, after.schema.neighbouring):
        return "who is protected"
    if before.schema != after.schema:
        return "the columns"
    if before.statistics != after.statistics:
        return "the statistics"
    if before.total != after.total:
        return "the budget"
    if before.dataset != after.dataset:
        return "the dataset's description"
    return "the plan"


def reads_differently(table: Table, encoding: str | None) -> bool:
    """Whether ``table`` (a text file) was read in another encoding than ``encoding`` declares."""
    import codecs

    if table.file_format != "text" or not encoding or not table.encoding:
        return False
    return codecs.lookup(table.encoding).name != codecs.lookup(encoding).name


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.resolve() == second.resolve()
    except OSError:
        return first == second
