"""A file released before, its bytes unchanged and read the same way: the ledger already records its content
fingerprint, so a SQL engine need not hash every row of it again (most of its first pass). The answers are the
same, the fingerprint recorded is the same, and a file changed, read another way or unknown to the ledger is hashed
as before."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import pandas as pd
import pytest
from engine_tables import STATISTICS, schema, survey_files

from workbench.core.data.fingerprint import DIGEST_VERSION, READING_VERSION
from workbench.core.data import prepare
from workbench.core.data.io import load_table
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.prepare_stream import BlockPreparer
from workbench.core.data.schema import IdentifierColumn, PrivacyUnit, Schema
from workbench.core.data.spark_engine import SparkData, file_system_location, spark_source
from workbench.core.errors import Cancelled, DataFileError
from workbench.core.privacy import Guarantee
from workbench.core.release.ledger import Ledger
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.release.run import engine_hashes_rows, release
from workbench.core.statistics import statistic_from_json
from workbench.core.statistics.counts import Count
from workbench.core.statistics.moments import Mean
from workbench.core.statistics.quantiles import Quantiles

BUDGET = Guarantee(50.0, 1e-9, "total")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return survey_files(tmp_path_factory.mktemp("recorded"))


def row_level() -> Schema:
    """The survey's schema with one row a person (the rows stored prepared in the first pass)."""
    described = schema()
    return dataclasses.replace(described, columns=tuple(c for c in described.columns
                                                        if not isinstance(c, IdentifierColumn)), unit=PrivacyUnit())


def _statistics():
    return [statistic_from_json(described, "test") for described in STATISTICS] + [
        Quantiles("income", by=("region", "sex"), levels=(0.1, 0.5, 0.9))]


def _answers(data, plan_schema):
    answers = []
    for statistic in _statistics():
        if isinstance(statistic, Quantiles):
            ranks = statistic.ranks(data, statistic.candidates(plan_schema))
            answers.append([(r.total, r.below().tolist()) for r in ranks])
        else:
            answers.append(statistic.exact(data))
    return answers


def _queries(monkeypatch) -> list[str]:
    """Every SQL statement the out-of-core engines run from now on."""
    queries: list[str] = []
    run, fetch = OutOfCoreData._run, OutOfCoreData._all
    monkeypatch.setattr(OutOfCoreData, "_run", lambda self, q, *a, **k: queries.append(q) or run(self, q, *a, **k))
    monkeypatch.setattr(OutOfCoreData, "_all", lambda self, q: queries.append(q) or fetch(self, q))
    return queries


