"""Read a data file into a Table.

pyarrow (text, every value as text: ``text_files``; Parquet), python-calamine and pyreadstat do the
reading; this module only picks the reader, detects a text file's encoding and delimiter, and turns
every failure into a ``DataFileError`` that names the file, the problem and what to do about it.

Nothing is typed by its content here: a text file's values stay the texts in the file, and other files'
values keep the types the file declares (value labels are kept beside the codes, not applied). Each
value is read by itself when a statistic needs it (``reading``), so that no row changes how another is read.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Collection, Iterable, Mapping, Protocol, Sequence

import pandas as pd

from workbench.core.data.text_files import (
    TextFormat,
    column_names,
    describe_delimiter,
    empty_file,
    no_rows,
    read_columns,
    read_table,
)
from workbench.core.errors import DataFileError

if TYPE_CHECKING:
    import pyarrow as pa

    from workbench.core.data.digest_stream import PendingDigest


class PreparesBlocks(Protocol):
    """What prepares a text file's kept columns block by block as the file is read (``prepare_stream.BlockPreparer``,
    a later step of the flow: named here by what it does, so that reading does not import preparing)."""

    streamed: bool  # the whole file was read and prepared (``finish``)

    @property
    def rows(self) -> int: ...

    def add(self, block: "pa.RecordBatch", names: Sequence[str]) -> None: ...

    def finish(self) -> None: ...


TEXT_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}
OTHER_SUFFIXES = {
    ".xlsx": "excel",
    ".xlsm": "excel",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".sav": "spss",
    ".zsav": "spss",
    ".dta": "stata",
    ".sas7bdat": "sas",
    ".xpt": "sas-xport",
}
SUPPORTED = ", ".join(sorted({*TEXT_SUFFIXES, *OTHER_SUFFIXES}))
_SNIFF_BYTES = 1 << 20
_CANDIDATE_DELIMITERS = ",;\t|"


@dataclass(frozen=True)
class FileState:
    """Size and modification time of a file: enough to notice that it changed after it was read (a chmod changes
    neither). Its change time and file number are kept too, and compared only by ``key``: the system sets them on
    any write, so a file whose ``key`` is the same has not been written since, even where a copy kept its size and
    modification time (the ledger's trust in a byte hash taken before or after the reading: ``run``)."""

    size: int
    modified_ns: int
    changed_ns: int = field(default=0, compare=False)
    file_number: int = field(default=0, compare=False)

    @classmethod
    def of(cls, path: Path) -> "FileState":
        stat = path.stat()
        return cls(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)

    @property
    def key(self) -> tuple[int, int, int, int]:
        """Everything the system says of the file's last change: equal keys, no write in between."""
        return self.size, self.modified_ns, self.changed_ns, self.file_number

    @classmethod
    def key_of(cls, path: Path) -> tuple[int, int, int, int] | None:
        """The ``key`` of the file at ``path`` now; None if it cannot be read (gone, or not allowed)."""
        try:
            return cls.of(Path(path)).key
        except OSError:
            return None


Progress = Callable[[float], None]
"""Told the fraction of the file read so far; raising (e.g. ``Cancelled``) stops the reading."""


@dataclass(frozen=True, eq=False)
class Table:
    """A loaded table and what the file said about it (never a DP value: stays local)."""

    frame: pd.DataFrame
    source: Path
    file_format: str
    # the labels an SPSS or Stata file gives a coded column whose codes they mostly cover: offered as its
    # public categories (the proposal's choice, made from the data for the curator)
    value_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # columns proposed as numbers although the file labels a few of their codes (a scale's end points,
    # "99 = refused"): code -> label, for the proposal to name
    code_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # every value label the file declares, code -> label, per column: how a categorical column reads a code
    # (``reading``); the frame keeps the codes themselves
    label_maps: Mapping[str, Mapping[Any, str]] = field(default_factory=dict)
    # what an SPSS, Stata or SAS file says a column is ("Weekly income (USD)"): public metadata, like the name
    variable_labels: Mapping[str, str] = field(default_factory=dict)
    encoding: str | None = None
    delimiter: str | None = None
    state: FileState | None = None  # the file as it was read; a release checks it has not changed since
    # the frame holds only the file's first rows (a file too large for memory, ``load_sample``): a release
    # reads the whole file out of core, and what is proposed from the frame is proposed from those rows
    sample_rows: int | None = None
    # the frame holds only some of the file's columns (``load_table(columns=...)``, for a release; the frame is
    # marked, ``fingerprint.mark_narrowed``, and refused by ``content_digest``): the digest of every column's
    # content, hashed beside the reading
    pending_digest: "PendingDigest | None" = field(default=None, repr=False)
    # False: narrowed to some columns without hashing its content (``load_table(hashes_content=False)``): a release
    # takes the content fingerprint the ledger records for these bytes, read so (``read_as``)
    hashes_content: bool = True

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.frame.columns)

    @property
    def read_as(self) -> "dict[str, str | int | None] | None":
        """How the file's bytes were read (``fingerprint.reading_key``), as a SQL engine reading them so says it
        (``FileSource.read_as``); None for a format no SQL engine reads (Excel, SPSS, Stata, SAS), whose content
        fingerprint the ledger is never asked for, or for a table not read whole from its file (a sample)."""
        from workbench.core.data.fingerprint import reading_key

        if self.sample_rows is not None or self.file_format not in ("text", "parquet"):
            return None
        text = self.file_format == "text"
        return reading_key(self.file_format, self.encoding if text else None, self.delimiter if text else None)

    @property
    def narrowed(self) -> bool:
        """Whether the frame holds only some of the file's columns (then never hash it: ``pending_digest``)."""
        return self.pending_digest is not None

    def abandon_digest(self) -> None:
        """Stop hashing the table's content (a refusal, a cancel: nothing will use it); nothing once it is hashed."""
        if self.pending_digest is not None:
            self.pending_digest.abandon()


