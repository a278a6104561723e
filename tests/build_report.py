"""What the packaging builds measured (their times, the bundle's and the installers' sizes), shown in pytest's
terminal summary of a passing run: pytest keeps a passing test's output to itself, so a ``print`` never reached
.ci/run's log (issue 35). A packaging test hands its lines to ``report``; the summary hook in conftest.py writes
them under a heading of their own at the end of the run."""

from __future__ import annotations

from pathlib import Path

import pytest

REPORTED = pytest.StashKey[list[tuple[str, str]]]()
HEADING = "packaging builds: times and sizes"


def report(config: pytest.Config, title: str, text: str) -> None:
    """Keep ``text`` (lines a build measured) under ``title`` for the end of the run."""
    config.stash.setdefault(REPORTED, []).append((title, text))


def summary_lines(reported: list[tuple[str, str]]) -> list[str]:
    """Each build's title, then its non-empty lines indented."""
    lines: list[str] = []
    for title, text in reported:
        lines.append(f"{title}:")
        lines += [f"  {line.rstrip()}" for line in text.splitlines() if line.strip()]
    return lines


def linux_build_summary(work: Path, seconds: float) -> str:
    """What packaging/smoke_test.sh built in ``work``: its time (the build, the bundle's checks and the .deb's
    install, upgrade and removal), the bundle's size and the .deb's (the first build's, compressed as released)."""
    dist = work / "checkout" / "dist"
    files = [p for p in (dist / "dp-workbench").rglob("*") if p.is_file() and not p.is_symlink()]
    stages = work / "linux-build-times.txt"  # each stage's time, as packaging/smoke_test.sh wrote them
    lines = [f"build and checks: {seconds:.0f} s", *(stages.read_text().splitlines() if stages.exists() else []),
             f"bundle: {sum(p.stat().st_size for p in files) / 1e6:.0f} MB, {len(files)} files"]
    lines += [f"{p.name}: {p.stat().st_size / 1e6:.0f} MB (target ≤ 250 MB)"
              for p in sorted(dist.glob("dp-workbench_*-1_*.deb"))]
    return "\n".join(lines)


def write_summary(terminalreporter, config: pytest.Config) -> None:
    """The summary's section, if any packaging test reported something (a failing one too)."""
    lines = summary_lines(config.stash.get(REPORTED, []))
    if not lines:
        return
    terminalreporter.write_sep("-", HEADING)
    for line in lines:
        terminalreporter.write_line(line)
