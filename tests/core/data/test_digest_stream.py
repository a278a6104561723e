"""A release's load keeps only the plan's columns (``load_table(columns=...)``), and hashes every column as the file
is read: the digest is bit for bit ``content_digest`` of the whole table, the kept columns are the whole table's,
and a file is refused in the same words (issue 39)."""

import re
import threading
from concurrent.futures import CancelledError

import numpy as np
import pandas as pd
import pyreadstat
import pytest
from bad_inputs import DATA, MEDDLED, meddle_while_reading

from workbench.core.data import text_files
from workbench.core.data.digest_stream import DigestStream
from workbench.core.data.fingerprint import content_digest, digest, hashing_connection, text_sums
from workbench.core.data.io import load_table
from workbench.core.errors import WorkbenchError


def shapes(rows: int = 3000) -> pd.DataFrame:
    """Columns of few and of many distinct values, numbers whole and not, missing values of every kind, quoted
    values with a delimiter and quotation marks (a line break is refused: ``text_files.refuse_line_breaks``), and a
    value that is spaces."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "id": [f"P{i:06d}" for i in range(rows)],
        " region ": rng.choice(["North", "South", " East", "West ", ""], rows),
        "age": rng.integers(16, 90, rows).astype(str),
        "income": np.round(rng.lognormal(10, 1, rows), 2).astype(str),
        "hours": rng.choice(["37.5", "40", "NA", "", "n/a", "1e3", "-0.0"], rows),
        "note": rng.choice(['a, "quoted" note', 'two, "lines"', "  ", "plain"], rows),
    })
    frame.loc[frame.index[::11], "income"] = ""
    return frame


def _whole(path, **options) -> bytes:
    return content_digest(load_table(path, **options).frame)


@pytest.mark.parametrize(("rows", "part_rows", "block"), [
    (3000, 1 << 18, 1 << 22), (3000, 1000, 1 << 22), (3000, 1000, 2000), (300, 7, 300), (120, 1, 1 << 22)])
def test_the_digest_of_a_file_read_in_parts_is_the_digest_of_the_whole_table(tmp_path, monkeypatch, rows, part_rows,
                                                                            block):
    path = tmp_path / "survey.csv"
    shapes(rows).to_csv(path, index=False)
    monkeypatch.setattr(text_files, "BLOCK_BYTES", block)  # blocks of a few rows: a part's boundary inside a group
    whole = load_table(path)
    kept = _streamed(path, ["age", "region"], part_rows)
    assert kept.pending_digest.result() == content_digest(whole.frame)
    assert list(kept.frame.columns) == ["region", "age"]  # in the file's order, stripped as the whole table's are
    pd.testing.assert_frame_equal(kept.frame, whole.frame[["region", "age"]])
    assert kept.state == whole.state and kept.source == whole.source


def _streamed(path, columns, part_rows):
    """``load_table(columns=...)`` with parts of ``part_rows`` rows."""
    original = DigestStream.__init__

    def parts_of(self, names, kept, **options):
        original(self, names, kept, **{**options, "part_rows": part_rows})

    DigestStream.__init__ = parts_of
    try:
        return load_table(path, columns=columns)
    finally:
        DigestStream.__init__ = original


@pytest.mark.parametrize("waiting_bytes", [0, 1 << 30])
def test_the_reading_waits_for_the_hashing_past_its_bound_and_the_digest_is_the_same(waiting_bytes):
    frame = shapes(500)
    names = [name.strip() for name in frame.columns]
    import pyarrow as pa

    table = pa.Table.from_pandas(frame.astype(str), preserve_index=False)
    stream = DigestStream(names, kept=[0], part_rows=16, waiting_bytes=waiting_bytes)
    for batch in table.to_batches(max_chunksize=10):
        stream.add(batch)
    assert stream.finish().result() == content_digest(frame.astype(str))


def test_text_sums_add_up_to_the_digest_of_the_frame_also_with_one_row_parts_and_none():
    frame = shapes(40)
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    names = [name.strip() for name in frame.columns]
    with hashing_connection(1) as db:
        parts = [text_sums(db, table.slice(i, 1), names) for i in range(len(frame))]
        assert text_sums(db, table.slice(0, 0), names) == (0, 0, 0)
    count, first, second = (sum(part[i] for part in parts) for i in range(3))
    assert digest(names, count, first, second) == content_digest(frame)


@pytest.mark.parametrize("values", [["1", "2.5", "x", "", " NA "] * 240, [str(i / 7) for i in range(1200)]],
                         ids=["few distinct", "many distinct"])
def test_a_part_hashed_per_distinct_value_or_per_row_gives_the_same_sums(monkeypatch, values):
    """A part's text column is hashed per distinct value when they are few, per row otherwise: alike."""
    import pyarrow as pa

    from workbench.core.data import fingerprint

    table = pa.table({"a": pa.array(values, pa.large_string())})
    sums = {}
    for way, few, share in (("as decided", fingerprint._FEW_VALUES, fingerprint._DISTINCT_SHARE),
                            ("per value", 10**9, 1), ("per row", 0, 10**9)):
        monkeypatch.setattr(fingerprint, "_FEW_VALUES", few)
        monkeypatch.setattr(fingerprint, "_DISTINCT_SHARE", share)
        with hashing_connection(1) as db:
            sums[way] = text_sums(db, table, ["a"])
    assert len(set(sums.values())) == 1, sums