def local_path(path: str | Path) -> Path:
    """The file at ``path`` on this machine, made absolute: the readers (pyarrow, pandas, pyreadstat, DuckDB) take a
    path that starts with '~' as in the home folder, where the ledger's fingerprint and the change check read the
    folder named '~' here ('./~/t.parquet' is written '~/t.parquet')."""
    return Path(path).absolute()


def load_table(
    path: str | Path,
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = None,
    progress: Progress | None = None,
    columns: Collection[str] | None = None,
    prepare: "PreparesBlocks | None" = None,
    hashes_content: bool = True,
) -> Table:
    """Read ``path`` by its suffix; a text file in the encoding given (``GUESS``: guessed, to look at it), else
    as its byte-order mark says, else as UTF-8 (``text_encoding``), split by the delimiter given or its header's.

    ``progress`` hears how much of a text file has been read; other formats are read in one go.
    A file that changes or disappears while it is read is refused, not half-read.

    ``columns``: keep only these (a release, which reads no other; at least one column is kept, and every column
    when one of them is not in the file, so that the refusal names the file's columns as before). The content
    digest of every column is then hashed as the file is read (``Table.pending_digest``): a text file block by
    block (``digest_stream``), so its other columns are never held whole; another format is read whole, and its
    frame let go once hashed. A refusal after the reading abandons that hashing; so must the caller's.

    ``prepare`` (with ``columns``, the columns its schema describes): a text file whose header holds every one of
    ``columns`` is prepared block by block as it is read (``prepare_stream``), and their text is not kept: the frame
    then holds their names and no row (``prepare.rows`` counts them). Another file is loaded as without it.

    ``hashes_content=False`` (with ``columns``): nothing is hashed, where the ledger records the content
    fingerprint of these very bytes read so (``Table.read_as``; ``run.engine_hashes_rows``), which a release then
    takes (``Table.hashes_content``). Only for a CSV, TSV or Parquet file: any other is hashed all the same.
    """
    path = local_path(path)
    if not path.exists():
        raise DataFileError(f"{path}: no such file. Check the path and try again.")
    if path.is_dir():
        raise DataFileError(f"{path} is a folder, not a data file. Choose a file inside it.")
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES and suffix not in OTHER_SUFFIXES:
        raise DataFileError(_unsupported(path, suffix))
    try:
        before = FileState.of(path)
        if suffix in TEXT_SUFFIXES:
            table = _load_text(path, delimiter or TEXT_SUFFIXES[suffix], encoding, delimiter, progress, keep=columns,
                               prepare=prepare, hashes_content=hashes_content)
        else:
            table = _load_binary(path, OTHER_SUFFIXES[suffix], sheet)
        after = FileState.of(path)
    except DataFileError:
        if path.exists() and FileState.of(path) != before:  # it failed because it changed: say that
            raise _changed(path) from None
        raise
    except FileNotFoundError:
        raise DataFileError(
            f"{path.name} disappeared while it was being read (moved, renamed or deleted). "
            "Nothing was loaded; open it again from where it is now."
        ) from None
    try:
        if after != before:
            raise _changed(path)
        _check_shape(table, prepare.rows if prepare is not None and prepare.streamed else None)
    except BaseException:
        table.abandon_digest()
        raise
    if columns is not None and table.pending_digest is None and table.hashes_content:
        table = _narrowed(table, columns, hashes_content=hashes_content or table.read_as is None)
    return replace(table, state=before)


def _kept(names: list[str], columns: Collection[str]) -> list[int]:
    """The places of ``columns`` among a file's ``names`` (stripped): every place when one is not there, or when
    names repeat or one is empty (the load is refused then, as the whole file's, or the plan's own refusal names
    the file's columns); at least one."""
    wanted = set(columns)
    places = [i for i, name in enumerate(names) if name in wanted]
    if len(set(names)) != len(names) or not all(names) or len(places) != len(wanted):
        return list(range(len(names)))
    return places or [0]


def _narrowed(table: Table, columns: Collection[str], hashes_content: bool = True) -> Table:
    """A table loaded whole, narrowed to ``columns`` (``_kept``), the whole frame hashed in a thread beside unless
    ``hashes_content`` is False."""
    from workbench.core.data.digest_stream import digest_in_background
    from workbench.core.data.fingerprint import mark_narrowed

    kept = _kept(list(table.columns), columns)
    hashed = digest_in_background(table.frame) if hashes_content else None
    # by place: a label that is no text (an Excel header cell holding 2020) is not its name as text
    return replace(table, frame=mark_narrowed(table.frame.iloc[:, kept]), pending_digest=hashed,
                   hashes_content=hashes_content)


def _changed(path: Path) -> DataFileError:
    return DataFileError(
        f"{path.name} changed while it was being read (another program is writing it). Nothing was loaded; "
        "wait until that program has finished, then open the file again."
    )


def check_unchanged(table: Table) -> None:
    """Refuse to go on if the file on disk is no longer the one that was loaded (what the ledger charges
    is recognised by the file's contents, so they must be the contents the statistics came from)."""
    if table.state is None:
        return
    try:
        now = FileState.of(table.source)
    except OSError:
        raise DataFileError(
            f"{table.source.name} is no longer where it was loaded from. Open it again (step 1) before releasing."
        ) from None
    if now != table.state:
        raise DataFileError(
            f"{table.source.name} has changed on disk since it was loaded. Open it again (step 1) so that the "
            "release uses, and the ledger records, the file as it is now."
        )


def _unsupported(path: Path, suffix: str) -> str:
    if suffix == ".xls":
        return (
            f"{path.name} is an old-style Excel workbook (.xls), which is not read. Open it in Excel or LibreOffice "
            "and save it as .xlsx (or as CSV), then open that file."
        )
    if suffix in (".sas7bcat", ".por", ".dbf", ".ods", ".json", ".xml", ".zip", ".gz"):
        return f"{path.name}: '{suffix}' files are not read. Export the table as CSV (or one of {SUPPORTED})."
    return (
        f"{path.name}: files ending in '{suffix or '(no suffix)'}' are not supported. "
        f"Save the table as one of: {SUPPORTED}."
    )


