"""The façade every front end uses: Library(config) -> add_folder, sync, remove_folder, search, status.

Models load lazily (status and lexical search never load torch weights). Writes take the data
directory's writer lock; searches read. SQLite is the source of truth; the vector index follows it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import contextlib
import functools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..ann import VectorIndex
from ..base.config import Config, check_setting
from ..base.errors import (ConfigError, ModelLoadError, ModelMismatchError, ModelNotFoundError, SearchAppError,
                           StoreError)
from ..base.finite import require_finite
from ..base.priority import lower_thread_priority
from ..base.progress import CancelToken, ProgressFn, report
from ..ann.storage import remove_stale_temps
from ..ingest.fsnames import real_path
from ..store import Store
from .data_dir import DB_NAME, open_data_dir, read_only_error
from .lazy_encoder import LazyEncoder
from .lock import writer_lock
from .duplicates import DuplicateReport
from .filters import SearchFilters
from .query_check import query_problem
from .root_state import missing_reason, owning_root, root_missing
from .grouping import POOL_FACTOR
from .constraints import parse_for_search
from .search import SearchRequest, SearchResult, run_search
from .settings_check import passage_context, passage_context_note, settings_mismatch
from .sync import SyncReport, in_scope, sync_root
from .vectors import IndexOpenReport, index_path, open_vector_index, rebuild_index, repair_index

__all__ = ["Library", "LibraryStatus", "RootStatus"]

REINDEX_META = "reindex_from"  # passages before a reindex began; "" (or absent) when none is under way
COMPACT_DELETED_FRACTION = 0.2  # rebuild the vector index from stored vectors when more of it is dead

log = logging.getLogger(__name__)

# Models are built one at a time in the process: two threads building at once (the GUI's warm-up and a
# first sync) raced in transformers' lazy imports ("cannot import name 'AutoTokenizer'") and built twice.
MODELS_LOCK = threading.RLock()


@dataclass
class RootStatus:
    path: str
    files: int
    chunks: int
    last_sync: Optional[float]
    missing: bool = False  # the folder cannot be read now; its files stay indexed and searchable
    state: str = "ok"  # "ok" or "missing"
    reason: Optional[str] = None  # why it is missing


@dataclass
class LibraryStatus:
    data_dir: str
    roots: list[RootStatus]
    files: dict[str, int]  # status -> count
    chunks: int
    vectors: int
    consistent: bool
    failed: list[tuple[str, str, str]]  # (path, status, reason) of every skipped or failed file
    bi_encoder: dict[str, Optional[str]]
    reranker: dict[str, Optional[str]]
    device: str
    notes: list[str] = field(default_factory=list)
    reindex_needed: Optional[str] = None  # why the library must be rebuilt (`searchapp reindex`), or None

    def to_json(self) -> dict:
        return {
            "data_dir": self.data_dir,
            "roots": [r.__dict__ for r in self.roots],
            "files": sum(self.files.values()),
            "files_by_status": self.files,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "consistent": self.consistent,
            "failed": [{"path": p, "status": s, "reason": r} for p, s, r in self.failed],
            "models": {"bi_encoder": self.bi_encoder, "reranker": self.reranker},
            "device": self.device,
            "notes": self.notes,
            "reindex_needed": self.reindex_needed,
        }


def _reads(method):
    """A public read: `close()` waits for reads in flight instead of closing a connection under them."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._reading():
            return method(self, *args, **kwargs)

    return wrapper


