"""A library's writes: adding, syncing, removing and reindexing roots, each batch committed to SQLite and then
to the vector index. Every method runs with the writer lock held (Library takes it and checks the model)."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from functools import partial
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from ...base.config import Config
from ...base.errors import Cancelled, StoreError
from ...base.member_paths import on_disk
from ...base.priority import lower_thread_priority
from ...base.stored_names import stored_name
from ...base.progress import CancelToken, ProgressFn, report
from ...store import RootRow, Store
from ...store.ledger import pending_ocr_files
from ...store.removed_roots import forget_removed, keep_removed, mark_kept, restore_removed
from ..resources.index_keeper import IndexKeeper
from ..resources.model_set import ModelSet
from ..resources.in_flight import SearchesInFlight, YieldingCancel
from .roots import (absorb_nested, in_scope, owning_root, paths_by_root, refuse_missing_roots, root_to_remove,
                    twin_roots)
from . import words_pass as sync_module
from ..resources.lock import Holder, WriterTurn
from .handover import Handover
from .meaning_beside import MeaningBeside
from .meaning_pass import embed_pending, meaning_progress
from .ocr_waits import read_from_cache
from .meaning_rate import RememberRate, aside_note
from .wanted import Wanted
from .meta_keys import REINDEX_META, record_passage_context
from .contract import OcrStep, PassageEncoder, SyncReport
from .slow_read import SlowRead
from .steps import Steps
from .unsaid import StopMark
from .vanished import Vanished
from .words_pass import naming_folder, sync_root

__all__ = ["Updates"]

log = logging.getLogger(__name__)

# What run_sync is handed: (root, None for a full scan or the changed paths under it), for each root to sync.
SyncWork = Sequence[tuple[RootRow, Optional[list[str]]]]


class Updates:
    def __init__(self, store: Store, config: Config, models: ModelSet, vectors: IndexKeeper, data_dir: Path,
                 searches: Optional[SearchesInFlight] = None, *, ocr_step: OcrStep) -> None:
        self.store, self.config, self.models, self.vectors, self.data_dir = store, config, models, vectors, data_dir
        self.ocr_step = ocr_step  # library/ocr/step.ocr_step, handed in: ocr/ is above sync/ (the façade joins them)
        self.searches = searches  # the searches a sync steps aside for (None: it never waits)
        self.wanted: Optional[Wanted] = None  # files the person looks at, embedded first (Library sets it)
        # vectors a search of this process embedded on the spot, written by the meaning pass (Library sets it)
        self.ready: Optional[Callable[[list[str]], dict[str, np.ndarray]]] = None
        self.turn: Optional[WriterTurn] = None  # the writer lock while Library holds it (handed over between batches)

    def add_folders(self, roots: list[str], progress: Optional[ProgressFn], cancel: Optional[CancelToken],
                    embed: bool = True) -> tuple[SyncReport, list[str]]:
        """Each of `roots` (absolute) added and synced, all in one sync, so a file moved from one of them to another
        is said once and keeps its meaning (vanished.py); with the roots it made new. One inside an indexed folder
        (or inside another of `roots`) is synced as part of it, never a root of its own (a second root would hide
        it from `remove` of its folder, and be re-embedded when removed on its own)."""
        self._merge_nested()
        before = {r.path for r in self.store.roots()}
        for root in roots:
            if owning_root(root, [r.path for r in self.store.roots()]) in (None, root):
                self.store.add_root(root)
                self.absorb_nested(self.store.root_by_path(root))
        rows = {r.path: r for r in self.store.roots()}
        work: dict[int, tuple[RootRow, Optional[list[str]]]] = {}
        notes: list[str] = []
        for root in roots:
            owner = owning_root(root, list(rows))
            assert owner is not None  # each of `roots` is a root now, or lies inside one
            row = rows[owner]
            if owner == root:
                work[row.id] = (row, None)
                continue
            changed = work.setdefault(row.id, (row, []))[1]
            if changed is not None:  # not read whole anyway
                changed.append(root)
            scan = self.config.scan
            notes.append(f"{root} is inside the indexed folder {owner}; synced as part of it"
                         if in_scope(owner, root, scan.skip_dirs, scan.exclude) else
                         f"{root} is inside the indexed folder {owner} but hidden, in scan.skip_dirs or in "
                         "scan.exclude there: not indexed")
        rep = self.run_sync(list(work.values()), progress, cancel, embed)
        rep.notes += notes + twin_roots(list(rows))
        return rep, [root for root in roots if root in rows and root not in before]

    def absorb_nested(self, outer: Optional[RootRow]) -> None:
        absorb_nested(self.store, outer, self.config.scan)

    def sync(self, paths: Optional[list[str]], progress: Optional[ProgressFn], cancel: Optional[CancelToken],
             embed: bool = True) -> SyncReport:
        self._merge_nested()
        roots = self.store.roots()
        twins = twin_roots([r.path for r in roots])  # added through a link before decision 0192: said at each sync
        if paths is not None:
            wanted = {stored_name(os.path.abspath(p)) for p in paths}
            roots = [r for r in roots if r.path in wanted]
        rep = self.run_sync([(r, None) for r in roots], progress, cancel, embed)
        rep.notes += twins
        return rep

    def _merge_nested(self) -> None:
        """Roots inside other roots made one (libraries made before roots merged)."""
        for outer in sorted(self.store.roots(), key=lambda r: len(r.path)):
            if self.store.root_by_path(outer.path) is not None:
                self.absorb_nested(outer)

    def sync_changed(self, changed: list[str], progress: Optional[ProgressFn], cancel: Optional[CancelToken],
                     embed: bool = True) -> SyncReport:
        return self.run_sync(paths_by_root(changed, self.store.roots()), progress, cancel, embed)

    def _ocr(self, work: SyncWork, encoder: PassageEncoder, progress: Optional[ProgressFn],
             cancel: Optional[CancelToken], total: SyncReport, vanished: Vanished) -> SyncReport:
        """The OCR step after the words (`total`: what they counted; `vanished`: the entries held for it, which
        its `settle` deletes after); the roots read in full also have their OCR'd PDFs an older reader read read
        again (ocr/step.py)."""
        return self.ocr_step(self.store, self.config, encoder, self.vectors, self.data_dir, progress, cancel,
                             counted=total.waiting, full=[root.id for root, paths in work if paths is None],
                             held=vanished.held())

    def _words(self, work: SyncWork, encoder: PassageEncoder, progress: Optional[ProgressFn],
               cancel: Optional[CancelToken], beside: Optional[MeaningBeside], total: SyncReport,
               vanished: Vanished) -> None:
        """Phase 1 of every root of `work`, counted in `total`. The files deleted go once every root is read (a file
        moved from one to another is found again by its bytes first: library/sync/vanished.py), but those a scan
        waiting for OCR may be a rename of, which go after the OCR step (`vanished.settle`); after a cancel or an
        error, those of the roots read by then, as if each had purged its own at its end."""
        try:
            for i, (root, paths) in enumerate(work, start=1):
                told = naming_folder(progress, root.path, i, len(work))
                total.merge(sync_root(self.store, root, self.config, encoder, self.vectors, told, cancel,
                                      paths=paths, beside=beside, vanished=vanished))
        finally:
            vanished.purge(total)

    def run_sync(self, work: SyncWork, progress: Optional[ProgressFn], cancel: Optional[CancelToken],
                 embed: bool = True) -> SyncReport:
        """Phase 1 (words) for every root of `work`, then, unless `embed` is False, phase 2 (meaning): every passage
        still without a vector is embedded, also ones an earlier interrupted or words-only sync left. A file read
        for long is named in `progress` while it is read (slow_read.py)."""
        with SlowRead(progress) as told:
            return self._run_sync(work, told, cancel, embed)

    def _run_sync(self, work: SyncWork, progress: Optional[ProgressFn], cancel: Optional[CancelToken],
                  embed: bool) -> SyncReport:
        total = SyncReport()
        handed, resumer = self._resumer(embed)
        embed = embed and resumer is None
        if not work and (not embed or not self.store.pending_count()):
            return total
        lower_thread_priority()  # background work: searches (this process's or another's) go first
        if self.searches is not None:  # and at each point it may stop, it waits while a search runs
            cancel = YieldingCancel(cancel, self.searches)
        steps = Steps(embed, ocr=False, ocr_may=self.config.scan.ocr)  # OCR waiting or not: asked once files are read
        progress, mark = self._marked(steps.watching(progress), handed is None)
        progress = rate = RememberRate(self.store, progress)  # this machine's embedding rate, for status and the window
        self.store.sync_mark = self.store.last_chunk_id()  # what this sync writes and deletes again is counted once
        try:
            self._record_model()
            had_passages = self.store.has_chunks()
            self.vectors.writable(lambda: self.models.identity()[1])
            # Chunking reads the tokenizer alone; the model loads for embedding, ahead of it once the words batches
            # leave passages waiting (none when every vector is found by hash: a moved folder).
            encoder = self.models.passage_encoder(load_ahead=embed, pending=self.store.pending_count)
            rate.aside = partial(aside_note, encoder)  # "slowed for other programs", in the strip and the CLI
            # On a GPU the meaning of each words batch is encoded while the words pass goes on.
            beside = MeaningBeside(self.store, encoder, self.vectors, cancel,
                                   sync_module.BATCH_CHUNKS) if embed else None
            vanished = Vanished(self.store, self.vectors)
            try:
                cancelled = False
                try:
                    self._words(work, encoder, progress, cancel, beside, total, vanished)
                    steps.read(self._ocr_waits())
                    if beside is not None:
                        beside.finish()
                except Cancelled:
                    cancelled = True
                    raise
                finally:
                    if beside is not None:
                        beside.close(keep_done=cancelled)  # a cancel keeps the meaning done so far too
                        total.chunks_embedded += beside.encoded
                record_passage_context(self.store, self.config, had_passages, total.chunks_pending)
                if embed and self.store.pending_count():
                    self.vectors.save()  # words are in: a crash in the long phase 2 keeps a current index
                    self.vectors.mark_current()
                    embedded, n = meaning_progress(self.store)
                    report(progress, "searchable", embedded, n, f"{n} passages searchable by words")
                    self._embed(total, encoder, progress, cancel,
                                self._ocr_from_cache() if resumer is None else ())
                # OCR after the words and the meaning of every other file (pages take seconds each); the text
                # it finds is committed like phase 1's and embedded by the pass after it.
                if resumer is None:  # the writer that handed over reads the scans after its meaning pass
                    total.merge(self._ocr(work, encoder, progress, cancel, total, vanished))
                vanished.settle(total)  # a scan renamed has its text from the OCR cache now, its meaning reused
                if embed and self.store.pending_count():
                    self._embed(total, encoder, progress, cancel)
                total.chunks_pending = self.store.pending_count()
                rate.save()  # a short pass's rate too (it saves every SAVE_EVERY_S while it runs)
                if resumer is not None and total.chunks_pending:
                    total.embedded_by = str(resumer)
                    total.notes.append(f"searchable by words now; their meaning joins the queue of {resumer}, which "
                                       "let this update in between its batches and embeds it")
                self.store.prune_shelf()  # the vectors shelved from git trees, within their caps (decision 0187)
                self.vectors.compact_if_needed()
            except Cancelled as exc:  # what the whole sync did by then, for the person who cancelled it
                if exc.report is not None and exc.report is not total:
                    total.merge(exc.report)
                total.chunks_pending = self.store.pending_count()
                exc.report = total
                self._save_after_stop(vanished, total, mark)
                raise
            except BaseException:
                self._save_after_stop(vanished, total, mark)
                raise
            self._finish(progress, mark, total)
        except sqlite3.OperationalError as exc:  # e.g. "database or disk is full" outside a batch transaction
            raise StoreError(f"library database write failed: {exc} (is the disk under {self.data_dir} full or "
                             "read-only?); everything committed before is kept") from exc
        finally:
            self.store.sync_mark = None
        return total

    def _finish(self, progress: Optional[ProgressFn], mark: Optional[StopMark], total: SyncReport) -> None:
        """The index saved with the store's generation; the mark taken away, `total` given what an earlier sync,
        stopped, left out and never said."""
        report(progress, "saving", 0, 1)
        self.vectors.save()
        self.vectors.mark_current()
        if mark is not None:
            mark.finished(total)
        report(progress, "saving", 1, 1)

    def _resumer(self, embed: bool) -> tuple[Optional[Holder], Optional[Holder]]:
        """(the writer that let this one in between its batches, if one did; the same where this sync leaves the
        meaning to it). Handed the lock by a writer that stepped aside in its meaning pass: only the words here,
        the meaning joins the queue it goes on with (decision 0105), so one new file never waits for a backlog."""
        handed = self.turn.resumer() if self.turn is not None else None
        resumer = handed if embed else None
        if resumer is not None and self._changes_meaning():
            resumer = None  # its vectors would no longer mean what its queue does (it stops, review of 0105): embed here
        return handed, resumer

    def _marked(self, progress: Optional[ProgressFn], own: bool) -> tuple[Optional[ProgressFn], Optional[StopMark]]:
        """A mark in the library until this sync has finished: one stopped before (Ctrl+C, a closed window, a kill)
        is said by the next (sync/unsaid.py). Not `own` (a writer let in between another's batches): that one's
        mark stands for both."""
        if not own:
            return progress, None
        mark = StopMark(self.store)
        mark.begin()
        return mark.watching(progress), mark

    def _ocr_waits(self) -> bool:
        """Whether files wait for the OCR step (a step of the sync's count: steps.py). A scan of the files table
        where none wait (there is no index on files.ocr): asked once a sync."""
        return self.config.scan.ocr and bool(pending_ocr_files(self.store, 1))

    def _embed(self, total: SyncReport, encoder: PassageEncoder, progress: Optional[ProgressFn],
               cancel: Optional[CancelToken], later: Sequence[int] = ()) -> None:
        """The meaning pass (every waiting passage but those of the files `later`), stepping aside between batches
        for a writer waiting its turn; counted into `total`: the texts encoded, and the waiting passages that took
        the vector of a copy of their text instead ("1258 embedded" after 1,288 were said to wait: a newcomer)."""
        waiting = self.store.pending_count()
        with Handover(self.turn, self.vectors, lambda: self.models.check_library(self.store), progress,
                      cancel) as handover:
            encoded = embed_pending(self.store, encoder, self.vectors, progress, cancel,
                                    batch=sync_module.BATCH_CHUNKS, between=handover.between, wanted=self.wanted,
                                    ready=self.ready, later=later)
        total.chunks_embedded += encoded
        # not the files `later` (the OCR step's, still waiting) nor passages another writer added in between
        total.chunks_reused += max(0, waiting - self.store.pending_count() - encoded)

    def _ocr_from_cache(self) -> list[int]:
        """The files the OCR step right after the meaning pass rewrites from its cache (ocr_waits.read_from_cache)."""
        return read_from_cache(self.store, self.config, self.data_dir)

    def _changes_meaning(self) -> bool:
        """Whether this sync records another model, pooling, chunking or prompt than the library's vectors had."""
        from ...models.identity import reindex_reasons

        stored = self.store.meta()
        return bool(stored.get("model")) and bool(reindex_reasons(stored, self.models.expected_meta()))

    def _save_after_stop(self, vanished: Vanished, total: SyncReport, mark: Optional[StopMark]) -> None:
        """On Cancelled or an error: the deleted entries held for the OCR step go, what was committed is saved
        with its generation, and the stop mark says how far the sync came. A second error meanwhile must not hide
        the first one. Neither when the lock was handed over and not taken back, nor taken back and the library not
        read again yet (a model changed meanwhile): the index file is another writer's, and the database has every
        batch (held entries: the next sync's; the mark: as its last report left it)."""
        if self.turn is not None and (not self.turn.held or self.turn.stale):
            return
        if mark is not None:
            mark.stopped()
        with contextlib.suppress(Exception):
            vanished.settle(total)
        try:
            self.vectors.save()
        except StoreError as exc:
            log.warning("%s", exc)

    def remove_folder(self, root: str, keep: bool = False) -> int:
        """`keep`: its rows stay in this connection's TEMP tables so `undo_remove` can put them back."""
        row = root_to_remove(self.store, root)
        n_files = on_disk(self.store.files_of_root(row.id))
        with self.store.atomic():
            if keep:
                keep_removed(self.store, row.id)
            else:
                forget_removed(self.store)  # an older Remove's rows: what it left is gone for good now
            ids = self.store.delete_root(row.id)
            generation = self.store.bump_generation()
            if keep:
                mark_kept(self.store, generation)
        index = self.vectors.index()
        if index is not None:
            index.remove(ids)
            if not keep:  # compacting would rebuild from stored vectors; an Undo adds them back instead
                self.vectors.compact_if_needed()
            self.vectors.save()
            self.vectors.mark_current()
        if not keep:
            self.store.vacuum_if_sparse()  # after the index save: a crash here loses nothing
        return n_files

    def undo_remove(self) -> Optional[tuple[str, int]]:
        """Put back the folder the last kept Remove took out: (its path, its files), or None when nothing
        was kept or putting it back would be wrong (store/removed_roots.py: then it has to be added again)."""
        # Another process may have written since the Remove (the restore allows it): the index follows the store
        # first (this process holds the writer lock: nothing moves meanwhile), then takes the folder's vectors back.
        index = self.vectors.follow_writers()
        with self.store.atomic():
            got = restore_removed(self.store)
            if got is not None:
                self.store.bump_generation()
        if got is None:
            return None
        forget_removed(self.store)
        path, ids = got
        index, dim = index or self.vectors.index(), self.vectors.dim()
        if index is not None and dim is not None and ids:
            found, vecs = self.store.vectors(ids, dim)  # stored vectors: nothing is embedded again
            if len(found):
                index.add(found, vecs)
        self.vectors.save()
        self.vectors.mark_current()
        root = self.store.root_by_path(path)
        return path, on_disk(self.store.files_of_root(root.id)) if root is not None else 0

    def forget_removed(self) -> None:
        forget_removed(self.store)

    def reindex(self, progress: Optional[ProgressFn], cancel: Optional[CancelToken], embed: bool = True) -> SyncReport:
        refuse_missing_roots(self.store, self.store.roots())
        before = self.store.chunk_count()
        with self.store.atomic():
            self.store.forget_files()
            # Searches meanwhile (another process, the window) see a library filling up again: this
            # marker lets them say so instead of silently returning nothing (see status.reindex_notice).
            self.store.set_meta(REINDEX_META, str(before))
            self.store.bump_generation()
        self.vectors.drop()
        rep = self.sync(None, progress, cancel, embed)
        self.clear_reindex_mark()  # with `embed` False the meaning notice (search, status) says what is left
        return rep

    def clear_reindex_mark(self) -> None:
        """After every root was synced in full (a reindex finished, or a plain sync finished what an
        interrupted one left)."""
        if self.store.get_meta(REINDEX_META):
            with self.store.atomic():
                self.store.set_meta(REINDEX_META, "")

    def _record_model(self) -> None:
        with self.store.atomic():
            for k, v in self.models.expected_meta().items():
                self.store.set_meta(k, v)

