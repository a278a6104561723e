"""The two packaging builds (packaging/smoke_test.sh and packaging/windows/build_under_wine.sh) each keep a core
busy for a quarter of an hour, while most of the suite keeps only one of CI's two cores busy. When their tests
are selected, the builds start with the session, each in a folder of its own, and their tests wait for them;
so CI takes the suite's time, not the suite's plus the builds'. A build whose test runs alone starts then."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Build:
    command: list[str]
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    work: Path | None = None
    process: subprocess.Popen | None = None
    started: float = 0.0  # the wall-clock time it started

    def start(self, work: Path) -> None:
        self.work = work
        self.started = time.time()
        with (work / "build.out").open("w") as out, (work / "build.err").open("w") as err:
            self.process = subprocess.Popen([*self.command, str(work)], stdout=out, stderr=err, env=self.env,
                                            stdin=subprocess.DEVNULL, start_new_session=True)

    def result(self, work: Path, timeout: float) -> subprocess.CompletedProcess:
        """Wait for the build (started now if it was not), as ``subprocess.run`` would return it."""
        if self.process is None:
            self.start(work)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        return subprocess.CompletedProcess(self.process.args, self.process.returncode,
                                           (self.work / "build.out").read_text(errors="replace"),
                                           (self.work / "build.err").read_text(errors="replace"))

    @property
    def seconds(self) -> float:
        """How long the finished build took: to its last word of output (its test may have read it later)."""
        assert self.work is not None
        return max((self.work / name).stat().st_mtime for name in ("build.out", "build.err")) - self.started

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)  # the build and everything it started (Wine, PyInstaller)
            self.process.wait()


BUILDS = {
    "test_the_bundle_builds_from_a_clean_checkout_and_releases": Build([str(ROOT / "packaging" / "smoke_test.sh")]),
    "test_the_windows_installer_builds_under_wine_and_installs_upgrades_and_uninstalls": Build(
        [str(ROOT / "packaging" / "windows" / "build_under_wine.sh")],
        # the installer compressed with zlib, in a minute (LZMA takes 5 to 20 minutes of one core here)
        {**os.environ, "PYTHON": sys.executable, "COMPRESSOR": "zlib"}),
}


def start_selected(items, tmp_path_factory) -> None:
    """Start the build of each selected packaging test that would not be skipped."""
    for item in items:
        build = BUILDS.get(item.originalname if hasattr(item, "originalname") else item.name)
        if build is None or build.process is not None:
            continue
        if any(mark.args and mark.args[0] is True for mark in item.iter_markers("skipif")):
            continue
        build.start(tmp_path_factory.mktemp(item.name[:30]))


def stop_all() -> None:
    for build in BUILDS.values():
        build.stop()
