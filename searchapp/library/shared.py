"""SharedLibrary: Library's façade over a shared (PostgreSQL) library (decision 0119): add a folder, sync, search
(lexical, dense, hybrid), similar, duplicates, remove and undo, reindex, status, and what the window asks beside
them (decision 0141).

The words pass, the meaning pass and the search pipeline are the SQLite library's own (library/sync,
library/search/pipeline.py) over a PgStore. One writer at a time: a session advisory lock of the database,
one per root (decision 0125), held while a sync writes that root and let go by the server when the writing
process ends, however it ends (a machine killed mid-sync leaves no lock behind). What is not here yet says so in one line (NotShared).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence, cast

from ..base.config import Config
from ..base.errors import ConfigError, HeldElsewhere, StoreError
from ..base.progress import CancelToken, ProgressFn
from ..base.stored_names import stored_name
from .ocr.marks import mark_ocr
from .resources.lock import WriterWait
from .resources.model_set import ModelSet
from .search.named import put_named_first
from .search.pipeline import mark_available, run_search, search_request, searched_words
from .search.places import place_text, unplaced
from .search.result import MEANING, NEAR, PLACE, SAME, UNSEARCHABLE, Notice, SearchResult, meaning_text
from .sync.contract import SyncReport
from .sync.meaning_pass import meaning_percent, meaning_progress
from .sync.roots import linked_folders
from ..base.library_address import shown
from ..base.path_map import PathMap
from ..ingest.fsnames import is_within
from . import shared_paths
from ..store.postgres.pg_index import PgVectorIndex
from ..store.postgres.pg_lexical import NOT_YET
from ..store.postgres.pg_store import MACHINE_ENV, WRITER_LOCK, PgStore  # WRITER_LOCK: pg_locks' classid of a root's lock
from ..store.postgres.schema import SCHEMA_VERSION

if TYPE_CHECKING:
    from ..ann import VectorIndex
    from ..models.bi_encoder import BiEncoder
    from ..models.cross_encoder import CrossEncoder
    from ..store.rows import RootRow
    from .search.duplicates import DuplicateReport
    from .query.filters import SearchFilters
    from .report.status import LibraryStatus
    from .warm.server import CommandRunner
    from ..store import Store
    from ..store.rows import FileRow

__all__ = ["SharedLibrary", "SharedStatus", "NotShared", "RootBusy", "WRITER_LOCK", "HOST_KEY", "TAKE_OVER_ENV"]

HOST_KEY = "host:"  # meta key prefix: "host:<machine name>" -> the digest of the computer writing under that name
TAKE_OVER_ENV = "SEARCHAPP_MACHINE_TAKE_OVER"  # "1": this computer takes its machine name over (decision 0149)


class NotShared(ConfigError):
    """A command or option a shared library does not run yet: one line, exit 2."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{NOT_YET}: {what} (docs/shared-library.md says what works now)")


class RootBusy(StoreError):
    """Another process holds the writer lock of a root this one would write: nothing was changed; try again."""


@dataclass
class SharedStatus:
    address: str
    machine: str
    # (machine, path, files, passages, members): the members of archives and mail last, apart from the files on
    # disk (decision 0163), where a script reading the first four finds what it found before
    roots: list[tuple[str, str, int, int, int]] = field(default_factory=list)
    mounts: list[tuple[str, str, str]] = field(default_factory=list)  # (machine, path, where mounted here)
    unmatched: list[str] = field(default_factory=list)  # library.path_map entries that map no folder, said
    # (machine, path) of a folder this desktop cannot read now -> why: `status` marks it (shared_check.missing_folders
    # fills it there: shared_check imports this module)
    missing: dict[tuple[str, str], str] = field(default_factory=dict)
    files: int = 0  # on disk (an archive or a mailbox is one); the entries read out of them are `members`
    passages: int = 0
    embedded: int = 0
    problems: int = 0  # files skipped or failed
    members: int = 0  # of archives and mail (decision 0163)
    member_problems: int = 0  # members skipped or failed
    model: Optional[str] = None
    dim: Optional[int] = None
    generation: int = 0


