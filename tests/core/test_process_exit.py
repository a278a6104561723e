"""The command line ends with its own exit status even while Arrow's read-ahead is still reading a Python file
object (workbench.core.process_exit): finalising the interpreter then aborted it (SIGABRT), after the message."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A program whose main returns while Arrow's read-ahead thread is inside the file's read (which waits a second):
# the thread asks for the GIL back as the interpreter finalises, as after a refused file on a busy machine.
PROGRAM = '''
import io, sys, time
import pyarrow.csv as pa_csv

class SlowFile(io.RawIOBase):
    def __init__(self):
        self.reads = 0
    def readable(self):
        return True
    def readinto(self, buffer):
        self.reads += 1
        if self.reads > 1:
            time.sleep(1.0)
        data = b"a,b\\n" + b"1,2\\n" * 20000
        buffer[:min(len(buffer), len(data))] = data[:len(buffer)]
        return min(len(buffer), len(data))

def main():
    reader = pa_csv.open_csv(SlowFile(), read_options=pa_csv.ReadOptions(block_size=1 << 16))
    reader.read_next_batch()
    print("said before the end", file=sys.stderr)
    return 2

if sys.argv[1] == "sys.exit":
    sys.exit(main())
from workbench.core.process_exit import run_and_exit
run_and_exit(main)
'''


def _ran(program: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``program`` run by this Python in a process of its own."""
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)


def _ended(how: str) -> subprocess.CompletedProcess:
    return _ran(PROGRAM, how, timeout=120)


def test_the_status_survives_a_read_ahead_still_running_and_sys_exit_does_not():
    ended = _ended("run_and_exit")
    assert ended.returncode == 2 and ended.stderr == "said before the end\n"
    # the same program ended as before: the check catches the fault it is there for
    try:
        aborted = _ran(PROGRAM, "sys.exit", timeout=30)
    except subprocess.TimeoutExpired:  # hung as the interpreter finalised (once, in a clean-clone CI run): the same fault
        return
    assert aborted.returncode < 0  # a signal: SIGABRT ("terminate called…", or a fatal error of the GIL's state)


def test_exit_handlers_run_and_output_is_flushed():
    program = ("import atexit, sys\n"
               "from workbench.core.process_exit import run_and_exit\n"
               "atexit.register(lambda: print('handler ran'))\n"
               "def main():\n"
               "    sys.stdout.write('unflushed')\n"
               "    raise SystemExit(3)\n"
               "run_and_exit(main)\n")
    ended = _ran(program)
    assert ended.returncode == 3 and ended.stdout == "unflushedhandler ran\n"


def test_an_interrupt_while_threads_are_waited_for_still_runs_the_exit_handlers():
    """Ctrl+C while a thread is still working at the end (a table being hashed after an abandon): the exit handlers
    (the engines' private folders removed, Spark's JVM ended) run all the same, and the status says interrupted."""
    program = ("import atexit, os, signal, threading, time\n"
               "from workbench.core.process_exit import run_and_exit\n"
               "atexit.register(lambda: print('handler ran', flush=True))\n"
               "def main():\n"
               "    threading.Thread(target=time.sleep, args=(5,)).start()\n"
               "    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
               "    return 0\n"
               "run_and_exit(main)\n")
    ended = _ran(program)
    assert ended.returncode == 130 and ended.stdout == "handler ran\n"


def test_an_unexpected_error_is_named_by_its_kind_without_its_text():
    program = ("from workbench.core.process_exit import run_and_exit\n"
               "def main():\n"
               "    noisy = 4000 + 242.5\n"
               "    raise RuntimeError(f'the noisy count {noisy} could not be written')\n"
               "run_and_exit(main)\n")
    ended = _ran(program)
    assert ended.returncode == 1 and "Error: Unexpected error (RuntimeError)" in ended.stderr
    assert "4242" not in ended.stderr and "line 4, in main" in ended.stderr  # its frames, for a bug report


def test_the_command_line_programs_end_through_it():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["dp-workbench"] == "workbench.cli:run"
    for launcher in ("launch_cli.py", "launch.py"):
        assert "run()" in (ROOT / "packaging" / launcher).read_text()
    assert "run()" in (ROOT / "workbench" / "cli" / "__main__.py").read_text()





def _spin() -> None:  # signal handlers run between two instructions
    for _ in range(10_000):
        pass


def test_a_stop_waits_for_the_work_inside_and_then_stops_as_it_would_have(capfd, stop_signals):
    """OpenDP's fit is never interrupted inside its call back into Python (the process aborted): the stop is said at
    once and made once the work has ended; should the work fail, its error goes on instead."""
    import os
    import signal

    import pytest

    from workbench.core.process_exit import stops_deferred

    done = []
    with pytest.raises(KeyboardInterrupt):
        with stops_deferred("Stopping once the work ends."):
            os.kill(os.getpid(), signal.SIGINT)
            _spin()
            done.append(True)
    assert done and "Stopping once the work ends." in capfd.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(ValueError):  # the work failing: its error, which ends the program anyway
        with stops_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            _spin()
            raise ValueError("a numerical problem")
    with stops_deferred():  # nothing heard: nothing made
        _spin()


def test_a_stop_during_a_charge_is_held_until_the_release_is_shown(stop_signals):
    """A stop while a ledger's charge is made had left the release charged and never shown: it is kept, and made
    once the release is shown and written (``make_held_stop``)."""
    import os
    import signal

    import pytest

    from workbench.core.process_exit import make_held_stop, stops_held

    with stops_held():
        os.kill(os.getpid(), signal.SIGINT)
        _spin()
        charged = True
    assert charged  # nothing raised: the release goes on to be shown
    with pytest.raises(KeyboardInterrupt):
        make_held_stop()
    make_held_stop()  # made once


def test_an_ignored_signal_stays_ignored_and_the_systems_default_ends_by_an_exception(stop_signals):
    """Under nohup SIGHUP is ignored: it must not be heard and said. Under the system's default (a library's
    caller), SIGTERM would end the process at once, before the charge: it ends it by SystemExit instead."""
    import os
    import signal

    import pytest

    from workbench.core.process_exit import stops_deferred

    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with stops_deferred("never said"):
        os.kill(os.getpid(), signal.SIGHUP)
        _spin()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with pytest.raises(SystemExit) as ended:
        with stops_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            _spin()
    assert ended.value.code == 128 + signal.SIGTERM
