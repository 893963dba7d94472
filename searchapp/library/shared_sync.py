"""A shared library's sync of this machine's roots, whole or some paths of them (decision 0138): the desktop's
words pass, its meaning pass, then its OCR step (library/ocr/step.py) for the scans of these roots, and the
meaning of what OCR read. The caller (SharedLibrary) holds the writer lock of every root in `work`.

The OCR cache stays on this desktop (ocr_cache.sqlite in its data dir): it is a cache of the engine's output by
file hash, rebuilt by OCRing again, and a scan's text reaches every desktop through the library's passages.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Optional, Protocol, Sequence

from ..base.errors import Cancelled
from ..base.private import make_private_dir
from ..base.progress import CancelToken, ProgressFn
from .sync.contract import SyncReport

if TYPE_CHECKING:
    from pathlib import Path

    from ..base.config import Config
    from ..store import Store
    from ..store.postgres.pg_store import PgStore
    from ..store.rows import RootRow
    from .resources.model_set import ModelSet
    from .sync.contract import IndexWriter, PassageEncoder
    from .sync.vanished import Vanished

__all__ = ["sync_work", "WatchedShared"]


log = logging.getLogger(__name__)


class SharedLibrary(Protocol):
    """What the sync asks of library/shared.SharedLibrary (which calls it): declared here, not imported, so the
    two modules do not import each other."""

    config: Config
    store: PgStore
    _as_store: Store
    models: ModelSet

    def reader(self) -> Store: ...

    def sync_changed(self, changed: list[str], progress: Optional[ProgressFn] = None,
                     cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport: ...


class WatchedShared:
    """A shared library as the desktop's watcher sees it (library/sync/watch.LibraryToWatch): `searchapp --library
    … watch` (cli/commands/shared_watch.py)."""

    def __init__(self, lib: SharedLibrary) -> None:
        self.lib = lib

    @property
    def data_dir(self) -> Path:
        return self.lib.config.data_dir

    @property
    def config(self) -> Config:
        return self.lib.config

    def reader(self) -> Store:
        return self.lib.reader()

    def sync_changed(self, changed: list[str], *, cancel: Optional[CancelToken] = None) -> SyncReport:
        return self.lib.sync_changed(changed, cancel=cancel)


def sync_work(lib: SharedLibrary, work: list[tuple[RootRow, Optional[list[str]]]], progress: Optional[ProgressFn],
              cancel: Optional[CancelToken], embed: bool) -> SyncReport:
    """Each (root, None for its whole scan, or the changed paths under it) of `work`, all of this machine's."""
    from ..store.postgres.pg_index import NoIndexWriter
    from .sync.vanished import Vanished
    from .sync.meaning_rate import RememberRate, aside_note
    from .sync.meta_keys import CONTEXT_META, passage_context
    from .sync.slow_read import SlowRead
    from .sync.unsaid import StopMark

    store: Store = lib._as_store
    with lib.store.atomic():
        for key, value in lib.models.expected_meta().items():
            lib.store.set_meta(key, value)
    had_passages = lib.store.has_chunks()
    if had_passages and lib.store.get_meta(CONTEXT_META) is None:
        # A shared library written before its sync recorded the passage context was embedded under this same
        # rule (the desktop's words pass and chunking) and its settings: taken as the current one, not "none".
        with lib.store.atomic():
            lib.store.set_meta(CONTEXT_META, passage_context(lib.config))
    # This machine's own queue judges its meaning pass (sync_encoder.py): other machines embed theirs.
    encoder = lib.models.passage_encoder(load_ahead=embed, pending=lib.store.pending_here_count)
    # A mark of this machine's until the sync has finished: one stopped before (Ctrl+C, the window's Stop, a kill) is
    # said by its next sync and by `status`, as the desktop's (sync/unsaid.py, decision 0183)
    mark = StopMark(store, owner=lib.store.machine)
    mark.begin()
    # This machine's embedding rate, for its time left and the window's big-folder estimate (as the desktop's sync).
    progress = rate = RememberRate(store, mark.watching(progress))
    rate.aside = partial(aside_note, encoder)
    index = NoIndexWriter()
    total = SyncReport()
    vanished = Vanished(store, index)  # every root read before any deleted file goes (a move between two: updates.py)
    lib.store.sync_mark = lib.store.last_chunk_id()  # what this sync writes and deletes again is counted once
    try:
        with SlowRead(progress) as told:  # a file read for long is named while it is read
            _words_meaning_ocr(lib, work, encoder, index, told, cancel, embed, total, vanished, had_passages)
    except Cancelled as exc:  # what the whole sync did by then, for the person who stopped it (as the desktop's)
        mark.stopped()
        _settle_quietly(vanished, total)
        if exc.report is not None and exc.report is not total:
            total.merge(exc.report)
        total.chunks_pending = lib.store.pending_by_machine().get(lib.store.machine, 0)
        exc.report = total
        raise
    except BaseException:
        mark.stopped()
        _settle_quietly(vanished, total)
        raise
    finally:
        lib.store.sync_mark = None
    vanished.settle(total)  # those a renamed scan waiting for OCR was held for: after the OCR step
    waiting = lib.store.pending_by_machine()
    # This machine's alone: "`searchapp index` embeds them" is true of those only (another machine's wait for it)
    total.chunks_pending = waiting.pop(lib.store.machine, 0)
    if waiting:
        total.notes.append(f"{sum(waiting.values())} passages of other machines wait for their own sync to be "
                           f"embedded ({', '.join(sorted(waiting))}); they are searchable by words meanwhile")
    rate.save()  # a short pass's rate too
    mark.finished(total)
    return total


def _settle_quietly(vanished: Vanished, total: SyncReport) -> None:
    """After a stop or an error: the entries held for the OCR step go, and an error meanwhile (the connection lost
    that stopped the sync) does not hide the one said."""
    try:
        vanished.settle(total)
    except Exception:
        log.debug("the held entries wait for the next sync", exc_info=True)


def _words_meaning_ocr(lib: SharedLibrary, work: list[tuple[RootRow, Optional[list[str]]]], encoder: PassageEncoder,
                       index: IndexWriter, progress: Optional[ProgressFn], cancel: Optional[CancelToken], embed: bool,
                       total: SyncReport, vanished: Vanished, had_passages: bool) -> None:
    """The words of every root of `work` (their deleted entries purged once all are read), the meaning, the OCR
    step, the meaning of what it read: counted in `total`."""
    from .ocr.step import ocr_step
    from .sync import words_pass
    from .sync.meaning_pass import embed_pending
    from .sync.meta_keys import record_passage_context
    from .sync.ocr_waits import read_from_cache

    store: Store = lib._as_store
    try:
        for i, (root, paths) in enumerate(work, start=1):
            told = words_pass.naming_folder(progress, root.path, i, len(work))  # "Pictures, 2 of 4" on its bars
            total.merge(words_pass.sync_root(store, root, lib.config, encoder, index, told, cancel, paths=paths,
                                             vanished=vanished))
    finally:
        vanished.purge(total)
    # What the passages are embedded with, for status's note (the desktop sync's rule: sync/meta_keys.py).
    record_passage_context(store, lib.config, had_passages, total.chunks_pending)

    def meaning(later: Sequence[int] = ()) -> None:
        if embed:
            total.chunks_embedded += embed_pending(store, encoder, index, progress, cancel,
                                                   batch=words_pass.BATCH_CHUNKS, later=later)

    # the scans the OCR step rewrites from its cache wait for it (sync/ocr_waits.py read_from_cache)
    meaning(read_from_cache(store, lib.config, lib.config.data_dir, [root.id for root, _ in work]))
    # OCR after the words and the meaning of every other file, as on the desktop (pages take seconds each); only
    # the scans of the roots held here: another machine's, or a root another process syncs, wait for their writer.
    if lib.config.scan.ocr:
        make_private_dir(lib.config.data_dir)  # the OCR cache's home; a shared desktop may have no library there
        total.merge(ocr_step(store, lib.config, encoder, index, lib.config.data_dir, progress, cancel,
                             counted=total.waiting, root_ids=[root.id for root, _ in work],
                             full=[root.id for root, paths in work if paths is None], held=vanished.held()))
        meaning()
