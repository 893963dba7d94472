"""Phase 1 of a sync (words): extracted files are committed in batches with their passages, spans, hashes and
lexical rows. No model runs here: a passage whose model input already has a stored vector gets it at once
(moved or unchanged text), the others wait for phase 2 (meaning_pass.py) with no vector.

Each batch is one SQLite transaction (files, chunks, generation) followed by the matching vector-index update,
so an interruption loses at most the batch in flight and the next sync simply does it again.

On a store that takes writes beside its reader (`writes_beside`: a shared library, whose server does half the
work), a full batch is committed on a writer thread while the sync reads and cuts the next one: the client's and
the server's work overlap instead of taking turns. Batches still commit one at a time and in order; the next one
starts only after the previous is collected (its failure handled as a synchronous batch's: _settle), and `flush`
waits for everything. There a batch holds BESIDE_SCALE times the passages: the server's work is the pass's
critical path, and each transaction's fixed part (its round trips, statements, triggers and commit) is paid less
often; the files a batch holds stay as they are (measured: no difference on one-passage files; decision 0143).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

from ...base.errors import Cancelled, StoreError
from ...base.progress import CancelToken, ProgressFn
from ...base.types import ChunkSpan
from ...base.stored_names import stored_name
from ...ingest.passage_context import model_input
from ...ingest.scan import ScannedFile
from ...store import NewChunk, RootRow, Store
from ...store.ledger import set_entry_date, set_ocr_state
from .file_boundary import file_failure, one_line
from .meaning_beside import MeaningBeside
from .contract import IndexWriter, SyncReport
from .git_trees import GitTrees

__all__ = ["Pending", "Batcher", "distinct_chunks", "rewrite_entry", "written_again", "BESIDE_SCALE"]

log = logging.getLogger(__name__)

# A shared words pass of 62,550 passages, 256 a batch: 23.4-24.3 s; 1,024: 19.4-22.0 s; 4,096: 20.7 s (decision 0143)
BESIDE_SCALE = 4
# The first batch of a sync is committed once it has waited this long, full or not: a folder of slow files (PDFs of
# a second each) was not searchable, and `status` said "files: 0", until 64 of them were read (~28 s for a
# newcomer's 24 PDFs). Later batches fill by count (each commit has a fixed cost), or by time once grown (below).
FIRST_BATCH_S = 2.0
# A batch that filled by count within FAST_FILL_S lets the next one hold twice as many passages and files, up to
# MAX_BATCH_CHUNKS and MAX_BATCH_FILES; one that took longer halves it again (never below the sync's own sizes),
# and a grown batch open for twice FAST_FILL_S is committed however full (text files, then PDFs, must not wait for
# 1,024 PDFs). Each transaction pays a fixed part (FTS5 flushes its terms as a new segment and merges segments, the
# WAL writes its pages): 10,000 small files were 157 transactions, the store's work 2.7-2.9 s (1.45-1.59 CPU-s); in
# batches grown up to 16 times, 1.5-1.8 s (1.15 CPU-s). Only on a local store, where a batch is committed in the
# reading's own thread (a shared one's is written beside it: BESIDE_SCALE). Slow files keep small batches, so their
# words are searchable within seconds, and a stop commits little.
FAST_FILL_S = 1.0
MAX_BATCH_CHUNKS = 4096
MAX_BATCH_FILES = 1024


@dataclass
class Pending:
    file: ScannedFile
    sha256: Optional[str]  # as stored: the OCR step hands on its row's, a column that may be NULL
    kind: str
    chunks: list[ChunkSpan]
    title: str  # what the bi-encoder reads before each passage ("" for none): phase 2 builds the input again
    hashes: list[str]  # of the model inputs: a stored vector is reused only for the very same model input
    path: Optional[str] = None  # the stored key when it is not the file's own path (a member of a container)
    date_ns: Optional[int] = None  # the entry's own date (a mail's Date header), else the file's mtime counts
    ocr: Optional[str] = None  # the files.ocr state written with it: 'pending' (pages wait for OCR), 'done'
    ocr_pages: Optional[tuple[int, ...]] = None  # with 'done': the PDF pages OCR gave text for (None: all of it)
    notes: tuple[str, ...] = ()  # what its reading left out (Document.notes), kept for `explain`
    reader: Optional[int] = None  # the version of the reader that read it (FileRow.reader)


@dataclass
class _Written:
    """What one committed transaction of a batch hands the vector index and `beside`."""

    removed: list[int] = dataclasses.field(default_factory=list)
    added_ids: list[int] = dataclasses.field(default_factory=list)
    added_vecs: list[np.ndarray] = dataclasses.field(default_factory=list)
    waiting: int = 0
    inputs: dict[str, str] = dataclasses.field(default_factory=dict)  # hash -> model input of those waiting


class Batcher:
    """Collects extracted files; `flush` writes them in one transaction."""

    def __init__(self, store: Store, root: RootRow, index: IndexWriter, report_: SyncReport,
                 progress: Optional[ProgressFn], cancel: Optional[CancelToken], batch_chunks: int,
                 batch_files: int, beside: Optional[MeaningBeside] = None,
                 on_failed: Optional[Callable[[Pending, str], None]] = None, *,
                 on_waiting: Optional[Callable[[int], None]] = None) -> None:
        self.store, self.root, self.index = store, root, index
        # where an entry its batch cannot store goes (with the reason); None: the batch's error is raised
        self.on_failed = on_failed
        self.beside = beside  # where the passages a batch leaves waiting are embedded meanwhile, if anywhere
        # told how many passages each batch left waiting (no stored vector by hash): what decides the model's load
        # ahead (SyncEncoder.passages_waiting), which a batch whose vectors were all found must not start
        self.on_waiting = on_waiting
        self.report, self.progress, self.cancel = report_, progress, cancel
        self._beside_reading = bool(getattr(store, "writes_beside", False))
        self.batch_chunks = batch_chunks * (BESIDE_SCALE if self._beside_reading else 1)
        self.batch_files = batch_files
        self._sizes = (self.batch_chunks, self.batch_files)  # the first batch's: _resize never goes below them
        self._scale = 1
        self._opened = 0.0  # when the batch being filled got its first entry (time.monotonic())
        self.pending: list[Pending] = []
        self.n_chunks = 0
        # When the first batch is committed however full: None until it has an entry, never once it has gone
        self._first_due: Optional[float] = None
        self._writer: Optional[ThreadPoolExecutor] = None  # made by the first full batch, let go by `flush`
        self._in_flight: Optional[tuple[list[Pending], Future[_Written]]] = None
        # where the vectors of a git tree's file read again go (store/shelf.py): a desktop library's shelf alone
        self._shelve: Optional[Callable[[int, int], int]] = getattr(store, "shelve_vectors", None)
        self._trees = GitTrees()

    def add(self, item: Pending) -> None:
        if self.pending and self.n_chunks + len(item.chunks) > self.batch_chunks:
            self._full()  # a big file goes in a batch of its own
        now = time.monotonic()
        if not self.pending:
            self._opened = now
        self.pending.append(item)
        self.n_chunks += len(item.chunks)
        if self._first_due is None:
            self._first_due = now + FIRST_BATCH_S
        if self.n_chunks >= self.batch_chunks or len(self.pending) >= self.batch_files:
            self._full()
        elif now >= self._first_due or (self._scale > 1 and now - self._opened >= 2 * FAST_FILL_S):
            self._full(by_count=False)  # a grown batch of files become slow (text files, then PDFs) waits no longer

    def _resize(self, by_count: bool) -> None:
        """The next batch's sizes, from how fast this one filled (FAST_FILL_S). Not where a batch is written beside
        the reading: its fixed part is paid meanwhile, and bigger batches there were no faster (decision 0143)."""
        if self._beside_reading:
            return
        chunks, files = self._sizes
        if time.monotonic() - self._opened >= FAST_FILL_S:
            self._scale = max(1, self._scale // 2)
        elif by_count:
            self._scale = min(self._scale * 2, max(1, min(MAX_BATCH_CHUNKS // chunks, MAX_BATCH_FILES // files)))
        self.batch_chunks = max(chunks, min(chunks * self._scale, MAX_BATCH_CHUNKS))
        self.batch_files = max(files, min(files * self._scale, MAX_BATCH_FILES))

    def _full(self, by_count: bool = True) -> None:
        """A full batch (`by_count`: by its sizes, else by FIRST_BATCH_S): committed beside the next one's reading
        where the store allows it, else now."""
        self._first_due = math.inf  # the later batches fill by count
        self._resize(by_count)
        if not self._beside_reading:
            return self.flush()
        prepare = getattr(self.store, "prepare_words", None)
        if prepare is not None:  # the batch's words, made while the batch before is still being written
            try:
                prepare([n.text for it in self.pending for n in distinct_chunks(it.chunks, it.hashes, {})])
            except Exception:  # only a head start: the transaction makes them again, inside the file boundary
                log.debug("words made ahead failed; the batch makes its own", exc_info=True)
        self._collect()
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="batch-writer")
        items, self.pending, self.n_chunks = self.pending, [], 0
        self._in_flight = (items, self._writer.submit(self._commit, items))

    def flush(self) -> None:
        """Commit every queued entry, the batch in flight first, and return when all are written."""
        try:
            self._collect()
        finally:
            self.close()  # nothing in flight now: the thread goes, the next full batch makes another
        if not self.pending:
            return
        items, self.pending, self.n_chunks = self.pending, [], 0
        self._settle(items, lambda: self._commit(items))

    def _collect(self) -> None:
        """Wait for the batch in flight, if any, and settle it. What settling cannot lay on one of its entries
        stops the sync: it surfaces while another file is read, which must not be blamed for it."""
        if self._in_flight is not None:
            items, done = self._in_flight
            self._in_flight = None
            try:
                self._settle(items, done.result)
            except Exception as exc:
                if file_failure(exc) is None:
                    raise
                raise StoreError(f"a batch of {len(items)} entries could not be written: {one_line(str(exc))}") from exc

    def close(self) -> None:
        """However the reading ended: wait for a batch still in flight (its transaction commits or fails whole,
        never after the sync has returned) and let the writer thread go."""
        if self._in_flight is not None:
            done = self._in_flight[1]
            self._in_flight = None
            with contextlib.suppress(Exception):  # the sync is ending on an error of its own already
                done.result()
        if self._writer is not None:
            self._writer.shutdown()
            self._writer = None

    def _settle(self, items: list[Pending], commit: Callable[[], _Written]) -> None:
        try:
            written = [commit()]
        except Exception as exc:
            if self.on_failed is None or file_failure(exc) is None:
                raise
            written = self._commit_each(items, exc)
        # Only the transaction is an entry's doing: the vector index and `beside` after it are the library's,
        # and what they raise stops the sync (never a file's failure: its rows are committed by then).
        for w in written:
            self._publish(w)

    def _commit_each(self, items: list[Pending], exc: Exception) -> list[_Written]:
        """The batch's transaction was rolled back: each entry is stored alone, so only the one that breaks
        fails. If every one of several breaks alone, none is at fault: the batch's error `exc` is raised."""
        assert self.on_failed is not None
        written: list[_Written] = []
        failed: list[tuple[Pending, str]] = []
        for it in items:
            try:
                written.append(self._commit([it]))
            except Exception as one:
                reason = file_failure(one)
                if reason is None:
                    raise
                failed.append((it, reason))
        if not written and len(items) > 1:
            raise exc
        for it, reason in failed:
            self.on_failed(it, reason)
        return written

    def _commit(self, items: list[Pending]) -> _Written:
        """`items` in one transaction; what the vector index (and `beside`) are then given (_publish)."""
        known = self.store.vectors_by_hash(h for it in items for h in it.hashes)
        w = _Written()
        rows: list[tuple[int, NewChunk]] = []  # the batch's passages, written together (Store.insert_chunks_of)

        def write_rows() -> None:
            for cid, (_, n) in zip(self.store.insert_chunks_of(rows), rows, strict=True):
                if n.vector is None:
                    w.waiting += 1
                else:
                    w.added_ids.append(cid)
                    w.added_vecs.append(n.vector)
            rows.clear()

        with self.store.atomic():
            paths = [it.path or stored_name(it.file.path) for it in items]
            stored = self.store.files_by_path(paths)  # the rows before this batch: one look-up, not one a file
            met: set[str] = set()
            for it, path in zip(items, paths, strict=True):
                old = self.store.file_by_path(path) if path in met else stored.get(path)
                met.add(path)
                if old is not None:
                    if any(f == old.id for f, _ in rows):  # the same entry twice in a batch: the later one wins
                        write_rows()
                    if self._shelve is not None and old.status == "indexed" and self._trees.holds(path):
                        self._shelve(old.id, self.root.id)  # a branch switched back finds their meaning there
                    w.removed += self.store.delete_chunks_of_file(old.id)
                new = distinct_chunks(it.chunks, it.hashes, known)
                file_id = self.store.upsert_file(self.root.id, path, it.file.size, it.file.mtime_ns,
                                                 it.sha256, "indexed", None, it.kind, len(new), it.title,
                                                 ctime_ns=it.file.ctime_ns, notes=it.notes, reader=it.reader)
                if it.date_ns is not None:
                    set_entry_date(self.store, file_id, it.date_ns)
                if old is not None or it.ocr is not None:  # a row inserted now has no OCR state yet
                    set_ocr_state(self.store, file_id, it.ocr, it.ocr_pages)
                rows += [(file_id, n) for n in new]
                if self.beside is not None:
                    w.inputs.update((n.text_hash, model_input(it.title, n.text)) for n in new if n.vector is None)
            write_rows()
            self.store.bump_generation()
        return w

    def _publish(self, w: _Written) -> None:
        """A committed batch to the vector index, its counts to the report, its waiting passages to `beside`."""
        if w.removed:
            self.index.remove(w.removed)
        if w.added_ids:
            self.index.add(np.asarray(w.added_ids, dtype=np.int64),
                           np.stack(w.added_vecs).astype(np.float32, copy=False))
        again = written_again(self.store, w.removed)  # written earlier in this sync: in neither count
        self.report.chunks_added += len(w.added_ids) + w.waiting - again
        self.report.chunks_pending += w.waiting
        self.report.chunks_removed += len(w.removed) - again
        if w.waiting and self.on_waiting is not None:
            self.on_waiting(w.waiting)
        if self.beside is not None:
            self.beside.offer(w.inputs)

    def flush_and_stop(self) -> None:
        """On cancel: commit the files fully processed so far (cancel keeps what is done), then raise Cancelled."""
        self.flush()
        raise Cancelled("cancelled", report=self.report)  # this root's files so far

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            self.flush_and_stop()


