"""Incremental sync of one root, phase 1 (words): scan, skip what is unchanged, re-chunk what changed and
commit its passages for lexical search (batches.py). Their vectors come in phase 2 (meaning_pass.py), which
Updates runs after every root's phase 1: a large folder is searchable by words long before it is embedded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ...base.config import Config
from ...base.errors import Cancelled, ExtractionError, UnsupportedFileError
from ...base.hashing import file_sha256, file_sha256_and_bytes
from ...base.progress import CancelToken, ProgressFn, report
from ...ingest.extractors import extract, extractor_name, takes_data
from ...ingest.fsnames import storable
from ...ingest.scan import ScanResult, ScannedFile, scan
from ...store import RootRow, Store
from .batches import Batcher, Pending, rewrite_entry
from .file_boundary import file_failure
from .file_budget import FileBudget, too_long
from .meaning_beside import MeaningBeside
from ..members.sync import index_container, is_container, members_by_container
from ..ocr.text_pass import WAITING, pdf_waits_for_ocr, record_waiting, waits_for_ocr
from .passages import passages_of
from .read_ahead import MIN_FILES, Read, ReadAhead, chunking_spec, cpu_sample, second_core_free, usable_cores
from .read_groups import MIN_GROUPED, ReadInGroups
from .roots import in_scope, outermost, root_missing
from .types import IndexWriter, PassageEncoder, SyncReport

__all__ = ["sync_root", "passages_of", "BATCH_CHUNKS", "BATCH_FILES"]

# Read at each sync (tests lower them): passages, files per phase-1 commit; BATCH_CHUNKS is phase 2's batch too.
BATCH_CHUNKS = 256
BATCH_FILES = 64


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
              paths: Optional[list[str]] = None, beside: Optional[MeaningBeside] = None) -> SyncReport:
    """Bring one root up to date. With `paths` (absolute, e.g. from a file watcher) only those files and
    folders are looked at: nothing else of the root is scanned, and a path that no longer exists is purged.
    `beside`: where each batch's waiting passages are embedded while this goes on (meaning_beside.py)."""
    rep = SyncReport()
    gone = root_missing(store, root)
    if gone is not None:  # keep everything: an unplugged drive or a renamed folder must not empty the index
        rep.missing_roots.append((root.path, gone))
        return rep
    before_scan = cpu_sample()  # whether a core is free beside this sync is seen while it scans
    if paths is None:
        result = scan([Path(root.path)], config.scan, progress=progress, cancel=cancel)
        existing = store.files_of_root(root.id)
    else:
        result, existing = _scoped_scan(store, root, paths, config, progress, cancel)
    members = members_by_container(existing)
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

    def store_failed(item: Pending, reason: str) -> None:
        """A queued entry its batch could not store (the batch's other entries are stored one by one)."""
        path = item.path or storable(item.file.path)
        if existing.get(path) is None:  # counted by index_doc when queued: counted as failed instead
            rep.added -= 1
        else:
            rep.updated -= 1
        _record_problem(store, root, store.file_by_path(path), path, "failed", reason, index, rep, item.file)

    batcher = Batcher(store, root, index, rep, progress, cancel, BATCH_CHUNKS, BATCH_FILES, beside, store_failed)

    def index_doc(path: str, old, f: ScannedFile, sha: str, doc, date_ns: Optional[int] = None,
                  ocr: Optional[str] = None, pre: Optional[Read] = None) -> None:
        """Chunk one extracted entry (a file, or a member of a container stored as `path`) and queue it;
        `pre`: the same passages, already made by the read-ahead worker (then `doc` is None)."""
        title, spans, hashes = (pre.title, pre.spans, pre.hashes) if pre is not None else passages_of(
            doc, encoder, config, batcher)
        kind = pre.kind if pre is not None else doc.kind
        if not spans:
            if ocr == "pending":  # a scan without a text layer: its text comes from the OCR step
                return record_waiting(store, root, old, path, f, sha, kind, index, rep, date_ns)
            _record_problem(store, root, old, path, "skipped", "no text found", index, rep, f)
            return
        assert hashes is not None  # passages_of (here or in the worker) gives hashes with its spans
        if old is None:
            rep.added += 1
        else:
            rep.updated += 1
        batcher.add(Pending(f, sha, kind or extractor_name(path) or "", spans, title, hashes, path=path,
                            date_ns=date_ns, ocr=ocr))
    total = len(result.files)
    max_bytes = int(config.scan.max_file_mb * 2**20)
    ahead, slot = _read_ahead(result.files, existing, members, config, encoder, batcher.cancel, before_scan)

    def vanished_now(path: str) -> None:
        seen.discard(path)  # vanished since the scan: purged below like any deleted file
        rep.scanned -= 1

    def read_file(i: int, f: ScannedFile, path: str, old) -> None:
        """Read, extract, chunk and queue one file; what it cannot do is recorded for it."""
        pre = ahead.get(slot[i]) if ahead is not None and i in slot else None
        if pre is None and ahead is not None:
            batcher.check_cancel()  # the wait for the worker ended on a cancel: stop before reading it here
        if pre is not None and pre.failed is not None:  # it failed in the worker: not read a second time
            if not os.path.lexists(f.path):
                return vanished_now(path)
            raise ExtractionError(pre.failed)  # recorded by the boundary around this function
        try:  # a file extracted from memory is read once, for its hash and its text
            sha, data = ((pre.sha, None) if pre is not None else
                         file_sha256_and_bytes(f.path, max_bytes) if takes_data(f.path) else
                         (file_sha256(f.path), None))
        except FileNotFoundError:
            return vanished_now(path)
        except UnsupportedFileError as exc:  # replaced by a FIFO or device since the scan
            return _record_problem(store, root, old, path, "skipped", str(exc), index, rep)
        except OSError as exc:
            return _record_problem(store, root, old, path, "failed", f"cannot read: {exc.strerror or exc}", index, rep)
        if old is not None and old.sha256 == sha and old.status == "indexed":
            store.set_file_stat(old.id, f.size, f.mtime_ns)  # touched, not changed
            seen.update(members.get(path, ()))
            rep.unchanged += 1
            return
        if waits_for_ocr(f.path, config):  # an image: read by the OCR step after the text of every file
            return record_waiting(store, root, old, path, f, sha, "image", index, rep)
        if is_container(f.path):  # archives, mailboxes, mail with attachments: each member an entry
            try:
                seen.update(index_container(f, path, existing, sha, config, cancel, rep, index_doc,
                                            lambda p, o, st, why, sf: _record_problem(store, root, o, p, st, why,
                                                                                     index, rep, sf),
                                            batcher.check_cancel))
            except Cancelled:
                batcher.flush_and_stop()
            return
        if pre is not None and pre.spans is not None:  # read, extracted and chunked by the worker
            return index_doc(path, old, f, sha, None, ocr=pre.ocr, pre=pre)
        budget = FileBudget(cancel, config.scan.file_budget_s)  # stops the extractor at its next check
        try:
            doc = extract(f.path, max_bytes=max_bytes, max_chars=config.scan.max_text_chars, cancel=budget, data=data)
        except Cancelled:  # inside one file's extraction
            if budget.expired:
                raise ExtractionError(too_long(budget.seconds)) from None  # recorded by the boundary
            batcher.flush_and_stop()
        except FileNotFoundError:
            return vanished_now(path)
        except UnsupportedFileError as exc:
            return _record_problem(store, root, old, path, "skipped", str(exc), index, rep, f)
        except ExtractionError:
            if not os.path.lexists(f.path):  # extract() reports a vanished file as unreadable: it is just gone
                return vanished_now(path)
            raise  # recorded by the boundary around this function
        index_doc(path, old, f, sha, doc, ocr=pdf_waits_for_ocr(doc, config))

    try:
        for i, f in enumerate(result.files, start=1):
            batcher.check_cancel()
            path = storable(f.path)
            seen.add(path)
            old = existing.get(path)
            report(progress, "extracting", i, total, os.path.basename(path))
            if old is not None and not _needs_reading(old, f) and not _member_failed(existing, members.get(path, ())):
                seen.update(members.get(path, ()))  # an unchanged container keeps its members
                if old.status == "indexed":
                    rep.unchanged += 1
                else:
                    rep.skipped += 1  # skipped before and not changed since: counted, not listed again
                    if old.error == WAITING:  # an image still waiting: this sync's OCR step may count it added
                        rep.waiting.append(path)
                continue
            try:
                read_file(i, f, path, old)
            except Exception as exc:  # the per-file boundary (file_boundary.py): this file fails, the sync goes on
                reason = file_failure(exc)
                if reason is None:
                    raise
                # Not counted yet: a file is counted as it is queued, and a queued one that cannot be stored is
                # counted again by store_failed. A container's members are counted, and stored, as they go.
                _record_problem(store, root, old, path, "failed", reason, index, rep, f)
        batcher.flush()
    finally:
        if ahead is not None:
            ahead.close()

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


