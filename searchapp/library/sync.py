"""Incremental sync of one root: scan, skip what is unchanged, re-chunk what changed, embed only new passage texts.

Work is flushed in batches. Each batch is one SQLite transaction (files, chunks, vectors, generation)
followed by the matching vector-index update, so an interruption loses at most the batch in flight
and the next sync simply does it again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Protocol, Sequence

import numpy as np

from ..base.config import Config
from ..base.errors import Cancelled, ExtractionError, UnsupportedFileError
from ..base.finite import require_finite
from ..base.progress import CancelToken, ProgressFn, report
from ..base.safe_open import open_regular
from ..base.types import ChunkSpan
from ..ingest.chunking import chunk_document
from ..ingest.extractors import extract, extractor_name
from ..ingest.fsnames import storable
from ..ingest.passage_context import MAX_TITLE_TOKENS, file_title, model_input
from ..ingest.scan import ScanResult, ScannedFile, scan
from ..store import NewChunk, RootRow, Store
from ..store.ledger import set_entry_date, set_ocr_state
from .member_sync import index_container, is_container, member_keys
from .ocr_wait import pdf_waits_for_ocr, record_waiting, waits_for_ocr
from .roots import in_scope, outermost, root_missing

__all__ = ["SyncReport", "sync_root", "file_sha256", "text_hash", "PassageEncoder", "IndexWriter"]

BATCH_CHUNKS = 256  # passages embedded and committed together
BATCH_FILES = 64


class PassageEncoder(Protocol):
    """What a sync asks of the bi-encoder (models.BiEncoder; the library hands it over behind a lazy proxy)."""

    spec: str
    max_seq_length: int

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]: ...

    def remember_joined(self, prefix: str, texts: Sequence[str], joined: Sequence[str]) -> None: ...

    def encode(self, texts: list[str], *, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> np.ndarray: ...


class IndexWriter(Protocol):
    """Where a batch's vector changes go after its SQLite commit (the library's IndexKeeper)."""

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None: ...

    def remove(self, ids: list[int]) -> None: ...


@dataclass
class SyncReport:
    scanned: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    failed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0  # passages that went through the bi-encoder (the rest reused stored vectors)
    # (path, reason) newly skipped, or failing, in this sync: a skip already recorded is not listed again
    problems: list[tuple[str, str]] = field(default_factory=list)
    # (root, reason) of roots that could not be read: nothing of them was changed (an error for the caller)
    missing_roots: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. a path synced as part of the folder it is in

    def merge(self, other: "SyncReport") -> None:
        for name in ("scanned", "added", "updated", "unchanged", "removed", "skipped", "failed",
                     "chunks_added", "chunks_removed", "chunks_embedded"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems += other.problems
        self.missing_roots += other.missing_roots
        self.notes += other.notes


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(path) as fh:  # a FIFO put in the file's place must not hang the sync
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class _Pending:
    file: ScannedFile
    sha256: str
    kind: str
    chunks: list[ChunkSpan]
    inputs: list[str]  # what the bi-encoder reads per chunk: its text, or title + text (ingest/passage_context.py)
    hashes: list[str]  # of the inputs: a stored vector is reused only for the very same model input
    is_new: bool
    path: Optional[str] = None  # the stored key when it is not the file's own path (a member of a container)
    date_ns: Optional[int] = None  # the entry's own date (a mail's Date header), else the file's mtime counts
    ocr: Optional[str] = None  # the files.ocr state written with it: 'pending' (pages wait for OCR), 'done'


class _Batcher:
    """Collects extracted files; `flush` embeds the new texts and writes one transaction."""

    def __init__(self, store: Store, root: RootRow, encoder: PassageEncoder, index: IndexWriter,
                 report_: SyncReport, progress: Optional[ProgressFn], cancel: Optional[CancelToken]) -> None:
        self.store, self.root, self.encoder, self.index = store, root, encoder, index
        self.report, self.progress, self.cancel = report_, progress, cancel
        self.pending: list[_Pending] = []
        self.n_chunks = 0
        self.bytes_total = 0  # bytes of the files this sync has to read; their share read so far
        self.bytes_seen = 0  # estimates how many passages are left to embed (the progress bar's total)

    def add(self, item: _Pending) -> None:
        if self.pending and self.n_chunks + len(item.chunks) > BATCH_CHUNKS:
            self.flush()  # a big file goes in a batch of its own: cancelling it never drops finished files
        self.pending.append(item)
        self.n_chunks += len(item.chunks)
        if self.n_chunks >= BATCH_CHUNKS or len(self.pending) >= BATCH_FILES:
            self.flush()

    def _embedding_progress(self, batch: int) -> Optional[ProgressFn]:
        """Passages embedded in this whole sync (not this batch), of an estimated total from bytes read."""
        if self.progress is None:
            return None
        before = self.report.chunks_embedded
        so_far = before + batch
        total = max(so_far, round(so_far * self.bytes_total / self.bytes_seen)) if self.bytes_seen else so_far
        return lambda p: report(self.progress, "embedding", before + p.done, total, p.message)

    def flush(self) -> None:
        if not self.pending:
            return
        items, self.pending, self.n_chunks = self.pending, [], 0
        known = self.store.vectors_by_hash(h for it in items for h in it.hashes)
        todo: dict[str, str] = {}
        for it in items:
            for text, h in zip(it.inputs, it.hashes):
                if h not in known:
                    todo.setdefault(h, text)
        if todo:
            # Cancel is honoured inside encode, before anything of this batch is written, for a big file's
            # batch; a batch of finished small files (at most BATCH_CHUNKS new texts: seconds) is completed.
            cancel = self.cancel if len(todo) > BATCH_CHUNKS else None
            vecs = self.encoder.encode(list(todo.values()), progress=self._embedding_progress(len(todo)),
                                       cancel=cancel)
            # Refused before the batch's transaction: nothing of it is written, the library stays usable.
            require_finite(vecs, self.encoder.spec,
                           "while embedding; nothing of this batch was written")
            known.update(zip(todo.keys(), vecs))
            self.report.chunks_embedded += len(todo)
        removed: list[int] = []
        added_ids: list[int] = []
        added_vecs: list[np.ndarray] = []
        with self.store.atomic():
            for it in items:
                path = it.path or storable(it.file.path)
                old = self.store.file_by_path(path)
                if old is not None:
                    removed += self.store.delete_chunks_of_file(old.id)
                new = distinct_chunks(it.chunks, it.hashes, known)
                file_id = self.store.upsert_file(self.root.id, path, it.file.size, it.file.mtime_ns,
                                                 it.sha256, "indexed", None, it.kind, len(new))
                if it.date_ns is not None:
                    set_entry_date(self.store, file_id, it.date_ns)
                set_ocr_state(self.store, file_id, it.ocr)
                ids = self.store.insert_chunks(file_id, new)
                added_ids += ids
                added_vecs += [n.vector for n in new]
            self.store.bump_generation()
        if removed:
            self.index.remove(removed)
        if added_ids:
            self.index.add(np.asarray(added_ids, dtype=np.int64), np.stack(added_vecs).astype(np.float32, copy=False))
        self.report.chunks_added += len(added_ids)
        self.report.chunks_removed += len(removed)

    def flush_and_stop(self) -> None:
        """On cancel: commit the files fully processed so far (cancel keeps what is done), then raise Cancelled."""
        self.flush()
        raise Cancelled("cancelled")

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            self.flush_and_stop()


def distinct_chunks(chunks: list[ChunkSpan], hashes: list[str], vectors: dict[str, np.ndarray]) -> list[NewChunk]:
    """One stored passage per distinct text of a file, the later occurrences kept as its repeats: a log of one
    line repeated 100,000 times is one passage (one vector), not thousands of identical ones that would fill
    every candidate list and cut the vector graph off from the rest of the library."""
    first: dict[str, int] = {}
    out: list[NewChunk] = []
    repeats: dict[int, list[tuple[int, int, Optional[int]]]] = {}
    for c, h in zip(chunks, hashes):
        if h in first:
            repeats.setdefault(first[h], []).append((c.start, c.end, c.page))
            continue
        first[h] = len(out)
        out.append(NewChunk(c.ordinal, c.start, c.end, c.page, c.text, h, vectors[h]))
    for i, spans in repeats.items():
        out[i] = dataclasses.replace(out[i], repeats=tuple(spans))
    return out


def _scoped_scan(store: Store, root: RootRow, paths: list[str], config: Config, progress, cancel
                 ) -> tuple[ScanResult, dict]:
    """Scan only the changed paths (files, or folders with what is below them) and the rows they cover."""
    # A path inside another one in scope is already covered by the outer one's scan.
    scope = outermost([os.path.abspath(p) for p in paths
                       if in_scope(root.path, p, config.scan.skip_dirs, config.scan.exclude)])
    present = [Path(p) for p in scope if os.path.lexists(p)]
    result = (scan(present, config.scan, progress=progress, cancel=cancel, within=Path(root.path))
              if present else ScanResult())
    existing: dict = {}
    for p in scope:
        existing.update(store.files_under(root.id, storable(p)))
    return result, existing


def sync_root(store: Store, root: RootRow, config: Config, encoder: PassageEncoder, index: IndexWriter,
              progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None,
              paths: Optional[list[str]] = None) -> SyncReport:
    """Bring one root up to date. With `paths` (absolute, e.g. from a file watcher) only those files and
    folders are looked at: nothing else of the root is scanned, and a path that no longer exists is purged."""
    rep = SyncReport()
    gone = root_missing(store, root)
    if gone is not None:  # keep everything: an unplugged drive or a renamed folder must not empty the index
        rep.missing_roots.append((root.path, gone))
        return rep
    if paths is None:
        result = scan([Path(root.path)], config.scan, progress=progress, cancel=cancel)
        existing = store.files_of_root(root.id)
    else:
        result, existing = _scoped_scan(store, root, paths, config, progress, cancel)
    # Every entry met is counted once: scanned = added + updated + unchanged + skipped + failed.
    rep.scanned = len(result.files) + len(result.skipped)
    seen: set[str] = set()

    # Files skipped by policy (size, type, unreadable) are recorded so `status` can say why.
    for sk in result.skipped:
        path = storable(sk.path)
        seen.add(path)
        if sk.status == "failed" and sk.reason.startswith("unreadable folder"):
            seen.update(store.files_under(root.id, path))  # not vanished: kept until the folder can be read
        _record_problem(store, root, existing.get(path), path, sk.status, sk.reason, index, rep, real=sk.path)

    batcher = _Batcher(store, root, encoder, index, rep, progress, cancel)

    def index_doc(path: str, old, f: ScannedFile, sha: str, doc, date_ns: Optional[int] = None,
                  ocr: Optional[str] = None) -> None:
        """Chunk one extracted entry (a file, or a member of a container stored as `path`) and queue it."""
        title, title_tokens = _title_context(doc, encoder, config)
        spans = _chunk(doc, encoder, config, batcher, reserve=title_tokens)
        if not spans:
            if ocr == "pending":  # a scan without a text layer: its text comes from the OCR step
                return record_waiting(store, root, old, path, f, sha, doc.kind, index, rep)
            _record_problem(store, root, old, path, "skipped", "no text found", index, rep, f)
            return
        if old is None:
            rep.added += 1
        else:
            rep.updated += 1
        inputs = [model_input(title, c.text) for c in spans]
        if any(i is not c.text for i, c in zip(inputs, spans)):
            encoder.remember_joined(title, [c.text for c in spans], inputs)  # no second tokenization
        batcher.add(_Pending(f, sha, doc.kind or extractor_name(path) or "", spans, inputs,
                             [text_hash(t) for t in inputs], old is None, path=path, date_ns=date_ns, ocr=ocr))

    batcher.bytes_total = sum(f.size for f in result.files if _needs_reading(existing.get(storable(f.path)), f))
    total = len(result.files)
    for i, f in enumerate(result.files, start=1):
        batcher.check_cancel()
        path = storable(f.path)
        seen.add(path)
        old = existing.get(path)
        report(progress, "extracting", i, total, os.path.basename(path))
        if not _needs_reading(old, f):
            seen.update(member_keys(existing, path))  # an unchanged container keeps its members
            if old.status == "indexed":
                rep.unchanged += 1
            else:
                rep.skipped += 1  # skipped before and not changed since: counted, not listed again
            continue
        batcher.bytes_seen += f.size
        try:
            sha = file_sha256(f.path)
        except FileNotFoundError:
            seen.discard(path)  # vanished since the scan: purged below like any deleted file
            rep.scanned -= 1
            continue
        except UnsupportedFileError as exc:  # replaced by a FIFO or device since the scan
            _record_problem(store, root, old, path, "skipped", str(exc), index, rep)
            continue
        except OSError as exc:
            _record_problem(store, root, old, path, "failed", f"cannot read: {exc.strerror or exc}", index, rep)
            continue
        if old is not None and old.sha256 == sha and old.status == "indexed":
            store.set_file_stat(old.id, f.size, f.mtime_ns)  # touched, not changed
            seen.update(member_keys(existing, path))
            rep.unchanged += 1
            continue
        if waits_for_ocr(f.path, config):  # an image: read by the OCR step after the text of every file
            record_waiting(store, root, old, path, f, sha, "image", index, rep)
            continue
        if is_container(f.path):  # archives, mailboxes, mail with attachments: each member an entry
            try:
                seen.update(index_container(f, path, existing, sha, config, cancel, rep, index_doc,
                                            lambda p, o, st, why, sf: _record_problem(store, root, o, p, st, why,
                                                                                     index, rep, sf),
                                            batcher.check_cancel))
            except Cancelled:
                batcher.flush_and_stop()
            continue
        try:
            doc = extract(f.path, max_bytes=int(config.scan.max_file_mb * 2**20),
                          max_chars=config.scan.max_text_chars, cancel=cancel)
        except Cancelled:  # inside one file's extraction
            batcher.flush_and_stop()
        except FileNotFoundError:
            seen.discard(path)
            rep.scanned -= 1
            continue
        except UnsupportedFileError as exc:
            _record_problem(store, root, old, path, "skipped", str(exc), index, rep, f)
            continue
        except ExtractionError as exc:
            if not os.path.lexists(f.path):  # extract() reports a vanished file as unreadable: it is just gone
                seen.discard(path)
                rep.scanned -= 1
                continue
            _record_problem(store, root, old, path, "failed", str(exc), index, rep, f)
            continue
        except Exception as exc:  # a bug in one extractor must not abort the whole sync
            _record_problem(store, root, old, path, "failed", f"internal error: {type(exc).__name__}: {exc}", index, rep, f)
            continue
        index_doc(path, old, f, sha, doc, ocr=pdf_waits_for_ocr(doc, config))
    batcher.flush()

    # Deleted files go last, so a renamed file's passages were found by hash and reused above.
    vanished = [row for p, row in existing.items() if p not in seen]
    if vanished:
        removed: list[int] = []
        with store.atomic():
            for row in vanished:
                removed += store.delete_file(row.id)
            store.bump_generation()
        if removed:
            index.remove(removed)
        rep.removed += len(vanished)
        rep.chunks_removed += len(removed)
    store.touch_root(root.id)
    return rep


def _title_context(doc, encoder, config: Config) -> tuple[str, int]:
    """(title the bi-encoder reads before each passage, its word pieces); ("", 0) when title context is off."""
    if not config.chunking.title_context:
        return "", 0
    title = file_title(doc)
    if not title:
        return "", 0
    offsets = encoder.token_offsets(title)
    if len(offsets) > MAX_TITLE_TOKENS:
        title = title[: offsets[MAX_TITLE_TOKENS - 1][1]]
    return title, min(len(offsets), MAX_TITLE_TOKENS) + 1  # + 1: the line break may become a piece


def _chunk(doc, encoder, config: Config, batcher: _Batcher, reserve: int = 0) -> list[ChunkSpan]:
    """Passages of one file; a cancel inside its chunking commits the files finished before it. `reserve`: word
    pieces kept free for the title in front of each passage, when the passage would otherwise not fit the
    model's window (shorter passages keep their configured length, so the stored text is the same either way)."""
    max_tokens = config.chunking.max_tokens
    window = encoder.max_seq_length
    if reserve and window:
        max_tokens = max(16, min(max_tokens, window - 2 - reserve))  # 2: [CLS] and [SEP]
    try:
        return chunk_document(doc, encoder.token_offsets, max_tokens, config.chunking.overlap,
                              cancel=batcher.cancel,
                              token_offsets_batch=encoder.token_offsets_batch)
    except Cancelled:
        batcher.flush_and_stop()
        raise  # not reached: flush_and_stop raises