def written_again(store: Store, removed: Sequence[int]) -> int:
    """How many of the passages `removed` the sync running now had written itself (Store.sync_mark): the text
    pass's passages of a scanned PDF that the OCR step writes again were counted twice as written."""
    mark = store.sync_mark
    return 0 if mark is None else sum(1 for i in removed if i > mark)


def distinct_chunks(chunks: list[ChunkSpan], hashes: list[str], vectors: dict[str, np.ndarray]) -> list[NewChunk]:
    """One stored passage per distinct text of a file, the later occurrences kept as its repeats: a log of one
    line repeated 100,000 times is one passage (one vector), not thousands of identical ones that would fill
    every candidate list and cut the vector graph off from the rest of the library. A text without a stored
    vector gets None (embedded in phase 2)."""
    first: dict[str, int] = {}
    out: list[NewChunk] = []
    repeats: dict[int, list[tuple[int, int, Optional[int]]]] = {}
    for c, h in zip(chunks, hashes, strict=True):
        if h in first:
            repeats.setdefault(first[h], []).append((c.start, c.end, c.page))
            continue
        first[h] = len(out)
        out.append(NewChunk(c.ordinal, c.start, c.end, c.page, c.text, h, vectors.get(h)))
    for i, spans in repeats.items():
        out[i] = dataclasses.replace(out[i], repeats=tuple(spans))
    return out


def rewrite_entry(store: Store, index: IndexWriter, old_id: Optional[int], write: Callable[[], object]) -> int:
    """An entry recorded without passages (skipped, failed, waiting for OCR): its old passages, if any, are
    dropped and `write()` records its row, in one transaction; then the vector index lets them go, as a
    batch does. Returns how many passages were dropped."""
    with store.atomic():
        removed = store.delete_chunks_of_file(old_id) if old_id is not None else []
        if old_id is not None and hasattr(store, "unshelve_entry"):  # a secret found: no earlier version kept (0187)
            store.unshelve_entry(old_id)
        write()
        if removed:
            store.bump_generation()
    if removed:
        index.remove(removed)
    return len(removed)
