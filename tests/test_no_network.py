"""No network, ever: a full release with every report format, and the app's walk through every step,
run in a process whose audit hook ends it at the first socket created, name looked up or URL opened.

Audit hooks see what Python code does (sockets, DNS, urllib, webbrowser); they cannot be removed, so
each check runs in its own process. The same harness is shown to catch a deliberate connection.
"""

import subprocess
import sys
import textwrap

from bad_inputs import SAMPLE, SAMPLE_PLAN

CAUGHT = 97
GUARD = textwrap.dedent(f"""
    import os, sys

    NETWORK = ("socket.", "urllib.", "http.client.", "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.",
               "telnetlib.", "webbrowser.")

    def no_network(event, args):
        if event.startswith(NETWORK):
            os.write(2, f"NETWORK: {{event}} {{args!r}}\\n".encode())
            os._exit({CAUGHT})  # not an exception: nothing can catch it and carry on

    sys.addaudithook(no_network)
""")


def _run(code: str, tmp_path) -> subprocess.CompletedProcess:
    script = tmp_path / "guarded.py"
    script.write_text(GUARD + textwrap.dedent(code))
    env = {"QT_QPA_PLATFORM": "offscreen", "DP_WORKBENCH_LEDGER": str(tmp_path / "ledger.sqlite"),
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "MPLCONFIGDIR": str(tmp_path / "mpl")}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env=env,
                          cwd=tmp_path)


def test_a_release_with_every_report_format_opens_no_socket(tmp_path):
    run = _run(f"""
        from workbench.cli import main
        code = main(["release", {str(SAMPLE)!r}, "--plan", {str(SAMPLE_PLAN)!r}, "--out", "out", "--report",
                     "--dataset-budget", "3", "1e-6"])
        code = code or main(["report", "out/results.json", "--out", "again", "--paper", "letter"])
        code = code or main(["ledger", "export", "--out", "ledger.json"])
        sys.exit(code)
    """, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert {p.name for p in (tmp_path / "out").iterdir()} >= {"report.html", "report.pdf", "results.csv",
                                                              "results.json"}
    assert (tmp_path / "again" / "report.pdf").exists() and (tmp_path / "ledger.json").exists()


def test_the_app_walks_every_step_and_releases_without_a_socket(tmp_path):
    run = _run(f"""
        from workbench.gui.app import main
        sys.exit(main([{str(SAMPLE)!r}, "--smoke-test", "shots"]))
    """, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "shots" / "results" / "results.json").exists()


def test_the_guard_catches_a_connection(tmp_path):
    """The check is not vacuous: a library that phones home is stopped, even if it catches errors."""
    run = _run("""
        import socket
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=1)
        except Exception:
            pass
        sys.exit(0)
    """, tmp_path)
    assert run.returncode == CAUGHT and "NETWORK: socket." in run.stderr
