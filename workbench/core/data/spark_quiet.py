"""Start Spark without the ten lines of JVM and pandas warnings that preceded a release's results.

Three sources: Spark's default log4j profile (its banner, "Setting default log level", a loopback host
name, no native Hadoop library), silenced by our own log4j2 file of errors only; PySpark's FutureWarning
about the pandas version, filtered by its message; and the Java launcher's own line about incubator
modules, which no setting turns off. For that one, the standard error of the process is sent to a
temporary file while the JVM starts, and shown after all if the start fails (so that "Java not found"
is never hidden).
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator

LOG4J_FILE = "spark-log4j2.properties"


def log4j_option() -> str:
    """The Java option that makes the driver use our errors-only log4j2 file."""
    path = resources.files("workbench.resources").joinpath(LOG4J_FILE)
    return f"-Dlog4j2.configurationFile={Path(str(path)).resolve().as_uri()}"  # a URI reads on every system


def ignore_pandas_version_warning() -> None:
    """PySpark warns, on import and on every conversion, that it does not yet fully support pandas 3: the engine
    converts nothing to pandas (``collect()`` returns rows of integers), so the warning says nothing here."""
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)


def quietly_started(start: Callable[[], Any]) -> Any:
    """``start()`` (which launches Spark's JVM) with its start-up noise kept off the console."""
    with _stderr_kept() as kept:
        try:
            return start()
        except BaseException:
            kept.append(True)
            raise


@contextmanager
def _stderr_kept() -> Iterator[list]:
    """Send file descriptor 2 to a temporary file; replay it if the caller marks the start as failed."""
    try:
        saved = os.dup(2)
    except OSError:  # no standard error to redirect (a windowed program)
        yield []
        return
    failed: list = []
    with tempfile.TemporaryFile() as held:
        sys.stderr.flush()
        os.dup2(held.fileno(), 2)
        try:
            yield failed
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            if failed:
                held.seek(0)
                sys.stderr.write(held.read().decode("utf-8", "replace"))
