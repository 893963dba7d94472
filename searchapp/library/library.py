"""The façade every front end uses: Library(config) -> add_folder, sync, remove_folder, search, status.

Models load lazily (status and lexical search never load torch weights). Writes take the data
directory's writer lock; searches read. SQLite is the source of truth; the vector index follows it.
The parts: ModelSet, IndexKeeper and the rest of what it holds (resources/), the writes (sync/updates.py), the
ranking (search/pipeline.py), status (report/status.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Concatenate, Iterator, Optional, ParamSpec, Sequence, TypeVar

import numpy as np

from ..ann import VectorIndex
from ..base.config import Config
from ..base.member_paths import key_of
from ..base.stored_names import stored_name
from ..base.progress import CancelToken, ProgressFn
from ..base.search_modes import check_mode
from ..ingest.fsnames import is_within
from ..store import Store
from ..store.ledger import files_in_state
from .resources.data_dir import DB_NAME, open_data_dir, read_only_error
from .search.duplicates import DuplicateReport
from .sync.meaning_pass import meaning_percent, meaning_progress
from .query.filters import SearchFilters
from .resources.index_keeper import IndexKeeper
from .resources.integrity import IntegrityCheck
from .resources.lock import Holder, WriterWait, writer_holder_info, writer_lock
from .resources.model_set import ModelSet
from .resources.connections import ReadConnections
from .resources.in_flight import SearchesInFlight
from .watch_and_serve import WatchAndServe
from .ocr.marks import mark_ocr
from .ocr.step import ocr_step
from .search.meaning_now import FreshVectors, PassageEmbedder
from .search.places import place_text, unplaced
from .search.result import (LISTING, LOADING, LOADING_NOTICE, MEANING, PLACE, REINDEX, RERANKER, UNSEARCHABLE, Notice,
                            SearchResult, meaning_text)
from .query.prepared import prepare_query
from .report.status import IndexIds, LibraryStatus, RootStatus, SavedIds, build_status, reindex_notice
from .sync.contract import StoppedSync, SyncReport
from .sync.roots import linked_folders, named_in_library, places_to_add
from .sync.updates import Updates
from .sync.wanted import Wanted

if TYPE_CHECKING:
    from ..models.bi_encoder import BiEncoder
    from ..models.cross_encoder import CrossEncoder
    from ..store.rows import FileRow
    from .query.syntax import ParsedQuery
    from .warm.server import WarmServer
    from .sync.watch import LibraryWatcher

__all__ = ["Library", "LibraryStatus", "RootStatus"]

log = logging.getLogger(__name__)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _reads(method: Callable[Concatenate[Library, _P], _R]) -> Callable[Concatenate[Library, _P], _R]:
    """A public read: `close()` waits for reads in flight instead of closing a connection under them."""

    @functools.wraps(method)
    def wrapper(self: Library, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._connections.reading():
            return method(self, *args, **kwargs)

    return wrapper


def _searching(method: Callable[Concatenate[Library, _P], _R]) -> Callable[Concatenate[Library, _P], _R]:
    """A public read that is a search: a sync, in this process or another, steps aside while it runs. Typed, so
    that a search's result keeps its type where it is called."""

    @functools.wraps(method)
    def wrapper(self: Library, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._connections.reading(), self._in_flight.running():
            return method(self, *args, **kwargs)

    return wrapper


class Library(WatchAndServe):
    def __init__(self, config: Config, *, encoder: Optional[BiEncoder] = None, reranker: Optional[CrossEncoder] = None,
                 create: bool = True) -> None:
        """`encoder` / `reranker` may be given already loaded (tests, the GUI sharing one model).
        `create=False` (read-only commands): a missing library is DataDirError "no library at DIR", never
        a new empty one. A library this process cannot write opens read-only (`read_only`)."""
        self._config = config
        self.data_dir = Path(config.data_dir)
        self._dir_state = open_data_dir(self.data_dir, create=create)
        self.read_only = self._dir_state.read_only
        db = self.data_dir / DB_NAME
        self.store = Store(db, readonly=True, immutable_ok=True) if self.read_only else Store(db)
        self.models = ModelSet(config, encoder=encoder, reranker=reranker)
        self.models.library_state = self._library_state
        self._lock = threading.RLock()  # one writer lane inside the process; the lock file covers other processes
        # how a write waits for another process writing: a few seconds, then a clear error (the command line
        # waits its turn instead, saying for whom: cli/writer_wait.py)
        self.writer_wait = WriterWait()
        self.vectors = IndexKeeper(self.store, self.reader, self.data_dir, config.index, self._lock, self.read_only)
        self._in_flight = SearchesInFlight(self.data_dir, create=not self.read_only)  # a sync waits for these
        self._updates = Updates(self.store, config, self.models, self.vectors, self.data_dir, self._in_flight,
                                ocr_step=ocr_step)
        self._connections = ReadConnections(db, immutable_ok=self.read_only)
        self._watcher: Optional[LibraryWatcher] = None  # while watching
        self._server: Optional[WarmServer] = None  # while serving the command line (warm/)
        # status's quick_check, at most once a minute (a read-only library reads the verdict but writes none)
        self._integrity = IntegrityCheck(self.data_dir, record=not self.read_only)
        # `status` runs SQLite's quick_check here, on this thread's own read-only connection, while it reads the
        # rest: SQLite lets go of the interpreter lock, so at a million passages the two overlap (see status).
        self._checker = ThreadPoolExecutor(1, thread_name_prefix="searchapp-quick-check")
        # While meaning is unfinished: what the person looks at is embedded first (sync/wanted.py), and what a
        # search embedded on the spot is written by this process's meaning pass (search/meaning_now.py).
        self.wanted = Wanted(self.data_dir, writable=not self.read_only)
        self.fresh = FreshVectors()
        self._updates.wanted, self._updates.ready = self.wanted, self._ready_vectors

    @property
    def config(self) -> Config:
        return self._config

    @config.setter
    def config(self, config: Config) -> None:
        """Settings replaced on an open library (tests): every part reads the new ones from its next call on."""
        self._config = self.models.config = self._updates.config = config
        self.vectors.config = config.index

    def reader(self) -> Store:
        """A read-only connection per thread: a search sees only committed batches and never waits for a sync."""
        return self._connections.connection()

    @_reads
    def _library_state(self) -> tuple[dict[str, str], bool]:
        # A read like any public one: the window's model load asks for it on a worker thread, and `close()` must
        # wait for it (closing the connection under it crashed a GUI test's worker in SQLite).
        reader = self.reader()
        return reader.meta(), reader.has_chunks()

    def open_notice(self) -> Optional[str]:
        """Something to say once about opening the library (e.g. its permissions were tightened)."""
        return self._dir_state.notice

    def refuse_read_only(self, action: str) -> None:
        """DataDirError naming `action` ("removing") when the library is read-only (a read-only disk or folder)."""
        if self.read_only:
            raise read_only_error(self.data_dir, action)

    def roots(self) -> list[str]:
        """The indexed folders (and single files), as given to add_folder."""
        return [r.path for r in self.store.roots()]

    @_reads
    def has_folders(self) -> bool:
        """Whether the library holds a folder (or a single file) now, as committed: asked on any thread (the
        window's folder watch asks it on its own), through that thread's reader."""
        return bool(self.reader().roots())

    def passage_count(self) -> int:
        return self.store.chunk_count()

    # -- vector index (see IndexKeeper) ---------------------------------------
    def index(self, progress: Optional[ProgressFn] = None) -> Optional[VectorIndex]:
        self.vectors.index(progress)  # opened (or rebuilt) with progress; then as every read sees it
        return self._fresh()

    def _fresh(self, wait: bool = True) -> Optional[VectorIndex]:
        """The one way a read reaches the vector index: brought up to date with what other processes (and
        this one) committed since it was last read (IndexKeeper.follow_writers: one generation read, then
        only the difference). Search, similar, duplicates, status and ann_recall all pass through here. `wait`:
        IndexKeeper.index's."""
        return self.vectors.follow_writers(wait)

    def index_notice(self) -> Optional[str]:
        return self.vectors.notice()

    def load_in_background(self, on_done: Optional[Callable[[], None]] = None, *,
                           give_up_after: Optional[float] = None) -> bool:
        """Open the vector index on a thread of its own: see IndexKeeper.load_in_background and search's
        `meaning_wait`."""
        return self.vectors.load_in_background(on_done, give_up_after=give_up_after)

    def meaning_loading(self) -> bool:
        return self.vectors.loading()

    def check_model(self) -> None:
        """Raise ModelMismatchError when the library was built with another model, pooling or chunking."""
        self.models.check_library(self.reader())

    # -- writes (see updates.py) -----------------------------------------------
    @contextlib.contextmanager
    def _writing(self, action: str, check_model: bool = True) -> Iterator[Updates]:
        """The writer lane: this process's lock, then the data directory's lock file; the model checked. `action`:
        what a read-only library says needs write access ("indexing")."""
        self.refuse_read_only(action)
        with self._lock, writer_lock(self.data_dir, self.writer_wait) as turn:
            if check_model:
                self.check_model()
            self.vectors.before_write()
            self._updates.turn = turn  # its meaning pass hands the lock over between batches (sync/handover.py)
            try:
                yield self._updates
            finally:
                self._updates.turn = None
        self.models.prepare_query_path()  # once: the export for fast queries, where a sync loaded the model

    def add_folder(self, path: str | os.PathLike[str], progress: Optional[ProgressFn] = None,
                   cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        """Index a folder or file: its words first, then (unless `embed` is False) its meaning."""
        return self.add_folders([path], progress, cancel, embed=embed)

    def add_folders(self, paths: Sequence[str | os.PathLike[str]], progress: Optional[ProgressFn] = None,
                    cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        """Index folders or files in one sync (`index A B`: a file moved from A to B is said once and keeps its
        meaning); each is checked before anything is written."""
        # `index A A` is one root; a name that is not UTF-8 is stored as every name is (base/stored_names.py); a
        # path through a link is where it really is (sync/roots.py library_place, decision 0192)
        roots, notes = places_to_add(self.store, paths)
        with self._writing("indexing") as updates:
            rep, new_roots = updates.add_folders(roots, progress, cancel, embed)
        rep.notes[:0] = notes
        if self._watcher is not None:
            for root in new_roots:
                self._watcher.add_root(root, caught_up=True)  # just synced whole
        return rep

    def sync(self, paths: Optional[list[str]] = None, progress: Optional[ProgressFn] = None,
             cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        """Phase 1 (words) of every root, then phase 2 (meaning) of every passage still without a vector;
        `embed=False` stops after phase 1 (a later sync embeds the rest)."""
        with self._writing("indexing") as updates:
            rep = updates.sync(paths, progress, cancel, embed)
            if paths is None and not rep.missing_roots:
                updates.clear_reindex_mark()
            return rep

    def sync_changed(self, changed: list[str], progress: Optional[ProgressFn] = None,
                     cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        """Sync only `changed` files and folders (e.g. from a file watcher): each is matched to the indexed
        root it lies under; the rest of every root is neither scanned nor read."""
        with self._writing("indexing") as updates:
            return updates.sync_changed(changed, progress, cancel, embed)

    def remove_folder(self, path: str | os.PathLike[str], *, undoable: bool = False) -> int:
        """Forget a root and everything indexed under it; returns the number of files removed. `undoable`:
        its rows are kept by this Library's connection (TEMP tables, never in library.sqlite) until
        `undo_remove`, `forget_removed` or close."""
        root = stored_name(os.path.abspath(os.path.expanduser(os.fspath(path))))
        with self._writing("removing", check_model=False) as updates:
            return updates.remove_folder(root, keep=undoable)

    def undo_remove(self) -> Optional[tuple[str, int]]:
        """Restore the folder the last undoable Remove took out, at once: (path, files), or None when the
        library changed since (it is then added again like a new folder)."""
        with self._writing("undo", check_model=False) as updates:
            restored = updates.undo_remove()
        if restored is not None and self._watcher is not None:  # files made while it was out: read now, not missed
            self._watcher.add_root(restored[0], caught_up=True)
            self._watcher.notify([restored[0]])
        return restored

    def forget_removed(self) -> None:
        """Drop what Undo would restore."""
        with self._writing("removing", check_model=False) as updates:
            updates.forget_removed()

    def reindex(self, progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None, *,
                embed: bool = True) -> SyncReport:
        """Drop every passage and vector and index all roots again with the current model and chunking."""
        with self._writing("reindexing", check_model=False) as updates:
            # Decided again once the passages are gone: the model's own pooling and prompts (library_keep).
            self.models.library_emptied()
            return updates.reindex(progress, cancel, embed)

    @_reads
    def unplaced(self, typed: Sequence[str]) -> list[str]:
        """The in: values of `typed` no folder of the library is at (search/places.unplaced): the one rule its
        search says a typo'd place by and `saved list` marks a saved search by (SharedLibrary.unplaced the same)."""
        roots = [r.path for r in self.reader().roots()]
        return unplaced(typed, roots, lambda place: linked_folders((place,), roots), holds=self._holds)

    def _through_links(self, filters: Optional[SearchFilters], parsed: Optional[ParsedQuery]
                       ) -> tuple[Optional[SearchFilters], Optional[ParsedQuery]]:
        """`--in` and in: places typed through a link also name where the library holds that place (sync/roots.py
        linked_folders, decision 0192), as the shared library's also name the folders they map to."""
        if not (filters is not None and filters.folders) and not (parsed is not None and parsed.folders):
            return filters, parsed
        roots = [r.path for r in self.reader().roots()]
        if filters is not None and filters.folders:
            filters = dataclasses.replace(filters, folders=linked_folders(filters.folders, roots))
        if parsed is not None and parsed.folders:
            parsed = dataclasses.replace(parsed, folders=linked_folders(parsed.folders, roots))
        return filters, parsed

    def _holds(self, place: str) -> bool:
        """Whether the library has an entry at `place` or under it (a folder gone from disk still does)."""
        store = self.reader()
        return store.file_by_path(place) is not None or any(store.has_files_below(r.id, place) for r in store.roots()
                                                            if is_within(place, r.path))  # only its own folder's

    def reindex_notice(self) -> Optional[str]:
        """"reindex in progress: N% of passages embedded" while a reindex has not finished, else None."""
        return reindex_notice(self.reader())

    @_reads
    def stopped_sync(self) -> Optional[StoppedSync]:
        """The last sync, when it stopped before its end, and what it left out that no summary has said (its stop's
        own message says it: sync/unsaid.py); None when it finished."""
        from .sync.unsaid import stopped_sync

        return stopped_sync(self.reader())

    def meaning(self) -> tuple[int, int]:
        """(passages with a vector, passages): below 100%, dense search lacks the rest (lexical finds all)."""
        return meaning_progress(self.reader())

    # -- reads --------------------------------------------------------------
    @_searching
    def search(self, query: str, *, k: Optional[int] = None, mode: Optional[str] = None, rerank: Optional[bool] = None,
               candidates: Optional[int] = None, rerank_depth: Optional[int] = None,
               filters: Optional[SearchFilters] = None, group: Optional[str] = None,
               literal: bool = False, meaning_wait: Optional[float] = None) -> SearchResult:
        """`group`: "file" (each file once, its other passages in `Hit.more`; k counts files) or "passage".
        `query` may use the query syntax (query/syntax.py) unless `literal`. `meaning_wait`: while the vector
        index opens in the background (load_in_background), a hybrid search waits at most this many seconds for
        it, then answers by words (a LOADING notice); None waits for it, as does dense mode."""
        s = self.config.search
        mode = check_mode(mode or s.mode)
        read = prepare_query(query, mode, literal)  # capped, its syntax read, its notes (query/prepared.py)
        query, parsed, warnings, reading = read.query, read.parsed, read.warnings, read.reading
        # Imported here: `index` and `status` start without the search pipeline (issue 45).
        from .search.pipeline import mark_available, run_search, search_request

        if read.problem:  # nothing to match or embed: no arbitrary hits
            return SearchResult(query, mode, [], False, notices=[Notice(UNSEARCHABLE, read.problem)],
                                warnings=warnings, reading=reading)
        filters, parsed = self._through_links(filters, parsed)
        req = search_request(self.config, query, mode, k=k, candidates=candidates, rerank_depth=rerank_depth,
                             filters=filters, group=group, parsed=parsed, literal=literal)
        encode_query, index, words_only = None, None, False
        if mode != "lexical":
            self.check_model()
            # Still opening: the lexical ranking now (run_search fuses on the words alone without an index).
            words_only = mode == "hybrid" and meaning_wait is not None and not self.vectors.wait_loaded(meaning_wait)
            index, encode_query = (None, None) if words_only else (self._fresh(), self.models.encode_query)
        # Lexical mode (and a hybrid search answered by words) never loads a model unless reranking is asked for.
        want_rerank = (s.rerank and mode != "lexical" and not words_only) if rerank is None else rerank
        cross = self.models.reranker() if want_rerank else None
        pending = self.reader().pending_count()  # cheap (a partial index); the full count only while embedding
        embed_now = self._embedder() if pending and mode == "hybrid" and not words_only else None
        result = run_search(req, self.reader(), index, encode_query, cross.score if cross is not None else None,
                            embed_now, self.models.chunker().reads_whole if encode_query is not None else None,
                            self.models.knows_word)
        if parsed is None and not literal:  # a name typed: no passage holds it (search/named.py)
            from .search.named import put_named_first

            put_named_first(self.reader(), result, query, req.k, filters)
        mark_available(result, lambda: [r.path for r in self.reader().roots()])
        mark_ocr(result, self.reader())
        result.warnings, result.reading = warnings, reading
        # lexical search says nothing about models; nor does a listing by date (its notice says why)
        if want_rerank and cross is None and mode != "lexical" and not result.said(LISTING):
            self._say(result, RERANKER, self.models.reranker_notice())
        if parsed is not None and parsed.folders:  # a typo'd in: finds nothing: said, or "no results" is all
            self._say(result, PLACE, place_text(self.unplaced(parsed.folders)))
        if not result.hits:  # the filters may be why: said, or "no results" reads as "no file has these words"
            from .search.empty_reason import why_empty

            why = why_empty(self.reader(), filters, parsed, [r.path for r in self.reader().roots()])
            result.notices += [why] if why is not None else []
        if words_only:
            self._say(result, LOADING, LOADING_NOTICE)
        during_reindex = self.reindex_notice()
        self._say(result, REINDEX, during_reindex)
        if pending and mode != "lexical":  # words alone find every passage: "the rest … by words only" misled
            result.meaning_percent = meaning_percent(*self.meaning())
            if not during_reindex:  # a reindex's notice says it already; who embeds the rest, as `status` says it
                self._say(result, MEANING, meaning_text(result.meaning_percent, mode, self._writer()))
        if pending:
            self.wanted.add(h.path for h in result.hits)  # the meaning pass takes these files first
        return result

    def _writer(self) -> Optional[Holder]:
        """The process writing this library now, this one too ("process 4242 (…)"), or None: as status names it."""
        return writer_holder_info(self.data_dir, own=True)

    def _embedder(self) -> Optional[PassageEmbedder]:
        """How a search or Similar embeds passages that have no vector yet (search/meaning_now.py): the loaded
        bi-encoder (its vectors kept for this process's meaning pass), else the query path, all the passages in one
        packed call (a cold command line: no torch to load; its vectors serve this answer only), unless the model reads
        queries and passages differently (prompts): then none, rather than load torch for a search."""
        enc = self.models.loaded_encoder
        if enc is not None:
            return PassageEmbedder(enc.encode, self.fresh, str(enc.fingerprint))
        if not self.models.query_path_reads_passages():
            return None
        return PassageEmbedder(self.models.encode_passages_lean)

    def _ready_vectors(self, hashes: list[str]) -> dict[str, np.ndarray]:
        """For this process's meaning pass: the vectors its searches embedded for these model inputs, taken."""
        enc = self.models.loaded_encoder
        if enc is None or not len(self.fresh) or not hashes:
            return {}
        return self.fresh.take(str(enc.fingerprint), hashes)

    def want(self, path: str) -> None:
        """The person opened `path` (a file key as a hit names it): while meaning is unfinished, it is embedded
        before the rest (sync/wanted.py). Writes no database; never raises for an unknown path."""
        self.wanted.add([key_of(path)])

    @staticmethod
    def _say(result: SearchResult, kind: str, text: Optional[str]) -> None:
        if text:
            result.notices.append(Notice(kind, text))

    # -- the write generation: saved searches (query/saved.py) re-run when it changes --
    @_reads
    def generation(self) -> int:
        """The library's write generation: it changes after every write (sync batch, remove, reindex)."""
        return self.reader().generation()

    @_searching
    def similar(self, path: str, *, page: Optional[int] = None, k: Optional[int] = None,
                filters: Optional[SearchFilters] = None) -> SearchResult:
        """Files most like the indexed file `path` (or its page `page`), from stored vectors: no model is loaded.
        Hits are files (best passage pair shown); see similar.py for the score. While meaning fills, the files
        without a vector follow, found by the source's words (similar_words.py, decision 0159)."""
        from .search.similar import find_similar

        # typed through a link: the file where it really is (decision 0192)
        path = named_in_library(key_of(path), [r.path for r in self.reader().roots()])
        index = self._fresh()  # searched with its default ef (index.ef_search)
        pending = self.reader().pending_count()
        # A file without vectors is embedded for this answer, within a search's budget (decision 0139).
        result = find_similar(self.reader(), index, self.vectors.dim(), path, page=page,
                              k=k or self.config.search.k, filters=filters,
                              embed=self._embedder() if pending else None,
                              embed_budget=self.config.search.embed_on_search, by_words=bool(pending),
                              fold_near=self.config.search.fold_repeats and self.config.search.fold_near_copies)
        if pending:
            self.wanted.add([key_of(path)])  # its own passages first, then what a search returns
            result.meaning_percent = meaning_percent(*self.meaning())
            self._say(result, MEANING, meaning_text(result.meaning_percent, "similar", self._writer()))
        return result

    @_reads
    def duplicates(self, threshold: Optional[float] = None, progress: Optional[ProgressFn] = None,
                   cancel: Optional[CancelToken] = None) -> DuplicateReport:
        """Exact copies (same sha256) and near duplicates (same meaning) among indexed files; no model is
        loaded. See duplicates.py for the similarity and DEFAULT_THRESHOLD for how the default was chosen."""
        from .search.duplicates import DEFAULT_THRESHOLD, find_duplicates

        rep = find_duplicates(self.reader(), self._fresh(), self.vectors.dim(),
                              threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
                              progress=progress, cancel=cancel)
        embedded, total = self.meaning()
        if embedded < total:  # near duplicates are found by meaning: a words-only library was silent about them
            rep.meaning_percent = meaning_percent(embedded, total)
        return rep

    @_reads
    def explain(self, path: str) -> dict[str, Any]:
        """Why `path` is or is not found (library/report/explain.py)."""
        # Imported here: it brings every extractor (mail, docx, ...), a tenth of a `status` or `search` start.
        from .report.explain import explain

        return explain(self.config, self.reader(), path)

    @_reads
    def ledger(self, state: Optional[str] = None, limit: int = 100_000,
               under: Sequence[str] = ()) -> list[tuple[str, FileRow]]:
        """(state, FileRow) of the stored entries in `state` (store/ledger.py), all when None; `under`: those at
        or below one of these folders (absolute, as stored), all when empty."""
        return files_in_state(self.reader(), state, limit, under=under)

    @_reads
    def status(self, *, wait_for_meaning: bool = True, fresh_check: bool = False) -> LibraryStatus:
        """`wait_for_meaning=False`: while the vector index is still opening (load_in_background), the status of
        everything else at once, its vector figures those of a library without an index (the window lists the
        folders meanwhile, and asks again when the index is open). `fresh_check`: SQLite's quick_check runs
        now, not reused from the last minute (`status --check`)."""
        opening = not wait_for_meaning and self.meaning_loading()
        # The first status of a minute runs quick_check (1.3 s at a million passages): beside the id reads below.
        verdict = self._checker.submit(lambda: self._integrity.ok(self.reader(), fresh=fresh_check))
        try:
            reader = self.reader()
            index: Optional[IndexIds] = None
            if not opening:  # a one-shot `status` reads the index file's ids only, when the file is current
                saved = self.vectors.current_ids(reader)
                index = SavedIds(saved) if saved is not None else self._fresh(wait=wait_for_meaning)
                # Not opened, rather than wait for a sync of this process that makes it (a first sync): the window's
                # counts stood at "0 so far" for its whole words pass. No vector yet: nothing to count or check.
                opening = index is None and not wait_for_meaning and meaning_progress(reader)[0] > 0
            # The process writing now, this one too: a status a watch answers while it embeds names the watch
            return build_status(self.config, str(self.data_dir), reader, index, self.index_notice(),
                                index_opening=opening, integrity=verdict.result, writer=self._writer(),
                                writing_here=self._updates.turn is not None)
        finally:
            wait([verdict])  # its read ends within this one (close waits for reads in flight)

    @_reads
    def ann_recall(self, k: int = 10, sample: int = 200, *, ef: Optional[int] = None, seed: int = 0) -> dict[str, Any]:
        """Recall@k of the vector index against exact search over `sample` stored vectors (see ann_recall.py)."""
        from .report.ann_recall import library_ann_recall

        return library_ann_recall(self.reader(), self._fresh(), self.vectors.dim(), self.config.index,
                                  k=k, sample=sample, ef=ef, seed=seed)

    def close(self) -> None:
        """Stop watching, wait for searches in flight (another thread may be mid-query) and for a running
        sync, then close every connection. Closing a SQLite connection under a running query can crash."""
        self.stop_serving()
        self.vectors.stop_loading()  # not begun parsing: never begun (the lock below would wait for it)
        if not self._connections.shut(timeout=60):
            return
        self.stop_watching()
        self._lock.acquire()  # a sync holds it; callers cancel theirs first
        self._lock.release()
        self._checker.shutdown(wait=True)  # idle: every status waits for its check
        self._connections.close_all()
        self._in_flight.close()
        self.store.close()

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