def test_a_file_of_another_format_is_narrowed_and_hashed_whole(tmp_path):
    frame = shapes(200).drop(columns=["note"])
    frame.columns = [c.strip() for c in frame.columns]
    frame["age"] = frame["age"].astype(int)
    for path in (tmp_path / "s.parquet", tmp_path / "s.xlsx", tmp_path / "s.sav"):
        if path.suffix == ".parquet":
            frame.to_parquet(path)
        elif path.suffix == ".xlsx":
            frame.to_excel(path, index=False)
        else:
            pyreadstat.write_sav(frame, str(path), variable_value_labels={"age": {16: "sixteen"}})
        whole = load_table(path)
        kept = load_table(path, columns=["income", "age"])
        assert list(kept.frame.columns) == ["age", "income"]
        assert kept.pending_digest.result() == content_digest(whole.frame)
        assert kept.label_maps == whole.label_maps  # value labels still reach the release and synthetic files
    numbered = tmp_path / "h2.xlsx"  # a header cell that is a number: its label is 2020, its name '2020'
    pd.DataFrame({"age": [34, 51], 2020: [1, 2], "income": [10.5, 20.5]}).to_excel(numbered, index=False)
    whole = load_table(numbered)
    assert whole.columns == ("age", "2020", "income")
    for columns, kept_columns in ((["salary"], whole.columns), (["income"], ("income",)), (["2020"], ("2020",))):
        kept = load_table(numbered, columns=columns)  # a plan column not in the file: every column, for its refusal
        assert kept.columns == kept_columns
        assert kept.pending_digest.result() == content_digest(whole.frame)


def test_every_column_is_kept_when_a_plan_column_is_not_in_the_file_and_at_least_one_otherwise(tmp_path):
    path = tmp_path / "s.csv"
    shapes(50).to_csv(path, index=False)
    whole = load_table(path)
    assert list(load_table(path, columns=["age", "nowhere"]).frame.columns) == list(whole.frame.columns)
    none = load_table(path, columns=[])
    assert list(none.frame.columns) == ["id"] and len(none.frame) == 50
    assert none.pending_digest.result() == content_digest(whole.frame)


@pytest.mark.parametrize("case", [c for c in DATA], ids=lambda c: c.id)
def test_a_bad_file_is_refused_alike_when_only_some_columns_are_kept(case, bad_corpus):
    def outcome(**columns):
        try:
            table = load_table(case.data_path, **columns)
        except WorkbenchError as error:
            return re.sub(r"\s+", " ", str(error))
        return list(table.frame.columns)

    whole = outcome()
    narrowed = outcome(columns=whole[:1] if isinstance(whole, list) else ["age"])
    assert narrowed == (whole[:1] if isinstance(whole, list) else whole)