@pytest.mark.parametrize("unit", ["person", "row"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_out_of_core_answers_alike_without_hashing_the_rows(files, kind, unit, monkeypatch):
    plan_schema = schema() if unit == "person" else row_level()
    queries = _queries(monkeypatch)
    with OutOfCoreData(file_source(files[kind]), plan_schema) as hashing:
        expected, rows = _answers(hashing, plan_schema), hashing.rows
    assert any("md5" in q for q in queries)  # the rows hashed
    queries.clear()
    with OutOfCoreData(file_source(files[kind]), plan_schema, hashes_content=False) as data:
        assert _answers(data, plan_schema) == expected
        assert data.rows == rows
        with pytest.raises(ValueError, match="without hashing"):
            data.content_digest()
    assert queries and not any("md5" in q for q in queries)


def test_the_first_pass_without_hashing_has_no_row_hash(files):
    with OutOfCoreData(file_source(files["parquet"]), row_level(), hashes_content=False) as data:
        stored = [row[0] for row in data._all("DESCRIBE file_rows")]
    assert stored and not any("hash" in name for name in stored)


def test_spark_answers_alike_without_hashing_the_rows(files, spark):
    plan_schema = schema()
    with SparkData(spark_source(files["csv"]), plan_schema, spark=spark) as hashing:
        expected = _answers(hashing, plan_schema)
    with SparkData(spark_source(files["csv"]), plan_schema, spark=spark, hashes_content=False) as data:
        assert _answers(data, plan_schema) == expected
        with pytest.raises(ValueError, match="without hashing"):
            data.content_digest()
        stored = spark.table("file_rows").columns
    assert stored and not any("hash" in name for name in stored)


def test_a_spark_source_records_how_spark_read_it(tmp_path, files, spark):
    """Undeclared, a Spark source's encoding and delimiter are decided as Spark opens the file: the release records
    those (a file renamed .tsv is read otherwise from the same bytes)."""
    ledger = Ledger(tmp_path / "ledger.sqlite")
    source = spark_source(files["csv"])
    assert not source.decided and file_source(files["csv"]).decided
    with SparkData(source, row_level(), spark=spark) as data:
        release(source, _plan(row_level()), ledger, dataset_budget=BUDGET, data=data)
    ((_, _, read_as),) = _recorded(ledger)
    assert read_as["delimiter"] == "," and read_as["encoding"] is not None


class _Conf:
    def __init__(self, master: str | None) -> None:
        self.master = master

    def get(self, key: str, default=None):
        if self.master is None:
            raise RuntimeError("not shown")
        return self.master if key == "spark.master" else default


@pytest.mark.parametrize("master, here", [
    ("local", True), ("local[2]", True), ("local[*]", True), ("local[4,2]", True), ("local[*,3]", True),
    ("spark://node:7077", False), ("yarn", False), ("k8s://https://k:443", False), ("mesos://node:5050", False),
    ("local-cluster[2,1,1024]", False), (None, False)])
def test_only_local_modes_tasks_read_this_machines_files(master, here):
    """Where the tasks run (``runs_in_this_process``) decides whether a local path they read is the file here."""
    from types import SimpleNamespace

    from workbench.core.data.spark_engine import runs_in_this_process

    assert runs_in_this_process(SimpleNamespace(conf=_Conf(master), _jvm=object())) is here
    # a Spark Connect session (no JVM here) reports its server's master, whose disk is the server's
    assert runs_in_this_process(SimpleNamespace(conf=_Conf(master))) is False


def test_a_cluster_reading_a_local_path_hashes_the_rows_it_read_and_records_no_reading(tmp_path, files, spark,
                                                                                      monkeypatch):
    """A cluster's executors each open a local path on their own disk, not the file the ledger hashes here. A stale
    copy there, released under this file's recorded content fingerprint, would be charged as this file's data. On a
    cluster Spark hashes the rows it reads (the stale copy's content fingerprint is recorded), and the release records
    no reading for a later one to take."""
    import workbench.core.data.spark_engine as spark_engine

    assert spark_engine.runs_in_this_process(spark)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(files["parquet"], ledger)  # out of core, on this machine: recorded with its reading
    source = spark_source(files["parquet"])
    stale = tmp_path / "stale.parquet"  # what an executor's disk holds at the same path
    frame = pd.read_parquet(files["parquet"])
    frame.loc[0, "income"] = frame.loc[0, "income"] + 1
    frame.to_parquet(stale, index=False)
    on_an_executor = dataclasses.replace(source, location=file_system_location(stale))
    monkeypatch.setattr(spark_engine, "runs_in_this_process", lambda session: False)
    ledger = Ledger(ledger.path)
    hashes = engine_hashes_rows(ledger, source)
    assert not hashes  # the ledger records this file's bytes, read the same way
    with SparkData(on_an_executor, row_level(), spark=spark, hashes_content=hashes) as data:
        assert data.hashes_content and not data.reads_the_bytes_hashed
        release(on_an_executor, _plan(row_level()), ledger, dataset_budget=BUDGET, data=data)
    (bytes_here, first, read_as), (bytes_again, second, again) = _recorded(ledger)
    assert bytes_here == bytes_again and read_as is not None and again is None
    assert second == Ledger(ledger.path).content_fingerprint(load_table(stale).frame) != first


def test_an_empty_file_is_refused_without_hashing_too(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("person,region,state,sex,code,ethnicity,income,hours,weight,share\n")
    with pytest.raises(DataFileError, match="no rows"):
        OutOfCoreData(file_source(path), schema(), hashes_content=False)


def _plan(plan_schema: Schema) -> ReleasePlan:
    statistics = (Count(by=("region",)), Mean("income", by=("sex",)))
    return ReleasePlan(dataset=DatasetDescription("Survey"), schema=plan_schema,
                       statistics=tuple(PlannedStatistic(s, MechanismKind.LAPLACE, Budget(0.5)) for s in statistics),
                       total=Budget(1.0))


def _release(path: Path, ledger: Ledger, hashes: bool | None = None):
    """A release of the file out of core, the engine hashing its rows unless the ledger records them (or as
    ``hashes`` says)."""
    source = file_source(path)
    if hashes is None:
        hashes = engine_hashes_rows(ledger, source)
    with OutOfCoreData(source, row_level(), hashes_content=hashes) as data:
        return release(source, _plan(row_level()), ledger, dataset_budget=BUDGET, data=data)


def _recorded(ledger: Ledger) -> list[tuple[str, str, dict | None]]:
    return [(e.data["fingerprint"], e.data["content_fingerprint"], e.data.get("read_as"))
            for e in ledger.entries() if e.kind == "release"]


def test_a_second_release_of_the_same_file_records_the_same_fingerprints(tmp_path, files):
    ledger = Ledger(tmp_path / "ledger.sqlite")
    source = file_source(files["csv"])
    assert ledger.recorded_content_fingerprint(source.path, source.read_as) is None  # nothing released yet
    first = _release(files["csv"], ledger)
    content = ledger.recorded_content_fingerprint(source.path, source.read_as)
    assert content is not None
    second = _release(files["csv"], ledger)
    recorded = _recorded(ledger)
    assert recorded[0] == recorded[1] and recorded[0][1] == content
    assert recorded[0][2] == {"format": "text", "encoding": "utf-8", "delimiter": ",", "digest": DIGEST_VERSION,
                              "reading": READING_VERSION}
    assert all("read_as" not in e.public_json() for e in ledger.entries())  # never exported
    assert first.ledger["entry"] < second.ledger["entry"]


def test_the_same_table_in_another_format_is_hashed_and_recognised(tmp_path, files):
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(files["csv"], ledger)
    parquet = file_source(files["parquet"])
    assert ledger.recorded_content_fingerprint(parquet.path, parquet.read_as) is None  # other bytes
    _release(files["parquet"], ledger)
    (csv_bytes, csv_content, _), (parquet_bytes, parquet_content, read_as) = _recorded(ledger)
    assert csv_bytes != parquet_bytes and csv_content == parquet_content and read_as["format"] == "parquet"


def test_the_same_bytes_read_another_way_are_hashed_again(tmp_path, files):
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(files["csv"], ledger)
    other = file_source(files["csv"], encoding="latin-1")  # the same bytes, another table if any were not ASCII
    assert ledger.recorded_content_fingerprint(other.path, other.read_as) is None


@pytest.mark.parametrize("version", range(1, READING_VERSION))
def test_a_reading_recorded_before_the_last_change_of_how_files_are_read_is_not_taken(tmp_path, files, monkeypatch,
                                                                                      version):
    """Before READING_VERSION 2 the engines read a Parquet file named survey[1].parquet as a pattern (survey1.parquet),
    and the ledger recorded that file's content fingerprint for survey[1].parquet's bytes; before 3 a Spark cluster's
    release of a local path recorded the content of its executors' copies for this machine's bytes; before 4 a Parquet
    column of bytes was read otherwise (not as its text). Such a record is not taken, so the file's rows are hashed
    again."""
    import workbench.core.data.fingerprint as fingerprint

    ledger = Ledger(tmp_path / "ledger.sqlite")
    monkeypatch.setattr(fingerprint, "READING_VERSION", version)
    _release(files["parquet"], ledger)
    old = file_source(files["parquet"])
    assert ledger.recorded_content_fingerprint(old.path, old.read_as) is not None  # taken under the old key only
    monkeypatch.undo()
    now = file_source(files["parquet"])
    assert now.read_as["reading"] == READING_VERSION and ledger.recorded_content_fingerprint(now.path, now.read_as) is None


def test_a_changed_file_is_hashed_again(tmp_path, files):
    path = tmp_path / "survey.csv"
    path.write_bytes(files["csv"].read_bytes())
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(path, ledger)
    text = path.read_text().splitlines(keepends=True)
    path.write_text("".join(text[:-1]))  # the last row gone
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    source = file_source(path)
    assert ledger.recorded_content_fingerprint(source.path, source.read_as) is None
    _release(path, ledger)
    first, second = _recorded(ledger)
    assert first[0] != second[0] and first[1] != second[1]


def test_a_release_without_hashing_is_refused_before_any_noise_where_the_ledger_records_nothing(tmp_path, files,
                                                                                               monkeypatch):
    drawn = []
    import workbench.core.release.run as run

    released = run._released_statistics
    monkeypatch.setattr(run, "_released_statistics", lambda *a, **k: drawn.append(1) or released(*a, **k))
    ledger = Ledger(tmp_path / "ledger.sqlite")
    with pytest.raises(DataFileError, match="changed while it was being released"):
        _release(files["csv"], ledger, hashes=False)
    assert not drawn and not ledger.entries()


def test_a_file_changed_in_place_after_the_look_up_is_refused_before_any_noise(tmp_path, files, monkeypatch):
    """The same size and modification time (a copy that keeps times): the bytes are read again after the engine
    read them, and differ from those looked up."""
    path = tmp_path / "survey.csv"
    path.write_bytes(files["csv"].read_bytes())
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(path, ledger)
    source = file_source(path)
    assert ledger.recorded_content_fingerprint(source.path, source.read_as) is not None
    with OutOfCoreData(source, row_level(), hashes_content=False) as data:
        times = (path.stat().st_atime_ns, path.stat().st_mtime_ns)
        text = path.read_bytes()
        last = text.rstrip(b"\n").rsplit(b"\n", 1)[1]
        path.write_bytes(text.replace(last, last.replace(b"1", b"2", 1)))  # one digit of the last row
        os.utime(path, ns=times)
        assert path.stat().st_size == len(text)
        drawn = []
        import workbench.core.release.run as run

        released = run._released_statistics
        monkeypatch.setattr(run, "_released_statistics", lambda *a, **k: drawn.append(1) or released(*a, **k))
        with pytest.raises(DataFileError, match="changed while it was being released"):
            release(source, _plan(row_level()), ledger, dataset_budget=BUDGET, data=data)
    assert not drawn and len(_recorded(ledger)) == 1


def test_the_file_is_hashed_once_for_the_look_up_and_the_release_and_again_when_its_rows_are_not(tmp_path, files,
                                                                                                monkeypatch):
    """A file the ledger knows nothing of: its bytes hashed once, for the look-up and the charge. A file it records:
    hashed again after the engine read it, to know the rows released are those the record describes."""
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(files["csv"], ledger)  # the ledger records a release (of other bytes)
    opened = []
    real_open = Path.open

    def counting_open(self, *args, **kwargs):
        if self == files["parquet"].resolve() and args[:1] == ("rb",):
            opened.append(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting_open)
    counts = []
    for fresh in (Ledger(tmp_path / "ledger.sqlite"), Ledger(tmp_path / "ledger.sqlite")):  # a process each
        before = len(opened)
        _release(files["parquet"], fresh)
        counts.append(len(opened) - before)
    assert counts == [1, 2]


def test_a_file_changed_after_its_fingerprint_is_hashed_again(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("x\n1\n")
    ledger = Ledger(tmp_path / "ledger.sqlite")
    before = ledger.fingerprint(path)
    assert ledger.fingerprint(path) == before
    path.write_text("x\n2\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert ledger.fingerprint(path) != before


def test_the_bytes_read_for_the_fingerprint_are_heard_and_a_cancel_there_keeps_nothing(tmp_path):
    """A file of gigabytes takes seconds to hash: its fraction is heard, and raising from it stops the reading,
    nothing kept of a hash not finished."""
    path = tmp_path / "a.csv"
    path.write_bytes(b"x\n" + b"1\n" * ((3 << 20) - 1))  # 6 MiB: six blocks
    ledger = Ledger(tmp_path / "ledger.sqlite")
    heard: list[float] = []

    def stop_halfway(fraction: float) -> None:
        heard.append(fraction)
        if fraction >= 0.5:
            raise Cancelled("stopped")

    with pytest.raises(Cancelled):
        ledger.fingerprint(path, progress=stop_halfway)
    assert heard == pytest.approx([1 / 6, 2 / 6, 3 / 6], rel=1e-3)
    heard.clear()
    whole = ledger.fingerprint(path, progress=heard.append)  # read whole: nothing was kept of the stopped one
    assert heard[-1] == 1.0 and heard == sorted(heard) and len(heard) == 6
    assert ledger.fingerprint(path, progress=heard.append) == whole and len(heard) == 6  # kept: not read again
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    heard.clear()
    ledger.fingerprint(empty, progress=heard.append)
    assert heard == [1.0]  # an empty file is done too


def test_a_release_hears_its_file_read_and_spends_nothing_when_stopped_there(tmp_path, files, monkeypatch):
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _release(files["csv"], ledger)
    source = file_source(files["csv"])
    heard: list[float] = []
    assert not engine_hashes_rows(Ledger(ledger.path), source, heard.append)
    assert heard[-1] == 1.0  # a new Ledger keeps no hash (as in a new process): it reads the bytes to look them up
    entries = len(ledger.entries())
    stopped_in: list[bool] = []  # each read stopped: whether it was the read again after the engine
    real = Ledger.fingerprint

    def fingerprint(self, path, again=False, progress=None):
        def stop(fraction: float) -> None:
            stopped_in.append(again)
            raise Cancelled("stopped")

        return real(self, path, again, stop if progress is not None else None)

    monkeypatch.setattr(Ledger, "fingerprint", fingerprint)
    fresh = Ledger(ledger.path)
    assert not engine_hashes_rows(fresh, source)  # no progress: nothing stopped
    drawn = []
    import workbench.core.release.run as run

    released = run._released_statistics
    monkeypatch.setattr(run, "_released_statistics", lambda *a, **k: drawn.append(1) or released(*a, **k))
    with OutOfCoreData(source, row_level(), hashes_content=False) as data:
        with pytest.raises(Cancelled):
            release(source, _plan(row_level()), fresh, data=data, file_progress=lambda fraction: None)
    assert stopped_in == [True] and not drawn  # the bytes read again after the engine, before any noise
    with OutOfCoreData(file_source(files["parquet"]), row_level()) as data:
        with pytest.raises(Cancelled):
            release(file_source(files["parquet"]), _plan(row_level()), Ledger(ledger.path), data=data,
                    file_progress=lambda fraction: None)
    assert stopped_in == [True, False] and not drawn  # another file's bytes, read before anything else
    assert len(Ledger(ledger.path).entries()) == entries


# ---------------------------------------------------------------- the in-memory engine

def _memory_release(path: Path, ledger: Ledger, hashes: bool | None = None, plan_schema: Schema | None = None):
    """A release of the file in memory as the command line makes it: the plan's columns kept (prepared as they are
    read under a row-level unit), every column hashed as the file is read unless the ledger records it."""
    plan = _plan(plan_schema or row_level())
    used = plan.used_schema()
    if hashes is None:
        hashes = engine_hashes_rows(ledger, file_source(path))
    preparing = BlockPreparer(used, path.name) if BlockPreparer.streams(used) else None
    table = load_table(path, columns=[c.name for c in used.columns], prepare=preparing, hashes_content=hashes)
    data = preparing.prepared if preparing is not None and preparing.streamed else None
    return table, release(table, plan, ledger, dataset_budget=BUDGET, data=data)


def _exact(path: Path, hashes: bool, plan_schema: Schema) -> list:
    used = _plan(plan_schema).used_schema()
    preparing = BlockPreparer(used, path.name) if BlockPreparer.streams(used) else None
    table = load_table(path, columns=[c.name for c in used.columns], prepare=preparing, hashes_content=hashes)
    assert (table.pending_digest is not None) == hashes and table.hashes_content == hashes
    data = preparing.prepared() if preparing is not None and preparing.streamed else prepare(table, used)
    return [planned.statistic.exact(data) for planned in _plan(plan_schema).statistics]


def _digest_streams(monkeypatch) -> list[int]:
    """Every content digest the in-memory reading hashes from now on (a text file's stream, a whole frame's)."""
    from workbench.core.data import digest_stream

    made: list[int] = []
    stream, whole = digest_stream.DigestStream.__init__, digest_stream.digest_in_background

    def init(self, *args, **kwargs):
        made.append(1)
        stream(self, *args, **kwargs)

    monkeypatch.setattr(digest_stream.DigestStream, "__init__", init)
    monkeypatch.setattr(digest_stream, "digest_in_background", lambda frame: made.append(1) or whole(frame))
    hashed = Ledger.content_fingerprint
    monkeypatch.setattr(Ledger, "content_fingerprint", lambda self, *a, **k: made.append(1) or hashed(self, *a, **k))
    return made


@pytest.mark.parametrize("unit", ["person", "row"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_the_in_memory_engine_answers_alike_without_hashing(files, kind, unit):
    plan_schema = schema() if unit == "person" else row_level()
    assert _exact(files[kind], False, plan_schema) == _exact(files[kind], True, plan_schema)


@pytest.mark.parametrize("unit", ["person", "row"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_file_released_in_memory_again_is_not_hashed_again_and_records_the_same(tmp_path, files, kind, unit,
                                                                                   monkeypatch):
    plan_schema = schema() if unit == "person" else row_level()
    ledger = Ledger(tmp_path / "ledger.sqlite")
    made = _digest_streams(monkeypatch)
    _memory_release(files[kind], ledger, plan_schema=plan_schema)
    assert made
    made.clear()
    table, _ = _memory_release(files[kind], Ledger(ledger.path), plan_schema=plan_schema)  # a process of its own
    assert not made and not table.hashes_content
    first, second = _recorded(ledger)
    assert first == second and first[2] == file_source(files[kind]).read_as


def test_the_engines_take_each_others_recorded_fingerprint(tmp_path, files, monkeypatch):
    """Out of core first, then in memory; in memory first, then out of core: the same bytes read the same way, the
    same content fingerprint, hashed once."""
    made, queries = _digest_streams(monkeypatch), _queries(monkeypatch)
    for first, second in (("out", "memory"), ("memory", "out")):
        ledger = Ledger(tmp_path / f"{first}.sqlite")
        (_release if first == "out" else _memory_release)(files["csv"], ledger)
        assert not engine_hashes_rows(Ledger(ledger.path), file_source(files["csv"]))
        made.clear()
        queries.clear()
        (_release if second == "out" else _memory_release)(files["csv"], Ledger(ledger.path))
        assert not made and not any("md5" in q for q in queries)  # the second engine hashed no row
        recorded = _recorded(ledger)
        assert len(recorded) == 2 and recorded[0] == recorded[1]


def test_a_table_loaded_whole_is_hashed_at_its_release_and_its_record_never_spares_another(tmp_path, files,
                                                                                         monkeypatch):
    """As the app releases a table it loaded whole at step 1, long before its bytes are hashed for the charge: the
    check that the file is unchanged since (size and modification time) cannot prove those bytes are the rows
    released, so its rows are hashed, whatever the ledger records, and its record says no reading to be taken."""
    ledger = Ledger(tmp_path / "ledger.sqlite")
    plan = _plan(row_level())
    _memory_release(files["csv"], ledger)  # read for its release: recorded with its reading
    made = _digest_streams(monkeypatch)
    release(load_table(files["csv"]), plan, Ledger(ledger.path))
    assert made
    first, second = _recorded(ledger)
    assert first[:2] == second[:2] and first[2] == file_source(files["csv"]).read_as and second[2] is None
    other = Ledger(tmp_path / "other.sqlite")
    release(load_table(files["csv"]), plan, other, dataset_budget=BUDGET)
    assert engine_hashes_rows(Ledger(other.path), file_source(files["csv"]))


def test_another_reading_of_the_same_bytes_is_hashed(tmp_path, files):
    path = tmp_path / "survey.txt.csv"
    path.write_bytes(files["csv"].read_bytes())
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _memory_release(path, ledger)
    assert engine_hashes_rows(ledger, file_source(path, encoding="latin-1"))  # read otherwise: not recorded
    assert not engine_hashes_rows(ledger, file_source(path, encoding="utf-8"))


def test_a_file_changed_in_place_after_the_in_memory_look_up_is_refused_before_any_noise(tmp_path, files,
                                                                                          monkeypatch):
    path = tmp_path / "survey.csv"
    path.write_bytes(files["csv"].read_bytes())
    ledger = Ledger(tmp_path / "ledger.sqlite")
    _memory_release(path, ledger)
    fresh = Ledger(ledger.path)
    assert not engine_hashes_rows(fresh, file_source(path))
    used = _plan(row_level()).used_schema()
    preparing = BlockPreparer(used, path.name)
    table = load_table(path, columns=[c.name for c in used.columns], prepare=preparing, hashes_content=False)
    times, text = (path.stat().st_atime_ns, path.stat().st_mtime_ns), path.read_bytes()
    last = text.rstrip(b"\n").rsplit(b"\n", 1)[1]
    path.write_bytes(text.replace(last, last.replace(b"1", b"2", 1)))  # one digit of the last row
    os.utime(path, ns=times)
    drawn = []
    import workbench.core.release.run as run

    released = run._released_statistics
    monkeypatch.setattr(run, "_released_statistics", lambda *a, **k: drawn.append(1) or released(*a, **k))
    with pytest.raises(DataFileError, match="changed while it was being released"):
        release(table, _plan(row_level()), fresh, data=preparing.prepared)
    assert not drawn and len(_recorded(ledger)) == 1


@pytest.mark.parametrize("shape", ["utf-8", "bom", "tsv", "semicolon", "semicolon given", "txt", "utf-16",
                                   "latin-1", "parquet"])
def test_a_table_says_how_it_was_read_as_a_sql_engine_says_it(tmp_path, shape):
    """The ledger keys a recorded content fingerprint by how the bytes were read: the in-memory reading and the SQL
    engines must say it alike (given the command line's encoding and delimiter alike), or a file released by one
    would be hashed again by the other."""
    frame = pd.DataFrame({"region": ["Nord", "Süd", "Ost"], "income": [1.5, 2.0, 3.25]})
    encoding = {"latin-1": "latin-1", "utf-16": "utf-16"}.get(shape)
    delimiter = ";" if shape == "semicolon given" else None
    suffix = {"parquet": ".parquet", "tsv": ".tsv", "txt": ".txt"}.get(shape, ".csv")
    path = tmp_path / f"survey{suffix}"
    if shape == "parquet":
        frame.to_parquet(path, index=False)
    else:
        separator = "\t" if shape in ("tsv", "txt") else ";" if "semicolon" in shape else ","
        frame.to_csv(path, index=False, sep=separator,
                     encoding={"bom": "utf-8-sig", "latin-1": "latin-1", "utf-16": "utf-16"}.get(shape, "utf-8"))
    expected = file_source(path, encoding=encoding, delimiter=delimiter).read_as
    assert load_table(path, encoding=encoding, delimiter=delimiter).read_as == expected
    assert load_table(path, encoding=encoding, delimiter=delimiter, columns=["income"],
                      hashes_content=False).read_as == expected


def test_a_format_no_sql_engine_reads_is_hashed_all_the_same(tmp_path):
    import pyreadstat

    path = tmp_path / "survey.sav"
    pyreadstat.write_sav(pd.DataFrame({"region": [1.0, 2.0, 1.0], "income": [1.5, 2.0, 3.25]}), str(path))
    table = load_table(path, columns=["income"], hashes_content=False)
    assert table.read_as is None and table.hashes_content and table.pending_digest is not None
    table.pending_digest.result()


def _rewritten(path: Path, data: bytes, times: tuple[int, int]) -> None:
    """``path`` written with ``data`` of the same size, its times put back: what a copy that keeps times does. The
    change time, the system's, moves on (on a kernel with coarse times, once its tick has passed)."""
    assert len(data) == path.stat().st_size
    changed = path.stat().st_ctime_ns
    path.write_bytes(data)
    os.utime(path, ns=times)
    while path.stat().st_ctime_ns == changed:
        time.sleep(0.001)
        os.utime(path, ns=times)


@pytest.mark.parametrize("engine", ["memory", "out"])
def test_rows_read_from_other_bytes_than_those_looked_up_are_refused_before_any_noise(tmp_path, files, engine,
                                                                                       monkeypatch):
    """The ledger records the file's bytes B0. After the look-up the file becomes B1 (the same size and times), is
    read so, and becomes B0 again before the release: the bytes hashed before and after are B0's, the rows B1's. The
    file was written after the look-up (its change time says so): refused, nothing drawn."""
    path = tmp_path / "survey.csv"
    original = files["csv"].read_bytes()
    path.write_bytes(original)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    (_release if engine == "out" else _memory_release)(path, ledger)
    times = (path.stat().st_atime_ns, path.stat().st_mtime_ns)
    last = original.rstrip(b"\n").rsplit(b"\n", 1)[1]
    other = original.replace(last, last.replace(b"1", b"2", 1))
    fresh = Ledger(ledger.path)
    source = file_source(path)
    assert not engine_hashes_rows(fresh, source)  # B0 looked up
    _rewritten(path, other, times)
    drawn = []
    import workbench.core.release.run as run

    released = run._released_statistics
    monkeypatch.setattr(run, "_released_statistics", lambda *a, **k: drawn.append(1) or released(*a, **k))
    used = _plan(row_level()).used_schema()
    if engine == "out":
        with OutOfCoreData(source, row_level(), hashes_content=False) as data:  # reads B1
            _rewritten(path, original, times)
            with pytest.raises(DataFileError, match="changed while it was being released"):
                release(source, _plan(row_level()), fresh, data=data)
    else:
        preparing = BlockPreparer(used, path.name)
        table = load_table(path, columns=[c.name for c in used.columns], prepare=preparing, hashes_content=False)
        _rewritten(path, original, times)
        with pytest.raises(DataFileError, match="changed while it was being released"):
            release(table, _plan(row_level()), fresh, data=preparing.prepared)
    assert not drawn and len(_recorded(ledger)) == 1


def test_a_file_written_between_its_reading_and_its_charge_records_no_reading(tmp_path, files):
    """A first release hashes the rows as it reads them and the file's bytes at its charge: a file written in
    between (the same size and times) leaves a record whose two fingerprints need not describe the same bytes, so
    it says no reading, and no later release takes it."""
    path = tmp_path / "survey.csv"
    original = files["csv"].read_bytes()
    path.write_bytes(original)
    times = (path.stat().st_atime_ns, path.stat().st_mtime_ns)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    used = _plan(row_level()).used_schema()
    preparing = BlockPreparer(used, path.name)
    table = load_table(path, columns=[c.name for c in used.columns], prepare=preparing)  # hashed as it is read
    last = original.rstrip(b"\n").rsplit(b"\n", 1)[1]
    _rewritten(path, original.replace(last, last.replace(b"1", b"2", 1)), times)
    release(table, _plan(row_level()), ledger, dataset_budget=BUDGET, data=preparing.prepared)
    ((_, _, read_as),) = _recorded(ledger)
    assert read_as is None
    assert engine_hashes_rows(Ledger(ledger.path), file_source(path))


def test_on_windows_every_release_hashes_its_rows_and_records_no_reading(tmp_path, files, monkeypatch):
    """Windows reports a file's creation time as its change time: a write that keeps the size and times cannot be
    told there, so no record is taken and none is made to be taken."""
    import workbench.core.release.run as run

    ledger = Ledger(tmp_path / "ledger.sqlite")
    _memory_release(files["csv"], ledger)  # recorded with its reading, elsewhere
    monkeypatch.setattr(run, "WRITES_TOLD", False)
    assert engine_hashes_rows(Ledger(ledger.path), file_source(files["csv"]))
    _release(files["csv"], Ledger(ledger.path))
    _memory_release(files["csv"], Ledger(ledger.path))
    assert [read_as is None for _, _, read_as in _recorded(ledger)] == [False, True, True]
    with OutOfCoreData(file_source(files["csv"]), row_level(), hashes_content=False) as data:
        with pytest.raises(DataFileError, match="changed while it was being released"):
            release(file_source(files["csv"]), _plan(row_level()), Ledger(ledger.path), data=data)


def test_a_table_of_a_files_first_rows_is_never_released_from_its_frame(tmp_path, files):
    """``load_sample``'s table holds a file's first rows only: released from its frame, the statistics and the
    ledger's content fingerprint would be of those rows, not of the file (the app's bounds search did so)."""
    from workbench.core.data.io import load_sample

    ledger = Ledger(tmp_path / "ledger.sqlite")
    with pytest.raises(DataFileError, match="only its first rows are loaded"):
        release(load_sample(files["csv"], rows=50), _plan(row_level()), ledger, dataset_budget=BUDGET)
    assert not ledger.entries()