def _check_shape(table: Table, rows: int | None = None) -> None:
    """``rows``: the table's rows, where the frame holds none (prepared as it was read: ``load_table(prepare=)``)."""
    name = table.source.name
    if table.frame.shape[1] == 0:
        raise DataFileError(f"{name}: the file holds no columns. Check that it is the right file.")
    if (table.frame.shape[0] if rows is None else rows) == 0:
        raise no_rows(name)
    check_names([str(c) for c in table.frame.columns], name)


def check_names(names: list[str], file_name: str) -> None:
    """Every column has a name, and no two the same (as the plan names them: without surrounding spaces)."""
    unnamed = [i + 1 for i, n in enumerate(names) if not str(n).strip()]
    if unnamed:
        places = ", ".join(map(str, unnamed[:10])) + (" …" if len(unnamed) > 10 else "")
        raise DataFileError(
            f"{file_name}: column{'s' if len(unnamed) > 1 else ''} {places} (counting from the left) "
            f"{'have' if len(unnamed) > 1 else 'has'} no name in the first line. Give every column a name "
            "there (or delete empty columns) and open the file again."
        )
    counts = Counter(str(n).strip() for n in names)
    duplicates = sorted(n for n, count in counts.items() if count > 1)
    if duplicates:
        raise DataFileError(
            f"{file_name}: several columns are called {', '.join(repr(d) for d in duplicates)}. "
            "Give every column a distinct name in the file and open it again."
        )


SAMPLE_ROWS = 100_000  # rows shown, and proposed from, for a file read out of core


def load_sample(
    path: str | Path, *, delimiter: str | None = None, encoding: str | None = None, rows: int = SAMPLE_ROWS
) -> Table:
    """The first ``rows`` rows of a CSV, TSV or Parquet file too large for memory, read as ``load_table``
    reads the whole file (the same detection and messages), marked as a sample."""
    path = local_path(path)
    if not path.is_file():
        raise DataFileError(f"{path}: no such file. Check the path and try again.")
    suffix = path.suffix.lower()
    before = FileState.of(path)
    if suffix in TEXT_SUFFIXES:
        table = _load_text(path, delimiter or TEXT_SUFFIXES[suffix], encoding, delimiter, rows=rows)
    elif OTHER_SUFFIXES.get(suffix) == "parquet":
        import pyarrow.parquet as pq

        try:
            parquet = pq.ParquetFile(path)
            batches = parquet.iter_batches(batch_size=rows)
            first = next(batches)
            check_parquet_text(first, path.name)
            frame = parquet_columns_as_stored(first, file_rows=parquet.metadata.num_rows).to_pandas()
        except DataFileError:
            raise
        except StopIteration:
            frame = _read_parquet(path)
        except Exception as exc:  # pyarrow's own exception types
            raise DataFileError(f"{path.name}: the file cannot be read as a Parquet file ({first_line(exc)}).") from exc
        table = Table(frame=frame, source=path, file_format="parquet")
    else:
        raise DataFileError(f"{path.name}: only CSV, TSV and Parquet files are read out of core.")
    _check_shape(table)
    return replace(table, state=before, sample_rows=rows)


# ---------------------------------------------------------------- text files


GUESS = "guess"
"""``encoding=GUESS``: guess a text file's encoding from its content, to show the file to its curator (step 1,
``inspect``, ``plan-template``); never for a release, which reads the encoding the plan or the user declares."""


def detect_encoding(sample: bytes) -> str:
    """The encoding of a text sample: a BOM if present, else UTF-8 if it decodes, else a guess.

    A guess looks at the rows, so one person's row could change how every other row is read (a single
    Windows-1252 byte turned a UTF-8 file into HP Roman-8): it only proposes the encoding to the curator."""
    found = _self_declared(sample)
    if found is not None:
        return found
    runs = re.findall(rb"[\x80-\xff]+", sample)
    if sum(len(run) == 1 for run in runs) >= 0.8 * len(runs):
        # Accented letters stand alone among ASCII: a Western single-byte code page. (Multi-byte
        # encodings such as Shift-JIS or GBK come in runs of two or more non-ASCII bytes.)
        for western in ("cp1252", "latin-1"):
            try:
                sample.decode(western)
                return western
            except UnicodeDecodeError:
                continue
    from charset_normalizer import from_bytes

    best = from_bytes(sample).best()
    if best is not None and best.encoding not in {"utf_8", "utf_16", "utf_32"}:
        return best.encoding
    return "cp1252"


# codecs Python's lookup calls text encodings that no text file is written in: escapes of Python literals (with
# unicode_escape a backslash at a line's end joins the next row to it), domain names, and one that refuses all
_NOT_FILE_ENCODINGS = frozenset({"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"})


def is_file_encoding(name: Any) -> bool:
    """Whether ``name`` is an encoding a text file can be declared in: a text encoding Python knows (cp1252,
    latin-1, utf-8, utf-16, …), not a bytes-to-bytes codec (base64, zlib) nor one of ``_NOT_FILE_ENCODINGS``."""
    if not isinstance(name, str) or not name.strip():
        return False
    try:
        info = codecs.lookup(name)
    except LookupError:
        return False
    return bool(getattr(info, "_is_text_encoding", True)) and info.name not in _NOT_FILE_ENCODINGS


def text_encoding(sample: bytes, declared: str | None, file_name: str) -> str:
    """The encoding a text file is read in: the one declared (by the plan, ``--encoding`` or the curator in
    step 1), else the one its byte-order mark declares, else UTF-8; ``GUESS`` guesses from the content.

    Nothing undeclared is guessed for a release: a file that is not UTF-8 and says nothing is refused (the
    curator's own check: nothing is released), naming the encoding it seems to be in and how to declare it."""
    if declared == GUESS:
        return detect_encoding(sample)
    if declared:
        try:
            codecs.lookup(declared)
        except LookupError:
            raise DataFileError(f"{file_name}: unknown text encoding '{declared}'. Use e.g. utf-8 or latin-1.") from None
        if not is_file_encoding(declared):
            raise DataFileError(
                f"{file_name}: '{declared}' is not an encoding a text file is written in. Declare the file's own, "
                "e.g. utf-8, cp1252 (Windows, Western Europe) or latin-1."
            )
        return declared
    found = _self_declared(sample)
    if found is None:
        raise not_utf8(file_name, detect_encoding(sample))
    return found


