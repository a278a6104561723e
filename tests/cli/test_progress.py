"""A long release says how far it is, on standard error, and a quick one says nothing more than before."""

import functools
import io

import pytest

from workbench.cli import main, releases
from workbench.cli.progress import CommandProgress

BUDGET = ["--dataset-budget", "10", "1e-6"]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_at_every_tenth_and_a_quick_stage_nothing():
    clock, log = _Clock(), io.StringIO()
    shown = CommandProgress(log, delay=2.0, clock=clock)
    reading = shown.stage("Reading big.csv")
    reading(0.5)  # within the first two seconds: a quick command prints nothing more than before
    assert log.getvalue() == ""
    clock.now = 3.0
    for step in range(101):
        reading(step / 100)
    shown.waiting("Computing the statistics")
    shown.finish()
    lines = log.getvalue().splitlines()
    assert lines == [f"Reading big.csv: {p}%" for p in range(0, 101, 10)] + ["Computing the statistics…"]


def test_a_terminal_line_is_rewritten_in_place_and_ended_before_the_results():
    clock, terminal = _Clock(), _Terminal()
    shown = CommandProgress(terminal, delay=2.0, clock=clock)
    clock.now = 5.0
    shown.stage("Reading big.csv")(0.25)
    shown.waiting("Computing the statistics")
    shown.finish()
    written = terminal.getvalue()
    assert written == "\rReading big.csv:  25%\033[K\n\rComputing the statistics…\033[K\n"


def test_a_stage_long_from_its_start_is_announced_even_in_a_quick_command():
    clock, log = _Clock(), io.StringIO()
    shown = CommandProgress(log, delay=2.0, clock=clock)
    shown.waiting("Computing the statistics")  # quick so far: nothing
    shown.announce("Synthetic table: fitting the model")
    shown.finish()
    assert log.getvalue().splitlines() == ["Synthetic table: fitting the model…"]


def test_a_stage_begun_early_is_said_once_the_command_has_taken_longer_than_the_delay():
    """A stage without a fraction that starts in the first seconds and lasts is said when the delay is over."""
    clock, log, later = _Clock(), io.StringIO(), []

    def schedule(seconds, call):
        later.append((seconds, call))
        return lambda: later.remove((seconds, call))

    shown = CommandProgress(log, delay=2.0, clock=clock, schedule=schedule)
    clock.now = 0.5
    shown.waiting("Computing the statistics")
    assert log.getvalue() == "" and [s for s, _ in later] == [1.5]
    later[0][1]()  # the delay is over while the stage runs
    assert log.getvalue() == "Computing the statistics…\n"
    shown.waiting("Charging the ledger")  # a quick stage that ends before its timer: never said
    shown.finish()
    assert later == [] and log.getvalue() == "Computing the statistics…\n"


def test_an_interlude_within_a_stage_shows_its_fraction_and_the_stage_is_said_again_after_it():
    """The data file read again to recognise it, in the middle of computing the statistics, twice."""
    clock, log = _Clock(), io.StringIO()
    shown = CommandProgress(log, delay=2.0, clock=clock)
    clock.now = 3.0
    shown.waiting("Computing the statistics")
    reading = shown.interlude("Reading big.csv again", then="Computing the statistics")
    for step in range(0, 101, 25):
        reading(step / 100)
    reading(0.5)  # read once more later on
    reading(1.0)
    shown.finish()
    assert log.getvalue().splitlines() == [
        "Computing the statistics…", *[f"Reading big.csv again: {p}%" for p in (0, 20, 50, 70, 100)],
        "Computing the statistics…", "Reading big.csv again: 50%", "Reading big.csv again: 100%",
        "Computing the statistics…",
    ]


def test_an_interlude_of_the_current_stage_gives_it_its_fraction():
    clock, terminal = _Clock(), _Terminal()
    shown = CommandProgress(terminal, delay=2.0, clock=clock)
    clock.now = 3.0
    shown.waiting("Looking big.csv up")
    shown.interlude("Looking big.csv up")(0.5)
    shown.finish()
    assert terminal.getvalue() == "\rLooking big.csv up…\033[K\rLooking big.csv up:  50%\033[K\n"


@pytest.mark.parametrize("engine", ["memory", "out-of-core"])
def test_a_release_shows_its_stages_on_standard_error_only(engine, sample_path, sample_plan_path, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.setattr(releases, "CommandProgress", functools.partial(CommandProgress, delay=0.0))
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(tmp_path / "out"),
                 "--engine", engine, "--ledger", str(tmp_path / "ledger.sqlite"), *BUDGET]) == 0
    printed = capsys.readouterr()
    assert "Reading the data file: 100%" in printed.err
    assert "Checking the public categories against the file…" in printed.err
    assert "Computing the statistics, adding the noise and charging the ledger…" in printed.err
    # the file's bytes read again for its fingerprint, shown with their fraction, then the release's stage again
    err = printed.err.splitlines()
    again = err.index("Reading the data file again to recognise it: 100%")
    assert err[again + 1] == "Computing the statistics, adding the noise and charging the ledger…"
    assert "Reading" not in printed.out.replace("Reading the data file out of core", "")
    assert "Total: ε" in printed.out


def test_a_release_of_a_file_the_ledger_knows_shows_the_look_up_and_the_reading_again(sample_path, sample_plan_path,
                                                                                        tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(releases, "CommandProgress", functools.partial(CommandProgress, delay=0.0))
    ledger = tmp_path / "ledger.sqlite"
    for _ in range(2):
        assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(tmp_path / "out"),
                     "--engine", "out-of-core", "--ledger", str(ledger), *BUDGET]) == 0
        printed = capsys.readouterr()
    err = printed.err.splitlines()
    assert err.index("Looking the data file up in the ledger: 100%") < err.index("Reading the data file: 100%")
    assert "Reading the data file again to recognise it: 100%" in err  # after the engine, before the noise