def test_a_failed_reading_ends_the_hashing_thread(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n" + "1,2\n" * 5000 + "1,2,3\n", encoding="utf-8")
    before = {t.ident for t in threading.enumerate()}
    with pytest.raises(WorkbenchError, match=r"line 5002 has 3 fields"):
        load_table(path, columns=["a"])
    for thread in threading.enumerate():
        if thread.ident not in before and thread.name.startswith("content-digest"):
            thread.join(timeout=30)
            assert not thread.is_alive()


@pytest.mark.parametrize("meddle", sorted(MEDDLED))
def test_a_file_that_changes_or_disappears_while_read_for_a_release_is_not_loaded(meddle, bad_corpus, tmp_path,
                                                                                  monkeypatch):
    path = tmp_path / "survey.csv"
    path.write_bytes((bad_corpus / "semicolons.csv").read_bytes())
    meddle_while_reading(monkeypatch, path, meddle, target="read_columns", appended="99;99;Somewhere\n")
    with pytest.raises(WorkbenchError, match=MEDDLED[meddle]):
        load_table(path, columns=["age"])


def test_a_release_s_reading_is_heard_to_its_end(tmp_path, monkeypatch):
    path = tmp_path / "s.csv"
    shapes(3000).to_csv(path, index=False)
    monkeypatch.setattr(text_files, "BLOCK_BYTES", 4096)
    heard = []
    load_table(path, columns=["age"], progress=heard.append)
    assert len(heard) > 10 and heard[-1] == 1.0  # block by block (the header is read first, as before)


def test_without_jemalloc_the_columns_are_read_alike(tmp_path, monkeypatch):
    import pyarrow as pa

    path = tmp_path / "s.csv"
    shapes(500).to_csv(path, index=False)
    alike = load_table(path, columns=["income"])

    def unavailable():
        raise NotImplementedError("jemalloc")

    monkeypatch.setattr(pa, "jemalloc_memory_pool", unavailable)
    assert text_files._returning_pool() is None
    without = load_table(path, columns=["income"])
    pd.testing.assert_frame_equal(without.frame, alike.frame)
    assert without.pending_digest.result() == alike.pending_digest.result()


def _abandoned(monkeypatch) -> list:
    """The digest streams abandoned from now on, and their hashing threads."""
    abandoned, real = [], DigestStream.abandon

    def abandon(self):
        abandoned.append(self)
        real(self)

    monkeypatch.setattr(DigestStream, "abandon", abandon)
    return abandoned


def _ended(stream: DigestStream) -> bool:
    for thread in list(stream._pool._threads):
        thread.join(timeout=60)
        if thread.is_alive():
            return False
    return stream.abandoned and stream._db is None


def test_a_refusal_after_the_reading_stops_the_hashing(monkeypatch, bad_corpus):
    abandoned = _abandoned(monkeypatch)
    with pytest.raises(WorkbenchError, match="several columns are called 'age'"):  # refused once read whole
        load_table(bad_corpus / "duplicate_names.csv", columns=["age"])
    (stream,) = abandoned
    assert _ended(stream)


def test_an_abandoned_stream_closes_its_connection_also_while_a_part_is_hashed(monkeypatch):
    """The part being hashed ends, then the connection is closed; the parts after it are not hashed."""
    import pyarrow as pa

    from workbench.core.data import digest_stream

    hashing, go_on, hashed = threading.Event(), threading.Event(), []

    def slow_sums(db, part, names):
        hashed.append(part.num_rows)
        hashing.set()
        go_on.wait(60)
        return text_sums(db, part, names)

    monkeypatch.setattr(digest_stream, "text_sums", slow_sums)
    table = pa.Table.from_pandas(shapes(40).astype(str), preserve_index=False)
    stream = DigestStream([n.strip() for n in table.column_names], kept=[0], part_rows=10)
    for batch in table.to_batches(max_chunksize=10):
        stream.add(batch)
    pending = stream.finish()
    assert hashing.wait(60)
    abandoning = threading.Thread(target=stream.abandon)  # it waits for the part being hashed
    abandoning.start()
    while not stream.abandoned:
        threading.Event().wait(0.01)
    go_on.set()
    abandoning.join(60)
    assert not abandoning.is_alive() and _ended(stream) and hashed == [10]  # the other three parts were never hashed
    with pytest.raises(CancelledError):
        pending.result()


def test_an_idle_abandoned_stream_closes_its_connection():
    import pyarrow as pa

    table = pa.Table.from_pandas(shapes(20).astype(str), preserve_index=False)
    stream = DigestStream([n.strip() for n in table.column_names], kept=[0], part_rows=10)
    stream.add(table.to_batches(max_chunksize=10)[0])
    stream._sums[0].result()  # hashed: the thread waits for more, its connection open
    assert stream._db is not None
    stream.abandon()
    assert _ended(stream)


def test_a_digest_finished_after_abandoning_is_never_given():
    """A part the thread takes up after ``abandon`` hashes nothing; a digest summed after it would be wrong, so the
    digest's task, should it run before its cancel, refuses."""
    import pyarrow as pa

    table = pa.Table.from_pandas(shapes(20).astype(str), preserve_index=False)
    stream = DigestStream([n.strip() for n in table.column_names], kept=[0], part_rows=10)
    stream.add(table.to_batches(max_chunksize=10)[0])
    stream._sums[0].result()
    stream.abandon()
    with pytest.raises(CancelledError):
        stream._digest()


def test_the_columns_kept_are_looked_up_once_however_many_columns():
    class Counted(list):
        iterations = 0

        def __iter__(self):
            Counted.iterations += 1
            return super().__iter__()

    DigestStream([f"c{i}" for i in range(500)], Counted([3, 7])).abandon()
    assert Counted.iterations == 1


@pytest.mark.parametrize("part_bytes", [1, 3000, 1 << 40])
def test_a_part_is_handed_over_at_its_bytes_of_columns_not_kept_and_the_digest_is_the_same(monkeypatch, part_bytes):
    import pyarrow as pa

    from workbench.core.data import digest_stream

    handed = []
    real = digest_stream.text_sums
    monkeypatch.setattr(digest_stream, "text_sums", lambda db, part, names: handed.append(part) or real(db, part, names))
    frame = shapes(400).astype(str)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    stream = DigestStream([n.strip() for n in table.column_names], kept=[0], part_rows=1 << 30, part_bytes=part_bytes)
    for batch in table.to_batches(max_chunksize=10):
        stream.add(batch)
    assert stream.finish().result() == content_digest(frame)
    dropped = [sum(part.column(i).nbytes for i in range(1, part.num_columns)) for part in handed]
    assert sum(part.num_rows for part in handed) == 400
    if part_bytes == 1 << 40:
        assert len(handed) == 1
    else:  # each part is handed over with the block that brings it to the bound
        assert len(handed) > 1 and all(size - 10 * 200 < part_bytes for size in dropped[:-1])


def test_abandoning_interrupts_the_query_of_the_part_being_hashed(monkeypatch):
    import duckdb
    import pyarrow as pa

    from workbench.core.data import digest_stream

    started, said, held = threading.Event(), [], []

    def endless_sums(db, part, names):  # a part that would take hours
        held.append(db)
        started.set()
        try:
            return db.execute("SELECT sum(hash(range)) FROM range(10000000000000)").fetchall()
        except duckdb.InterruptException:
            said.append("interrupted")
            raise

    monkeypatch.setattr(digest_stream, "text_sums", endless_sums)
    table = pa.Table.from_pandas(shapes(20).astype(str), preserve_index=False)
    stream = DigestStream([n.strip() for n in table.column_names], kept=[0], part_rows=10)
    stream.add(table.to_batches(max_chunksize=10)[0])
    assert started.wait(60)
    stream.abandon()
    try:
        assert _ended(stream) and said == ["interrupted"]
    finally:
        if stream._db is not None:  # not interrupted: stop it, so that the tests can end
            held[0].interrupt()