def _self_declared(sample: bytes) -> str | None:
    """The encoding a sample shows by itself: its byte-order mark's, else UTF-8 if it decodes as UTF-8."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return None
    return "utf-8"


def not_utf8(file_name: str, likely: str | None = None) -> DataFileError:
    """The refusal of a file read as UTF-8 that is not, with how to declare its encoding."""
    seems = f" (it looks like {likely})" if likely else ""
    example = likely or "cp1252"
    return DataFileError(
        f"{file_name} is not UTF-8 text{seems}, and its encoding was not declared. Declare it: --encoding "
        f"{example} on the command line, or \"encoding\": \"{example}\" in the plan's dataset (the app records the "
        "encoding it shows in step 1). An encoding is never guessed for a release, because the guess depends on "
        "every row: one person's text could change how everyone else's is read."
    )


def release_text_format(sample: bytes, file_name: str, usual: str, delimiter: str | None = None,
                        encoding: str | None = None) -> tuple[str, str]:
    """A text file's encoding and delimiter for a release, decided from its first bytes (``sample``, a megabyte) as
    every engine decides them: the encoding declared, else its byte-order mark's, else UTF-8 (``text_encoding``:
    refused when it is not), the delimiter given, else the one that splits the header (``usual``, the suffix's,
    first). A NUL byte in the sample of a file not in UTF-16 is binary data, refused by every engine (after the
    sample, a NUL is a character of its value on every engine)."""
    if not sample.strip():
        raise empty_file(file_name)
    if b"\x00" in sample and not _two_bytes_a_letter(sample, encoding):
        raise DataFileError(
            f"{file_name}: this is not a text table (it contains binary data). "
            "If it is a spreadsheet or a statistics file, give it its proper suffix "
            "(.xlsx, .sav, .dta, ...) or export it as CSV."
        )
    encoding = text_encoding(sample, encoding, file_name)
    try:
        text = sample.decode(encoding, errors="ignore")
    except LookupError:
        raise DataFileError(f"{file_name}: unknown text encoding '{encoding}'. Use e.g. utf-8 or latin-1.") from None
    return encoding, delimiter or detect_delimiter(text, usual)


def _two_bytes_a_letter(sample: bytes, declared: str | None) -> bool:
    """Whether a text file is in UTF-16 or UTF-32 (declared so, or by its byte-order mark), where NUL bytes are
    half of every ASCII letter."""
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)):
        return True
    try:
        return bool(declared) and declared != GUESS and codecs.lookup(declared).name.startswith(("utf-16", "utf-32"))
    except LookupError:
        return False


def detect_delimiter(text: str, fallback: str) -> str:
    """The delimiter that splits the header (the first line that is not empty) into the most names: comma,
    semicolon, tab or bar, the file's usual one (``fallback``) first when several do as well.

    Only the header is read: it names the columns (the schema), so no person's row can change how the
    others are split."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    best, most = fallback, 1
    for candidate in dict.fromkeys(fallback + _CANDIDATE_DELIMITERS):
        names = _names_in(header, candidate)
        if names > most:
            best, most = candidate, names
    return best


def _names_in(header: str, delimiter: str) -> int:
    """How many names ``delimiter`` splits ``header`` into, as the csv module reads it, whatever their length: its
    limit of 128 KiB a value (a long name, or a quote left open) raised ``_csv.Error`` past the loader's messages."""
    try:
        return len(next(csv.reader([header], delimiter=delimiter), []))
    except csv.Error:
        with _CSV_LIMIT:  # two threads raising it at once could each put back the other's raised limit
            limit = csv.field_size_limit()
            csv.field_size_limit(max(limit, len(header) + 1))  # the module's only way; put back at once
            try:
                return len(next(csv.reader([header], delimiter=delimiter), []))
            finally:
                csv.field_size_limit(limit)


_CSV_LIMIT = threading.Lock()  # held while ``_names_in`` has the csv module's process-wide limit raised


class _WatchedFile(io.RawIOBase):
    """A file read through Arrow that tells ``progress`` (if any) how far the reading is."""

    def __init__(self, path: Path, progress: Progress | None) -> None:
        super().__init__()
        self._file = path.open("rb")
        self._size = max(path.stat().st_size, 1)
        self._read = 0
        self._progress = progress

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        count = self._file.readinto(buffer)
        self._read += count or 0
        if self._progress is not None:
            self._progress(min(self._read / self._size, 1.0))
        return count

    def read_buffer(self, size: int) -> Any:
        """What Arrow reads a block with (``text_files._Paced`` does the same): into Arrow's own memory. Read as
        Python bytes, the blocks were glibc's, which kept tens of MB of them freed but in the process (a load of
        132 MB peaked 60 MB higher), and each was copied once more."""
        import pyarrow as pa

        buffer = pa.allocate_buffer(size)
        count = self.readinto(memoryview(buffer))
        return buffer if count == size else buffer.slice(0, count)

    def close(self) -> None:
        self._file.close()
        super().close()


def _load_text(
    path: Path, delimiter: str | None, encoding: str | None, explicit: str | None, progress: Progress | None = None,
    rows: int | None = None, keep: Collection[str] | None = None, prepare: "PreparesBlocks | None" = None,
    hashes_content: bool = True,
) -> Table:
    with path.open("rb") as handle:
        sample = handle.read(_SNIFF_BYTES)
    # the rule every engine reads a text file's encoding and delimiter by (and refuses binary data by)
    encoding, delimiter = release_text_format(sample, path.name, delimiter or ",", explicit, encoding)

    def open_file() -> BinaryIO:
        return _WatchedFile(path, progress)

    text_format = TextFormat(delimiter or ",", encoding, quoted=has_quotes(path))
    hashed: PendingDigest | None = None
    try:
        if keep is None:
            frame = read_table(open_file, text_format, path.name, rows).to_pandas()
        else:
            frame, hashed = _read_kept(open_file, text_format, path.name, keep, prepare, hashes_content)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise DataFileError(f"{path.name}: the file cannot be read ({first_line(exc)}).") from exc
    frame.columns = [str(name).strip() for name in frame.columns]
    return Table(frame=frame, source=path, file_format="text", encoding=encoding, delimiter=delimiter,
                 pending_digest=hashed, hashes_content=hashed is not None or keep is None)


