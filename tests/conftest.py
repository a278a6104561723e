import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))



def pytest_collection_finish(session):
    """The packaging builds run beside the suite (background_builds)."""
    import background_builds

    if not session.config.option.collectonly:
        background_builds.start_selected(session.items, session.config._tmp_path_factory)


def pytest_sessionfinish(session):
    import background_builds

    background_builds.stop_all()  # a run stopped early (-x, Ctrl-C) leaves no build behind


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The packaging builds' times and sizes, in the log of a passing run too (build_report)."""
    import build_report

    build_report.write_summary(terminalreporter, config)


SAMPLE = ROOT / "resources" / "sample" / "household_survey.csv"
SAMPLE_PLAN = ROOT / "resources" / "sample" / "household_survey.plan.json"


@pytest.fixture
def sample_path() -> Path:
    return SAMPLE


@pytest.fixture
def sample_plan_path() -> Path:
    return SAMPLE_PLAN


@pytest.fixture(scope="session", autouse=True)
def private_ledger_keys(tmp_path_factory) -> Path:
    """The ledgers' fingerprint keys go to one folder of this run (each ledger has its own key in it), never
    to the user's keyring or key folder; processes the tests start inherit it."""
    folder = tmp_path_factory.mktemp("ledger-keys")
    previous = os.environ.get("DP_WORKBENCH_KEYS")
    os.environ["DP_WORKBENCH_KEYS"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("DP_WORKBENCH_KEYS", None)
    else:
        os.environ["DP_WORKBENCH_KEYS"] = previous


@pytest.fixture(autouse=True)
def private_ledger(tmp_path, monkeypatch) -> Path:
    """Every test gets its own ledger; none touches the user's."""
    path = tmp_path / "ledger.sqlite"
    monkeypatch.setenv("DP_WORKBENCH_LEDGER", str(path))
    return path


@pytest.fixture(scope="session")
def _ledger_with_a_release(tmp_path_factory) -> Path:
    """A ledger in which the sample dataset has one release: what a failed input must leave as it was."""
    from workbench.core.data.io import load_table
    from workbench.core.privacy.events import Guarantee
    from workbench.core.release.ledger import Ledger
    from workbench.core.release.plan import ReleasePlan
    from workbench.core.release.run import release

    path = tmp_path_factory.mktemp("ledger") / "ledger.sqlite"
    release(load_table(SAMPLE), ReleasePlan.load(SAMPLE_PLAN), Ledger(path), Guarantee(10.0, 1e-6, "total budget"))
    return path


@pytest.fixture
def used_ledger(_ledger_with_a_release, private_ledger) -> Path:
    """This test's ledger, holding one earlier release of the sample dataset."""
    import shutil

    shutil.copyfile(_ledger_with_a_release, private_ledger)
    return private_ledger


@pytest.fixture(scope="session")
def bad_corpus() -> Path:
    """tests/data/bad, with the large files that are not committed written on first use."""
    sys.path.insert(0, str(ROOT / "tests" / "data" / "bad"))
    import generate

    missing = [name for name in generate.LARGE if not (generate.HERE / name).exists()]
    if missing:
        generate.generate(names=missing)
    return generate.HERE


@pytest.fixture
def stop_signals():
    """Python's own Ctrl+C handler (another test's Spark installs its own) for a test that sends this process a stop
    signal; SIGINT's, SIGTERM's and SIGHUP's handlers are put back after it."""
    import signal

    numbers = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    before = {number: signal.getsignal(number) for number in numbers}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for number, handler in before.items():
        if handler is not None:
            signal.signal(number, handler)


@pytest.fixture(scope="session")
def spark():
    """One Spark session (local mode) for every test that runs the Spark engine: starting one takes seconds."""
    from workbench.core.data.spark_engine import start_session

    session = start_session("local[2]")
    session.conf.set("spark.sql.shuffle.partitions", "4")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server for the run (tests/postgres_server.py), its passwords in a .pgpass file of the run
    that every connection and started process reads; skipped where PostgreSQL is not installed, except in CI."""
    from postgres_server import PostgresServer, binaries

    found = binaries()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed; ./dev test installs it (Debian's postgresql package).")
        pytest.skip("PostgreSQL is not installed; ./dev test installs it (Debian's postgresql package).")
    server = PostgresServer(found).start()
    previous = os.environ.get("PGPASSFILE")
    os.environ["PGPASSFILE"] = str(server.pgpass)
    yield server
    server.stop()
    if previous is None:
        os.environ.pop("PGPASSFILE", None)
    else:
        os.environ["PGPASSFILE"] = previous


@pytest.fixture
def team_ledger(postgres_server) -> str:
    """A new team ledger, set up by its administrator in a database of its own: its URL, as the administrator."""
    from workbench.core.release.ledger_postgres import init_server

    url = postgres_server.url(postgres_server.new_database())
    init_server(url)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger_location(request, tmp_path) -> str:
    """A new, empty ledger of each store: a SQLite file, and a team ledger on PostgreSQL (as its administrator)."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite")
    return request.getfixturevalue("team_ledger")
