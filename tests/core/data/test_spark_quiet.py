"""Spark's start-up noise is kept off the console, unless the start fails (issue 37, 4). No JVM is started:
the JVM writes to the process's file descriptor 2, which is what these tests write to."""

import os
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest

from workbench.core.data.spark_quiet import log4j_option, quietly_started


def test_what_the_jvm_writes_while_it_starts_is_not_shown(capfd):
    def start() -> str:
        os.write(2, b"WARNING: Using incubator modules: jdk.incubator.vector\n")
        return "session"

    assert quietly_started(start) == "session"
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_a_failed_start_shows_what_the_jvm_wrote(capfd):
    def start() -> None:
        os.write(2, b"JAVA_HOME is not set\n")
        raise RuntimeError("Java gateway process exited")

    with pytest.raises(RuntimeError):
        quietly_started(start)
    assert "JAVA_HOME is not set" in capfd.readouterr().err


def test_the_driver_logs_errors_only():
    option = log4j_option()
    assert option.startswith("-Dlog4j2.configurationFile=file:")
    config = Path(url2pathname(urlparse(option.split("=", 1)[1]).path)).read_text()
    assert "rootLogger.level = error" in config