# the most bytes of a text file prepared as it is read (every column) that wait to be hashed, and a part's: the
# hashing, not the reading, is then the slower (2,000,000 rows of ten columns: 2.3 s of a core's work), and a
# waiting part holds its whole text (a release of 8 of 10 columns peaked at 580 MB with the defaults, 470 MB so)
STREAMED_WAITING_BYTES = 1 << 25
# and the hashing is given two of DuckDB's threads: the reading waits for it, so its core is mostly idle (2,000,000
# rows of ten columns on 2 cores, 3 alternating pairs: the release 3.47 s with one, 3.22 s with two; peak alike)
STREAMED_HASHING_THREADS = 2


def _read_kept(open_file: Callable[[], BinaryIO], text_format: TextFormat, file_name: str,
               columns: Collection[str], prepare: "PreparesBlocks | None" = None,
               hashes_content: bool = True) -> "tuple[pd.DataFrame, PendingDigest | None]":
    """The ``columns`` of a text file (``_kept``), marked narrowed, and the digest of all of its columns, hashed
    block by block as the file is read (``digest_stream``; None, every block read and refused alike, unless
    ``hashes_content``). With ``prepare``, when the file holds every one of ``columns``: each block of them
    prepared as it is read, the frame their names alone (no row)."""
    from workbench.core.data.digest_stream import DigestStream
    from workbench.core.data.fingerprint import mark_narrowed

    names = column_names(open_file, text_format, file_name)
    stripped = [str(name).strip() for name in names]
    kept = _kept(stripped, columns)
    streamed = prepare is not None and len(kept) == len(set(columns)) and {stripped[i] for i in kept} == set(columns)
    # prepared as it is read, the kept text is let go once hashed: it waits to be hashed as the rest does, and the
    # reading waits sooner (``STREAMED_WAITING_BYTES``)
    if not hashes_content:
        hashing = None
    elif streamed:
        hashing = DigestStream(stripped, (), part_bytes=STREAMED_WAITING_BYTES, waiting_bytes=STREAMED_WAITING_BYTES,
                               threads=STREAMED_HASHING_THREADS)
    else:
        hashing = DigestStream(stripped, kept)
    hashed = hashing.add if hashing is not None else _unhashed
    try:
        if streamed:
            assert prepare is not None
            kept_names = [stripped[i] for i in kept]

            def each_block(block: "pa.RecordBatch") -> None:
                hashed(block)
                prepare.add(block.select(kept), kept_names)

            read_columns(open_file, text_format, file_name, names, (), each_block)
            prepare.finish()
            frame = pd.DataFrame({name: pd.Series([], dtype="str") for name in kept_names})
        else:
            frame = read_columns(open_file, text_format, file_name, names, kept, hashed).to_pandas()
    except BaseException:
        if hashing is not None:
            hashing.abandon()
        raise
    return mark_narrowed(frame), hashing.finish() if hashing is not None else None


def _unhashed(block: "pa.RecordBatch") -> None:
    """A block read, and refused or not, as every block is, but not hashed (``load_table(hashes_content=False)``)."""


def has_quotes(path: Path) -> bool:
    """Whether the file holds a quotation mark anywhere (a scan at memory speed). Read in blocks into one buffer: a
    memory map of the whole file counted every page of a file without quotes in this process's memory (a 551 MB CSV
    added 551 MB to the peak of an out-of-core release under a memory limit)."""
    buffer = bytearray(_QUOTE_SCAN_BYTES)
    view = memoryview(buffer)
    with path.open("rb", buffering=0) as handle:
        while True:
            count = handle.readinto(view)
            if not count:
                return False
            if buffer.find(b'"', 0, count) >= 0:
                return True


_QUOTE_SCAN_BYTES = 1 << 22


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# ---------------------------------------------------------------- other formats


# What each kind of file starts with, to say what a file is when its suffix is wrong.
_SIGNATURES = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),  # password-protected .xlsx, or an old .xls
    (b"PK\x03\x04", "excel"),  # a zip archive, as .xlsx is
    (b"PAR1", "parquet"),
    (b"$FL2", "spss"),
    (b"$FL3", "spss"),
    (b"<stata_dta>", "stata"),
    (b"HEADER RECORD*******LIBRARY", "sas-xport"),
)
_NAMES = {"excel": "an Excel workbook (.xlsx)", "parquet": "a Parquet file (.parquet)", "spss": "an SPSS file (.sav)",
          "stata": "a Stata file (.dta)", "sas": "a SAS file (.sas7bdat)", "sas-xport": "a SAS transport file (.xpt)"}
_SUFFIX_OF = {"excel": ".xlsx", "parquet": ".parquet", "spss": ".sav", "stata": ".dta", "sas-xport": ".xpt"}


def _signature(path: Path) -> str | None:
    with path.open("rb") as handle:
        start = handle.read(64)
    return next((kind for magic, kind in _SIGNATURES if start.startswith(magic)), None)


