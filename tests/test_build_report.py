"""The packaging builds' times and sizes reach the terminal summary of a passing run (issue 35), shown with a fake
build's lines, in a pytest of its own: the packaging tests themselves take 20 minutes and are not run here."""

import os
import subprocess
import sys
import time
from pathlib import Path

from build_report import linux_build_summary, summary_lines

TESTS = Path(__file__).resolve().parent

FAKE = '''
from build_report import report


def test_a_passing_build(request):
    print("what pytest keeps to itself")
    report(request.config, "Windows build under Wine", "all        612 s\\n\\ninstaller: setup.exe, 181 MB (target ≤ 250 MB)\\n")
'''


def test_a_passing_packaging_tests_lines_are_in_the_terminal_summary(tmp_path):
    (tmp_path / "test_fake_build.py").write_text(FAKE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(  # this suite's conftest.py, as a plugin, with its summary hook
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         str(tmp_path / "test_fake_build.py")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout and "what pytest keeps to itself" not in run.stdout
    summary = run.stdout[run.stdout.index("packaging builds: times and sizes"):]
    assert ("Windows build under Wine:\n  all        612 s\n  installer: setup.exe, 181 MB (target ≤ 250 MB)\n"
            in summary)


def test_nothing_is_added_when_no_build_reported():
    assert summary_lines([]) == []


def test_the_linux_builds_summary_states_its_time_and_the_bundles_and_debs_sizes(tmp_path):
    dist = tmp_path / "checkout" / "dist"
    (dist / "dp-workbench" / "_internal").mkdir(parents=True)
    (dist / "dp-workbench" / "dp-workbench").write_bytes(b"x" * 2_000_000)
    (dist / "dp-workbench" / "_internal" / "lib.so").write_bytes(b"x" * 3_000_000)
    (dist / "dp-workbench_1.0-1_amd64.deb").write_bytes(b"x" * 4_000_000)
    (dist / "dp-workbench_1.0-2_amd64.deb").write_bytes(b"x" * 9_000_000)  # the upgrade test's, compressed quickly
    assert linux_build_summary(tmp_path, 731.4).splitlines() == [
        "build and checks: 731 s", "bundle: 5 MB, 2 files", "dp-workbench_1.0-1_amd64.deb: 4 MB (target ≤ 250 MB)"]
    stages = ["the bundle (packaging/build.sh)                 412 s", "the bundle tried (try_bundle.py)  200 s"]
    (tmp_path / "linux-build-times.txt").write_text("\n".join(stages) + "\n")  # as smoke_test.sh writes them
    assert linux_build_summary(tmp_path, 731.4).splitlines()[:3] == ["build and checks: 731 s", *stages]


def test_a_builds_time_runs_to_its_last_output(tmp_path):
    from background_builds import Build

    build = Build([sys.executable, "-c", "import time; time.sleep(1); print('done')"])
    began = time.time()
    build.start(tmp_path)
    assert build.result(tmp_path, timeout=60).stdout == "done\n"
    time.sleep(1.5)  # its test reads it later: that is not counted
    assert 1.0 <= build.seconds <= time.time() - began - 1.5