class SharedLibrary:
    def __init__(self, config: Config, address: str, *, create: bool = False, encoder: Optional[BiEncoder] = None,
                 reranker: Optional[CrossEncoder] = None, machine: Optional[str] = None) -> None:
        self.config = config
        self.address = address
        self.store = PgStore(address, create=create, machine=machine)
        self.models = ModelSet(config, encoder=encoder, reranker=reranker)
        self.models.library_state = lambda: (self.store.meta(), self.store.has_chunks())
        self.models.shared = True  # a mismatch is told "set this desktop's settings back", never "reindex"
        # The sync and the search take a Store; a PgStore answers every call they make (pg_store.py).
        self._as_store = cast("Store", self.store)
        # A role with SELECT rights only: searches, and records nothing (history, saved searches), as a
        # desktop library opened read-only (library/query/saved.py asks `read_only`).
        self.read_only = not self.store.may_write()
        # Other machines' folders as mounted here (decision 0134): answers name their files so, and take such names.
        self.paths = PathMap(config.library.path_map, self.store.machine)
        self.data_dir = config.data_dir  # this desktop's own (cmd_remove drops an expired local undo file there)
        self.keeps_undo = False  # no undo file in the data dir: the database keeps a Remove's rows (shared_upkeep.py)
        # How a write waits for another process holding one of its roots' locks: not at all unless told (the
        # command line's wait_turn, cli/writer_wait.py; `watch` retries on its own)
        self.writer_wait = WriterWait(0)

    def open_notice(self) -> Optional[str]:
        return None  # the data dir's notices (permissions tightened) are not this library's

    def roots(self) -> list[str]:
        """This machine's indexed folders (another machine's are its to sync and remove)."""
        return [r.path for r in self.store.roots()]

    def generation(self) -> int:
        """The library's write generation (saved searches count new hits again when it changes)."""
        return self.store.generation()

    def close(self) -> None:
        self.store.close()

    # -- what the window asks of its library beside the commands (gui/library_session.py, decision 0141) ----
    def serve(self, commands: Optional[CommandRunner] = None) -> Optional[str]:
        """No warm process: a terminal's search on a shared library connects to the server itself, and the
        window holds no index in memory to lend it. Why not, as Library.serve says it."""
        return "a shared library's searches connect to its server themselves"

    def stop_serving(self) -> None:
        pass

    def load_in_background(self, on_done: Optional[Callable[[], None]] = None, *,
                           give_up_after: Optional[float] = None) -> bool:
        """Nothing to open: the vectors are the server's own index, searchable at once (False, as Library says
        when there is no index to load)."""
        return False

    def meaning_loading(self) -> bool:
        return False

    def want(self, path: str) -> None:
        """The person opened `path`. A desktop embeds it next; here the meaning pass belongs to the machine that
        syncs the file's folder, which may be another: nothing is reordered (the window's search embeds its own
        top word matches on the spot as it does on the desktop)."""

    def forget_removed(self) -> None:
        """The window's Undo has expired: this machine's kept removal is dropped now, not at the next Remove."""
        from .shared_upkeep import forget_removed

        forget_removed(self)

    def __enter__(self) -> "SharedLibrary":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes -------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _writing(self, roots: list[RootRow], check_model: bool = True) -> Iterator[None]:
        """Hold the writer lock of each of `roots` (RootRows of this machine) while writing them: one writer per
        root, so machines sync their own roots at the same time (decision 0125). A root another process is
        writing is one line, nothing changed. The meaning pass embeds these roots' passages only."""
        self._refuse_outdated()
        self._refuse_name_clash()
        self._take_root_locks(roots)
        try:
            if check_model:
                self.models.check_library(self.store)
            yield
        finally:
            with contextlib.suppress(StoreError):
                self.store.release_root_locks([r.id for r in roots])

    def _take_root_locks(self, roots: list[RootRow]) -> None:
        """Take the writer locks of `roots`, waiting as `writer_wait` says for another process writing one of them
        (the desktop's rule, decision 0101: the command line waits unless --no-wait, cli/writer_wait.py): RootBusy
        past its time, nothing changed; Cancelled when the person stops waiting."""
        from .resources.lock import NOTICE_AFTER, REMIND_EVERY, Holder

        how, start, told = self.writer_wait, time.monotonic(), None
        while True:
            busy = self.store.try_root_locks([r.id for r in roots])
            if busy is None:
                return
            path = next(r.path for r in roots if r.id == busy)
            waited = time.monotonic() - start
            if how.seconds is not None and waited >= how.seconds:
                raise RootBusy(f"another process is syncing {path} in the shared library {shown(self.address)} "
                               f"now; try again when it is done (nothing was changed){how.hint}")
            check = getattr(how.cancel, "check", None)
            if check is not None:
                check()
            if how.on_wait is not None and waited >= NOTICE_AFTER and (told is None or waited - told >= REMIND_EVERY):
                told = waited  # no process id here to name: the holder may be on another computer of this name
                how.on_wait(Holder(0, f"another process syncing {path} in the shared library"), waited)
            time.sleep(0.05 if waited < 1.0 else 0.2)

    def _embedder(self) -> Optional[str]:
        """Who embeds the passages still waiting, for status: each machine's own sync embeds its files' (a
        tester was told to run `searchapp index` for other machines' passages, which it never embeds)."""
        waiting = self.store.pending_by_machine()
        own = waiting.pop(self.store.machine, 0)
        if not waiting:
            return None  # this machine's alone, or none: `searchapp index` here
        theirs = ", ".join(sorted(waiting))
        return (f"`searchapp index` embeds this machine's {own}, and {theirs} theirs" if own else
                f"{theirs}'s own sync embeds them")

    def _refuse_name_clash(self) -> None:
        """Two computers under one machine name would write each other's folders: the same path is one entry, so
        each sync undid the other's and nothing said so (a tester's two desktops, the default name being the host
        name: cloned machines share it). The first computer to write under a name holds it; another is refused
        until it takes a name of its own, or takes this one over (the same computer reinstalled), decision 0149."""
        from ..base.host_id import host_id

        mine = host_id()
        if mine is None or self.read_only:
            return
        key = HOST_KEY + self.store.machine
        if self.store.claim_meta(key, mine) == mine:
            return
        if os.environ.get(TAKE_OVER_ENV) != "1":
            raise StoreError(f"another computer already writes to the shared library {shown(self.address)} as "
                             f"machine {self.store.machine!r}: set ${MACHINE_ENV} to a name of this computer's own; "
                             f"if this is that computer installed again, run once with {TAKE_OVER_ENV}=1 to take the "
                             "name over (nothing was changed)")
        self.store.set_meta(key, mine)

    def _refuse_outdated(self) -> None:
        """A library of an older schema is brought up to this version by its first writer that may alter its
        tables (their owner); a role that only writes rows writes nothing into it, rather than failing halfway on
        a table or column the older version lacks (decision 0144). A read-only role is refused as before."""
        version = self.store.schema_version
        if not self.read_only and version < SCHEMA_VERSION and not self.store.may_migrate():
            raise StoreError(f"the shared library {shown(self.address)} was made by an older searchapp (schema "
                             f"{version}, this one writes {SCHEMA_VERSION}) and only the role that owns its tables may "
                             "bring it up to date: its owner's next `searchapp --library ADDRESS index` does; searches "
                             "work meanwhile; nothing was changed")

    def add_folder(self, path: str | os.PathLike[str], progress: Optional[ProgressFn] = None,
                   cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        return self.add_folders([path], progress, cancel, embed=embed)

    def add_folders(self, paths: Sequence[str | os.PathLike[str]], progress: Optional[ProgressFn] = None,
                    cancel: Optional[CancelToken] = None, *, embed: bool = True, also: bool = False) -> SyncReport:
        """Index folders or files in one sync (a file moved between two of them said once, its meaning kept, as
        Library.add_folders); each is checked before anything is written. A folder another machine indexes
        already, the very files, is refused (HeldElsewhere, exit 2) unless `also` (shared_paths.same_folder)."""
        from .sync.roots import absorb_nested, places_to_add

        self._refuse_outdated()
        self._refuse_name_clash()
        # inside this machine's folders through links, where they really are (decision 0192); a new one as typed: the
        # path map names another machine's folders where this one mounts them (a link, often)
        roots, notes = places_to_add(self._as_store, paths, new_as_typed=True)
        for root in roots:
            if not also and self.store.root_by_path(root) is None:
                why = shared_paths.same_folder(self.store, self.paths, root, int(self.config.scan.max_file_mb * 2**20),
                                                self.config.scan.skip_dirs)
                if why is not None:
                    raise HeldElsewhere(why, root, one_file=os.path.isfile(root))
            inside = [r.path for r in self.store.roots()
                      if root != r.path and root.startswith(r.path.rstrip(os.sep) + os.sep)]
            if inside:
                what = "a folder" if os.path.isdir(root) else "a file"  # `index` takes files too: named as what it is
                raise NotShared(f"{what} inside the indexed folder {inside[0]} (sync that folder instead)")
        new = [root for root in roots if self.store.root_by_path(root) is None]
        for root in roots:
            self.store.add_root(root)
        below = tuple(root.rstrip(os.sep) + os.sep for root in roots)
        held = [r for r in self.store.roots() if r.path in roots or r.path.startswith(below)]  # and those they take in
        with self._writing(held):
            # The folders already indexed inside them become part of them, their passages kept (as Library does).
            for root in sorted(roots, key=len):
                row = self.store.root_by_path(root)
                if row is not None:  # not taken in by one of `roots` above it
                    absorb_nested(self._as_store, row, self.config.scan)
            synced = [root for root in roots if self.store.root_by_path(root) is not None]
            report = self._sync(synced, progress, cancel, embed)
        for root in (r for r in new if r in synced):  # said once, when added: a later sync was the person's choice
            report.notes += shared_paths.held_elsewhere(self.store, self.paths, root)
        report.notes[:0] = notes
        return report

    def refuse_others(self, folder: str, does: str) -> None:
        """ConfigError when `folder` is another machine's (shared_upkeep.refuse_others): `moved` asks it."""
        from .shared_upkeep import refuse_others

        refuse_others(self, folder, does)

    def remove_folder(self, path: str | os.PathLike[str], *, undoable: bool = False) -> int:
        """Forget one of this machine's folders and everything indexed under it, in one transaction; the number
        of files removed. `undoable`: its rows are kept in the library for this machine's `undo_remove`."""
        from .shared_upkeep import remove_folder

        return remove_folder(self, os.fspath(path), undoable)

    def undo_remove(self) -> tuple[str, int]:
        """Put back the folder this machine's last Remove took out, within a minute: (path, files)."""
        from .shared_upkeep import undo_remove

        return undo_remove(self)

    def reindex(self, progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None, *,
                embed: bool = True) -> SyncReport:
        """Read every file of this machine's folders again (shared_upkeep.reindex); the report's `resumed`: the
        files an interrupted reindex still had to read when this one went on with it, or None."""
        from .shared_upkeep import reindex

        return reindex(self, progress, cancel, embed)

    def sync(self, paths: Optional[list[str]] = None, progress: Optional[ProgressFn] = None,
             cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        """This machine's roots (another machine's are its to sync)."""
        from ..store.postgres.pg_reread import finished

        wanted = None if paths is None else {stored_name(os.path.abspath(p)) for p in paths}
        with self._writing([r for r in self.store.roots() if wanted is None or r.path in wanted]):
            rep = self._sync(paths, progress, cancel, embed)
            if paths is None and not rep.missing_roots and not self.read_only:  # it finished an interrupted reindex
                with self.store.atomic():
                    finished(self.store)
            return rep

    def sync_changed(self, changed: list[str], progress: Optional[ProgressFn] = None,
                     cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport:
        """Sync only `changed` files and folders (a file watcher's, library/sync/watch.py), each under the one of
        this machine's roots it lies in, holding those roots' writer locks; the rest of every root is not read."""
        from .sync.roots import paths_by_root
        from .shared_sync import sync_work

        work = paths_by_root(changed, self.store.roots())
        if not work:
            return SyncReport()
        with self._writing([root for root, _ in work]):
            return sync_work(self, [(root, paths) for root, paths in work], progress, cancel, embed)

    def reader(self) -> Store:
        """The store the watcher reads this machine's roots from (LibraryToWatch)."""
        return self._as_store

    def _sync(self, paths: Optional[list[str]], progress: Optional[ProgressFn], cancel: Optional[CancelToken],
              embed: bool) -> SyncReport:
        from .shared_sync import sync_work

        wanted = None if paths is None else {stored_name(os.path.abspath(p)) for p in paths}
        roots = [r for r in self.store.roots() if wanted is None or r.path in wanted]
        return sync_work(self, [(root, None) for root in roots], progress, cancel, embed)

    # -- reads --------------------------------------------------------------------------------------------
    def search(self, query: str, *, k: Optional[int] = None, mode: Optional[str] = None,
               rerank: Optional[bool] = None, candidates: Optional[int] = None, group: Optional[str] = None,
               literal: bool = False, filters: Optional["SearchFilters"] = None,
               meaning_wait: Optional[float] = None) -> SearchResult:
        """As Library.search; `meaning_wait` is for an index still opening, which a shared library never has."""
        from .query.prepared import prepare_query

        s = self.config.search
        mode = mode or s.mode
        if mode not in ("hybrid", "dense", "lexical"):
            raise ConfigError(f"unknown search mode {mode!r} (hybrid, dense or lexical)")
        read = prepare_query(query, mode, literal)  # the query language as Library.search reads it
        query, parsed, warnings, reading = read.query, read.parsed, read.warnings, read.reading
        if read.problem:
            return SearchResult(query, mode, [], False, notices=[Notice(UNSEARCHABLE, read.problem)],
                                warnings=warnings, reading=reading)
        if filters is not None and filters.folders:
            filters = dataclasses.replace(filters, folders=self._mapped_places(filters.folders))
        if parsed is not None and parsed.folders:
            parsed = dataclasses.replace(parsed, folders=self._mapped_places(parsed.folders))
        req = search_request(self.config, query, mode, k=k, candidates=candidates, rerank_depth=None,
                             filters=filters if filters is not None and filters.active else None, group=group,
                             parsed=parsed, literal=literal)
        index, encode_query = None, None
        if mode != "lexical":
            self.models.check_library(self.store)
            dim = self.store.dim()
            if dim is not None:
                index, encode_query = PgVectorIndex(self.store, dim), self.models.encode_query
        want_rerank = (s.rerank and mode != "lexical") if rerank is None else rerank
        cross = self.models.reranker() if want_rerank else None
        # A hybrid search's words are read on a second connection while its query is embedded and pgvector searches
        # (pg_words_ahead.py); any search reads them once. Not inside a transaction of this connection's: what it
        # holds locked, another connection would wait for.
        ahead = mode == "hybrid" and index is not None and self.store.transaction_depth() == 0
        with self.store.words_ahead.search(*searched_words(req), ahead=ahead):
            result = run_search(req, self._as_store, cast("Optional[VectorIndex]", index), encode_query,
                                cross.score if cross is not None else None, None,
                                self.models.chunker().reads_whole if encode_query is not None else None,
                                self.models.knows_word)
        if parsed is None and not literal:  # a name typed, as on the desktop (search/named.py); the library's paths
            put_named_first(self._as_store, result, query, req.k, filters)
        mark_ocr(result, self._as_store)  # "(OCR)", as on the desktop: by the indexed paths, before they are mapped
        shared_paths.local_hits(self.store, self.paths, result.hits)
        result.here = self.store.machine
        # at this desktop's paths; a drive that stops answering is waited on once for each folder of the library
        # (its own, and the others' where mounted here), not once for each folder holding a row
        mark_available(result, lambda: [r.path for r in self.store.roots()]
                       + [here for _, _, here in shared_paths.mounted_roots(self.store, self.paths)])
        result.warnings, result.reading = warnings, reading
        if read.parsed is not None and read.parsed.folders:  # as Library.search: a typo'd in: is said
            text = place_text(self.unplaced(read.parsed.folders))
            if text:
                result.notices.append(Notice(PLACE, text))
        if not result.hits:  # why the filters left no file, as Library.search says it (in the library's paths)
            from .search.empty_reason import why_empty

            roots = self.store.all_roots()
            why = why_empty(self._as_store, filters, parsed, [r.path for _, r in roots],
                            [self.paths.to_local(machine, r.path) for machine, r in roots])  # named as mounted here
            result.notices += [why] if why is not None else []
        return result

    def unplaced(self, typed: Sequence[str]) -> list[str]:
        """The in: values of `typed` no folder of the library is at, as Library.unplaced: among every machine's
        folders, each place also standing for the others' folders mounted here (the search's rule, and `saved
        list`'s)."""
        return unplaced(typed, [r.path for _, r in self.store.all_roots()], self._mapped_place, self._holds)

    def _holds(self, place: str) -> bool:
        """Whether the library has an entry at `place` or under it, among every machine's folders (as Library's)."""
        store = self.store
        return store.file_by_path(place) is not None or any(store.has_files_below(r.id, place)
                                                            for _, r in store.all_roots() if is_within(place, r.path))

    def _mapped_place(self, place: str) -> tuple[str, ...]:
        return self._mapped_places((place,))

    def _mapped_places(self, folders: tuple[str, ...]) -> tuple[str, ...]:
        """in: places (or --in's) and the other machines' folders they stand for at this desktop's mount points
        (every machine's folders are searched here, each at its own path), and this machine's folder a place typed
        through a link names (sync/roots.linked_folders, decision 0192, as Library.search)."""
        return linked_folders(shared_paths.mapped_folders(folders, self.paths), self.roots())

    def similar(self, path: str, *, page: Optional[int] = None, k: Optional[int] = None,
                filters: Optional["SearchFilters"] = None) -> SearchResult:
        """Files most like the indexed file `path` (or its page), as Library.similar: the same find_similar over
        pgvector's index and, while meaning fills, the postings' BM25 for the files without a vector (decision
        0159). `path`: a file of this machine's, or of another's folder where this desktop mounts it
        (library.path_map)."""
        from ..base.member_paths import key_of
        from .search.similar import find_similar, near_text, same_text

        found = shared_paths.resolve(self.store, self.paths, key_of(path))
        dim = self.store.dim()
        index = PgVectorIndex(self.store, dim) if dim is not None else None
        embedded, total = meaning_progress(self._as_store)
        result = find_similar(self._as_store, cast("Optional[VectorIndex]", index), dim, path, page=page,
                              k=k or self.config.search.k, filters=shared_paths.mapped_filters(filters, self.paths),
                              source=found[1] if found is not None else None, by_words=embedded < total,
                              fold_near=self.config.search.fold_repeats and self.config.search.fold_near_copies)
        if embedded < total:  # as Library.similar says it: what the meaning rows cover
            result.meaning_percent = meaning_percent(embedded, total)
            result.notices.append(Notice(MEANING, meaning_text(result.meaning_percent, "similar")))
        if found is not None:
            result.query = self.paths.to_local(found[0], found[1].path)
        shared_paths.local_hits(self.store, self.paths, result.hits)
        result.here = self.store.machine
        # at this desktop's paths, as search marks them: another machine's file not mounted here says so
        mark_available(result, lambda: [r.path for r in self.store.roots()]
                       + [here for _, _, here in shared_paths.mounted_roots(self.store, self.paths)])
        if result.same_file:  # the source's copies, and the note naming them, as this desktop names them
            result.same_file = shared_paths.local_copies(self.store, self.paths, result.same_file)
            result.notices = [Notice(SAME, same_text(result.same_file)) if n.kind == SAME else n
                              for n in result.notices]
        if result.near_copies:  # the source's near copies, as this desktop names them (a hit's: local_hits)
            local = shared_paths.local_copies(self.store, self.paths, [n.path for n in result.near_copies])
            result.near_copies = [dataclasses.replace(n, path=p)
                                  for n, p in zip(result.near_copies, local, strict=True)]
            result.notices = [Notice(NEAR, near_text(result.near_copies)) if n.kind == NEAR else n
                              for n in result.notices]
        return result

    def duplicates(self, threshold: Optional[float] = None, progress: Optional[ProgressFn] = None,
                   cancel: Optional[CancelToken] = None) -> DuplicateReport:
        """Exact copies and near duplicates among every machine's files, as Library.duplicates (the same
        find_duplicates over pgvector's index; no model is loaded)."""
        from .search.duplicates import DEFAULT_THRESHOLD, find_duplicates

        dim = self.store.dim()
        index = PgVectorIndex(self.store, dim) if dim is not None else None
        rep = find_duplicates(shared_paths.local_duplicates(self.store, self.paths),
                              cast("Optional[VectorIndex]", index), dim,
                              threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
                              progress=progress, cancel=cancel)
        embedded, total = meaning_progress(self._as_store)
        if embedded < total:  # near duplicates are found by meaning (Library.duplicates)
            rep.meaning_percent = meaning_percent(embedded, total)
        # whose each file is, and one not to be opened here, as a search's rows say it (they named another machine's
        # file as if it were this desktop's, and one out of reach as if it could be opened)
        shared_paths.mark_duplicates(self.store, self.paths, rep, lambda: [r.path for r in self.store.roots()] + [
            here for _, _, here in shared_paths.mounted_roots(self.store, self.paths)])
        return rep

    def explain(self, path: str) -> dict[str, Any]:
        """Why `path` is or is not found (library/report/explain.py, as Library.explain); another machine's file
        by where this desktop mounts it (library/shared_paths.py)."""
        return shared_paths.explain_shared(self.config, self.store, self.paths, path)

    def ledger(self, state: Optional[str] = None, limit: int = 100_000,
               under: Sequence[str] = ()) -> list[tuple[str, FileRow]]:
        """(state, FileRow) of the stored entries in `state`, all when None (store/ledger.py, as Library.ledger);
        `under`: folders named at this desktop, the other machines' folders mounted there too."""
        from ..store.ledger import files_in_state

        under = shared_paths.mapped_folders(tuple(under), self.paths)
        return shared_paths.local_ledger(self.store, self.paths, files_in_state(self._as_store, state, limit,
                                                                                under=under))

    def status(self, *, wait_for_meaning: bool = True, fresh_check: bool = False) -> LibraryStatus:
        """The desktop's status (the window's library panel, counts and notes), of this machine's folders, over
        the server (report/status.build_status): the vectors are pgvector's own index, so none is opening and
        none is missing from it; the server keeps its own integrity (`fresh_check` has nothing to run). The
        other machines' folders are `elsewhere` (theirs to sync and remove); the files not indexed are this
        machine's; the totals every machine's. The arguments are Library's."""
        from .report.status import IN_STORE, RootStatus, build_status

        from .resources.lock import Holder

        # A sync of this machine's folders running in another process is its writer: its mark is its own, not a
        # stopped sync's (the desktop's writer lock file tells the same).
        mine = [root.id for machine, root in self.store.all_roots() if machine == self.store.machine]
        writer = (Holder(0, "a sync of this machine's folders in the shared library")
                  if self.store.roots_written_elsewhere(mine) else None)
        # This desktop's data dir: its query encoder's cache is there (the status names the query path by it).
        st = build_status(self.config, str(self.config.data_dir), self._as_store, IN_STORE, None,
                          integrity=lambda: True, owner=self.store.machine, writer=writer,
                          embedder=self._embedder())
        st.address = shown(self.address)
        _set_back_not_reindex(self.config, self.store.meta(), st)
        for machine, root in self.store.all_roots():
            if machine != self.store.machine:
                counts = self.store.root_counts(root.id)
                # Named where this desktop mounts it (library.path_map), as its files are in the results.
                st.elsewhere.append((machine, RootStatus(self.paths.to_local(machine, root.path), counts.files,
                                                         counts.passages, root.last_sync, members=counts.members)))
        return st

    def summary(self) -> SharedStatus:
        """Every machine's folders and the library's totals (`searchapp --library … status`)."""
        st = SharedStatus(shown(self.address), self.store.machine)
        for machine, root in self.store.all_roots():
            counts = self.store.root_counts(root.id)
            st.roots.append((machine, root.path, counts.files, counts.passages, counts.members))
        entries = self.store.file_counts()
        st.files, st.members = sum(entries.files.values()), sum(entries.members.values())
        quiet = self.store.quiet_counts()  # a secret, a lockfile, an empty file: left out on purpose, no problem
        st.problems = st.files - entries.files.get("indexed", 0) - quiet[0]
        st.member_problems = st.members - entries.members.get("indexed", 0) - quiet[1]
        st.passages = self.store.chunk_count()
        st.embedded = st.passages - self.store.pending_count()
        meta = self.store.meta()
        st.model = meta.get("model")
        st.dim = self.store.dim()
        st.generation = int(meta.get("generation", "0") or 0)
        st.mounts = shared_paths.mounted_roots(self.store, self.paths)
        st.unmatched = self.paths.unmatched((machine, path) for machine, path, *_ in st.roots)
        return st


def _set_back_not_reindex(config: Config, meta: dict[str, str], st: LibraryStatus) -> None:
    """The desktop's status advises a reindex when the settings differ; a shared library refuses that reindex (one
    model for every machine), so its status says to set this desktop's settings back instead."""
    from ..models.identity import library_settings, reindex_reasons, shared_mismatch_message

    reasons = reindex_reasons(meta, library_settings(config))
    if st.reindex_needed and reasons:
        st.reindex_needed = shared_mismatch_message(reasons)
