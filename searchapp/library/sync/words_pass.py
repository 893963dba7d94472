"""Incremental sync of one root, phase 1 (words): scan, skip what is unchanged, re-chunk what changed and
commit its passages for lexical search (batches.py). Their vectors come in phase 2 (meaning_pass.py), which
Updates runs after every root's phase 1: a large folder is searchable by words long before it is embedded.
"""

from __future__ import annotations

import dataclasses
import os
from functools import partial
from pathlib import Path
from typing import Callable, Optional, Sequence

from ...base.member_paths import MEMBER_SEP, display_name
from ...base.config import Config
from ...base.errors import Cancelled, ExtractionError, UnsupportedFileError
from ...base.hashing import EMPTY_SHA256, file_sha256, file_sha256_and_bytes
from ...base.types import Document
from ...base.progress import CancelToken, Progress, ProgressFn, report
from ...ingest.extractors import extract, extractor_name, reader_version, takes_data
from ...ingest.extractors.members import container_suffix, hashed_with_bytes
from ...ingest.extractors.svg import KIND as SVG
from ...base.stored_names import disk_path, stored_name
from ...ingest.scan import ScanResult, ScannedFile, changed_in_place, scan
from ...ingest.generated import left_out_by_scan
from ...ingest.secrets import left_out_by_name
from ...store import FileRow, RootRow, Store
from ...store.ledger import EMPTY, set_ocr_state
from .batches import Batcher, Pending, rewrite_entry
from .file_boundary import file_failure
from .file_budget import FileBudget, too_long
from .meaning_beside import MeaningBeside
from .meta_keys import readers_recorded, record_met, record_readers
from .members import Found, index_container, may_be_container, members_by_container, left_out_changed
from .vanished import Moves, Vanished
from .newer_reader import newer_reader, newer_reader_of_any, ocrd_by_older
from .same_passages import SamePassages
from .ocr_waits import NO_TEXT, PENDING, WAITING, ocr_turned_on, pdf_waits_for_ocr, record_waiting, waits_for_ocr
from ...ingest.passages import passages_of
from .read_ahead import MIN_FILES, Read, ReadAhead, chunking_spec, cpu_sample, second_core_free, usable_cores
from .read_groups import MIN_GROUPED, ReadInGroups
from .roots import in_scope, outermost, root_missing
from .secret_entries import recheck_secrets
from .contract import SKIP_DIRS_NOTE, IndexWriter, PassageEncoder, SyncReport

__all__ = ["sync_root", "naming_folder", "passages_of", "BATCH_CHUNKS", "BATCH_FILES"]

# Read at each sync (tests lower them): passages, files per phase-1 commit; BATCH_CHUNKS is phase 2's batch too.
BATCH_CHUNKS = 256
BATCH_FILES = 64
KEPT_AT_ONCE = 256  # entries kept as they were whose rows change (a stat, a reader), written together


def _scoped_scan(store: Store, root: RootRow, paths: list[str], config: Config, progress: Optional[ProgressFn],
                 cancel: Optional[CancelToken]) -> tuple[ScanResult, dict[str, FileRow]]:
    """Scan only the changed paths (files, or folders with what is below them) and the rows they cover."""
    # A path inside another one in scope is already covered by the outer one's scan.
    # Paths and the root compared as stored (a watcher's paths are as on disk), scanned as on disk: decision 0179
    scope = outermost([stored_name(os.path.abspath(p)) for p in paths
                       if in_scope(root.path, stored_name(p), config.scan.skip_dirs, config.scan.exclude)])
    present = [Path(disk_path(p)) for p in scope if os.path.lexists(disk_path(p))]
    result = (scan(present, config.scan, progress=progress, cancel=cancel, within=Path(disk_path(root.path)),
                   leave_out=config.data_dir, indexed=_indexed(store))
              if present else ScanResult())
    existing: dict[str, FileRow] = {}
    for p in scope:
        existing.update(store.files_under(root.id, p))
    return result, existing


