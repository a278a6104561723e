"""The content digest of a table read in blocks, hashed in a thread beside the reading.

A release keeps only the columns its plan reads (``load_table(columns=...)``), but the content fingerprint is of
every column: the ledger recognises the table by all of it. So each block of the file is hashed as it is read
(``fingerprint.text_sums``), in a thread of its own, while the next blocks are read and, once the file is read,
while the statistics are computed: DuckDB leaves the interpreter lock. The digest is a count of rows and sums of
their hashes, so the blocks' parts add up to ``content_digest`` of the whole table, bit for bit.

The blocks waiting to be hashed are held in memory; only the columns not kept cost anything (the kept ones are the
table's own buffers). They are bounded: the part being gathered hands itself to the thread at ``PART_ROWS`` rows or
``PART_BYTES`` of columns not kept, and past ``WAITING_BYTES`` handed over the reading waits for the hashing; so at
most ``WAITING_BYTES + PART_BYTES`` and a block of the file wait.

A reading or release that stops (a refusal, a cancel) abandons its digest (``PendingDigest.abandon``): nothing
more is hashed, so the process does not wait at its exit for hashing that no one will use.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable, Sequence

import pandas as pd

from workbench.core.data.fingerprint import content_digest, digest, hashing_connection, text_sums

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

PART_ROWS = 1 << 19  # rows hashed by one query: each query has its cost (planned afresh, the few distinct values of
# a column tokenized again): 2,000,000 rows of ten columns took 3.9 s of work in parts of 2^17 rows, 2.9 s of 2^18,
# 2.6 s of 2^19, 2.5 s whole
PART_BYTES = 1 << 26  # a part is handed over at this many bytes of columns not kept (a wide file), whatever its rows
WAITING_BYTES = 1 << 27  # the most bytes of columns not kept that may wait to be hashed before the reading waits
HASHING_THREADS = 1  # DuckDB's threads: the other core reads the file, then computes the statistics


class PendingDigest:
    """A content digest being hashed beside the caller: its ``result`` once hashed, or ``abandon`` it."""

    def __init__(self, future: "Future[bytes]", abandon: Callable[[], None]) -> None:
        self._future, self._abandon = future, abandon

    def result(self) -> bytes:
        return self._future.result()

    def done(self) -> bool:
        return self._future.done()

    def abandon(self) -> None:
        """Stop hashing (nothing will use the digest); nothing happens once it is done."""
        if not self._future.done():
            self._abandon()


class DigestStream:
    """Hashes the blocks of a text table (every column text, named ``names`` as stripped) given to ``add``, in a
    thread beside the caller's; ``finish`` gives the digest of them all. ``kept``: the places of the columns the
    caller keeps (those cost no memory while they wait)."""

    def __init__(self, names: Sequence[str], kept: Sequence[int], *, part_rows: int = PART_ROWS,
                 part_bytes: int = PART_BYTES, waiting_bytes: int = WAITING_BYTES,
                 threads: int = HASHING_THREADS) -> None:
        self._names = [str(name) for name in names]
        keeping = set(kept)
        self._dropped = [i for i in range(len(self._names)) if i not in keeping]
        self._part_rows, self._part_bytes = part_rows, part_bytes
        self._waiting_bytes, self._threads = waiting_bytes, threads
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="content-digest")
        self._part: list[pa.RecordBatch] = []  # the blocks of the part being gathered
        self._part_size = (0, 0)  # its rows, and its bytes of columns not kept
        self._waiting: deque[tuple[Future, int]] = deque()  # each part handed to the thread, and its dropped bytes
        self._sums: list[Future] = []
        self._db: duckdb.DuckDBPyConnection | None = None
        self._using_db = threading.Lock()  # held by the thread while it hashes on ``_db`` (``abandon`` waits for it)
        self._stopped = threading.Event()

    @property
    def abandoned(self) -> bool:
        return self._stopped.is_set()

    def add(self, block: pa.RecordBatch) -> None:
        """Hash a block (a pyarrow record batch of every column) of the table, after those added before."""
        if block.num_rows:
            self._part.append(block)
            rows, size = self._part_size
            self._part_size = rows + block.num_rows, size + sum(block.column(i).nbytes for i in self._dropped)
            if self._part_size[0] >= self._part_rows or self._part_size[1] >= self._part_bytes:
                self._hand_over()

    def finish(self) -> PendingDigest:
        """The digest of every row added, once the thread has hashed them all."""
        self._hand_over()
        done = self._pool.submit(self._digest)
        self._pool.shutdown(wait=False)
        return PendingDigest(done, self.abandon)

    def abandon(self) -> None:
        """The reading or the release stopped (a failure, a refusal, a cancel): nothing more is hashed, the query of
        a part being hashed is interrupted, and the connection is closed; the thread then ends."""
        self._stopped.set()
        self._part = []
        self._pool.shutdown(wait=False, cancel_futures=True)
        # a part being hashed has its query stopped (again, should it start its query after an interrupt) and
        # ends at once; then the connection is closed
        while not self._using_db.acquire(timeout=0.05):
            self._interrupt()
        try:
            self._close()
        finally:
            self._using_db.release()

    def _interrupt(self) -> None:
        import duckdb

        db = self._db
        if db is not None:
            try:
                db.interrupt()  # DuckDB's way to stop a query from another thread
            except duckdb.Error:  # closed meanwhile: nothing to stop
                pass

    def _hand_over(self) -> None:
        if not self._part:
            return
        import pyarrow as pa

        part, self._part = pa.Table.from_batches(self._part), []
        dropped, self._part_size = self._part_size[1], (0, 0)
        while self._waiting and sum(size for _, size in self._waiting) + dropped > self._waiting_bytes:
            self._waiting.popleft()[0].result()  # the reading waits for the hashing (it may raise: the read stops)
        sums = self._pool.submit(self._hash, part)
        self._sums.append(sums)
        self._waiting.append((sums, dropped))
        while self._waiting and self._waiting[0][0].done():
            self._waiting.popleft()

    def _hash(self, part: pa.Table) -> tuple[int, int, int]:
        with self._using_db:
            if self._stopped.is_set():
                return 0, 0, 0
            if self._db is None:
                self._db = hashing_connection(self._threads)
            return text_sums(self._db, part, self._names)

    def _digest(self) -> bytes:
        try:
            count = first = second = 0
            for sums in self._sums:  # all done: the thread hashes in order, and this is its last task
                c, f, s = sums.result()
                count, first, second = count + c, first + f, second + s
            if self._stopped.is_set():  # a part started after ``abandon`` hashed nothing: its sums are no digest
                raise CancelledError("the content digest was abandoned")
            return digest(self._names, count, first, second)
        finally:
            with self._using_db:
                self._close()

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def digest_in_background(frame: pd.DataFrame, threads: int = HASHING_THREADS) -> PendingDigest:
    """``content_digest`` of a whole frame, in a thread beside the caller's (a file of another format, loaded whole
    and then narrowed to the plan's columns: the frame is let go once hashed). Abandoned, it is not started if it
    has not been (a whole frame is one query: one that has started ends by itself)."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="content-digest")
    try:
        hashed = pool.submit(content_digest, frame, threads)
        return PendingDigest(hashed, hashed.cancel)
    finally:
        pool.shutdown(wait=False)
