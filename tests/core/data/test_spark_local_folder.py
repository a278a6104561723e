"""Spark's files on this machine (its block manager's: the prepared rows a release caches and spills, shuffle files;
PySpark's temporary files; the JVM's temporary folder) are kept in an engine folder of the process's own, as the
out-of-core engine's: 0700, removed when the session our code started is stopped, and swept at the next start after
the process was killed outright. They went to /tmp/blockmgr-* and /tmp/spark-* (folders 0755, files 0644, left
forever after a SIGKILL).

Each test runs Spark in a process of its own (the suite's session is shared, and must not be stopped), with its
temporary folder (TMPDIR) in the test's own folder."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.core.data.out_of_core import FOLDER_PREFIX, sweep_leftovers

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and modes")

# Spark's own persisted shuffle, on disk (DISK_ONLY: a small cache would stay in memory), as a release's cache spills
_SHUFFLE = """
from pyspark import StorageLevel
frame = spark.range(20000).selectExpr("id % 7 AS k", "id AS v").repartition(2, "k").persist(StorageLevel.DISK_ONLY)
assert len(frame.groupBy("k").count().collect()) == 7
"""

_RELEASE = """
import glob, json, os, sys, tempfile
from pyspark import SparkContext
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.data.spark_engine import SparkData, spark_source

data_file = sys.argv[1]
data = SparkData(spark_source(data_file), Schema((NumericColumn("x", 0, 100),)), master="local[1]")
assert data.rows == 500
spark = data.spark
""" + _SHUFFLE + """
context = spark.sparkContext
jvm = context._jvm
utils = getattr(jvm, "org.apache.spark.util.Utils")
folder = context.getConf().get("spark.local.dir", "")
found = {
    "folder": folder,
    "mode": os.stat(folder).st_mode if folder else None,
    "roots": [str(root) for root in utils.getConfiguredLocalDirs(context._jsc.sc().conf())],
    "java_tmpdir": str(jvm.java.lang.System.getProperty("java.io.tmpdir")),
    "pyspark_temp": context._temp_dir,
    "files": [os.path.join(top, name) for top, _, names in os.walk(folder) for name in names] if folder else [],
    "jvm": SparkContext._gateway.proc.pid,
}
print(json.dumps(found), flush=True)
sys.stdin.readline()  # while the test looks at /tmp
data.close()
print(json.dumps({"left_after_close": os.path.exists(folder) if folder else None}), flush=True)
"""

_KILLED = """
import json, time
from pyspark import SparkContext
from workbench.core.data.spark_engine import start_session

spark = start_session("local[1]")
""" + _SHUFFLE + """
print(json.dumps({"folder": spark.sparkContext.getConf().get("spark.local.dir", ""),
                  "jvm": SparkContext._gateway.proc.pid}), flush=True)
time.sleep(600)
"""


def _environment(temporary: Path) -> dict[str, str]:
    env = {**os.environ, "TMPDIR": str(temporary)}
    env.pop("SPARK_LOCAL_DIRS", None)  # which would take the place of spark.local.dir, as Spark documents
    return env


def _spark_in_tmp() -> set[Path]:
    """Spark's folders in the JVM's default temporary folder, where they went."""
    return {*Path("/tmp").glob("blockmgr-*"), *Path("/tmp").glob("spark-*")}


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([os.path.realpath(path), os.path.realpath(folder)]) == os.path.realpath(folder)


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie not yet reaped by its new parent counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def test_a_release_on_spark_keeps_spark_s_files_in_its_own_folder_and_removes_it_when_closed(tmp_path):
    temporary = tmp_path / "temporary files"  # a space: the JVM's option is quoted
    temporary.mkdir()
    data_file = tmp_path / "x.csv"
    data_file.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(500)))
    before = _spark_in_tmp()
    process = subprocess.Popen([sys.executable, "-c", _RELEASE, str(data_file)], cwd=ROOT, env=_environment(temporary),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line, process.communicate(timeout=60)[1][-3000:]
        found = json.loads(line)
        # nothing new in /tmp, Spark's default, while the release runs (Spark removes its folders when it stops);
        # other processes started by this repository's code keep theirs in their own folders too
        appeared = _spark_in_tmp() - before
        out, err = process.communicate("\n", timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err[-3000:]
    found.update(json.loads(out.strip().splitlines()[-1]))
    folder = found["folder"]
    assert folder and Path(folder).parent == temporary and Path(folder).name.startswith(FOLDER_PREFIX), found
    assert stat.S_IMODE(found["mode"]) == 0o700
    # every place Spark writes on this machine is in the folder: its local folders, the JVM's temporary folder,
    # PySpark's temporary files
    assert found["roots"] and all(_inside(root, folder) for root in found["roots"]), found["roots"]
    assert _inside(found["java_tmpdir"], folder) and _inside(found["pyspark_temp"], folder), found
    # what the release cached and the shuffle wrote is there, in the block manager's folder
    names = [Path(path).name for path in found["files"] if f"{os.sep}blockmgr-" in path]
    assert any(name.startswith("rdd_") for name in names) and any(name.startswith("shuffle_") for name in names), names
    assert appeared == set(), appeared
    # closing the data stopped the session it started, ended its JVM and then removed the folder
    assert found["left_after_close"] is False
    assert _ended(found["jvm"])
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("killed", ["the process", "the process and its JVM"])  # SIGKILL; an OOM kill, a power cut
def test_the_folder_of_a_killed_spark_process_is_swept_at_the_next_start(tmp_path, killed):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen([sys.executable, "-c", _KILLED], cwd=ROOT, env=_environment(temporary),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line, process.communicate(timeout=60)[1][-3000:]
        found = json.loads(line)
        folder = Path(found["folder"])
        assert folder.parent == temporary and folder.name.startswith(f"{FOLDER_PREFIX}{process.pid}-")
        assert list(folder.glob("blockmgr-*/*/shuffle_*.data"))
        assert sweep_leftovers(temporary) == []  # its process runs: kept
        if killed == "the process and its JVM":
            os.kill(found["jvm"], signal.SIGKILL)
        process.kill()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    for _ in range(1200):  # a JVM left alone ends when its standard input closes, its hooks stopping Spark
        if _ended(found["jvm"]):
            break
        time.sleep(0.05)
    assert _ended(found["jvm"])
    assert folder.exists()  # nothing of ours ran: left behind, with its lock
    if killed == "the process and its JVM":
        assert list(folder.glob("blockmgr-*/*/shuffle_*.data"))  # the private files too
    assert sweep_leftovers(temporary) == [folder]
    assert list(temporary.iterdir()) == []