def sync_root(store: Store, root: RootRow, config: Config, encoder: PassageEncoder, index: IndexWriter,
              progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None,
              paths: Optional[list[str]] = None, beside: Optional[MeaningBeside] = None,
              vanished: Optional[Vanished] = None) -> SyncReport:
    """Bring one root up to date. With `paths` (absolute, e.g. from a file watcher) only those files and
    folders are looked at: nothing else of the root is scanned, and a path that no longer exists is purged.
    `beside`: where each batch's waiting passages are embedded while this goes on (meaning_beside.py).
    `vanished`: a sync of several roots collects their deleted entries there and purges them once all are read
    (Vanished.purge, counted in its own report); without it they are purged, and counted, here."""
    rep = SyncReport()
    gone = root_missing(store, root)
    if gone is not None:  # keep everything: an unplugged drive or a renamed folder must not empty the index
        rep.missing_roots.append((root.path, gone))
        return rep
    if paths is None:  # a library written before decision 0177: the entries that may hold a secret, read again
        recheck_secrets(store)
    before_scan = cpu_sample()  # whether a core is free beside this sync is seen while it scans
    result, existing = _scan(store, root, config, paths, progress, cancel)
    # Every entry met is counted once: scanned = added + updated + unchanged + skipped + failed.
    rep.scanned = len(result.files) + len(result.skipped)
    # and the files met that are never opened, counted apart (decision 0180)
    rep.not_documents, rep.not_document_types = sum(result.not_documents.values()), dict(result.not_documents)
    rep.left_out_by_rules, rep.folders_left_out = dict(result.left_out_by_rules), dict(result.folders_left_out)
    if paths is None and not existing and result.skipped_dirs:  # a folder's first sync: what it leaves out, said
        rep.notes.append(skip_dirs_note(result.skipped_dirs))
    own = vanished is None
    vanished = Vanished(store, index) if vanished is None else vanished
    run = _Sync(store, root, config, encoder, index, progress, cancel, beside, rep, existing, vanished.moves)
    run.record_skipped(result)
    run.read_all(result.files, before_scan)
    vanished.found([row for p, row in existing.items() if p not in run.seen])
    if own:  # no OCR step of this sync follows: nothing is held for it
        vanished.purge(rep)
        vanished.settle(rep)
    store.touch_root(root.id)
    if paths is None:  # every file of the folder was met: it is read with this version's readers now
        record_readers(store, root.id)
        record_met(store, root.id, result)
    return rep


def skip_dirs_note(skipped: dict[str, int]) -> str:
    """A first sync's word on the folders `[scan] skip_dirs` left out (`build`: 2): a newcomer's `Docs/House/build`
    held a permit, left out without a word until `explain` was asked."""
    named = ", ".join(f"{name} ({n})" if n > 1 else name for name, n in sorted(skipped.items()))
    return (f"{SKIP_DIRS_NOTE}: {named}; one of yours among them? take its name out of skip_dirs in config.toml")


def _scan(store: Store, root: RootRow, config: Config, paths: Optional[list[str]], progress: Optional[ProgressFn],
          cancel: Optional[CancelToken]) -> tuple[ScanResult, dict[str, FileRow]]:
    """What is on disk now (the whole root, or only `paths`) and the rows stored for it."""
    if paths is None:
        result = scan([Path(disk_path(root.path))], config.scan, progress=progress, cancel=cancel,
                      leave_out=config.data_dir, indexed=_indexed(store))
        return result, store.files_of_root(root.id)
    return _scoped_scan(store, root, paths, config, progress, cancel)


def _indexed(store: Store) -> list[str]:
    """The library's folders as on disk: a link to what one of them indexes at its own path is not followed by any
    scan, full or scoped (ingest/scan.py, decision 0192)."""
    return [disk_path(r.path) for r in store.roots()]


