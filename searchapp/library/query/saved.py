"""Search history and saved searches ("smart folders") over one library. Storage: store/history.py.

History: the queries a person ran (`searchapp search QUERY`, a query run in the window), newest first, at
most `search.history` of them; 0 keeps none and drops what was kept at the next search. Recording never
fails a search: a data dir that cannot be written, or a damaged searches.sqlite, keeps no history (`problem`
says why, for the front end to show), and the front ends record nothing for a library opened read-only (a
backup, a snapshot: nothing is written beside it).

A saved search is a name, a query (its fields, in:/type:/after:..., carry the filters), a mode and k. Its
list is the top k files of that search. Opening it (run) remembers that list; after every write to the
library (its generation changes) `refresh` searches again and counts the files in the list that were not
in it when last opened: the "N new" a smart folder shows. For a ranked query a new file counts once it
ranks into the top k; for a query of only operators and fields (newest first) every new matching file does.
A file is compared by its content as well as its path: a row whose file, or an exact copy of it (`Hit.copies`: the
files of the library with its sha256), was in the list is not new: a byte copy of a known hit (a newcomer's
`pdfcopy/testPDF_angles.pdf`) counted "1 new". Which copy shows the row is the search's (folding.py: in a ranking,
the one indexed first, so the known file keeps it).
"""

from __future__ import annotations

import builtins
import difflib
import os
import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Generic, Optional, Protocol, Sequence, TypedDict, TypeVar, Unpack

from ...base.config import Config, check_setting
from ...base.errors import ConfigError, DataDirError, StoreError
from ...base.search_modes import check_mode
from ...store.history import SEARCHES_DB, SavedSearch, SearchesDB, SearchesError
from .check import is_empty_query
from .length import capped_query
from .syntax import moved_folders
from ..resources.undo_file import Rewrite

if TYPE_CHECKING:
    from ...store.postgres.pg_searches import PgSearches
    from ...base.types import Hit
    from .filters import SearchFilters

__all__ = ["SearchHistory", "SavedSearches", "SavedSearch", "SearchingLibrary", "SearchAnswer", "SearchOptions", "SEARCHES_DB", "SearchesError", "check_name", "counted_hits"]

log = logging.getLogger(__name__)
NAME_MAX = 200


def check_name(name: str) -> str:
    """A saved search's name: any text but empty, at most 200 characters, one line (it is a list entry)."""
    name = (name or "").strip()
    if not name:
        raise ConfigError("a saved search needs a name")
    if len(name) > NAME_MAX:
        raise ConfigError(f"a saved search name is at most {NAME_MAX} characters")
    if any(ch in name for ch in "\n\r\x00"):
        raise ConfigError("a saved search name is one line")
    return name


def _open(config: Config, create: bool, shared_store: Any = None) -> Optional["SearchesDB | PgSearches"]:
    """The searches of the library `config` names: a shared library's in its own database (decision 0124; on
    `shared_store`, its open connection, when given), else the data dir's searches file; None when that file does
    not exist and `create` is False (reading creates nothing)."""
    if config.library.address:
        from ...store.postgres.pg_searches import PgSearches, open_searches

        return PgSearches(shared_store) if shared_store is not None else open_searches(config.library.address)
    data_dir = config.data_dir
    if not create and not os.path.lexists(data_dir / SEARCHES_DB):  # a link or another user's file: refused
        return None
    return SearchesDB(data_dir, create=create)


class SearchHistory:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.data_dir = config.data_dir
        self.keep = config.search.history
        self.problem: Optional[str] = None  # why the last record() kept nothing, when it failed

    def _db(self, create: bool) -> Optional["SearchesDB | PgSearches"]:
        return _open(self.config, create)

    def record(self, query: str, mode: str) -> bool:
        """Keep `query` as the newest entry (as searched: at most its first 1,000 words); True when it was kept.
        Never raises."""
        query = capped_query(query or "")[0].strip()
        try:
            if self.keep == 0:  # keep none: also drop whatever an earlier setting kept
                db = self._db(create=False)
                if db is not None:
                    with db:
                        db.clear_history()
                return False
            if is_empty_query(query):
                return False
            db = self._db(create=True)
            assert db is not None
            with db:
                db.add_history(query, mode, time.time(), self.keep)
            return True
        except (StoreError, DataDirError) as exc:  # damaged, or refused: no history, the search itself is fine
            log.debug("search history not recorded: %s", exc)
            self.problem = f"search history not recorded: {exc}"
            return False

    def entries(self) -> list[tuple[str, str, float]]:
        """(query, mode, when) newest first, at most `search.history`."""
        db = self._db(create=False)
        if db is None or self.keep == 0:
            return []
        with db:
            return [(r.query, r.mode, r.at) for r in db.history(self.keep)]

    def queries(self) -> list[str]:
        return [q for q, _, _ in self.entries()]

    def clear(self) -> int:
        """Forget every recorded query; how many there were."""
        db = self._db(create=False)
        if db is None:
            return 0
        with db:
            return db.clear_history()


