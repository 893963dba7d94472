"""Search history and saved searches: `searches.sqlite` in the data dir, beside library.sqlite.

A file of its own rather than tables in library.sqlite, because:
- recording a query never waits behind an indexing batch's write transaction on the library (a search in
  the window or the CLI runs while a sync writes), and a library opened read-only can still be searched;
- clearing really erases: `secure_delete` zeroes freed pages and the rollback journal (not WAL) is deleted
  at each commit, so no old copy of a cleared query stays in a -wal file;
- the library's schema, and so which searchapp versions can open a library, is unchanged.
It is private like everything in the data dir (0600 from creation, whatever the umask). Parameterised SQL
only; one short transaction per call; several processes (the window and the CLI) may use it at once.
Every SQLite error here is a StoreError naming this file (a damaged one: SearchesDamaged, saying to move it
aside), so nothing of it is ever taken for damage to the library.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from ..base.errors import StoreError
from ..base.private import create_private_file, refuse_untrusted_file
from .damage import is_damage

__all__ = ["SEARCHES_DB", "SearchesDB", "SearchesError", "SearchesDamaged", "SavedSearch", "HistoryRow"]

SEARCHES_DB = "searches.sqlite"

# Its own numbering (PRAGMA user_version of searches.sqlite), independent of store/migrations.py.
_SCHEMA = [
    """
    CREATE TABLE history (id INTEGER PRIMARY KEY, query TEXT NOT NULL, mode TEXT NOT NULL, at REAL NOT NULL);
    CREATE INDEX history_query ON history(query);
    CREATE TABLE saved (
        name TEXT PRIMARY KEY,
        query TEXT NOT NULL,            -- as typed, its fields (in:, type:, after:...) included
        mode TEXT NOT NULL,             -- hybrid | dense | lexical
        k INTEGER NOT NULL,             -- files in its list
        literal INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        opened_at REAL,
        checked_generation INTEGER,     -- the library generation its new_hits were counted at
        new_hits INTEGER NOT NULL DEFAULT 0,
        hits INTEGER NOT NULL DEFAULT 0
    );
    -- the files in its list when it was last opened: what "new" is counted against
    CREATE TABLE saved_seen (
        name TEXT NOT NULL REFERENCES saved(name) ON DELETE CASCADE,
        path TEXT NOT NULL,
        PRIMARY KEY (name, path)
    ) WITHOUT ROWID;
    """,
]


@dataclass(frozen=True)
class HistoryRow:
    query: str
    mode: str
    at: float


@dataclass(frozen=True)
class SavedSearch:
    """A saved search as stored: what the command line lists, the window shows and a refresh recounts."""

    name: str
    query: str
    mode: str
    k: int
    literal: bool
    created_at: float
    opened_at: Optional[float]
    checked_generation: Optional[int]  # bookkeeping: the library generation new_hits were counted at
    new_hits: int  # files in its list now that were not when it was last opened
    hits: int  # files in its list (when last counted)

    def to_json(self) -> dict[str, Any]:
        """`saved list --json`'s entry: every field but the bookkeeping (checked_generation)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "checked_generation"}


_SAVED_COLUMNS = "name, query, mode, k, literal, created_at, opened_at, checked_generation, new_hits, hits"


class SearchesError(StoreError):
    """searches.sqlite cannot be read or written; the library beside it is not concerned."""


class SearchesDamaged(SearchesError):
    """searches.sqlite is damaged; the library beside it is not."""


def _failed(path: Path, what: str, exc: BaseException) -> SearchesError:
    if is_damage(exc):
        return SearchesDamaged(
            f"{path} (search history and saved searches) is damaged ({exc}); the library is not affected. "
            f"To start them afresh, move it aside: mv '{path}' '{path}.damaged'")
    return SearchesError(f"{what} {path}: {exc}")


def _saved(row: tuple[Any, ...]) -> SavedSearch:
    return SavedSearch(row[0], row[1], row[2], int(row[3]), bool(row[4]), row[5], row[6], row[7], int(row[8]), int(row[9]))