class _Sync:
    """What the steps of one root's phase 1 share: the rows stored before it (`existing`, their `members` by
    container), the paths met (`seen`: whatever is not met is purged at the end), the batcher, the read-ahead."""

    def __init__(self, store: Store, root: RootRow, config: Config, encoder: PassageEncoder, index: IndexWriter,
                 progress: Optional[ProgressFn], cancel: Optional[CancelToken], beside: Optional[MeaningBeside],
                 rep: SyncReport, existing: dict[str, FileRow], moves: Moves) -> None:
        self.store, self.root, self.config, self.encoder, self.index = store, root, config, encoder, index
        self.progress, self.cancel, self.rep, self.existing = progress, cancel, rep, existing
        self.members = members_by_container(existing)
        self.seen: set[str] = set()
        self.moves = moves  # the bytes of the entries this sync adds: a vanished one's twin among them is a move
        self.batcher = Batcher(store, root, index, rep, progress, cancel, BATCH_CHUNKS, BATCH_FILES, beside,
                               self.store_failed, on_waiting=getattr(encoder, "passages_waiting", None))
        self.max_bytes = int(config.scan.max_file_mb * 2**20)
        self.ahead: Optional[ReadAhead | ReadInGroups] = None
        self.slot: dict[int, int] = {}
        self.said = 0  # the last file whose reading the progress told (a group read tells each as it reads it)
        # (file id, size, mtime, ctime) of entries kept as they were whose stat is new: written a few hundred at a
        # time (`write_kept`), and when a cancel stops the sync
        self.touched: list[tuple[int, int, int, Optional[int]]] = []
        self.same: Optional[SamePassages] = None  # read_all's: the entries read again that keep their passages
        self.sha_read: Optional[str] = None  # the sha256 of the file read_file is reading, once it is known
        # this version's readers have not read the whole folder yet: an OCR'd PDF is read for its files (ocrd_by_older)
        self.newer_readers = not readers_recorded(store, root.id)

    def problem(self, old: Optional[FileRow], path: str, status: str, reason: str, f: Optional[ScannedFile] = None,
                real: Optional[str] = None, sha: Optional[str] = None, listed: bool = True) -> None:
        _record_problem(self.store, self.root, old, path, status, reason, self.index, self.rep, f, real, sha, listed)
        if old is None:  # a new entry: a deleted one left out the same way with these bytes is it, moved
            self.moves.add_not_indexed(sha, status, reason, path)

    def record_skipped(self, result: ScanResult) -> None:
        """Files skipped by policy (size, type, unreadable) are recorded so `status` can say why."""
        for sk in result.skipped:
            path = stored_name(sk.path)
            self.seen.add(path)
            if sk.status == "failed" and sk.reason.startswith("unreadable folder"):
                self.seen.update(self.store.files_under(self.root.id, path))  # not vanished: kept until readable
            self.problem(self.existing.get(path), path, sk.status, sk.reason, real=sk.path)

    def store_failed(self, item: Pending, reason: str) -> None:
        """A queued entry its batch could not store (the batch's other entries are stored one by one)."""
        path = item.path or stored_name(item.file.path)
        if self.existing.get(path) is None:  # counted by index_doc when queued: counted as failed instead
            self.rep.added -= 1
            self.moves.drop(item.sha256)
        else:
            self.rep.updated -= 1
        self.rep.members_written -= MEMBER_SEP in path
        self.problem(self.store.file_by_path(path), path, "failed", reason, item.file)

    def index_doc(self, path: str, old: Optional[FileRow], f: ScannedFile, sha: str, doc: Optional[Document],
                  date_ns: Optional[int] = None, ocr: Optional[str] = None, pre: Optional[Read] = None) -> None:
        """Chunk one extracted entry (a file, or a member of a container stored as `path`) and queue it;
        `pre`: the same passages, already made by the read-ahead worker (then `doc` is None). `date_ns`: the entry's
        own date, else its text's (a message file's Date), else none (its file's mtime is its date)."""
        if pre is not None:  # the worker reads no container, so no message file: none has a date of its own
            title, spans, hashes, kind, notes = pre.title, pre.spans, pre.hashes, pre.kind, pre.notes
        else:
            assert doc is not None  # handed the Document, or the worker's Read of it
            (title, spans, hashes), kind = passages_of(doc, self.encoder, self.config, self.batcher), doc.kind
            notes, date_ns = doc.notes, doc.date_ns if date_ns is None else date_ns
        if not spans:
            if ocr == PENDING:  # a scan without a text layer: its text comes from the OCR step
                self.wait_for_ocr(old, path, sha, added=False)
                return record_waiting(self.store, self.root, old, path, f, sha, kind, self.index, self.rep, date_ns)
            # A plain text of nothing but whitespace is empty, as a file of 0 bytes is (read_file); a document
            # of another format without text ("no text found") may be a scan, or a reader's miss; a drawing without
            # text (an SVG icon) is an image without words: not listed as a problem, as an OCR'd one is not (ocr/step.py)
            empty = kind == "text" and (doc is None or not doc.text.strip())
            self.problem(old, path, "skipped", EMPTY if empty else NO_TEXT, f, sha=sha, listed=kind != SVG)
            return
        assert hashes is not None  # passages_of (here or in the worker) gives hashes with its spans
        if old is not None and old.sha256 == sha and old.status == "indexed" and self.same is not None:
            # The same bytes, read again: by a newer reader, or a container for its members (decision 0152)
            newer = int(newer_reader(old))
            self.rep.reread += newer
            if self.same.same(old, ocr, kind, spans, hashes, notes, date_ns):
                self.rep.unchanged += 1
                self.touched.append((old.id, f.size, f.mtime_ns, f.ctime_ns))  # as an update would write it
                return
            if newer:
                self.rep.read_differently.append(path)
        if old is None:
            self.rep.added += 1
            self.moves.add(sha, path)
            if ocr == PENDING:  # its scanned pages' text comes from the OCR step
                self.wait_for_ocr(old, path, sha, added=True)
        else:
            self.rep.updated += 1
        self.rep.members_written += MEMBER_SEP in path
        self.batcher.add(Pending(f, sha, kind or extractor_name(path) or "", spans, title, hashes, path=path,
                                 date_ns=date_ns, ocr=ocr, notes=tuple(notes), reader=reader_version(path)))

    def vanished_now(self, path: str) -> None:
        self.seen.discard(path)  # vanished since the scan: purged at the end like any deleted file
        self.rep.scanned -= 1

    def read_all(self, files: list[ScannedFile], before_scan: Optional[tuple[float, float]]) -> None:
        """Each scanned file in turn: kept when unchanged, read otherwise; then the last batch is committed."""
        self.ahead, self.slot = _read_ahead(files, self.existing, self.members, self.config, self.encoder,
                                            self.batcher.cancel, before_scan, partial(self.reading, files),
                                            self.newer_readers)
        self.same = SamePassages(self.store, [old.id for f in files if (old := self.existing.get(stored_name(f.path)))
                                              is not None and old.status == "indexed"
                                              and (newer_reader(old) or self.members_to_read(stored_name(f.path)))])
        try:
            for i, f in enumerate(files, start=1):
                # a stop keeps every file read before it: one its group read already has is written, not dropped
                if self.ahead is None or i not in self.slot or not self.ahead.ready(self.slot[i]):
                    self.batcher.check_cancel()
                if len(self.touched) >= KEPT_AT_ONCE:
                    self.write_kept()
                path = stored_name(f.path)
                self.seen.add(path)
                old = self.existing.get(path)
                self.reading(files, i)
                if old is not None and not _needs_reading(old, f, self.config) and not self.members_to_read(path):
                    self.keep_unchanged(path, old, f)
                    continue
                self.sha_read = None
                try:
                    self.read_file(i, f, path, old)
                except Exception as exc:  # the per-file boundary (file_boundary.py): this file fails, the sync goes on
                    reason = file_failure(exc)
                    if reason is None:
                        raise
                    # Not counted yet: a file is counted as it is queued, and a queued one that cannot be stored is
                    # counted again by store_failed. A container's members are counted, and stored, as they go.
                    # Its bytes, when read: the same file renamed, failing the same way, is then one move.
                    self.problem(old, path, "failed", reason, f, sha=self.sha_read)
            self.batcher.check_cancel()  # a stop whose files in hand were the last ones: still a stop
            self.batcher.flush()
            self.write_kept()
        except Cancelled:
            self.write_kept()  # what was found unchanged is kept: the next sync does not read it again
            self.batcher.flush()  # and what was read and queued, however the cancel came (flush_and_stop's, mostly)
            raise
        finally:
            self.batcher.close()  # a batch still in flight (an error stopped the reading) ends before the sync does
            if self.ahead is not None:
                self.ahead.close()

    def reading(self, files: list[ScannedFile], i: int) -> None:
        """The progress told that the i-th of `files` is being read, once: by its group read (ReadInGroups, as it
        reads it) or by the loop."""
        if i > self.said:
            self.said = i
            report(self.progress, "extracting", i, len(files), display_name(stored_name(files[i - 1].path)))

    def write_kept(self) -> None:
        """The rows of the entries kept as they were, so far: their new stats, and the readers of those read again."""
        if self.touched:
            self.store.set_file_stats(self.touched)
            self.touched = []
        if self.same is not None:
            self.same.write()

    def wait_for_ocr(self, old: Optional[FileRow], path: str, sha: str, *, added: bool) -> None:
        """A new entry whose text (or its scanned pages') the OCR step gives: a deleted entry of the same bytes (a
        scan renamed) is kept until then, its passages' meaning reused (Vanished)."""
        if old is None:
            self.moves.wait(sha, path, added=added)

    def members_to_read(self, path: str) -> bool:
        return _members_to_read(self.existing, self.members, path, self.config, self.newer_readers) or left_out_changed(
            self.members.get(path, []), self.existing, self.config)

    def keep_unchanged(self, path: str, old: FileRow, f: ScannedFile, *, touched: bool = False) -> None:
        """A file not changed since the last sync (same size, mtime and ctime, or the same bytes): counted. A row
        that has no ctime yet (stored before decision 0150) gets this one, so the next sync compares it too."""
        self.keep_members(path)
        self.keep_own(path, old, f, touched=touched)

    def keep_own(self, path: str, old: FileRow, f: ScannedFile, *, touched: bool = False) -> None:
        """keep_unchanged of the file's own entry alone (a container whose members were read: Found.members_only)."""
        if touched or (old.ctime_ns is None and f.ctime_ns is not None):
            self.touched.append((old.id, f.size, f.mtime_ns, f.ctime_ns))
        if old.status == "indexed":
            self.rep.unchanged += 1
        else:
            self.kept_skip(path, old)

    def keep_members(self, path: str) -> None:
        """An unchanged container keeps its members, each counted as met: `scanned` was 448, then 425, then 409
        for the same unchanged folder, as only the syncs that read a container counted its members."""
        kept = self.members.get(path, ())
        self.seen.update(kept)
        for member in kept:
            row = self.existing.get(member)
            self.rep.scanned += 1
            self.rep.members += 1
            if row is not None and row.status == "indexed":
                self.rep.unchanged += 1
            else:
                self.kept_skip(member, row)

    def kept_skip(self, path: str, row: Optional[FileRow]) -> None:
        """An entry skipped before and not changed since: counted, not listed again. One still waiting for OCR
        (an image, also one in an unchanged archive) is said as waiting, and this sync's OCR step may count it
        added."""
        self.rep.skipped += 1
        # an empty file (or one left out by a rule) kept as it was is still no problem: the window's summary said
        # "3 not indexed" at every re-sync beside its "Not indexed: 2" (_record_problem counts it so when read)
        self.rep.quiet += row is not None and (row.status == "excluded" or row.error == EMPTY)
        if row is not None and row.error == WAITING:
            self.rep.waiting.append(path)
            self.rep.ocr_pending += 1

    def read_file(self, i: int, f: ScannedFile, path: str, old: Optional[FileRow]) -> None:
        """Read, extract, chunk and queue one file; what it cannot do is recorded for it."""
        pre = self.ahead.get(self.slot[i]) if self.ahead is not None and i in self.slot else None
        if f.size == 0:  # of any format: nothing to read, nothing failed (a 0-byte .pdf is no broken PDF)
            return self.problem(old, path, "skipped", EMPTY, f, sha=EMPTY_SHA256)
        if pre is None and self.ahead is not None:
            self.batcher.check_cancel()  # the wait for the worker ended on a cancel: stop before reading it here
        if pre is not None and pre.failed is not None:  # it failed in the worker: not read a second time
            if not os.path.lexists(f.path):
                return self.vanished_now(path)
            self.sha_read = pre.sha or None
            raise ExtractionError(pre.failed)  # recorded by the boundary around this function
        try:  # a file extracted from memory, or a document told by its bytes, is read once for its hash and that
            sha, data = ((pre.sha, None) if pre is not None else
                         file_sha256_and_bytes(f.path, self.max_bytes) if hashed_with_bytes(f.path) else
                         (file_sha256(f.path), None))
        except FileNotFoundError:
            return self.vanished_now(path)
        except UnsupportedFileError as exc:  # replaced by a FIFO or device since the scan
            return self.problem(old, path, "skipped", str(exc))
        except OSError as exc:
            return self.problem(old, path, "failed", f"cannot read: {exc.strerror or exc}")
        self.sha_read = sha
        same = old is not None and old.sha256 == sha and old.status != "failed"
        if (same and old is not None and not newer_reader(old) and not self.members_to_read(path)
                and not ocr_turned_on(old, self.config)):
            # Touched, not changed (a chmod, a ctime to check again): kept as it is, however it was left. A
            # skipped file is not extracted again, nor an image without text sent back to OCR.
            self.keep_unchanged(path, old, f, touched=True)
            return
        if waits_for_ocr(f.path, self.config):  # an image: read by the OCR step after the text of every file
            self.wait_for_ocr(old, path, sha, added=False)
            return record_waiting(self.store, self.root, old, path, f, sha, "image", self.index, self.rep)
        # archives, mailboxes, mail with attachments, documents holding files: each member an entry (a file without
        # a suffix, and a document, told by the bytes read for its hash, not opened again)
        suffix = container_suffix(f.path, data)
        ocrd = same and old is not None and old.ocr == "done"  # its own text is the OCR step's to read again
        if suffix:
            return self.read_container(f, path, sha, Found(suffix, data, members_only=ocrd))
        if ocrd and old is not None:  # read for files it might hold (members_to_read): it holds none
            return self.keep_unchanged(path, old, f, touched=True)
        data = data if takes_data(f.path) else None  # a document's bytes said it holds no files: its reader opens it
        if pre is not None and pre.spans is not None:  # read, extracted and chunked by the worker
            return self.index_doc(path, old, f, sha, None, ocr=pre.ocr, pre=pre)
        self.extract_and_queue(f, path, old, sha, data)

    def read_container(self, f: ScannedFile, path: str, sha: str, found: Found) -> None:
        def problem(p: str, o: Optional[FileRow], st: str, why: str, sf: Optional[ScannedFile]) -> None:
            if found.members_only and p == path:  # its files unread: its own entry, OCR'd, stays (counted below)
                self.rep.problems.append((p, why))
                return
            self.problem(o, p, st, why, sf)

        try:
            self.seen.update(index_container(f, path, self.existing, sha, self.config, self.cancel, self.rep,
                                             self.index_doc, problem, self.batcher.check_cancel, found=found))
        except Cancelled:
            self.batcher.flush_and_stop()
        old = self.existing.get(path)
        if found.members_only and old is not None:  # its own entry as it was, counted so
            self.keep_own(path, old, f, touched=True)

    def extract_and_queue(self, f: ScannedFile, path: str, old: Optional[FileRow], sha: str, data: Optional[bytes]
                          ) -> None:
        budget = FileBudget(self.cancel, self.config.scan.file_budget_s)  # stops the extractor at its next check
        try:
            doc = extract(f.path, max_bytes=self.max_bytes, max_chars=self.config.scan.max_text_chars, cancel=budget,
                          data=data)
        except Cancelled:  # inside one file's extraction
            if budget.expired:
                raise ExtractionError(too_long(budget.seconds)) from None  # recorded by the boundary
            self.batcher.flush_and_stop()
        except FileNotFoundError:
            return self.vanished_now(path)
        except UnsupportedFileError as exc:  # its status: skipped, or excluded for a secret's text (decision 0177)
            return self.problem(old, path, exc.status, str(exc), f, sha=sha)
        except ExtractionError:
            if not os.path.lexists(f.path):  # extract() reports a vanished file as unreadable: it is just gone
                return self.vanished_now(path)
            raise  # recorded by the boundary around this function
        self.index_doc(path, old, f, sha, doc, ocr=pdf_waits_for_ocr(doc, self.config))