def _read_ahead(files: list[ScannedFile], existing: dict, members: dict, config: Config, encoder, cancel,
                before_scan) -> tuple[Optional[ReadAhead | ReadInGroups], dict[int, int]]:
    """A worker reading ahead the files this sync will read and chunk itself otherwise (not the unchanged ones,
    containers or images waiting for OCR, which stay in-process); where it would not pay (read_ahead.py: fewer
    than MIN_FILES such files, one core or none free, an encoder that cannot describe its chunking) the same
    reading in this process, a group of files at a time (read_groups.py); (None, {}) for fewer than MIN_GROUPED
    files."""
    slot: dict[int, int] = {}  # the loop's file number -> its place in the worker's list
    paths: list[str] = []
    old_shas: list[Optional[str]] = []
    sizes: list[int] = []
    for i, f in enumerate(files, start=1):
        old = existing.get(storable(f.path))
        if old is not None and not _needs_reading(old, f) and not _member_failed(existing, members.get(storable(f.path), ())):
            continue
        if waits_for_ocr(f.path, config) or is_container(f.path):
            continue
        slot[i] = len(paths)
        paths.append(os.fspath(f.path))
        old_shas.append(old.sha256 if old is not None and old.status == "indexed" else None)
        sizes.append(f.size)
    if os.environ.get("SEARCHAPP_NO_READ_AHEAD") or len(paths) < MIN_GROUPED:
        return None, {}
    spec = chunking_spec(encoder) if len(paths) >= MIN_FILES and usable_cores() >= 2 else None
    if spec is not None and second_core_free(before_scan):
        ahead = ReadAhead(paths, old_shas, config, spec, encoder, cancel)
        if ahead.alive:
            return ahead, slot
    return ReadInGroups(paths, old_shas, sizes, config, encoder, cancel), slot


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
    old_id = old.id if old is not None else None
    rep.chunks_removed += rewrite_entry(store, index, old_id, lambda: store.upsert_file(
        root.id, path, size, mtime, None, status, reason, extractor_name(Path(path)), 0))


def _needs_reading(old, f: ScannedFile) -> bool:
    """New, changed since the last sync, or failed then (a failure may be gone without a new mtime,
    e.g. after chmod): the file is read again. Unchanged skipped files are not."""
    return old is None or (old.size, old.mtime_ns) != (f.size, f.mtime_ns) or old.status == "failed"


def _member_failed(existing: dict, keys) -> bool:
    """A member that failed is read again like a failed file: it may have been swapped inside its container with
    the container's size and mtime kept (the OCR step then finds other bytes than those indexed); the
    container's sha256 tells whether anything changed."""
    return any(existing[k].status == "failed" for k in keys)


def _stat(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
        return st.st_size, st.st_mtime_ns
    except OSError:
        return 0, 0