def _record_problem(store: Store, root: RootRow, old, path: str, status: str, reason: str,
                    index: IndexWriter, rep: SyncReport, f: Optional[ScannedFile] = None,
                    real: Optional[str] = None) -> None:
    if status == "failed":
        rep.failed += 1
    else:
        rep.skipped += 1
    if old is not None and old.status == status and old.error == reason and old.n_chunks == 0 and (
        f is None or (old.size, old.mtime_ns) == (f.size, f.mtime_ns)
    ):
        if status == "failed":
            rep.problems.append((path, reason))  # an error is reported every time; a skip only when first met
        return  # already recorded
    rep.problems.append((path, reason))
    size, mtime = (f.size, f.mtime_ns) if f is not None else _stat(real or path)
    with store.atomic():
        removed = store.delete_chunks_of_file(old.id) if old is not None else []
        store.upsert_file(root.id, path, size, mtime, None, status, reason, extractor_name(Path(path)), 0)
        if removed:
            store.bump_generation()
    if removed:
        index.remove(removed)
        rep.chunks_removed += len(removed)


def _needs_reading(old, f: ScannedFile) -> bool:
    """New, changed since the last sync, or failed then (a failure may be gone without a new mtime,
    e.g. after chmod): the file is read again. Unchanged skipped files are not."""
    return old is None or (old.size, old.mtime_ns) != (f.size, f.mtime_ns) or old.status == "failed"


def _stat(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
        return st.st_size, st.st_mtime_ns
    except OSError:
        return 0, 0