def _read_ahead(files: list[ScannedFile], existing: dict[str, FileRow], members: dict[str, list[str]], config: Config,
                encoder: PassageEncoder, cancel: Optional[CancelToken], before_scan: Optional[tuple[float, float]],
                began: Optional[Callable[[int], None]] = None, newer_readers: bool = True
                ) -> tuple[Optional[ReadAhead | ReadInGroups], dict[int, int]]:
    """A worker reading ahead the files this sync will read and chunk itself otherwise (not the unchanged ones,
    containers, files without a known suffix (their bytes may say mbox) or images waiting for OCR, which stay
    in-process); where it would not pay (read_ahead.py: fewer than MIN_FILES such files, one core or none free, an
    encoder that cannot describe its chunking) the same reading in this process, a group of files at a time
    (read_groups.py); (None, {}) for fewer than MIN_GROUPED files."""
    slot: dict[int, int] = {}  # the loop's file number -> its place in the worker's list
    paths: list[str] = []
    old_shas: list[Optional[str]] = []
    sizes: list[int] = []
    for i, f in enumerate(files, start=1):
        old = existing.get(stored_name(f.path))
        for_members = _members_to_read(existing, members, stored_name(f.path), config, newer_readers)
        if old is not None and not _needs_reading(old, f, config) and not for_members:
            continue
        # a README may be an mbox: told in-process; a container read again for its members is read there too
        if waits_for_ocr(f.path, config) or may_be_container(f.path) or for_members:
            continue
        slot[i] = len(paths)
        paths.append(os.fspath(f.path))
        # the worker skips a file whose bytes are the stored ones: not one to read again with a newer reader
        old_shas.append(old.sha256 if old is not None and old.status == "indexed" and not newer_reader(old)
                        and not ocr_turned_on(old, config) else None)
        sizes.append(f.size)
    if os.environ.get("SEARCHAPP_NO_READ_AHEAD") or len(paths) < MIN_GROUPED:
        return None, {}
    spec = chunking_spec(encoder) if len(paths) >= MIN_FILES and usable_cores() >= 2 else None
    if spec is not None and second_core_free(before_scan):
        ahead = ReadAhead(paths, old_shas, config, spec, cancel)
        if ahead.alive:
            return ahead, slot
    numbers = sorted(slot, key=slot.__getitem__)  # the place in the worker's list -> the file's number
    return ReadInGroups(paths, old_shas, sizes, config, encoder, cancel,
                        None if began is None else lambda k: began(numbers[k])), slot