class SearchesDB:
    """One connection to `<data_dir>/searches.sqlite`; `create=False` opens only a file that exists
    (reading history must not create it: with history off and nothing saved there is no file at all)."""

    def __init__(self, data_dir: Path, *, create: bool = True) -> None:
        self.path = Path(data_dir) / SEARCHES_DB
        try:
            if create:  # before SQLite creates it with the umask's mode; refuses a link or another user's file
                create_private_file(self.path)
            elif not os.path.lexists(self.path):
                raise SearchesError(f"no {SEARCHES_DB} in {self.path.parent}")
            else:  # reading (`history list`, `saved list`) refuses what writing refuses: one check for both
                refuse_untrusted_file(self.path)
            self.conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self.conn.execute("PRAGMA busy_timeout = 5000")
            self.conn.execute("PRAGMA secure_delete = ON")
            self.conn.execute("PRAGMA foreign_keys = ON")
            if self.conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "delete":
                self.conn.execute("PRAGMA journal_mode = DELETE")
            self._migrate()
        except (sqlite3.Error, OSError) as exc:
            raise _failed(self.path, "cannot open", exc) from exc

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(_SCHEMA):
            raise SearchesError(f"{self.path} was written by a newer searchapp; upgrade searchapp")
        for step in range(version, len(_SCHEMA)):
            self.conn.executescript(f"BEGIN;\n{_SCHEMA[step]}\nPRAGMA user_version = {step + 1};\nCOMMIT;")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "SearchesDB":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _failed(self.path, "cannot write", exc) from exc

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise _failed(self.path, "cannot read", exc) from exc

    # -- history ----------------------------------------------------------
    def add_history(self, query: str, mode: str, at: float, keep: int) -> None:
        """`query` becomes the newest entry (an older equal one is dropped); at most `keep` are kept."""
        with self._tx() as c:
            c.execute("DELETE FROM history WHERE query = ?", (query,))
            if keep > 0:
                c.execute("INSERT INTO history (query, mode, at) VALUES (?, ?, ?)", (query, mode, at))
            self._trim(c, keep)

    @staticmethod
    def _trim(c: sqlite3.Connection, keep: int) -> None:
        c.execute("DELETE FROM history WHERE id NOT IN (SELECT id FROM history ORDER BY id DESC LIMIT ?)", (keep,))

    def history(self, limit: int) -> list[HistoryRow]:
        rows = self._rows("SELECT query, mode, at FROM history ORDER BY id DESC LIMIT ?", (limit,))
        return [HistoryRow(*r) for r in rows]

    def clear_history(self) -> int:
        with self._tx() as c:
            return c.execute("DELETE FROM history").rowcount

    # -- saved searches ---------------------------------------------------
    def saved(self) -> list[SavedSearch]:
        rows = self._rows(f"SELECT {_SAVED_COLUMNS} FROM saved ORDER BY name COLLATE NOCASE, name", ())  # noqa: S608 (a constant column list)
        return [_saved(r) for r in rows]

    def saved_one(self, name: str) -> Optional[SavedSearch]:
        rows = self._rows(f"SELECT {_SAVED_COLUMNS} FROM saved WHERE name = ?", (name,))  # noqa: S608 (a constant column list)
        return _saved(rows[0]) if rows else None

    def save(self, name: str, query: str, mode: str, k: int, literal: bool, at: float, replace: bool) -> None:
        with self._tx() as c:
            if replace:
                c.execute("DELETE FROM saved WHERE name = ?", (name,))  # its seen files go with it (cascade)
            c.execute("INSERT INTO saved (name, query, mode, k, literal, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                      (name, query, mode, k, int(literal), at))

    def set_query(self, name: str, before: str, after: str) -> bool:
        """`name`'s query becomes `after` where it is `before` still (a query edited since is the person's: kept);
        its count is taken again at the next refresh. Whether it changed."""
        with self._tx() as c:
            return c.execute("UPDATE saved SET query = ?, checked_generation = NULL WHERE name = ? AND query = ?",
                             (after, name, before)).rowcount > 0

    def remove_saved(self, name: str) -> bool:
        with self._tx() as c:
            return c.execute("DELETE FROM saved WHERE name = ?", (name,)).rowcount > 0

    def seen(self, name: str) -> set[str]:
        return {r[0] for r in self._rows("SELECT path FROM saved_seen WHERE name = ?", (name,))}

    def add_seen(self, rows: Iterable[tuple[str, str]]) -> None:
        """(name, path) seen too: a moved folder's files under their new paths (library/sync/moved.py)."""
        with self._tx() as c:
            c.executemany("INSERT OR IGNORE INTO saved_seen (name, path) VALUES (?, ?)", list(rows))

    def mark_opened(self, name: str, paths: Iterable[str], generation: int, at: float) -> None:
        """What the search lists now becomes what later lists are compared with; nothing is new."""
        paths = list(dict.fromkeys(paths))
        with self._tx() as c:
            c.execute("DELETE FROM saved_seen WHERE name = ?", (name,))
            c.executemany("INSERT INTO saved_seen (name, path) VALUES (?, ?)", [(name, p) for p in paths])
            c.execute("UPDATE saved SET opened_at = ?, checked_generation = ?, new_hits = 0, hits = ? WHERE name = ?",
                      (at, generation, len(paths), name))

    def set_counts(self, name: str, generation: int, new_hits: int, hits: int) -> None:
        with self._tx() as c:
            c.execute("UPDATE saved SET checked_generation = ?, new_hits = ?, hits = ? WHERE name = ?",
                      (generation, new_hits, hits, name))
