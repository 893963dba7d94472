"""The sync's OCR step: after the text of every file is indexed, the files waiting for OCR get their text.

Decisions:
- Newest first (by mtime): the scan a person just saved is the one they are about to look for.
- Background work: the thread's priority is lowered before the engine is built; `ocr_document` checks
  cancel between pages and caps pages and pixels, so a cancel lands within a page (seconds).
- Each file is its own batch through the sync's own batcher (batcher.Batcher): its passages, vectors, FTS rows
  and index entries change together, exactly as for any file; a cancel keeps every file finished before.
- OCR results are cached by the file's sha256 (store/ocr_cache.py): a re-sync, a rename or a copy of the
  same bytes never runs the engine again.
- No engine (not installed, or SEARCHAPP_OCR_ENGINE=none): files stay 'pending' and the report says why;
  nothing fails. A file whose OCR fails is recorded as failed with the reason (the next sync tries again).
- Except when the engine raised on the file's bytes an error known to repeat (OcrFailed: poppler-85140-0.pdf's
  ResizeImgError on every sync; never memory or a device, ocr/document.py `repeats`): that failure is cached
  like a result, with the engine's name, its packages' versions and its device, and the next sync of the same
  bytes records it failed again without running the engine or listing it again. Changed bytes, another engine
  or version, or a reindex try again.
- A PDF keeps its text layer whatever OCR does: when OCR fails on its pages for good (OcrFailed, now or cached)
  the entry is indexed from its text layer, with a note naming the pages not OCR'd and why; when it fails in a
  way the next try may not meet, the entry stays as the text pass indexed it, waiting for OCR (the next sync
  tries again). Only a PDF with no text at all is recorded as failed.
- An entry some of whose text came from OCR, read by an older reader than this version's (decision 0152), is read
  again here, not by the words pass: its pages by the newer reader, its OCR'd pages from the cache (never OCR'd
  again for this); without its OCR text cached it stays as it was read.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Collection, Optional, Sequence

from ...base.config import Config
from ...base.entry_dates import clamped_ns
from ...base.errors import Cancelled, ExtractionError
from ...base.member_paths import split_member
from ...base.priority import lower_thread_priority
from ...base.progress import CancelToken, ProgressFn, report
from ...base.types import Document
from ...ingest.extractors import extract, reader_version
from ...ingest.ocr import merge_ocr, ocr_document, recognised_pages
from ...ingest.ocr.document import OcrFailed
from ...ingest.ocr.engine import (OcrEngine, available_engine, engine_name, engine_version, no_text_read,
                                  ocr_unavailable_reason)
from ...ingest.ocr.pdf_pages import pages_needing_ocr
from ...ingest.scan import CTIME_IS_CHANGE, ScannedFile
from ...store import FileRow, RootRow, Store
from ...store.layout import layout_of, stored_layouts
from ...store.ledger import ocr_done_before, pending_ocr_files, set_ocr_state
from ...store.ocr_cache import OcrCache
from ..sync.batches import Batcher, Pending, distinct_chunks, rewrite_entry
from ..sync.file_boundary import file_failure, one_line
from ..sync.file_budget import FileBudget, too_long
from ..members.private_copy import readable
from ...ingest.passages import passages_of
from ..sync.words_pass import BATCH_CHUNKS, BATCH_FILES
from ..sync.contract import IndexWriter, PassageEncoder, SyncReport
from ..sync.meta_keys import REINDEX_META
from ..sync.newer_reader import read_by_older
from ..sync.vanished import delete_entries

__all__ = ["ocr_pending", "ocr_step", "MAX_FILES_PER_SYNC"]

MAX_FILES_PER_SYNC = 10_000  # the rest wait for the next sync
# The first note of a cached OCR failure (an entry with no text and no pages), then the engine's key
# (_engine_key: its name, its packages' versions, its device); the second note is the reason recorded.
FAILED_WITH = "OCR failed with engine "
MAX_PAGES_NAMED = 10  # in the note of a PDF's pages not OCR'd

log = logging.getLogger(__name__)


class _OcrLater(ExtractionError):
    """OCR of a PDF with a text layer failed in a way the next try may not meet: the entry stays as the text
    pass indexed it, waiting for OCR."""


def ocr_pending(store: Store, config: Config, encoder: PassageEncoder, index: IndexWriter, cache: OcrCache,
                progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None,
                counted: Collection[str] = (), root_ids: Optional[Sequence[int]] = None,
                full: Sequence[int] = (), held: Collection[int] = ()) -> SyncReport:
    """OCR the files waiting for it (files.ocr = 'pending'), newest first; raises Cancelled on cancel. `counted`:
    the entries this sync's text pass counted as skipped while they wait (SyncReport.waiting): one given text here
    is counted as added instead, one that fails as failed, so the sync's summary says what became of them.
    `root_ids`: only the files under these roots (a shared library's sync: the roots whose writer lock it holds).
    `full`: the roots this sync's text pass read in full, whose OCR'd PDFs an older reader read are read again
    here (_read_again: that pass counted each of them unchanged). `held`: the ids of entries of files gone that
    the sync deletes after this step, counting the renames among them (sync/vanished.py Vanished.held): not read,
    not removed, not counted as waiting here."""
    rep = SyncReport()
    counted = set(counted)
    if not config.scan.ocr:
        return rep
    roots = {r.id: r for r in store.roots()}  # a shared library's: this machine's
    if full:
        _read_again(store, roots, config, encoder, index, cache, rep, progress, cancel, full)
    held = set(held)
    rows = [r for r in pending_ocr_files(store, MAX_FILES_PER_SYNC, root_ids)
            if r.root_id in roots and r.id not in held]
    if not rows:
        return rep
    lower_thread_priority()  # before the engine is built: its thread pool inherits the low priority
    engine = None
    reindexing: Optional[bool] = None  # a reindex under way: every cached failure is tried again
    done = found = 0  # read by OCR; of them, with text found
    for i, row in enumerate(rows, start=1):
        if cancel is not None:
            cancel.check()
        report(progress, "ocr", i - 1, len(rows), os.path.basename(row.path))
        if not _unchanged(row):
            if _gone(row):  # deleted meanwhile: it goes now (status listed three scans a newcomer had deleted)
                _forget(store, row, index, rep, counted)
            continue  # changed since the text pass: the next sync records it again
        cached = cache.get(row.sha256) if row.sha256 else None
        repeated = False  # a failure cached for these bytes and this engine: listed by the sync that met it
        if cached is not None and _is_failure(cached):
            if engine is None and _names_a_device(cached):  # known once it is built (~1 s, once per sync)
                engine = available_engine()
            if reindexing is None:  # asked once a step, and only where a failure was cached
                reindexing = _reindexing(store)
            repeated = not reindexing and _same_engine(cached, engine)
            if repeated and not _is_pdf(row, Path(row.path)):
                _record_failed(store, row, cached.notes[1], index, rep, listed=False)
                _recount(rep, row, counted, "failed")
                continue
            cached = cached if repeated else None  # another engine or version, or a reindex: tried again
        if cached is None:
            engine = engine or available_engine()
            if engine is None:
                waiting = len(rows) - i + 1
                rep.notes.append(f"{waiting} file(s) wait for OCR: "
                                 f"{ocr_unavailable_reason() or 'no OCR engine could be loaded'}")
                break
        try:
            with readable(row.path, int(config.scan.max_file_mb * 2**20), cancel, row.sha256) as path:
                doc, pages, read = _ocr_text(path, row, cached, cache, engine, config, cancel)
            indexed = _index(store, roots[row.root_id], config, encoder, index, rep, progress, cancel, row, doc, pages)
        except Exception as exc:  # the per-file boundary (sync/file_boundary.py): this file fails, the step goes on
            reason = file_failure(exc)
            if reason is None:  # a cancel, the library's own error
                raise
            if isinstance(exc, _OcrLater):  # its text layer stays indexed; OCR is tried again next sync
                rep.problems.append((row.path, reason))
                continue
            _record_failed(store, row, reason, index, rep, listed=not repeated)
            _recount(rep, row, counted, "failed")
            continue
        # Read either way: with text it is added, without it stays skipped ("no text found") and waits no more
        _recount(rep, row, counted, "added" if indexed else "skipped")
        if not indexed:  # newly not indexed (it waited): counted with the problems, as status counts it, named after
            rep.no_words.append((row.path, no_text_read(row.kind)))
        if read and cached is None:  # read by the engine now (not from the cache: a scan renamed or copied), and
            found += indexed  # not a PDF indexed from its text layer alone because OCR failed on it
            done += 1
    report(progress, "ocr", len(rows), len(rows))
    rep.notes += _read_note(done, found)
    return rep


def _read_note(done: int, found: int) -> list[str]:
    """"44 read by OCR, text found in 19": 44 alone, while 25 of them had no text, read as 44 files found."""
    return [f"{done} file(s) read by OCR" + (f", text found in {found}" if found < done else "")] if done else []


def _read_again(store: Store, roots: dict[int, RootRow], config: Config, encoder: PassageEncoder, index: IndexWriter,
                cache: OcrCache, rep: SyncReport, progress: Optional[ProgressFn], cancel: Optional[CancelToken],
                full: Sequence[int]) -> None:
    """Entries some of whose text came from OCR, read by an older reader than this version's (decision 0152), read
    again with their OCR text from the cache: the very same passages stay as they are (their row takes the new
    reader), other ones replace them, each unchanged model input keeping its vector. Never OCR'd again for this
    (hours for a folder of scans): an entry whose OCR text is not cached stays as it was read. Reported as its
    own stage, "rereading" (a folder of a thousand scanned PDFs is minutes of it after an upgrade)."""
    # Only those whose OCR text is cached are read: the others stay as they were read, every sync, and a bar of
    # them would show at every sync reading nothing (the text is asked again below: thousands held meanwhile
    # would be the OCR text of a whole folder of scans in memory)
    rows = [r for r in ocr_done_before(store, _pdf_reader(), MAX_FILES_PER_SYNC, full)
            if r.root_id in roots and read_by_older(r) and _cached_text(r, cache, cancel) is not None]
    for i, row in enumerate(rows):
        if cancel is not None:
            cancel.check()
        report(progress, "rereading", i, len(rows), os.path.basename(row.path))
        cached = _cached_text(row, cache, cancel)
        if cached is None:
            continue
        budget = FileBudget(cancel, config.scan.file_budget_s)  # as the words pass reads a file: stopped past it
        try:
            with readable(row.path, int(config.scan.max_file_mb * 2**20), budget, row.sha256) as path:
                doc, pages, _ = _ocr_text(path, row, cached, cache, None, config, budget)
            _reread(store, roots[row.root_id], config, encoder, index, rep, cancel, row, doc, pages)
        except Cancelled:
            if not budget.expired:  # the sync's own cancel
                raise
            log.info("%s: not read again: %s", row.path, too_long(budget.seconds))
        except Exception as exc:  # the per-file boundary: kept as the older reader read it, the step goes on
            if file_failure(exc) is None:  # the library's own error
                raise
            log.info("%s: not read again: %s", row.path, exc)
    if rows:
        report(progress, "rereading", len(rows), len(rows))


def _cached_text(row: FileRow, cache: OcrCache, cancel: Optional[CancelToken]) -> Optional[Document]:
    """The OCR text cached for `row`'s bytes, when they are unchanged on disk and it is not a failure; else None."""
    if cancel is not None:
        cancel.check()
    cached = cache.get(row.sha256) if row.sha256 and _unchanged(row) else None
    return None if cached is None or _is_failure(cached) else cached


def _pdf_reader() -> int:
    """This version's PDF reader: the only entries with both a reader and OCR'd text are PDFs (an image has none,
    reader_version), so those an older one read are the OCR'd entries to read again."""
    return reader_version("a.pdf") or 0


def _reread(store: Store, root: RootRow, config: Config, encoder: PassageEncoder, index: IndexWriter,
            rep: SyncReport, cancel: Optional[CancelToken], row: FileRow, doc: Document,
            pages: Optional[tuple[int, ...]]) -> None:
    """`row` from `doc`, its reading by this version (counted as the text pass counts a file read again; that
    pass counted it unchanged)."""
    rep.reread += 1
    batcher = Batcher(store, root, index, rep, None, cancel, BATCH_CHUNKS, BATCH_FILES)  # a cancel inside chunking
    title, spans, hashes = passages_of(doc, encoder, config, batcher)
    if spans and layout_of(distinct_chunks(spans, hashes, {})) == stored_layouts(store, [row.id]).get(row.id):
        store.set_file_readers([(row.id, reader_version(row.path), doc.notes, doc.date_ns)])
        return
    rep.read_differently.append(row.path)
    rep.unchanged -= 1
    rep.updated += 1
    _index(store, root, config, encoder, index, rep, None, cancel, row, doc, pages)


def _recount(rep: SyncReport, row: FileRow, counted: set[str], now: str) -> None:
    """An entry the text pass counted as skipped (it had no text but OCR's to come) is counted as `now`."""
    if row.path in counted and row.status != "indexed":  # a PDF's text layer was counted already as what it is
        counted.discard(row.path)
        rep.skipped -= 1
        rep.ocr_pending -= 1  # no longer waiting
        setattr(rep, now, getattr(rep, now) + 1)


def _gone(row: FileRow) -> bool:
    """Whether the file of `row` (a member's: its container) is no longer there."""
    return not os.path.lexists(split_member(row.path)[0])


def _forget(store: Store, row: FileRow, index: IndexWriter, rep: SyncReport, counted: set[str]) -> None:
    """An entry whose file was deleted since the text pass, removed as a sync removes a deleted file (counted
    removed, no longer skipped as waiting)."""
    delete_entries(store, index, [row], rep)
    if row.path in counted:
        counted.discard(row.path)
        rep.skipped -= 1
        rep.ocr_pending -= 1


def _unchanged(row: FileRow) -> bool:
    container, member = split_member(row.path)
    try:
        st = os.stat(container)
    except OSError:
        return False
    mtime = clamped_ns(st.st_mtime_ns)  # as the scan and the store keep it
    if member is not None:  # a member's row holds its own size and its container's mtime
        return mtime == row.mtime_ns
    # An edit with its mtime put back moves the ctime (decision 0150): OCR of those bytes cached under the old
    # bytes' hash would give a later copy of the old bytes the new text.
    moved = bool(row.ctime_ns) and CTIME_IS_CHANGE and st.st_ctime_ns != row.ctime_ns
    return (st.st_size, mtime) == (row.size, row.mtime_ns) and not moved


def _is_failure(cached: Document) -> bool:
    return not cached.text and not cached.pages and len(cached.notes) == 2 and cached.notes[0].startswith(FAILED_WITH)


def _same_engine(cached: Document, engine: Optional[OcrEngine]) -> bool:
    """Whether OCR would run with the engine a cached failure (_is_failure) was met with (the same name,
    versions and device; `engine` when built, else the one that would be). Outside a reindex only (which tries
    every file again): the caller asks."""
    name = engine.name if engine is not None else engine_name()
    return name is not None and cached.notes[0] == FAILED_WITH + _engine_key(name, engine)


def _names_a_device(cached: Document) -> bool:
    return " on " in cached.notes[0][len(FAILED_WITH):]


def _engine_key(name: str, engine: Optional[OcrEngine]) -> str:
    """'rapidocr3 (rapidocr 3.4.0, onnxruntime 1.22.0) on cpu': what a cached failure was met with. The device
    is named when `engine` is built and knows it (RapidOCR 3: cuda or cpu)."""
    version = engine_version(name)
    device = getattr(engine, "device", None) if engine is not None else None
    return name + (f" ({version})" if version else "") + (f" on {device}" if isinstance(device, str) else "")


def _is_pdf(row: FileRow, path: Path) -> bool:
    return row.kind == "pdf" or path.suffix.lower() == ".pdf"


def _reindexing(store: Store) -> bool:
    """A reindex under way: the desktop's (sync/meta_keys.py), or a shared library's of this machine's folders
    (a PgStore has a `machine`; store/postgres/pg_reread.py, imported only then: it is psycopg's side)."""
    if store.get_meta(REINDEX_META):
        return True
    if getattr(store, "machine", None) is None:
        return False
    from ...store.postgres.pg_reread import under_way

    return under_way(store) is not None  # type: ignore[arg-type]  # a PgStore, seen as a Store


def _ocr_text(path: Path, row: FileRow, cached: Optional[Document], cache: OcrCache, engine: Optional[OcrEngine],
              config: Config, cancel: Optional[CancelToken]) -> tuple[Document, Optional[tuple[int, ...]], bool]:
    """(the entry's OCR text (`cached` when these bytes were read before, a failure too), merged with a PDF's
    text layer; the PDF pages whose text came from OCR, None for an image; False when OCR failed and this is
    the PDF's text layer alone). A PDF is parsed once: its text layer says which pages need OCR, and is kept
    when OCR fails (see the module doc)."""
    text = None
    pages = None
    if _is_pdf(row, path):
        text = extract(path, max_bytes=int(config.scan.max_file_mb * 2**20), max_chars=config.scan.max_text_chars,
                       cancel=cancel)
        pages = pages_needing_ocr(text, len(text.pages))
    try:
        doc = cached if cached is not None else _recognised(path, row, pages, cache, engine, cancel)
        if _is_failure(doc):
            raise OcrFailed(doc.notes[1])
    except OcrFailed as exc:
        if text is None or not text.text.strip():
            raise
        return _text_layer(text, pages or (), str(exc)), (), False
    except ExtractionError as exc:
        if text is None or not text.text.strip():
            raise
        raise _OcrLater(str(exc)) from None
    if text is None:
        return doc, None, True
    return merge_ocr(text, doc), recognised_pages(doc), True


def _recognised(path: Path, row: FileRow, pages: Optional[Sequence[int]], cache: OcrCache,
                engine: Optional[OcrEngine], cancel: Optional[CancelToken]) -> Document:
    """`ocr_document` of the file, cached by its bytes; a failure known to repeat is cached too (_is_failure)."""
    name = getattr(engine, "name", "")
    try:
        doc = ocr_document(path, pages=pages, cancel=cancel, engine=engine)
    except OcrFailed as exc:  # it would fail the same way on these bytes: remembered as their result
        if row.sha256:
            key = FAILED_WITH + _engine_key(name, engine)
            cache.put(row.sha256, name, Document("", kind="ocr", notes=(key, one_line(str(exc)))))
        raise
    except ExtractionError as exc:  # "file too large for OCR" as it is; "cannot read file" says where
        raise ExtractionError(str(exc) if "OCR" in str(exc) else f"OCR: {exc}") from None
    if row.sha256:
        cache.put(row.sha256, name, doc)
    return doc


def _text_layer(text: Document, pages: Sequence[int], reason: str) -> Document:
    """A PDF's own text, with a note naming the pages OCR could not read and why."""
    named = ", ".join(str(n) for n in pages[:MAX_PAGES_NAMED])
    more = f" and {len(pages) - MAX_PAGES_NAMED} more" if len(pages) > MAX_PAGES_NAMED else ""
    note = f"page{'s' if len(pages) > 1 else ''} {named}{more} not OCR'd: {one_line(reason)}"
    return Document(text.text, text.pages, kind=text.kind, notes=(*text.notes, note), title=text.title)


def _index(store: Store, root: RootRow, config: Config, encoder: PassageEncoder, index: IndexWriter, rep: SyncReport,
           progress: Optional[ProgressFn], cancel: Optional[CancelToken], row: FileRow, doc: Document,
           pages: Optional[tuple[int, ...]]) -> bool:
    """The file's passages from `doc`, through the sync's batcher (one batch: committed, then the index).
    `pages`: the PDF pages OCR gave text for; with none (a blank page looked at) the entry is an ordinary
    indexed PDF, its text all from its text layer, and nothing of it is labelled OCR. False when OCR found no
    text either."""
    batcher = Batcher(store, root, index, rep, progress, cancel, BATCH_CHUNKS, BATCH_FILES)
    title, spans, hashes = passages_of(doc, encoder, config, batcher)
    if not spans:
        _record(store, row, "skipped", "no text found", "done", index)
        return False
    f = ScannedFile(Path(row.path), row.size, row.mtime_ns, row.ctime_ns)
    # Committed with its words now; its vectors come from the meaning pass after this step (embed_pending).
    batcher.add(Pending(f, row.sha256, doc.kind or row.kind or "", spans, title, hashes, path=row.path,
                        ocr="done" if pages is None or pages else None, ocr_pages=pages, notes=doc.notes,
                        reader=reader_version(row.path)))  # read now, by this version's reader
    batcher.flush()  # counted by the text pass already (an image as skipped: see _recount)
    return True


def _record_failed(store: Store, row: FileRow, reason: str, index: IndexWriter, rep: SyncReport,
                   listed: bool = True) -> None:
    # Counted by the text pass already (scanned = added + ... + failed); an image's skip is moved by _recount.
    if listed:  # failing the same way again is no news (decision 0145)
        rep.problems.append((row.path, reason))
    _record(store, row, "failed", one_line(reason), None, index)


def _record(store: Store, row: FileRow, status: str, reason: str, ocr: Optional[str], index: IndexWriter) -> None:
    """The entry without passages, with its status and OCR state (its chunks_removed are not counted: the
    text pass counted this entry already)."""
    def write() -> None:
        file_id = store.upsert_file(row.root_id, row.path, row.size, row.mtime_ns, row.sha256, status, reason,
                                    row.kind, 0, ctime_ns=row.ctime_ns, reader=row.reader)
        set_ocr_state(store, file_id, ocr)

    rewrite_entry(store, index, row.id, write)


def ocr_step(store: Store, config: Config, encoder: PassageEncoder, index: IndexWriter, data_dir: Path,
             progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None,
             counted: Collection[str] = (), root_ids: Optional[Sequence[int]] = None,
             full: Sequence[int] = (), held: Collection[int] = ()) -> SyncReport:
    """`ocr_pending` with the library's cache (the sync's hook: one line in Updates.run_sync); `root_ids`, `full`,
    `held`: as there (a shared library's sync, library/shared_sync.py)."""
    if not config.scan.ocr or not (pending_ocr_files(store, 1, root_ids)
                                   or (full and ocr_done_before(store, _pdf_reader(), 1, full))):
        return SyncReport()
    cache = OcrCache(data_dir)
    try:
        return ocr_pending(store, config, encoder, index, cache, progress, cancel, counted, root_ids, full, held)
    finally:
        cache.close()