class SearchOptions(TypedDict, total=False):
    """What a saved search's run may add to its own query, mode and k: the options both a Library's search and
    a SharedLibrary's take."""

    rerank: Optional[bool]
    candidates: Optional[int]
    filters: Optional[SearchFilters]


class SearchAnswer(Protocol):
    """What SavedSearches reads of a search's answer (a SearchResult: query/ may not import search/)."""

    @property
    def hits(self) -> Sequence[Hit]: ...


_Answer = TypeVar("_Answer", bound=SearchAnswer, covariant=True)


class SearchingLibrary(Protocol[_Answer]):
    """What SavedSearches asks of its library: a Library, or a SharedLibrary (its searches are kept in its own
    database, on its open connection `store`). `_Answer`: what its search returns (SearchResult)."""

    @property
    def config(self) -> Config: ...

    @property
    def store(self) -> object: ...  # handed to the shared library's searches (PgSearches) only

    @property
    def read_only(self) -> bool: ...

    def generation(self) -> int: ...

    def roots(self) -> list[str]: ...

    def search(self, query: str, *, k: Optional[int] = None, mode: Optional[str] = None,
               rerank: Optional[bool] = None, candidates: Optional[int] = None, group: Optional[str] = None,
               literal: bool = False, filters: Optional[SearchFilters] = None) -> _Answer: ...