class Library:
    def __init__(self, config: Config, *, encoder=None, reranker=None, create: bool = True) -> None:
        """`encoder` / `reranker` may be given already loaded (tests, the GUI sharing one model).
        `create=False` (read-only commands): a missing library is DataDirError "no library at DIR", never
        a new empty one. A library this process cannot write opens read-only (`read_only`)."""
        self.config = config
        self.data_dir = Path(config.data_dir)
        self._dir_state = open_data_dir(self.data_dir, create=create)
        self.read_only = self._dir_state.read_only
        db = self.data_dir / DB_NAME
        self.store = Store(db, readonly=True, immutable_ok=True) if self.read_only else Store(db)
        self._encoder = encoder
        self._reranker = reranker
        self._reranker_error: Optional[str] = None
        self._reranker_exc: Optional[ModelLoadError] = None
        self._identity = None  # ModelIdentity of the configured bi-encoder, read from its files without loading it
        self._query_encoder = None  # NumPy query encoder (models.query_encoder), False when not supported
        self._index: Optional[VectorIndex] = None
        self._index_report: Optional[IndexOpenReport] = None
        self._index_generation = -1  # the store generation the in-memory index reflects (see _follow_writers)
        self._lock = threading.RLock()  # one writer lane inside the process; the lock file covers other processes
        self._local = threading.local()
        self._readers: list[Store] = []
        self._watcher = None  # a LibraryWatcher while watching
        self._reads_cv = threading.Condition()
        self._reads_in_flight = 0
        self._closed = False

    @contextlib.contextmanager
    def _reading(self):
        with self._reads_cv:
            if self._closed:
                raise StoreError("the library is closed")
            self._reads_in_flight += 1
        try:
            yield
        finally:
            with self._reads_cv:
                self._reads_in_flight -= 1
                self._reads_cv.notify_all()

    def reader(self) -> Store:
        """A read-only connection per thread: a search sees only committed batches and never waits for a sync."""
        st = getattr(self._local, "store", None)
        if st is None:
            st = self._local.store = Store(self.data_dir / DB_NAME, readonly=True, immutable_ok=self.read_only)
            self._readers.append(st)
        return st

    def open_notice(self) -> Optional[str]:
        """Something to say once about opening the library (e.g. its permissions were tightened)."""
        return self._dir_state.notice

    def _require_writable(self) -> None:
        if self.read_only:
            raise read_only_error(self.data_dir)

    # -- models -------------------------------------------------------------
    @property
    def encoder(self):
        if self._encoder is None:
            with MODELS_LOCK:  # the GUI's warm-up and a first sync ask at once: build it once
                if self._encoder is None:
                    from ..models import BiEncoder  # torch loads only when a model is needed

                    m = self.config.models
                    self._encoder = BiEncoder(m.bi_encoder, pooling=m.pooling, device=m.device,
                                              precision=m.precision, batch_size=m.batch_size,
                                              allow_download=m.allow_download, threads=m.threads)
        return self._encoder

    def _model_identity(self) -> tuple[str, int]:
        """Fingerprint and vector size of the bi-encoder: from the loaded model, else from its files
        (no torch import, no weights: an unchanged sync and a mismatch check stay fast)."""
        if self._encoder is not None:
            return self._encoder.fingerprint, int(self._encoder.dim)
        ident = self._file_identity()
        return ident.fingerprint, ident.dim

    def _file_identity(self):
        if self._identity is None:
            from ..models.identity import bi_encoder_identity

            m = self.config.models
            self._identity = bi_encoder_identity(m.bi_encoder, pooling=m.pooling, allow_download=m.allow_download)
        return self._identity

    def _encode_query(self, query: str) -> np.ndarray:
        """One query vector. Until the bi-encoder is loaded anyway (indexing, the GUI), a NumPy pass over
        the same weights answers without importing torch or transformers: a cold search in well under a second."""
        if self._encoder is None and self._query_encoder is None:
            with MODELS_LOCK:  # two first searches at once (GUI start-up): load it once
                if self._query_encoder is None:
                    from ..models.query_encoder import load_query_encoder

                    ident = self._file_identity()
                    self._query_encoder = load_query_encoder(
                        ident.resolved.path, pooling=self.config.models.pooling,
                        max_seq_length=ident.max_seq_length) or False
        vec = None
        if self._encoder is None and self._query_encoder:
            try:
                vec = self._query_encoder.encode_one(query)
            except Exception:  # noqa: BLE001 - e.g. a query longer than the folder's position table
                log.warning("NumPy query encoder failed; using the torch bi-encoder", exc_info=True)
                self._query_encoder = False
        if vec is None or not np.isfinite(vec).all():
            vec = self.encoder.encode_query(query)  # never waits behind a sync's encoder batch
        require_finite(vec, self.config.models.bi_encoder, "for this query")
        return vec

    def reranker(self):
        """The cross-encoder, or None when none is configured or present (`reranker_notice` says why)."""
        if self._reranker is None and self._reranker_error is None:
            with MODELS_LOCK:
                self._load_reranker()
        return self._reranker

    def _load_reranker(self) -> None:
        """Call with MODELS_LOCK held; checks again, another thread may have built it meanwhile."""
        if self._reranker is None and self._reranker_error is None:
            spec = self.config.models.reranker
            if not spec:
                self._reranker_error = "reranking is disabled (models.reranker is empty)"
                return
            m = self.config.models
            try:
                from ..models.resolve import resolve_model

                # Find the weights first: when there are none, say so without importing torch (seconds).
                resolve_model(spec, kind="reranker", allow_download=m.allow_download)
                from ..models import CrossEncoder

                self._reranker = CrossEncoder(spec, device=m.device, precision=m.precision,
                                              max_length=m.rerank_max_length, allow_download=m.allow_download,
                                              threads=m.threads)
            except ModelNotFoundError as exc:
                self._reranker_exc = exc
                # Short: printed once per process beside results; `searchapp status` has the long story.
                self._reranker_error = (f"cross-encoder {spec} is not installed, so results are not reranked "
                                        "(point --reranker or [models] reranker at a model folder)")
            except ModelLoadError as exc:  # found but refused (pickles only, custom code) or broken: say why
                self._reranker_exc = exc
                self._reranker_error = f"reranker not loaded: {exc}"

    def require_reranker(self):
        """The cross-encoder the user named explicitly: loaded, or its ModelLoadError raised (exit 5)."""
        cross = self.reranker()
        if cross is None:
            raise self._reranker_exc or ModelNotFoundError(self._reranker_error or "no reranker configured")
        return cross

    def reranker_notice(self) -> Optional[str]:
        return self._reranker_error

    def reranker_loaded(self) -> bool:
        return self._reranker is not None

    def reranker_refused(self) -> Optional[str]:
        """Why a reranker that exists was refused or failed to load (pickles only, custom code, broken), or
        None (loaded, not tried yet, disabled or simply not installed)."""
        exc = self._reranker_exc
        return str(exc) if exc is not None and not isinstance(exc, ModelNotFoundError) else None

    # -- vector index -------------------------------------------------------
    def _dim(self) -> Optional[int]:
        dim = self.store.get_meta("dim")
        return int(dim) if dim else None

    def index(self, progress: Optional[ProgressFn] = None) -> Optional[VectorIndex]:
        if self._index is not None:
            return self._index  # no lock: a search must not wait for a sync (the index guards itself)
        with self._lock:
            if self._index is None:
                dim = self._dim()
                if dim is None:
                    return None
                self._index_generation = self.store.generation()
                self._index, self._index_report = open_vector_index(self.store, self.data_dir, self.config.index, dim, progress)
                if self._index_report.action in ("repaired", "rebuilt"):
                    self._persist_repair()
            return self._index

    def _follow_writers(self) -> Optional[VectorIndex]:
        """The index, brought up to date with what another process (or Library) committed since it was read.

        One generation read per call; on a change, the stored chunk ids are diffed against the index and
        only the difference is added or removed (no re-embedding, no file reload). Never waits: while this
        process writes (it holds the lock), its own sync keeps the index current.
        """
        index = self.index()
        if index is None:
            return None
        generation = self.reader().generation()
        if generation == self._index_generation or not self._lock.acquire(blocking=False):
            return index
        try:
            index = self._index
            if index is not None and generation != self._index_generation:
                dim = self._dim()
                if dim is not None:
                    repair_index(index, self.reader(), dim)
                    self._compact_if_needed()
                self._index_generation = generation
            return self._index
        finally:
            self._lock.release()

    def _persist_repair(self) -> None:
        """Save a repaired index so the next open is clean, but only if no writer is busy: a syncing
        process saves its own newer index, and two savers would just overwrite each other's work."""
        if self.read_only:
            return
        try:
            with writer_lock(self.data_dir, wait=0):
                self._save_index()
        except StoreError:  # another writer holds the lock, or the disk is read-only / full
            log.info("repaired vector index kept in memory only; it is repaired again on the next open")

    def _writable_index(self) -> VectorIndex:
        index = self.index()
        if index is None:
            from ..ann import create_index

            self._index = index = create_index(self.config.index, self._model_identity()[1])
            self._index_report = IndexOpenReport("created")
        return index

    def _save_index(self) -> None:
        """Call with the writer lock held (then any temp file beside the index is a dead process's)."""
        if self._index is None:
            return
        path = index_path(self.data_dir, self.config.index)
        try:
            remove_stale_temps(path)
            self._index.save(path, self.store.generation())
        except OSError as exc:
            raise StoreError(
                f"cannot save the vector index {path}: {exc.strerror or exc}. The previous index file is kept; "
                "the library database has every change and repairs the index on the next open") from None

    def _compact_if_needed(self) -> bool:
        """Rebuild the vector index from stored vectors (no re-embedding) once deleted slots pass
        COMPACT_DELETED_FRACTION: hnswlib only marks deletions, so the file and search cost keep them."""
        index = self._index
        if index is None or index.deleted_fraction() <= COMPACT_DELETED_FRACTION:
            return False
        fresh = rebuild_index(self.store, self.config.index, index.dim)
        self._index = fresh  # one reference swap: a search holding the old index finishes on it
        return True

    def index_notice(self) -> Optional[str]:
        return self._index_report.message if self._index_report and self._index_report.message else None

    # -- model bookkeeping --------------------------------------------------
    def _expected_meta(self) -> dict[str, str]:
        from ..models.identity import library_settings

        fingerprint, dim = self._model_identity()
        return library_settings(self.config, fingerprint, dim)

    def check_model(self) -> None:
        """Raise ModelMismatchError when the library was built with another model, pooling or chunking."""
        reader = self.reader()
        stored = reader.meta()
        if reader.chunk_count() == 0:
            return
        from ..models.identity import reindex_message, reindex_reasons

        problem = reindex_message(reindex_reasons(stored, self._expected_meta()))  # the one rule (status, GUI)
        if problem:
            raise ModelMismatchError(problem)

    def _record_passage_context(self, had_passages: bool, embedded: int) -> None:
        """Meta `chunk_context`: what the stored passages were embedded with ("title", "none", or "mixed" once
        passages of both kinds exist). Unlike a model change this one is soft: both kinds of vector live in one
        space, so the library stays usable and `status` suggests a reindex (see passage_context_note)."""
        context = passage_context(self.config)
        with self.store.atomic():
            if not had_passages:
                self.store.set_meta("chunk_context", context)
            elif embedded and self.store.get_meta("chunk_context") != context:
                self.store.set_meta("chunk_context", "mixed")

    def _record_model(self) -> None:
        with self.store.atomic():
            for k, v in self._expected_meta().items():
                self.store.set_meta(k, v)

    # -- writes -------------------------------------------------------------
    def add_folder(self, path: str | os.PathLike, progress: Optional[ProgressFn] = None,
                   cancel: Optional[CancelToken] = None) -> SyncReport:
        root = os.path.abspath(os.path.expanduser(os.fspath(path)))
        if not os.path.exists(root):
            if self.store.root_by_path(root) is not None:
                raise ConfigError(f"{root} is indexed but cannot be read now (renamed, or on a drive that is not "
                                  f"connected); its passages are kept. `searchapp remove {root}` forgets it")
            raise ConfigError(f"no such file or folder: {root}")
        self._require_writable()
        with self._lock, writer_lock(self.data_dir):
            self.check_model()
            roots = self.store.roots()
            owner = owning_root(root, [r.path for r in roots])
            if owner is not None and owner != root:
                # Inside an indexed folder: synced as part of it, never a root of its own (a second root
                # would hide it from `remove` of its folder, and be re-embedded when removed on its own).
                owner_row = self.store.root_by_path(owner)
                rep = self._run_sync([(owner_row, [root])], progress, cancel)
                scan = self.config.scan
                if in_scope(owner, root, scan.skip_dirs, scan.exclude):
                    rep.notes.append(f"{root} is inside the indexed folder {owner}; synced as part of it")
                else:
                    rep.notes.append(f"{root} is inside the indexed folder {owner} but hidden, in scan.skip_dirs or "
                                     "in scan.exclude there: not indexed")
                return rep
            self.store.add_root(root)
            self._absorb_nested(self.store.root_by_path(root))
            rep = self._sync([root], progress, cancel)
        if self._watcher is not None:
            self._watcher.add_root(root)
        return rep

    def _absorb_nested(self, outer) -> None:
        """Indexed folders inside `outer` that its scan reaches become part of it: their files move over with
        their passages and vectors, so nothing is embedded again. Ones its scan skips (hidden, skip_dirs,
        exclude) stay roots of their own. Call with the writer lock held."""
        scan = self.config.scan
        if missing_reason(outer.path, True) is not None:
            return  # its scan could not reach them now
        inner = [r for r in self.store.roots() if r.id != outer.id and r.path.startswith(outer.path.rstrip(os.sep) + os.sep)
                 and in_scope(outer.path, r.path, scan.skip_dirs, scan.exclude)]
        if inner:
            with self.store.atomic():
                self.store.absorb_roots(outer.id, [r.id for r in inner])

    def sync(self, paths: Optional[list[str]] = None, progress: Optional[ProgressFn] = None,
             cancel: Optional[CancelToken] = None) -> SyncReport:
        self._require_writable()
        with self._lock, writer_lock(self.data_dir):
            self.check_model()
            rep = self._sync(paths, progress, cancel)
            if paths is None and not rep.missing_roots:
                self._clear_reindex_mark()
            return rep

    def sync_changed(self, changed: list[str], progress: Optional[ProgressFn] = None,
                     cancel: Optional[CancelToken] = None) -> SyncReport:
        """Sync only `changed` files and folders (e.g. from a file watcher): each is matched to the indexed
        root it lies under; the rest of every root is neither scanned nor read."""
        self._require_writable()
        with self._lock, writer_lock(self.data_dir):
            self.check_model()
            by_root: dict[int, list[str]] = {}
            roots = self.store.roots()
            for p in changed:
                p = os.path.abspath(p)
                owners = [r for r in roots if p == r.path or p.startswith(r.path.rstrip(os.sep) + os.sep)]
                if owners:  # the innermost root owns a path (roots may be nested)
                    by_root.setdefault(max(owners, key=lambda r: len(r.path)).id, []).append(p)
            scoped = {r.id: (r, by_root[r.id]) for r in roots if r.id in by_root}
            return self._run_sync(list(scoped.values()), progress, cancel)

    def _sync(self, paths: Optional[list[str]], progress, cancel) -> SyncReport:
        for outer in sorted(self.store.roots(), key=lambda r: len(r.path)):  # libraries made before roots merged
            if self.store.root_by_path(outer.path) is not None:
                self._absorb_nested(outer)
        roots = self.store.roots()
        if paths is not None:
            wanted = {os.path.abspath(p) for p in paths}
            roots = [r for r in roots if r.path in wanted]
        return self._run_sync([(r, None) for r in roots], progress, cancel)

    def _run_sync(self, work, progress, cancel) -> SyncReport:
        """`work`: (root, None for a full scan or the changed paths under it). Holds the writer lock."""
        total = SyncReport()
        if not work:
            return total
        lower_thread_priority()  # background work: searches (this process's or another's) go first
        try:
            self._record_model()
            had_passages = self.store.chunk_count() > 0
            index = self._writable_index()
            encoder = LazyEncoder(lambda: self.encoder)  # loaded only when a file needs chunking or embedding
            try:
                for root, paths in work:
                    total.merge(sync_root(self.store, root, self.config, encoder, lambda: self._index,
                                          progress, cancel, paths=paths))
                self._record_passage_context(had_passages, total.chunks_embedded)
                self._compact_if_needed()
            except BaseException:
                # Also on Cancelled or an error: what was committed is saved with its generation. A second
                # error while saving must not hide the first one.
                try:
                    self._save_index()
                except StoreError as exc:
                    log.warning("%s", exc)
                raise
            report(progress, "saving", 0, 1)
            self._save_index()
            self._index_generation = self.store.generation()
            report(progress, "saving", 1, 1)
        except sqlite3.OperationalError as exc:  # e.g. "database or disk is full" outside a batch transaction
            raise StoreError(f"library database write failed: {exc} (is the disk under {self.data_dir} full or "
                             "read-only?); everything committed before is kept") from exc
        return total

    def remove_folder(self, path: str | os.PathLike) -> int:
        """Forget a root and everything indexed under it; returns the number of files removed."""
        root = os.path.abspath(os.path.expanduser(os.fspath(path)))
        self._require_writable()
        with self._lock, writer_lock(self.data_dir):
            row = self.store.root_by_path(root)
            if row is None:
                owner = owning_root(root, [r.path for r in self.store.roots()])
                if owner is not None:
                    raise ConfigError(
                        f"{root} is not an indexed folder of its own: it belongs to {owner} and is synced with it. "
                        f"To leave it out, add it to `exclude` under [scan] in the config file "
                        f"(exclude = [\"{root}\"]) and run `searchapp index`; `searchapp remove {owner}` forgets "
                        "the whole folder")
                known = ", ".join(r.path for r in self.store.roots()) or "none"
                raise ConfigError(f"{root} is not an indexed folder (indexed: {known})")
            n_files = len(self.store.files_of_root(row.id))
            with self.store.atomic():
                ids = self.store.delete_root(row.id)
                self.store.bump_generation()
            index = self.index()
            if index is not None:
                index.remove(ids)
                self._compact_if_needed()
                self._save_index()
                self._index_generation = self.store.generation()
            self.store.vacuum_if_sparse()  # after the index save: a crash here loses nothing
            return n_files

    def reindex(self, progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> SyncReport:
        """Drop every passage and vector and index all roots again with the current model and chunking."""
        self._require_writable()
        with self._lock, writer_lock(self.data_dir):
            # Rebuilding drops every passage first: a folder that cannot be read now would lose them all.
            missing = [r.path for r in self.store.roots() if root_missing(self.store, r)]
            if missing:
                raise SearchAppError(
                    f"cannot reindex while {', '.join(missing)} cannot be read (its passages would be lost); "
                    "reconnect it, or forget it with `searchapp remove`")
            before = self.store.chunk_count()
            with self.store.atomic():
                self.store.forget_files()
                # Searches meanwhile (another process, the window) see a library filling up again: this
                # marker lets them say so instead of silently returning nothing (see reindex_notice).
                self.store.set_meta(REINDEX_META, str(before))
                self.store.bump_generation()
            self._index = None
            for p in self.data_dir.glob("vectors.*"):
                p.unlink()
            rep = self._sync(None, progress, cancel)
            self._clear_reindex_mark()
            return rep

    def _clear_reindex_mark(self) -> None:
        """Call with the writer lock held, after every root was synced in full (a reindex finished, or a
        plain sync finished what an interrupted one left)."""
        if self.store.get_meta(REINDEX_META):
            with self.store.atomic():
                self.store.set_meta(REINDEX_META, "")

    def reindex_notice(self) -> Optional[str]:
        """"reindex in progress: N% of passages embedded" while a reindex (here or in another process) has not
        finished, else None. N compares the passages stored so far with those before the reindex began."""
        reader = self.reader()
        before = reader.get_meta(REINDEX_META)
        if not before or not before.isdigit() or int(before) == 0:
            return None
        done = min(99, 100 * reader.chunk_count() // int(before))  # chunking may change the total: never 100
        return (f"reindex in progress: {done}% of passages embedded; results come only from those "
                "(an interrupted reindex finishes with `searchapp reindex` or `searchapp index`)")

    # -- reads --------------------------------------------------------------
    @_reads
    def search(self, query: str, *, k: Optional[int] = None, mode: Optional[str] = None, rerank: Optional[bool] = None,
               candidates: Optional[int] = None, rerank_depth: Optional[int] = None,
               filters: Optional[SearchFilters] = None, group: Optional[str] = None,
               literal: bool = False) -> SearchResult:
        """`group`: "file" (each file once, its other passages in `Hit.more`; k counts files) or "passage".
        `query` may use the query syntax (query_syntax.py) unless `literal`."""
        s = self.config.search
        mode = mode or s.mode
        if mode not in ("hybrid", "dense", "lexical"):
            raise ConfigError(f"unknown search mode {mode!r} (hybrid, dense or lexical)")
        parsed = parse_for_search(query, literal)  # issue 22: None for a plain query, searched as before
        problem = query_problem(query, mode) if parsed is None else None
        if problem:  # nothing to match or embed: no arbitrary hits
            return SearchResult(query, mode, [], False, notice=problem)
        # Per-call values obey the config's ranges (--k 0 or --candidates -1 is an error, not the default).
        k = s.k if k is None else check_setting("search.k", k)
        candidates = max(s.candidates, k) if candidates is None else check_setting("search.candidates", candidates)
        if rerank_depth is not None:
            check_setting("search.candidates", rerank_depth)
        group = group or s.group
        if group not in ("file", "passage"):
            raise ConfigError(f"unknown grouping {group!r} (file or passage)")
        # ef is passed per call, never set on the shared index: a similar or duplicates call may run beside this one.
        ef = max(self.config.index.ef_search, candidates * (POOL_FACTOR if group == "file" else 1))
        req = SearchRequest(query=query, k=k, mode=mode, candidates=candidates,
                            rerank_depth=rerank_depth or candidates, rrf_k=s.rrf_k, filters=filters, group=group,
                            fusion=s.fusion, dense_weight=s.dense_weight, ef=ef, parsed=parsed)
        encode_query = None
        index = None
        if mode != "lexical":
            self.check_model()
            index = self._follow_writers()
            encode_query = self._encode_query
        # Lexical mode is the fast, exact-words mode: it never loads a model unless reranking is asked for.
        want_rerank = (s.rerank and mode != "lexical") if rerank is None else rerank
        cross = self.reranker() if want_rerank else None
        result = run_search(req, self.reader(), index, encode_query, cross.score if cross is not None else None)
        for h in result.hits:  # a hit from a missing folder is still shown, marked as unavailable
            h.available = os.path.exists(real_path(h.path))
            for m in h.more:  # the same file
                m.available = h.available
        # lexical search says nothing about models; nor does a listing by date (its notice says why: issue 22)
        if want_rerank and cross is None and mode != "lexical" and not result.notice:
            result.notice = self._reranker_error
        result.reindex_notice = self.reindex_notice()
        return result

    # -- issue 22: saved searches (saved_searches.py) re-run when this changes --
    @_reads
    def generation(self) -> int:
        """The library's write generation: it changes after every write (sync batch, remove, reindex)."""
        return self.reader().generation()

    @_reads
    def similar(self, path: str, *, page: Optional[int] = None, k: Optional[int] = None,
                filters: Optional[SearchFilters] = None) -> SearchResult:
        """Files most like the indexed file `path` (or its page `page`), from stored vectors only: no model
        is loaded. Hits are files (best passage pair shown); see similar.py for the score."""
        from .similar import find_similar

        index = self.index()  # searched with its default ef (index.ef_search)
        return find_similar(self.reader(), index, self._dim(), path, page=page, k=k or self.config.search.k,
                            filters=filters)

    @_reads
    def duplicates(self, threshold: Optional[float] = None, progress: Optional[ProgressFn] = None,
                   cancel: Optional[CancelToken] = None) -> DuplicateReport:
        """Exact copies (same sha256) and near duplicates (same meaning) among indexed files; no model is
        loaded. See duplicates.py for the similarity and DEFAULT_THRESHOLD for how the default was chosen."""
        from .duplicates import DEFAULT_THRESHOLD, find_duplicates

        return find_duplicates(self.reader(), self.index(), self._dim(),
                               threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
                               progress=progress, cancel=cancel)

    @_reads
    def status(self) -> LibraryStatus:
        from ..models.device_summary import describe_device  # no torch import on a machine without CUDA

        db = self.reader()
        roots = []
        for r in db.roots():
            n_files, n_chunks = db.conn.execute(
                "SELECT count(*), coalesce(sum(n_chunks), 0) FROM files WHERE root_id = ?", (r.id,)).fetchone()
            gone = root_missing(db, r)
            roots.append(RootStatus(r.path, n_files, n_chunks, r.last_sync, missing=gone is not None,
                                    state="missing" if gone else "ok", reason=gone))
        index = self._follow_writers()
        chunks = db.chunk_count()
        vectors = len(index) if index is not None else 0
        stored_ids = db.chunk_ids()
        unusable = self._unusable_vectors(db, index, stored_ids)
        # Rows with NaN/inf vectors are left out of the index on purpose: consistent when all else matches.
        consistent = vectors + len(unusable) == chunks and (
            index is None or np.array_equal(np.union1d(index.ids(), unusable), stored_ids))
        meta = db.meta()
        from ..models.resolve import resolve_model

        m = self.config.models
        rer: dict[str, Optional[str]] = {"spec": m.reranker or None, "path": None, "available": "no", "message": None,
                                         "refused": None}
        if m.reranker:
            try:
                rer["path"] = str(resolve_model(m.reranker, kind="reranker", allow_download=False).path)
                rer["available"] = "yes"
            except ModelLoadError as exc:
                rer["message"] = str(exc)
                if not isinstance(exc, ModelNotFoundError):  # found but refused: pickles only, custom code
                    rer["refused"] = str(exc)
        notes = [n for n in (self.index_notice(), passage_context_note(self.config, meta) if chunks else None,
                             self.reindex_notice()) if n]
        reindex_needed = settings_mismatch(self.config, meta) if chunks else None
        if len(unusable):
            why = (f"{len(unusable)} passages have vectors that are not finite (NaN/inf, from a model that failed); "
                   "dense search leaves them out until `searchapp reindex` embeds them again with a working model")
            notes.append(why)
            reindex_needed = reindex_needed or why
        return LibraryStatus(
            data_dir=str(self.data_dir),
            roots=roots,
            files=db.file_counts(),
            chunks=chunks,
            vectors=vectors,
            consistent=bool(consistent) and db.integrity_ok(),
            failed=[(f.path, f.status, f.error or "") for f in db.problem_files()],
            bi_encoder={"spec": m.bi_encoder, "pooling": m.pooling, "library_model": meta.get("model"),
                        "library_pooling": meta.get("pooling"), "fingerprint": meta.get("model_fingerprint")},
            reranker=rer,
            device=describe_device(m.device, m.threads),
            notes=notes,
            reindex_needed=reindex_needed,
        )

    @staticmethod
    def _unusable_vectors(db: Store, index: Optional[VectorIndex], stored_ids: np.ndarray) -> np.ndarray:
        """Ids of stored passages whose vectors are NaN/inf (left out of the index): among those the index
        lacks, the ones Store.vectors does not return. Cheap: only the passages missing from the index are read."""
        if index is None or not len(stored_ids):
            return np.empty(0, np.int64)
        absent = np.setdiff1d(stored_ids, index.ids())
        if not len(absent):
            return absent
        finite_ids, _ = db.vectors(absent.tolist())
        return np.setdiff1d(absent, finite_ids)

    # -- live updates -------------------------------------------------------
    @property
    @_reads
    def last_changed(self) -> Optional[float]:
        """When passages were last added or removed (seconds since the epoch; kept across restarts), or None."""
        value = self.reader().get_meta("changed_at")
        return float(value) if value else None

    @property
    def watching(self) -> bool:
        return self._watcher is not None and self._watcher.running

    def start_watching(self, on_change=None, *, debounce: float = 1.0, on_error=None, **options):
        """Keep the library current: watch every root and sync what changes, `debounce` seconds after the
        last event of a burst. `on_change(report, paths)` and `on_error(exc)` run on the watcher's thread.
        Call `sync()` first to catch up with changes made while nothing was watching. Returns the watcher
        (its `mode` is "events" or "polling" and `note` says why it fell back). `options`: poll_interval,
        force_polling."""
        from .watch import LibraryWatcher  # watchdog is imported only when watching

        self._require_writable()
        with self._lock:
            if self._watcher is None:
                self._watcher = LibraryWatcher(self, on_change=on_change, on_error=on_error, debounce=debounce,
                                               **options)
                self._watcher.start()
            return self._watcher

    def stop_watching(self) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()

    @_reads
    def ann_recall(self, k: int = 10, sample: int = 200, *, ef: Optional[int] = None, seed: int = 0) -> dict:
        """Recall@k of the vector index against exact search over `sample` stored vectors (see ann_recall.py)."""
        from .ann_recall import measure_ann_recall

        index = self.index()
        dim = self._dim()
        if index is None or dim is None:
            return {f"recall@{k}": None, "k": k, "queries": 0, "vectors": 0, "primary_metric": f"recall@{k}",
                    "ef_search": ef or self.config.index.ef_search, "backend": self.config.index.backend}
        ids, vectors = self.reader().vectors(None, dim)
        return measure_ann_recall(index, ids, vectors, k=k, sample=sample, ef=ef or self.config.index.ef_search,
                                  seed=seed)

    def close(self) -> None:
        """Stop watching, wait for searches in flight (another thread may be mid-query) and for a running
        sync, then close every connection. Closing a SQLite connection under a running query can crash."""
        with self._reads_cv:
            if self._closed:
                return
            self._closed = True
            self._reads_cv.wait_for(lambda: self._reads_in_flight == 0, timeout=60)
        self.stop_watching()
        self._lock.acquire()  # a sync holds it; callers cancel theirs first
        self._lock.release()
        for st in self._readers:
            st.close()
        self._readers.clear()
        self.store.close()

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