def _record_problem(store: Store, root: RootRow, old: Optional[FileRow], path: str, status: str, reason: str,
                    index: IndexWriter, rep: SyncReport, f: Optional[ScannedFile] = None,
                    real: Optional[str] = None, sha: Optional[str] = None, listed: bool = True) -> None:
    """Record a file skipped or failed, with the `sha` of the bytes that were read (a skipped file's: the next
    sync that finds the same bytes keeps it as it is instead of extracting it again). Not `listed`: an image without
    words, newly not indexed all the same (`no_words`: named after the problems, which a person may mend)."""
    if status == "failed":
        rep.failed += 1
    else:
        rep.skipped += 1
        rep.quiet += status == "excluded" or reason == EMPTY
    already = old is not None and old.status == status and old.error == reason and old.n_chunks == 0 and (
        f is None or (old.size, old.mtime_ns) == (f.size, f.mtime_ns))
    # a failed entry is read again anyway; a skipped or excluded one, once a newer reader may read it otherwise
    reader = None if status == "failed" else reader_version(path)
    # Already recorded, and listed by the sync that first met it: a failed file is tried again each sync (a
    # permission may be mended without a new date), but failing the same way again is no news (decision 0145).
    if not already:  # written below (an empty entry too: an indexed one emptied must lose its passages)
        if status == "excluded":
            rep.left_out.append((path, reason))
        elif (listed and reason != EMPTY and old is not None and old.status in ("skipped", "failed")
              and (old.status, old.error) != (status, reason)):  # not indexed before either: no file lost, a new why
            rep.reason_changed.append((path, status, reason))
        elif reason != EMPTY:  # an empty file is no problem to list: it has nothing to find
            (rep.problems if listed else rep.no_words).append((path, reason))
    elif old is not None and sha in (None, old.sha256) and (reader is None or (old.reader or 0) >= reader):
        if f is not None and f.ctime_ns != old.ctime_ns:  # else a file to check again would be, every sync
            store.set_file_stat(old.id, f.size, f.mtime_ns, f.ctime_ns)
        return
    size, mtime = (f.size, f.mtime_ns) if f is not None else _stat(real or path)
    old_id = old.id if old is not None else None

    def write() -> None:
        file_id = store.upsert_file(root.id, path, size, mtime, sha, status, reason,
                                    extractor_name(Path(path)), 0, ctime_ns=f.ctime_ns if f is not None else None,
                                    reader=reader)
        # Not waiting for OCR any more (an image that grew too large, became unreadable): it stayed "ocr_pending"
        # in the ledger's counts and `status --files`, and the OCR step read it again, while `status` said skipped.
        set_ocr_state(store, file_id, None)

    rep.chunks_removed += rewrite_entry(store, index, old_id, write)