class SavedSearches(Generic[_Answer]):
    """The saved searches of `library` (kept in its data dir). Every call opens and closes its own
    connection, so the window's threads and a CLI process may use them side by side. A run returns what the
    library's search returns (`_Answer`: a SearchResult)."""

    def __init__(self, library: SearchingLibrary[_Answer]) -> None:
        self.library = library
        self.config = library.config
        self.data_dir = library.config.data_dir
        self._shared_store = library.store if self.config.library.address else None  # a shared library's

    def _db(self, create: bool = False) -> Optional["SearchesDB | PgSearches"]:
        return _open(self.config, create, self._shared_store)

    def _writable_db(self) -> "SearchesDB | PgSearches":
        db = self._db(create=True)
        assert db is not None
        return db

    def list(self) -> list[SavedSearch]:
        db = self._db()
        if db is None:
            return []
        with db:
            return db.saved()

    def naming(self, folder: str) -> builtins.list[str]:
        """The saved searches whose `in:` names `folder` or a place below it: after `moved` they find nothing
        there (decision 0157 leaves them as they are), and a newcomer's "Ducks" read "nothing new (0 files)" with no
        word of why. By the rule a move rewrites them by (syntax.moved_folders, here to the same place)."""
        return [s.name for s in self.list() if not s.literal and moved_folders(s.query, folder, folder) is not None]

    def get(self, name: str) -> SavedSearch:
        db = self._db()
        row = None
        if db is not None:
            with db:
                row = db.saved_one(name)
        if row is None:
            raise self._unknown(name)
        return row

    def _unknown(self, name: str) -> ConfigError:
        """No saved search is named `name`: the error names the nearest one, a name differing only in case first
        (names are matched exactly: a newcomer's `saved run invoices` of "Invoices" was told only there is none)."""
        names = [s.name for s in self.list()]
        near = [n for n in names if n.casefold() == name.casefold()] or difflib.get_close_matches(name, names, n=1)
        return ConfigError(f"no saved search named {name!r}" + (f", did you mean {near[0]!r}?" if near else "")
                           + " (`searchapp saved list` shows them)")

    def add(self, name: str, query: str, *, mode: Optional[str] = None, k: Optional[int] = None,
            literal: bool = False, replace: bool = False) -> _Answer:
        """Save `query` as `name` and run it once: what it lists now is not "new". Returns its SearchResult."""
        self._require_writable()
        name = check_name(name)
        query = (query or "").strip()
        if is_empty_query(query):
            raise ConfigError("a saved search needs a query")
        s = self.library.config.search
        mode = check_mode(mode or s.mode)
        k = s.k if k is None else check_setting("search.k", k)
        with self._writable_db() as db:
            if not replace and db.saved_one(name) is not None:
                raise ConfigError(f"a saved search named {name!r} exists (`searchapp saved add "
                                  "--replace` replaces it; `searchapp saved remove` forgets it)")
            db.save(name, query, mode, k, literal, time.time(), replace)
        return self.run(name)

    def _require_writable(self) -> None:
        if self.library.read_only:  # a backup or a snapshot: nothing is written beside it
            raise ConfigError("this library is read-only: its saved searches cannot be changed")

    def remove(self, name: str) -> None:
        self._require_writable()
        db = self._db()
        removed = False
        if db is not None:
            with db:
                removed = db.remove_saved(name)
        if not removed:
            raise self._unknown(name)

    def _search(self, saved: SavedSearch, **options: Unpack[SearchOptions]) -> _Answer:
        return self.library.search(saved.query, k=saved.k, mode=saved.mode, group="file", literal=saved.literal,
                                   **options)

    def run(self, name: str, **options: Unpack[SearchOptions]) -> _Answer:
        """Search `name` now and mark it opened (its list becomes the one later lists are compared with). Each hit
        not in that list when it was last opened is marked `new`: "3 new" is worth little if the three are not
        shown among the ten."""
        saved = self.get(name)
        generation = self.library.generation()  # before the search: a write meanwhile is counted next time
        result = self._search(saved, **options)
        seen = self._seen(name)
        for hit in result.hits:  # a weak match (search/weak.py) is the nearest there is, no news
            hit.new = _unseen(hit, seen) and not getattr(hit, "weak", False)
        if not self.library.read_only:
            self.mark_opened(name, [h.path for h in result.hits if not getattr(h, "weak", False)], generation)
        return result

    def _seen(self, name: str) -> set[str]:
        """The files `name` listed when it was last opened (what "new" is counted against)."""
        db = self._db()
        if db is None:
            return set()
        with db:
            return db.seen(name)

    def follow_move(self, old: str, new: str, place_of: Callable[[str], str]) -> builtins.list[Rewrite]:
        """A folder followed from `old` to `new` (library/sync/moved.py): each query's in: places at `old` or under
        it name the same places under `new` (decision 0196: a person who said the folder moved expects their saved
        searches to follow it), and the files each saved search had seen under `old` are seen under `new` too, or
        a move showed them all as new. What was rewritten, for the move to say and its undo to put back. A literal
        search has no fields; a query whose new place cannot be written is left (moved_folders). `place_of`: where
        a search looks for a place typed in an in: (a link resolved: sync/moved.py gives it, a layer above)."""
        db = None if self.library.read_only else self._db()
        if db is None:
            return []
        inside = old.rstrip(os.sep) + os.sep
        done: builtins.list[Rewrite] = []
        with db:
            rows = db.saved()
            db.add_seen([(s.name, new + path[len(old):]) for s in rows for path in db.seen(s.name)
                         if path == old or path.startswith(inside)])
            for s in rows:
                after = None if s.literal else moved_folders(s.query, old, new, place_of)
                if after is not None and db.set_query(s.name, s.query, after):
                    done.append(Rewrite(s.name, s.query, after))
        return done

    def put_back(self, rewrites: Sequence[Rewrite]) -> tuple[builtins.list[str], builtins.list[str]]:
        """The undo of a move: each query it rewrote as it was, unless edited since (`saved add --replace`: the
        person's newer text is kept). (the names put back, the names kept as edited); one gone since is neither."""
        db = None if self.library.read_only else self._db()
        if db is None:
            return [], []
        back: builtins.list[str] = []
        edited: builtins.list[str] = []
        with db:
            for r in rewrites:
                if db.set_query(r.name, r.after, r.before):
                    back.append(r.name)
                elif db.saved_one(r.name) is not None:
                    edited.append(r.name)
        return back, edited

    def mark_opened(self, name: str, paths: Sequence[str], generation: Optional[int] = None) -> None:
        generation = self.library.generation() if generation is None else generation
        with self._writable_db() as db:
            db.mark_opened(name, paths, generation, time.time())

    def refresh(self) -> builtins.list[SavedSearch]:  # `list` is a method here
        """Count new hits again for every saved search not yet counted at the library's present generation."""
        if self.library.read_only:  # it cannot change, and nothing may be written beside it
            return self.list()
        db = self._db()
        if db is None:
            return []
        with db:
            rows = db.saved()
            generation = self.library.generation()
            for row in rows:
                if row.checked_generation == generation:
                    continue
                result = self._search(row)
                hits = counted_hits(result.hits)
                seen = db.seen(row.name)
                db.set_counts(row.name, generation, sum(_unseen(h, seen) for h in hits), len(hits))
            return db.saved()


def counted_hits(hits: Sequence["Hit"]) -> list["Hit"]:
    """The files a saved search counts: what it lists, less weak matches, each file once ("(10 files)" whatever the
    folder held: a newcomer; decision 0161). `saved add` and `saved list` say this one number."""
    return list({h.path: h for h in hits if not getattr(h, "weak", False)}.values())


def _unseen(hit: "Hit", seen: set[str]) -> bool:
    """Whether neither `hit`'s file nor any exact copy of it (same content) was in a saved search's list (module doc)."""
    return hit.path not in seen and seen.isdisjoint(hit.copies)
