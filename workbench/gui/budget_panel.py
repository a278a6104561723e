"""The budget: what this plan costs, what earlier releases of the dataset spent, what is left.

Reads the ledger (never writes it); every term carries a plain-language tooltip. Its first line says which
ledger that is: the file on this computer, or the team ledger's server and who is connected to it (read
off the GUI thread, so that a server far away or unreachable never freezes the window).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.errors import WorkbenchError, unexpected_error
from workbench.core.privacy import Guarantee, MechanismEvent, amplified_by_sampling, compose_releases, spent_in_words
from workbench.core.release import (
    DEFAULT_DATASET_DELTA,
    DatasetRecord,
    PostgresLedger,
    ReleasePlan,
    is_server_url,
    release_events,
    suggested_dataset_delta,
)
from workbench.core.release.ledger import Entry, LedgerPasswordNeeded, LedgerUnreachable
from workbench.gui.layout_barrier import LayoutBarrier
from workbench.gui.ledger_setting import chosen_location, exists, in_words, open_ledger
from workbench.gui.workers import Task

TIPS = {
    "epsilon": "ε (epsilon) bounds how much any one person's data can change what is published: "
    "smaller is more private. The ε of several releases add up (or less, with tighter accounting).",
    "delta": "δ (delta) is a tiny probability with which the ε promise may fail; keep it far below "
    "one over the number of persons. Laplace noise needs none.",
    "method": "How the total of several statistics was proved: the tightest valid accounting is used.",
    "spent": "What earlier releases of this dataset already spent, from the privacy ledger (on this computer, or "
    "the team's on its server: Tools ▸ Privacy ledger…).",
    "left": "What may still be spent on this dataset before its total budget is reached.",
    "total": "The most this dataset may ever spend, over all releases. It is recorded in the ledger at the "
    "first release; raising it later is possible and is itself recorded.",
    "proposed delta": "Until you type one, the total δ proposed follows the plan: 1e-6 for fewer than a million "
    "persons (or none given), else at most 1 / (100 × persons); never less than the plan's δ.",
}


class BudgetPanel(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.plan_cost = QLabel()
        self.plan_cost.setToolTip(TIPS["epsilon"] + "\n" + TIPS["delta"] + "\n" + TIPS["method"])
        self.plan_cost.setWordWrap(True)
        self.ledger_line = QLabel()  # which ledger: this computer's file, or the team's server and who is connected
        self.ledger_line.setWordWrap(True)
        self.ledger_line.setToolTip("Choose the ledger in Tools ▸ Privacy ledger…")
        self.ledger_state = QLabel()
        self.ledger_state.setWordWrap(True)
        self.ledger_state.setToolTip(TIPS["spent"] + "\n" + TIPS["left"])
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)  # drawn over the bar, the words were half hidden by its fill (issue 19, 6)
        self.bar.setToolTip("Share of the dataset's total ε: spent before, plus this plan.")
        self.bar_text = QLabel()  # the bar's words, on a line of their own above it
        self.bar_text.setWordWrap(True)
        self.total_epsilon = QDoubleSpinBox()
        self.total_epsilon.setRange(0.001, 100)
        self.total_epsilon.setDecimals(3)
        self.total_epsilon.setValue(3.0)
        self.total_epsilon.setToolTip(TIPS["total"])
        self.total_epsilon.setAccessibleName("total ε of the dataset")
        self.total_delta = QLineEdit(f"{DEFAULT_DATASET_DELTA:g}")  # then the plan's (``propose_total_delta``)
        self.total_delta.setToolTip(TIPS["total"] + "\n" + TIPS["delta"] + "\n" + TIPS["proposed delta"])
        self.total_delta.setAccessibleName("total δ of the dataset")
        self._proposed_for: str | None = None  # the dataset whose total δ the field proposes
        self._typed_for: str | None = None  # the dataset whose total δ the user typed: theirs, no longer proposed
        self.total_delta.textEdited.connect(self._typed_total_delta)
        self.new_dataset = QWidget()
        form = QFormLayout(self.new_dataset)
        form.addRow(QLabel("New dataset: its total budget, recorded at the first release."))
        form.addRow("Total ε:", self.total_epsilon)
        form.addRow("Total δ:", self.total_delta)
        self.history = QTreeWidget()
        self.history.setAccessibleName("Releases of this dataset in the ledger")
        self.history.setHeaderLabels(["Release", "When (UTC)", "By", "ε", "δ", "Statistics"])
        self.history.setRootIsDecorated(False)
        self.history.setToolTip("Earlier releases of this dataset, from the ledger.")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h3>Budget</h3>"))
        layout.addWidget(self.ledger_line)
        layout.addWidget(LayoutBarrier(self.plan_cost))  # it and the bar's words follow the ε slider
        layout.addWidget(self.ledger_state)
        layout.addWidget(LayoutBarrier(self.bar_text))
        layout.addWidget(self.bar)
        layout.addWidget(self.new_dataset)
        layout.addWidget(QLabel("Earlier releases of this dataset:"))
        layout.addWidget(self.history)
        self.record: DatasetRecord | None = None
        self.spent_events: list[list[MechanismEvent]] = []  # each release's
        self._loaded_for: str | None = None  # the dataset whose ledger state is shown
        self._reading: Task | None = None  # a team ledger being read
        self.registers = True  # whether this user registers a new dataset (not an analyst of a team ledger)
        self.unknown = False  # what the dataset spent cannot be known now (the team ledger cannot be reached)
        self._last: tuple | None = None  # the last show_plan arguments, to redraw when shown

    def dataset_budget(self, plan: ReleasePlan) -> Guarantee:
        """The total for a new dataset: the user's, its δ proposed for ``plan`` until they type one
        (``propose_total_delta``). BudgetError-free: checked by the core at release."""
        self.propose_total_delta(plan)
        try:
            delta = float(self.total_delta.text())
        except ValueError:
            delta = -1.0  # the core refuses it with a clear message
        return Guarantee(self.total_epsilon.value(), delta, "total budget")

    def propose_total_delta(self, plan: ReleasePlan) -> None:
        """The new dataset's total δ proposed for ``plan`` (``suggested_dataset_delta``), unless the user typed one
        for this dataset (another dataset gets its own proposal)."""
        name = plan.dataset.name
        if self._typed_for == "" and self._proposed_for is None:  # typed before any proposal: the first dataset's
            self._typed_for = name
        if self._typed_for == name:
            return
        self._proposed_for = name
        proposed = suggested_dataset_delta(plan.total.delta, plan.size())
        text = f"{proposed:g}"
        if float(text) != proposed:  # six digits would round it, perhaps below the plan's δ
            text = repr(proposed)
        if self.total_delta.text() != text:
            self.total_delta.setText(text)

    def _typed_total_delta(self, _text: str) -> None:
        self._typed_for = self._proposed_for if self._proposed_for is not None else ""

    def show_plan(self, plan: ReleasePlan, cost: Guarantee | None, problem: str | None = None, tight: bool = False) -> None:
        """Show ``cost``; ``tight``: it comes from the tightest accountant (else a quick valid one)."""
        if cost is None:
            self.plan_cost.setText(f"<b>This plan</b>: not ready — {problem}")
        else:
            settled = "" if tight else " (refining…)"
            rate = plan.dataset.sampling_rate
            population = ""
            if rate is not None:
                amplified = amplified_by_sampling(cost, rate)
                population = (
                    f"<br>For a person of the population (sampled at rate {rate:g}): ε = {amplified.epsilon:.4g}, "
                    f"δ = {amplified.delta:.3g}, if the sampling conditions hold."
                )
            self.plan_cost.setText(
                f"<b>This plan</b>: ε = {cost.epsilon:.4g}, δ = {cost.delta:.3g}{settled}"
                f"<br><small>by {cost.method}</small>{population}"
            )
        self._last = (plan, cost, problem, tight)
        self._load_ledger(plan.dataset.name)
        self.new_dataset.setVisible(self.record is None and self.registers and not self.unknown)
        if self.unknown:
            self.bar.setValue(0)
            self.bar_text.setText("Spent before: not known while the team ledger cannot be reached.")
            return
        total = self.record.budget if self.record else self.dataset_budget(plan)
        spent_before = self.record.spent.epsilon if self.record else 0.0
        after = spent_before + (cost.epsilon if cost else 0.0)
        if cost is not None and self.record is not None:
            after = self._spent_after(plan, cost, tight)
        share = after / total.epsilon if total.epsilon > 0 else 1.0
        value = min(1000, int(round(share * 1000)))
        if value != self.bar.value():
            # QProgressBar repaints at once on a new value; with updates off it waits for the next frame
            self.bar.setUpdatesEnabled(False)
            self.bar.setValue(value)
            self.bar.setUpdatesEnabled(True)
        words = f"spent {spent_before:.3g} + this plan → {after:.3g} of ε = {total.epsilon:g}"
        self.bar.setFormat(words)  # read by screen readers (accessible value text)
        if self.bar_text.text() != words:
            self.bar_text.setText(words)
        over = share > 1.0 + 1e-9
        style = "QProgressBar::chunk { background: #c0392b; }" if over else ""
        if style != self.bar.styleSheet():
            self.bar.setStyleSheet(style)
        if over:
            self.bar.setToolTip("This plan would overspend the dataset's budget: the release would be refused.")

    def invalidate(self) -> None:
        """Read the ledger again at the next update (after a release, or when the step is shown)."""
        self._loaded_for = None

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.invalidate()
        if self._last is not None:
            self.show_plan(*self._last)

    def _load_ledger(self, name: str) -> None:
        """The dataset's record, past releases and their events: read once per dataset, not per slider move; a team
        ledger is read off the GUI thread, and the panel drawn again when it answers."""
        if self._loaded_for == name:
            return
        self._loaded_for = name
        self.record, self.spent_events, self.registers, self.unknown = None, [], True, False
        self.history.clear()
        self.ledger_state.setText(f"<b>{_html(name)}</b> has no releases in the ledger yet.")
        location = chosen_location()
        if not is_server_url(location):
            self.ledger_line.setText(f"<small>Ledger: this computer, {_html(str(location))}</small>")
            if not exists(location):
                return
            try:
                found = _read(location, name)
            except WorkbenchError as exc:
                self.ledger_state.setText(f"The ledger cannot be read: {_html(str(exc))}")
                return
            self._show_ledger(name, *found)
            return
        self.ledger_line.setText(f"<small>Ledger: connecting to {_html(in_words(location))}…</small>")
        self.ledger_state.setText(f"Reading what <b>{_html(name)}</b> has spent from the team ledger…")
        self._reading = task = Task(lambda: _read(location, name))

        def done(found: tuple) -> None:
            if self._reading is task and self._loaded_for == name:
                self._reading = None
                self._show_ledger(name, *found)
                if self._last is not None:
                    self.show_plan(*self._last)

        def failed(exc: BaseException) -> None:
            if self._reading is task and self._loaded_for == name:
                self._reading = None
                self._show_unreachable(location, exc)

        task.finished.connect(done)
        task.failed.connect(failed)
        task.start()

    def _show_ledger(self, name: str, line: str, administrator: bool, record: DatasetRecord | None,
                     entries: list[Entry]) -> None:
        self.ledger_line.setText(f"<small>{_html(line)}</small>")
        self.registers = administrator
        if record is None:
            if not administrator:
                self.ledger_state.setText(
                    f"<b>{_html(name)}</b> is not in the team ledger: its administrator registers each dataset with "
                    "its total budget before its first release. Ask them to, or check the dataset's name (step 6).")
            return
        self.record = record
        self.spent_events = release_events(entries)
        r = self.record
        self.ledger_state.setText(
            f"<b>{_html(r.name)}</b>: {spent_in_words(r.spent, r.budget)}, in {r.releases} release(s); left "
            f"{r.remaining_in_words}."
        )
        for entry in entries:
            if entry.kind != "release":
                continue
            data = entry.data
            cost = data.get("cost", {})
            labels = ", ".join(s["label"] for s in data.get("release", {}).get("statistics", []))
            item = QTreeWidgetItem([f"#{entry.seq}", entry.created[:16].replace("T", " "), entry.by,
                                    f"{cost.get('epsilon', 0):.3g}", f"{cost.get('delta', 0):.3g}", labels])
            item.setToolTip(5, labels)
            self.history.insertTopLevelItem(0, item)  # newest first
        for column in range(5):
            self.history.resizeColumnToContents(column)

    def _show_unreachable(self, location, exc: BaseException) -> None:
        red = "<span style='color:#c0392b'>{}</span>"
        if isinstance(exc, LedgerPasswordNeeded):
            self.ledger_line.setText(red.format(
                f"<small>Ledger: {_html(in_words(location))} asks for your password. It is asked when you release, "
                "or in Tools ▸ Privacy ledger… ▸ Test the connection.</small>"))
        elif isinstance(exc, LedgerUnreachable):
            words = in_words(location)
            self.ledger_line.setText(red.format(
                f"<small><b>{_html(words[:1].upper() + words[1:])} cannot be reached.</b> Nothing of its datasets can "
                "be released until it can; no ledger on this computer is used instead.</small>"))
        else:
            self.ledger_line.setText(red.format(f"<small>Ledger: {_html(in_words(location))}</small>"))
        self.ledger_state.setText(_html(str(exc)) if isinstance(exc, WorkbenchError) else unexpected_error(exc))
        self.unknown = True
        if self._last is not None:
            self.show_plan(*self._last)

    def _spent_after(self, plan: ReleasePlan, cost: Guarantee, tight: bool) -> float:
        assert self.record is not None
        try:
            planned = plan.events(verified=tight)
            return compose_releases([*self.spent_events, planned], delta=self.record.budget.delta, tight=tight).epsilon
        except WorkbenchError:
            return self.record.spent.epsilon + cost.epsilon


def _read(location, name: str) -> tuple[str, bool, DatasetRecord | None, list[Entry]]:
    """(the ledger's line, whether this user registers datasets, the dataset's record or None, its entries)."""
    ledger = open_ledger(location)
    if isinstance(ledger, PostgresLedger):
        line, administrator = f"Ledger: {ledger.server.line}", ledger.server.administrator
    else:
        line, administrator = f"Ledger: this computer, {location}", True
    if not ledger.has_dataset(name):
        return line, administrator, None, []
    record, entries = ledger.history(name)
    return line, administrator, record, entries


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