def _needs_reading(old: Optional[FileRow], f: ScannedFile, config: Config) -> bool:
    """New, changed since the last sync, or failed then (a failure may be gone without a new mtime,
    e.g. after chmod): the file is read again. Unchanged skipped files are not. One left out for its name that the
    scan lists now is read: `[scan] secret_files` no longer names it (nor `lockfiles`, nor is it over `max_json_mb`);
    so is a scan read while OCR was off, now that it is on (ocr_turned_on)."""
    return (old is None or (old.size, old.mtime_ns) != (f.size, f.mtime_ns) or old.status == "failed"
            or changed_in_place(old.ctime_ns, f.ctime_ns) or newer_reader(old) or left_out_by_name(old.error)
            or left_out_by_scan(old.error) or ocr_turned_on(old, config))


def _members_to_read(existing: dict[str, FileRow], members: dict[str, list[str]], path: str, config: Config,
                     newer_readers: bool) -> bool:
    """Whether a container is read again for its members (failed ones, ones an older reader read, or scans read
    while OCR was off, now that it is on), or a document whose text came from OCR is read for files its older reader
    did not look for (newer_reader.ocrd_by_older), until this version's readers have read the whole folder
    (`newer_readers`): one holding none keeps its older reader where the OCR step does not read it again (OCR
    off, its text not cached), and was hashed whole at every sync, for ever."""
    rows = [existing[k] for k in members.get(path, ())]
    old = existing.get(path)
    return (_member_failed(rows) or newer_reader_of_any(rows) or any(ocr_turned_on(r, config) for r in rows)
            or (newer_readers and not rows and old is not None and ocrd_by_older(old)))


def _member_failed(rows: Sequence[FileRow]) -> bool:
    """A member that failed is read again like a failed file: it may have been swapped inside its container with
    the container's size and mtime kept (the OCR step then finds other bytes than those indexed); the
    container's sha256 tells whether anything changed."""
    return any(r.status == "failed" for r in rows)


def _stat(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
        return st.st_size, st.st_mtime_ns
    except OSError:
        return 0, 0


def naming_folder(progress: Optional[ProgressFn], root: str, nth: int, of: int) -> Optional[ProgressFn]:
    """`progress` with each scanning and reading report naming the folder it is about ("Pictures, 2 of 4"): one
    sync of several folders scans and reads them in turn, and four bars that read alike said nothing of which."""
    if progress is None or of == 1:  # one folder: its bars need no name
        return progress
    told: ProgressFn = progress
    name = f"{os.path.basename(root.rstrip(os.sep)) or root}, {nth} of {of}"

    def tell(p: Progress) -> None:
        told(dataclasses.replace(p, folder=name) if p.stage in ("scanning", "extracting") else p)

    return tell