def _load_binary(path: Path, kind: str, sheet: str | int | None) -> Table:
    found = _signature(path)
    if found == "ole" and kind == "excel":
        raise DataFileError(
            f"{path.name} is password-protected (encrypted), or an old .xls workbook renamed to .xlsx, so it "
            "cannot be read. Open it in Excel or LibreOffice, remove the password (File > Info > Protect "
            "Workbook) or save it as .xlsx, and open the saved copy."
        )
    if found is not None and found != "ole" and found != kind:
        raise DataFileError(
            f"{path.name} is named like {_NAMES[kind]} but its contents are {_NAMES[found]}. Rename it to end in "
            f"'{_SUFFIX_OF[found]}' and open it again."
        )
    try:
        if kind == "excel":
            return _load_excel(path, sheet)
        if kind == "parquet":
            return Table(frame=_read_parquet(path), source=path, file_format="parquet")
        return _load_statistics_file(path, kind)
    except (DataFileError, FileNotFoundError):
        raise
    except Exception as exc:  # every reader has its own exception types; name the file and the reader's words
        raise DataFileError(
            f"{path.name}: the file cannot be read as {_NAMES[kind]} ({first_line(exc)}). It may be damaged, "
            "incomplete (still being copied or written) or password-protected. Open it in the program that made "
            "it and save or export it again (CSV always works)."
        ) from exc


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file's columns as every engine reads them (``parquet_columns_as_stored``), typed as pandas types
    them; refused if a text column holds bytes that are not UTF-8 (``check_parquet_text``)."""
    import pyarrow.parquet as pq

    # two columns of one name are refused as every engine refuses them, before pyarrow's own words for them ("Multiple
    # matches for FieldRef"), which read as a damaged file
    schema = pq.read_schema(path)
    labels = set(pandas_row_labels(schema.metadata))
    check_names([name for name in schema.names if name not in labels], path.name)
    table = pq.read_table(path)
    check_parquet_text(table, path.name)
    return parquet_columns_as_stored(table).to_pandas()


def parquet_not_text(file_name: str, column: str, row: int | None = None) -> DataFileError:
    """The refusal of a Parquet file whose text column ``column`` holds bytes that are not UTF-8 (``row``: the
    first such value's row in the file, from 1), alike on every engine."""
    where = f" (row {row} is the first)" if row is not None else ""
    return DataFileError(
        f"{file_name}: the column '{column}' holds bytes that are not UTF-8 text{where}, and a Parquet file's text "
        "must be UTF-8 (the program that wrote it stored the bytes as they were, in some other encoding). Re-save "
        "it with that column's text decoded from its encoding and written as UTF-8 (or save the table as CSV and "
        "declare its encoding), then open it again."
    )


def _first_not_utf8(array: Any) -> int | None:
    """The place of the first value of a pyarrow array (or chunked array) that is not UTF-8, -1 if it cannot be
    told (a dictionary's values), None if every value is text or the array holds no text."""
    import pyarrow as pa

    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    offset = 0
    for chunk in chunks:
        chunk = _bytes_as_text(chunk)  # a column of bytes is text too (``parquet_columns_as_stored``)
        try:
            chunk.validate(full=True)  # checks every string's bytes (Arrow's fast UTF-8 check)
        except pa.ArrowInvalid as exc:
            words = str(exc)
            if "UTF8" not in words and "UTF-8" not in words:
                raise
            found = re.search(r"string index (\d+)", words)
            return offset + int(found.group(1)) if found and not pa.types.is_dictionary(chunk.type) else -1
        offset += len(chunk)
    return None


def _text_type(arrow_type: Any) -> Any:
    """The text type a Parquet column of bytes is read as (binary and fixed-size binary: string; large_binary:
    large_string; binary_view: string_view; a dictionary of these: a dictionary of text), or None for any other."""
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        values = _text_type(arrow_type.value_type)
        return None if values is None else pa.dictionary(arrow_type.index_type, values, arrow_type.ordered)
    if pa.types.is_binary(arrow_type) or pa.types.is_fixed_size_binary(arrow_type):
        return pa.string()
    if pa.types.is_large_binary(arrow_type):
        return pa.large_string()
    if pa.types.is_binary_view(arrow_type):
        return pa.string_view()
    return None


def _bytes_as_text(chunk: Any) -> Any:
    """A pyarrow array of bytes seen as text (the same bytes), to be checked as UTF-8; any other as it is."""
    import pyarrow as pa

    if _text_type(chunk.type) is None:
        return chunk
    if pa.types.is_dictionary(chunk.type):
        return pa.DictionaryArray.from_arrays(chunk.indices, _bytes_as_text(chunk.dictionary))
    if pa.types.is_fixed_size_binary(chunk.type):
        chunk = chunk.cast(pa.binary())
    return chunk.view(_text_type(chunk.type))


def check_parquet_text(data: Any, file_name: str, first_row: int = 0) -> None:
    """Refuse a Parquet file (a pyarrow table or record batch of it, from row ``first_row``) whose text columns
    hold bytes that are not UTF-8: pyarrow reads them and fails later, DuckDB refuses them, Spark reads them as
    they are. The first such column in the file's order is named (``parquet_text_refusal`` names the same out of
    core); pandas' row labels are no column and are not looked at."""
    labels = set(pandas_row_labels(data.schema.metadata))
    columns = [(name, column) for name, column in zip(data.schema.names, data.columns) if name not in labels]
    for (name, _), place in zip(columns, _places_not_utf8([column for _, column in columns])):
        if place is not None:
            raise parquet_not_text(file_name, name, None if place < 0 else first_row + place + 1)


def _places_not_utf8(columns: Sequence[Any]) -> Iterable[int | None]:
    """``_first_not_utf8`` of each column, in order, as the caller asks for them (so a column after the first refused
    one is never looked at, its own error included). Those of a large table are checked side by side, one thread a
    core: Arrow's check lets go of Python's lock, and the check was a fifth of the time of a 500,000-row file's load
    (10-11 ms; 6 ms on two cores). A small one's are checked one after the other."""
    if len(columns) < 2 or sum(column.nbytes for column in columns) < _CHECKED_SIDE_BY_SIDE:
        return map(_first_not_utf8, columns)
    import os
    from concurrent.futures import ThreadPoolExecutor

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=min(len(columns), cores)) as pool:
        checked = [pool.submit(_first_not_utf8, column) for column in columns]
    return (done.result() for done in checked)  # a later column's failure is raised only if it is asked for


_CHECKED_SIDE_BY_SIDE = 4 << 20  # bytes of columns below which threads would cost more than they save


