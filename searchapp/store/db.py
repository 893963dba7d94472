"""The library database: SQLite, the source of truth for files, chunks and vectors. This module opens it and
runs its statements and transactions; what it holds is read and written by the mixins Store is made of
(root_records, file_records, passage_records, vector_queue, scope, lexical_queries).

The vector index is a cache of the `chunks.vector` column and can always be rebuilt from it.
Every statement takes parameters; nothing from a document or a query is formatted into SQL. Writes go through
`Store.execute` and `Store.atomic()` on the plain sqlite3 connection (decision 0126: what sqlite-utils'
Database.execute and atomic() did, without its 0.2-0.3 s import on every writing command's start).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from ..base.errors import StoreError
from .cjk import cjk_chars
from .damage import damaged_message, is_damage
from .file_records import NEWER_COLUMNS, FileRecords
from .migrations import migrate
from .passage_records import PassageRecords
from .root_records import RootRecords
from .rows import ChunkRow, FileRow, NewChunk, RootRow
from .shelf import Shelf
from .scope import ScopeQueries, fold, holds_header, holds_tag
from .lexical_queries import LexicalQueries, fts_query
from .vector_queue import VectorQueue
from .word_stats import WordStats

__all__ = ["Store", "FileRow", "ChunkRow", "NewChunk", "RootRow", "fts_query"]


def _connect_ro(path: Path, immutable_ok: bool) -> sqlite3.Connection:
    from urllib.parse import quote

    uri = "file:" + quote(str(path.absolute()))  # a '?' or '#' in the path must not end it
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
    if not immutable_ok:
        return conn
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:  # "unable to open database file": WAL without a writable -shm
        conn.close()
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False)


_TEMP_DIR_LOCK = threading.Lock()
_temp_dir_set = False  # SQLite's temp folder is set once per process, then never changed


def keep_temp_files_in(conn: sqlite3.Connection, folder: Path) -> None:
    """SQLite's temporary files go to `folder` (the data dir), not the system's temp folder: the rows of a removed
    folder kept for Undo (store/removed_roots.py: TEMP tables, on disk past a few MB), VACUUM's copy of the whole
    library, sorts too big for memory. They held the library's text in /var/tmp/etilqs_* (unlinked, 0600, but
    on a disk the user did not choose). SQLite reads SQLITE_TMPDIR once, when it starts, so the place is set
    with `PRAGMA temp_store_directory`: a process-wide setting that SQLite says must not change while another
    thread uses SQLite (it frees the old string under a reader: undefined behaviour). So it is set once, by the
    first library this process opens, and never changed: a library opened later (the window reopening another,
    while runner threads read) keeps its temporary files in the first one's data dir, still the user's. A
    folder SQLite cannot write (a read-only library, one since deleted) is passed over by SQLite for the usual
    ones (SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp)."""
    global _temp_dir_set
    with _TEMP_DIR_LOCK:
        if _temp_dir_set:
            return
        _temp_dir_set = True
        want = str(Path(folder).absolute())  # a path, not a value from a document: quoted as SQL text
        try:
            conn.execute("PRAGMA temp_store_directory = '" + want.replace("'", "''") + "'")
        except sqlite3.Error:  # a build without the pragma: the system's temp folder, as before
            pass



def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    """Whether `table` has `column`; True where there is no such table yet (nothing older to read)."""
    names = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]  # table: a constant of the caller's
    return not names or column in names


class Store(RootRecords, FileRecords, PassageRecords, VectorQueue, ScopeQueries, LexicalQueries, WordStats, Shelf):
    """One SQLite file. Writes go through `atomic()`; one writer at a time (the library's lock file ensures it).
    One object over one connection, its jobs in mixins (roots, files, passages, the vector queue, scopes, words,
    word statistics): a sync's transaction spans them all (decision 0132)."""

    def __init__(self, path: Path, *, readonly: bool = False, immutable_ok: bool = False) -> None:
        """`immutable_ok`: the library cannot be written by anyone here (a read-only mount), so when a WAL
        database cannot be opened `mode=ro` (no -shm, no way to create it) it is opened `immutable=1`."""
        self.path = Path(path)
        self._savepoints = 0
        try:
            if readonly:
                conn = _connect_ro(self.path, immutable_ok)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 5000")
            keep_temp_files_in(conn, self.path.parent)
            conn.create_function("cjk_chars", 1, cjk_chars, deterministic=True)  # the CJK table's triggers
            conn.create_function("fold", 1, fold, deterministic=True)  # name: (scope.name_matches)
            conn.create_function("holds_header", 3, holds_header, deterministic=True)  # from:, to:, subject:
            conn.create_function("holds_tag", 2, holds_tag, deterministic=True)  # #tag
            self.conn = conn
            if not readonly:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode=wal")
                conn.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable at checkpoints, never corrupt
                migrate(conn)
                # What sqlite-utils' Database() set on this connection at its first write before decision 0126,
                # kept so that every trigger runs as it did (with it, a REPLACE's deletes fire delete triggers).
                conn.execute("PRAGMA recursive_triggers = on")
            # A read-only open of an older library reads it as it is (migrate() needs a writer).
            self.files_missing = frozenset() if not readonly else frozenset(
                c for c in NEWER_COLUMNS if not _has_column(conn, "files", c))
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                raise StoreError(damaged_message(self.path, exc)) from exc
            raise StoreError(f"cannot open library database {self.path}: {exc}") from exc
        self.conn = conn

    @property
    def db(self) -> Store:
        """What store/ledger.py's helpers write through, on either store: this one's `execute` (a PgStore's
        is its SQL shim)."""
        return self

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """One write statement: inside `atomic()` part of its transaction, outside it committed at once (as
        sqlite-utils' Database.execute does; a failed one leaves no transaction open behind it)."""
        was_open = self.conn.in_transaction
        try:
            cur = self.conn.execute(sql, params)
        except Exception:
            if not was_open and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        if not was_open and self.conn.in_transaction and cur.description is None:
            self.conn.execute("COMMIT")
        return cur

    def select_in(self, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        """Rows of `sql` (one `IN ({})` slot) for `values`, 500 bound parameters per statement: SQLite caps
        how many one statement may bind."""
        values = list(values)
        for i in range(0, len(values), 500):
            part = values[i:i + 500]
            yield from self.conn.execute(sql.format(",".join("?" * len(part))), part)

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction (BEGIN ... COMMIT, rolled back on any exception); nested, a savepoint of the outer one."""
        try:
            with self._transaction():
                yield
        except sqlite3.OperationalError as exc:
            hint = ""
            if any(w in str(exc) for w in ("disk", "full", "readonly", "read-only")):
                hint = f" (is the disk under {self.path.parent} full or read-only?)"
            raise StoreError(f"library database write failed: {exc}{hint}; everything committed before is kept") from exc

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        conn = self.conn
        if conn.in_transaction:
            self._savepoints += 1
            name = f"store_{self._savepoints}"  # a fresh name: never one an outer block still holds
            conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                if conn.in_transaction:  # a RAISE(ROLLBACK) may already have ended the whole transaction
                    conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    conn.execute(f"RELEASE SAVEPOINT {name}")
                raise
            conn.execute(f"RELEASE SAVEPOINT {name}")
            return
        conn.execute("BEGIN")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # -- meta ---------------------------------------------------------------
    def get_meta(self, key: str) -> Optional[str]:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def bump_generation(self) -> int:
        """Call inside the transaction that changes chunks: the vector index saved with this number matches."""
        gen = self.generation() + 1
        self.set_meta("generation", str(gen))
        return gen

    def integrity_ok(self) -> bool:
        return bool(self.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok")

    def vacuum_if_sparse(self, threshold: float = 0.25) -> bool:
        """VACUUM when more than `threshold` of the file is free pages (e.g. after a folder was removed).

        SQLite reuses free pages for new rows anyway, so this only matters after large removals; VACUUM
        rewrites the file in one transaction (a crash leaves the old file) and needs that much free disk.
        """
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        free = self.conn.execute("PRAGMA freelist_count").fetchone()[0]
        if not pages or free / pages <= threshold:
            return False
        try:
            self.conn.execute("VACUUM")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"library database could not be compacted: {exc}") from exc
        return True