def parquet_text_refusal(path: Path, file_name: str) -> DataFileError | None:
    """``check_parquet_text``'s refusal of the Parquet file at ``path``, read column by column in bounded memory
    (for an engine that found such bytes: the same column and row named), None if it holds none."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
        labels = set(pandas_row_labels(parquet.schema_arrow.metadata))
        for name in parquet.schema_arrow.names:
            if name in labels:
                continue
            done = 0
            for batch in parquet.iter_batches(batch_size=1 << 18, columns=[name]):
                check_parquet_text(batch, file_name, done)
                done += batch.num_rows
    except DataFileError as refusal:
        return refusal
    except Exception:  # noqa: BLE001 - pyarrow's own: the file is damaged otherwise, which the engine says
        return None
    return None


def _binary_as_text(data: Any) -> Any:
    """A pyarrow table or record batch with its columns of bytes (Parquet's BINARY without its UTF-8 mark, which
    legacy writers such as Hive and Impala leave out) as text, as DuckDB (``binary_as_string``) and Spark read them:
    every engine reads such a value by its text. Their bytes were checked to be UTF-8 (``check_parquet_text``)."""
    import pyarrow as pa

    labels = set(pandas_row_labels(data.schema.metadata))  # pandas' row labels: no engine reads them, none checks
    fields = [field if field.name in labels else field.with_type(_text_type(field.type) or field.type)
              for field in data.schema]
    if all(field.type == old.type for field, old in zip(fields, data.schema)):
        return data
    return data.cast(pa.schema(fields, metadata=data.schema.metadata))


def parquet_columns_as_stored(data: Any, first_row: int = 0, file_rows: int | None = None) -> Any:
    """A pyarrow table or record batch whose pandas metadata turns no named index back into the index.

    pandas writes a frame's index into the file as columns and lists them in its metadata, from which
    ``pandas.read_parquet`` makes them the index again, out of the table; DuckDB and Spark read every stored
    column. So that every engine sees the same columns, and the content fingerprint is the same on each, the file's
    metadata alone decides, alike everywhere: an index stored under its own name (``pid``, from ``set_index``) is
    an ordinary column, named and ordered as stored (after the others); a RangeIndex with a name, which pandas keeps
    in the metadata alone (``pandas_range_index``), is an ordinary column too, after the others where pandas would
    have stored it, its values start + step × the row's place in the file (``data`` starts at row ``first_row`` of
    a file of ``file_rows`` rows, None: ``data`` is the whole file), unless its length is not the file's number of
    rows (then, as pandas reads it, it is none); pandas' row labels, an index stored with no name of its own (``pandas_row_labels``), are no column on any
    engine, as a RangeIndex with no name is none. The rest of the metadata (nullable integers, categories, time
    zones) still applies."""
    import json

    data = _binary_as_text(data)
    metadata = data.schema.metadata or {}
    try:
        pandas_metadata = json.loads(metadata[b"pandas"])
        index_columns = list(pandas_metadata.get("index_columns") or [])
    except (KeyError, ValueError, TypeError, AttributeError):
        return data
    labels = set(pandas_row_labels(metadata))
    named = {name for name in index_columns if isinstance(name, str) and name not in labels}  # (a range is a dict)
    numbered = pandas_range_index(metadata, rows=data.num_rows if file_rows is None else file_rows)
    ranges = [entry for entry in index_columns if isinstance(entry, dict) and entry.get("kind") == "range"
              and entry.get("name") is not None]
    if not named and not ranges:
        return data
    # a named RangeIndex is taken out of the index whether or not it is a column: a block of a file whose length
    # happened to be the range's would otherwise get it back as the index
    pandas_metadata["index_columns"] = [
        entry for entry in index_columns if not (isinstance(entry, str) and entry in named) and entry not in ranges]
    for column in pandas_metadata.get("columns") or []:
        if isinstance(column, dict) and column.get("field_name") in named:
            column["name"] = column["field_name"]  # the column's name in the file
    if numbered is not None:
        import numpy as np
        import pyarrow as pa

        name, start, step = numbered
        places = np.arange(first_row, first_row + data.num_rows, dtype=np.int64)
        data = data.append_column(name, pa.array(start + step * places, pa.int64()))
        pandas_metadata.setdefault("columns", []).append(
            {"name": name, "field_name": name, "pandas_type": "int64", "numpy_type": "int64", "metadata": None})
    return data.replace_schema_metadata({**metadata, b"pandas": json.dumps(pandas_metadata).encode()})


def pandas_range_index(metadata: Mapping[bytes, bytes] | None, *,
                       rows: int | None = None) -> tuple[str, int, int] | None:
    """The name, start and step of a Parquet file's RangeIndex with a name (its schema's ``metadata``), which pandas
    keeps in its metadata alone, no column stored (``{'kind': 'range', 'name': 'pid', 'start': 1, ...}``; pandas 3
    makes one of ``set_index('pid')`` on consecutive ids). Every engine reads it as an ordinary column, row i of the
    file (from 0) holding start + step × i, as a copy of the table with ``pid`` stored as a column reads: the same
    columns and content fingerprint (``parquet_columns_as_stored``). None when there is none, or no name.

    ``rows`` is the file's number of rows (its footer's: the whole file, not a block of it; for a folder, that data
    file's). A range of another length (len(range(start, stop, step)) ≠ ``rows``: a file filtered or cut with pyarrow
    that kept pandas' metadata) describes rows the file no longer holds, and is no column (None), as pandas and
    pyarrow read it (they drop it): row numbers made up for it would be ids of no one. Every engine passes ``rows``;
    None leaves the length unchecked."""
    import json

    try:
        index_columns = json.loads((metadata or {})[b"pandas"]).get("index_columns") or []
    except (KeyError, ValueError, TypeError, AttributeError):
        return None
    for entry in index_columns:
        if isinstance(entry, dict) and entry.get("kind") == "range" and entry.get("name") is not None:
            try:
                start, step = int(entry.get("start", 0)), int(entry.get("step", 1))
                if rows is not None and len(range(start, int(entry["stop"]), step)) != rows:
                    return None
                return str(entry["name"]), start, step
            except (KeyError, TypeError, ValueError):  # no stop, or a step of 0: pandas cannot read it either
                return None
    return None


_ROW_LABELS = re.compile(r"__index_level_\d+__")


def pandas_row_labels(metadata: Mapping[bytes, bytes] | None) -> tuple[str, ...]:
    """The columns of a Parquet file (its schema's ``metadata``) that hold pandas' row labels, not data: the
    columns its pandas metadata lists as the index and that pandas stored under its placeholder name
    ``__index_level_N__`` (an index with no name, e.g. the row numbers a filtered or shuffled frame kept, which
    ``df.to_parquet(path)`` writes by default). No engine reads them (``parquet_columns_as_stored``), so a table
    saved so is the table saved with ``index=False``: the same columns and the same content fingerprint."""
    import json

    try:
        index_columns = json.loads((metadata or {})[b"pandas"]).get("index_columns") or []
    except (KeyError, ValueError, TypeError, AttributeError):
        return ()
    return tuple(name for name in index_columns if isinstance(name, str) and _ROW_LABELS.fullmatch(name))


class SheetNeeded(DataFileError):
    """A workbook has several sheets and none was named; ``sheets`` lists them for the user to choose."""

    def __init__(self, message: str, sheets: tuple[str, ...]) -> None:
        super().__init__(message)
        self.sheets = sheets


def _load_excel(path: Path, sheet: str | int | None) -> Table:
    with pd.ExcelFile(path, engine="calamine") as book:
        names = tuple(str(n) for n in book.sheet_names)
        if sheet is None:
            if len(names) > 1:
                raise SheetNeeded(
                    f"{path.name}: the workbook has {len(names)} sheets ({', '.join(names)}). "
                    "Say which sheet holds the table (on the command line: --sheet NAME).",
                    names,
                )
            sheet = names[0]
        if isinstance(sheet, str) and sheet not in names:
            raise DataFileError(f"{path.name}: there is no sheet '{sheet}'; the sheets are {', '.join(names)}.")
        frame = pd.read_excel(book, sheet_name=sheet)
    return Table(frame=frame, source=path, file_format="excel")


def _load_statistics_file(path: Path, kind: str) -> Table:
    import pyreadstat

    readers = {
        "spss": pyreadstat.read_sav,
        "stata": pyreadstat.read_dta,
        "sas": pyreadstat.read_sas7bdat,
        "sas-xport": pyreadstat.read_xport,
    }
    frame, meta = readers[kind](str(path))
    labels: dict[str, tuple[str, ...]] = {}
    code_labels: dict[str, dict[str, str]] = {}
    label_maps = {str(column): {code: str(label) for code, label in mapping.items()}
                  for column, mapping in (getattr(meta, "variable_value_labels", None) or {}).items()
                  if mapping and column in frame}
    for column, mapping in label_maps.items():  # what to propose: the curator's view, read off the data
        if _labels_only_some_numbers(frame[column], mapping):
            code_labels[column] = {code_text(code): label for code, label in mapping.items()}
        else:
            labels[column] = tuple(dict.fromkeys(mapping.values()))  # two codes may share a label
    variable_labels = {
        str(column): str(label).strip()
        for column, label in (getattr(meta, "column_names_to_labels", None) or {}).items()
        if label and str(label).strip() and str(label).strip() != str(column)
    }
    return Table(frame=frame, source=path, file_format=kind, value_labels=labels, code_labels=code_labels,
                 label_maps=label_maps, variable_labels=variable_labels)


def _labels_only_some_numbers(values: pd.Series, mapping: Mapping[Any, Any]) -> bool:
    """Whether a labelled column is a measurement with a few labelled codes rather than a coded category.

    A survey's 1-to-5 scale often labels only its end points, and an income "99 = refused": turning
    those codes into labels would leave the other values outside every category. A column whose
    labels cover fewer than half of the distinct numbers present stays numbers; the labels are named
    in its proposal. (A coded category with a stray unlabelled code, region 9, still gets its labels.)
    """
    if not pd.api.types.is_numeric_dtype(values):
        return False
    present = pd.unique(values.dropna())
    labelled = sum(1 for value in present if value in mapping)
    return len(present) > 0 and labelled < len(present) / 2


def code_text(code: Any) -> str:
    """A value label's code as the file shows it: 3, not 3.0."""
    return f"{code:g}" if isinstance(code, float) else str(code)




def blocks_of(table: Table, columns: list[str], progress: Progress | None = None):
    """The whole file behind ``table`` (which may hold only its first rows, ``load_sample``), block by block, as
    frames of ``columns`` read as ``load_table`` reads them: for a check of the whole file, in bounded memory."""
    if table.sample_rows is None:
        yield table.frame[columns]
        return
    path = table.source
    if table.file_format == "parquet":
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
        metadata = parquet.schema_arrow.metadata
        rows = parquet.metadata.num_rows
        numbered = pandas_range_index(metadata, rows=rows)  # a column of the frame, none of the file's
        stored = [c for c in columns if numbered is None or c != numbered[0]]
        total, done = max(rows, 1), 0
        for batch in parquet.iter_batches(batch_size=1 << 18, columns=stored):
            first, done = done, done + batch.num_rows
            if progress is not None:
                progress(done / total)
            check_parquet_text(batch, path.name, first)
            frame = parquet_columns_as_stored(batch.replace_schema_metadata(metadata), first, rows).to_pandas()
            yield frame[columns]
        return
    from workbench.core.data.text_files import stream

    opener = (lambda: path.open("rb")) if progress is None else (lambda: _WatchedFile(path, progress))
    text_format = TextFormat(table.delimiter or ",", table.encoding or "utf-8", has_quotes(path))
    names = [f"c{i}" for i in range(len(table.columns))]
    wanted = {f"c{table.columns.index(c)}": c for c in columns}
    reader, _, close = stream(opener, text_format, path.name, names)
    try:
        for batch in reader:
            yield batch.select(list(wanted)).rename_columns(list(wanted.values())).to_pandas()
    finally:
        close()  # a reader that stops early lets go of the file and Arrow's reading thread
