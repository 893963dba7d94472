"""The library database: SQLite, the source of truth for files, chunks and vectors.

The vector index is a cache of the `chunks.vector` column and can always be rebuilt from it.
Every statement takes parameters; nothing from a document or a query is formatted into SQL. Writes go through
`Store.execute` and `Store.atomic()` on the plain sqlite3 connection (decision 0126: what sqlite-utils'
Database.execute and atomic() did, without its 0.2-0.3 s import on every writing command's start).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

import numpy as np

from ..base.entry_dates import clamped_ns
from ..base.errors import StoreError
from .cjk import cjk_chars
from .damage import damaged_message, is_damage
from .migrations import migrate
from .rows import ChunkRow, FileRow, NewChunk, RootRow
from .scope import ScopeQueries, fold
from .lexical_queries import LexicalQueries, fts_query
from .vector_queue import EMBEDDED, NO_VECTOR, VectorQueue

__all__ = ["Store", "FileRow", "ChunkRow", "NewChunk", "RootRow", "fts_query"]


FILE_COLS = "id, root_id, path, size, mtime_ns, sha256, status, error, kind, n_chunks"
_INSERT_CHUNKS = 'INSERT INTO chunks(file_id, ordinal, start, "end", page, text, text_hash, vector) VALUES '
_CHUNK_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)"
_ROWS_PER_INSERT = 120  # 960 bound parameters: under SQLite's oldest cap (999)

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


def _inserted(cur: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (an INSERT always sets it)."""
    if cur.lastrowid is None:
        raise StoreError("the library database did not say which row it inserted")
    return cur.lastrowid


class Store(VectorQueue, ScopeQueries, LexicalQueries):
    """One SQLite file. Writes go through `atomic()`; one writer at a time (the library's lock file ensures it)."""

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
            self.conn = conn
            if not readonly:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode=wal")
                conn.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable at checkpoints, never corrupt
                migrate(conn)
                # What sqlite-utils' Database() set on this connection at its first write before decision 0126,
                # kept so that every trigger runs as it did (with it, a REPLACE's deletes fire delete triggers).
                conn.execute("PRAGMA recursive_triggers = on")
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

    # -- roots --------------------------------------------------------------
    def add_root(self, path: str) -> int:
        row = self.conn.execute("SELECT id FROM roots WHERE path = ?", (path,)).fetchone()
        if row:
            return int(row[0])
        return _inserted(self.execute("INSERT INTO roots(path, added_at) VALUES (?, ?)", (path, time.time())))

    def roots(self) -> list[RootRow]:
        return [RootRow(*r) for r in self.conn.execute("SELECT id, path, added_at, last_sync FROM roots ORDER BY path")]

    def root_by_path(self, path: str) -> Optional[RootRow]:
        r = self.conn.execute("SELECT id, path, added_at, last_sync FROM roots WHERE path = ?", (path,)).fetchone()
        return RootRow(*r) if r else None

    def touch_root(self, root_id: int) -> None:
        self.execute("UPDATE roots SET last_sync = ? WHERE id = ?", (time.time(), root_id))

    def delete_root(self, root_id: int) -> list[int]:
        """Delete a root with its files and chunks; returns the chunk ids removed (for the vector index)."""
        ids = [r[0] for r in self.conn.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.root_id = ?", (root_id,))]
        self.execute("DELETE FROM chunks WHERE file_id IN (SELECT id FROM files WHERE root_id = ?)", (root_id,))
        self.execute("DELETE FROM files WHERE root_id = ?", (root_id,))
        self.execute("DELETE FROM roots WHERE id = ?", (root_id,))
        return ids

    def absorb_roots(self, into_id: int, from_ids: Sequence[int]) -> None:
        """Move the files of roots `from_ids` (folders inside root `into_id`) to it and drop those roots;
        passages and vectors stay as they are."""
        for rid in from_ids:
            self.execute("UPDATE files SET root_id = ? WHERE root_id = ?", (into_id, rid))
            self.execute("DELETE FROM roots WHERE id = ?", (rid,))

    # -- files --------------------------------------------------------------
    def files_of_root(self, root_id: int) -> dict[str, FileRow]:
        rows = self.conn.execute(f"SELECT {FILE_COLS} FROM files WHERE root_id = ?", (root_id,))  # noqa: S608 (constants and ? only)
        return {r[2]: FileRow(*r) for r in rows}

    def has_files(self, root_id: int) -> bool:
        return self.conn.execute("SELECT 1 FROM files WHERE root_id = ? LIMIT 1", (root_id,)).fetchone() is not None

    def has_files_below(self, root_id: int, path: str) -> bool:
        """Whether the root holds a file strictly below `path` (then `path` was indexed as a folder)."""
        below = path.rstrip(os.sep) + os.sep
        return self.conn.execute("SELECT 1 FROM files WHERE root_id = ? AND path >= ? AND path < ? LIMIT 1",
                                 (root_id, below, below[:-1] + chr(ord(os.sep) + 1))).fetchone() is not None

    def files_under(self, root_id: int, path: str) -> dict[str, FileRow]:
        """Files of a root at `path` or below it (a range scan on the path index, not a full listing)."""
        below = path.rstrip(os.sep) + os.sep
        rows = self.conn.execute(
            f"SELECT {FILE_COLS} FROM files WHERE root_id = ? AND (path = ? OR (path >= ? AND path < ?))",  # noqa: S608 (constants and ? only)
            (root_id, path, below, below[:-1] + chr(ord(os.sep) + 1)),  # the next character after the separator
        )
        return {r[2]: FileRow(*r) for r in rows}

    def file_by_path(self, path: str) -> Optional[FileRow]:
        r = self.conn.execute(f"SELECT {FILE_COLS} FROM files WHERE path = ?", (path,)).fetchone()  # noqa: S608 (constants and ? only)
        return FileRow(*r) if r else None

    def files_by_path(self, paths: Iterable[str]) -> dict[str, FileRow]:
        """path -> row of those of `paths` that are stored (one statement per 500, not one per path)."""
        rows = self.select_in(f"SELECT {FILE_COLS} FROM files WHERE path IN ({{}})", dict.fromkeys(paths))  # noqa: S608 (constants and ? only)
        return {r.path: r for r in (FileRow(*t) for t in rows)}

    def problem_files(self) -> list[FileRow]:
        rows = self.conn.execute(f"SELECT {FILE_COLS} FROM files WHERE status != 'indexed' ORDER BY status, path")  # noqa: S608 (constants and ? only)
        return [FileRow(*r) for r in rows]

    def upsert_file(self, root_id: int, path: str, size: int, mtime_ns: int, sha256: Optional[str],
                    status: str, error: Optional[str], kind: Optional[str], n_chunks: int,
                    embed_title: Optional[str] = None) -> int:
        """`embed_title`: what the bi-encoder reads before each passage (for passages embedded later)."""
        return int(self.conn.execute(
            """INSERT INTO files(root_id, path, size, mtime_ns, sha256, status, error, kind, n_chunks, indexed_at,
                                 embed_title)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                 mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, status = excluded.status,
                 error = excluded.error, kind = excluded.kind, n_chunks = excluded.n_chunks,
                 indexed_at = excluded.indexed_at, embed_title = excluded.embed_title
               RETURNING id""",  # the row's id, inserted or updated: no second look-up
            (root_id, path, size, clamped_ns(mtime_ns), sha256, status, error, kind, n_chunks, time.time(), embed_title),
        ).fetchone()[0])

    def set_file_stat(self, file_id: int, size: int, mtime_ns: int) -> None:
        self.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, clamped_ns(mtime_ns), file_id))

    def delete_file(self, file_id: int) -> list[int]:
        ids = self.delete_chunks_of_file(file_id)
        self.execute("DELETE FROM files WHERE id = ?", (file_id,))
        return ids

    def forget_files(self) -> None:
        """Drop every file and passage (roots stay): the next sync indexes everything again."""
        self.execute("DELETE FROM chunks")
        self.execute("DELETE FROM chunk_spans")  # the trigger would too, row by row
        self.execute("DELETE FROM files")

    def root_counts(self, root_id: int) -> tuple[int, int]:
        """(files, passages) of one root."""
        n_files, n_chunks = self.conn.execute(
            "SELECT count(*), coalesce(sum(n_chunks), 0) FROM files WHERE root_id = ?", (root_id,)).fetchone()
        return int(n_files), int(n_chunks)

    def file_counts(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT status, count(*) FROM files GROUP BY status").fetchall())

    # -- chunks -------------------------------------------------------------
    def vectors_by_hash(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """text_hash -> a stored vector for that text, from any file: unchanged or moved passages are never re-embedded."""
        out: dict[str, np.ndarray] = {}
        for h, v in self.select_in(f"SELECT text_hash, vector FROM chunks WHERE {EMBEDDED} AND text_hash IN ({{}})", dict.fromkeys(hashes)):  # noqa: S608 (constants and ? only)
            vec = np.frombuffer(v, dtype=np.float32)
            if np.isfinite(vec).all():  # a NaN row of an older version is embedded again, never copied
                out[h] = vec
        return out

    def delete_chunks_of_file(self, file_id: int) -> list[int]:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE file_id = ?", (file_id,))]
        self.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        return ids

    def insert_chunks(self, file_id: int, chunks: Sequence[NewChunk]) -> list[int]:
        return self.insert_chunks_of([(file_id, c) for c in chunks])

    def insert_chunks_of(self, rows: Sequence[tuple[int, NewChunk]]) -> list[int]:
        """(file id, passage) rows, of one file or many, in statements of many rows each: the full-text
        trigger's work per row is about halved (23,821 passages: 1.5 -> 0.8 CPU-seconds). Ids in `rows`' order
        (new ids only grow, and a statement's rows go in in its order)."""
        if not rows:
            return []
        before = self.conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0]
        for i in range(0, len(rows), _ROWS_PER_INSERT):
            part = rows[i:i + _ROWS_PER_INSERT]
            self.execute(_INSERT_CHUNKS + ", ".join([_CHUNK_ROW] * len(part)), [
                x for f, c in part for x in (f, c.ordinal, c.start, c.end, c.page, c.text, c.text_hash, NO_VECTOR
                                             if c.vector is None else
                                             np.ascontiguousarray(c.vector, dtype=np.float32).tobytes())])
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE id > ? ORDER BY id", (before,))]
        if len(ids) != len(rows):  # a trigger or another writer inside this transaction: never expected
            raise StoreError(f"inserted {len(rows)} passages but found {len(ids)} new rows")
        spans = [(cid, a, b, p) for cid, (_, c) in zip(ids, rows, strict=True) for a, b, p in c.repeats]
        if spans:
            self.conn.executemany('INSERT INTO chunk_spans(chunk_id, start, "end", page) VALUES (?, ?, ?, ?)', spans)
        return ids

    def chunk_repeats(self, ids: Sequence[int]) -> dict[int, list[tuple[int, int, Optional[int]]]]:
        """chunk id -> (start, end, page) of the other places its text occurs in its file (ids without any left out)."""
        out: dict[int, list[tuple[int, int, Optional[int]]]] = {}
        for cid, a, b, p in self.select_in(
                'SELECT chunk_id, start, "end", page FROM chunk_spans WHERE chunk_id IN ({}) ORDER BY start', ids):
            out.setdefault(cid, []).append((a, b, p))
        return out

    def chunk_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def has_chunks(self) -> bool:
        # O(1), where count(*) reads the whole table (4 ms at a million passages, on every search)
        return bool(self.conn.execute("SELECT EXISTS (SELECT 1 FROM chunks)").fetchone()[0])

    def chunk_ids(self) -> np.ndarray:
        return np.fromiter((r[0] for r in self.conn.execute("SELECT id FROM chunks ORDER BY id")), dtype=np.int64)

    def vectors(self, ids: Optional[Iterable[int]] = None, dim: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """(ids int64 (n,), vectors float32 (n, dim)) for the given chunk ids, or all chunks.

        Rows whose vector is not finite (NaN/inf, written by a broken model before such batches were
        refused) are left out: every reader (index rebuild, exact scoring, similar, duplicates) skips them
        instead of failing, and `nonfinite_vectors` counts them for `status`."""
        if ids is None:
            rows = self.conn.execute(f"SELECT id, vector FROM chunks WHERE {EMBEDDED} ORDER BY id").fetchall()  # noqa: S608 (constants and ? only)
        else:  # passages still waiting for their vector (vector_queue.py) are left out like NaN rows
            rows = list(self.select_in(f"SELECT id, vector FROM chunks WHERE {EMBEDDED} AND id IN ({{}})", ids))  # noqa: S608 (constants and ? only)
        out_ids = np.array([r[0] for r in rows], dtype=np.int64)
        if not rows:
            return out_ids, np.zeros((0, dim or 0), dtype=np.float32)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        finite = np.isfinite(mat).all(axis=1)
        if not finite.all():
            out_ids, mat = out_ids[finite], mat[finite]
        return out_ids, mat

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        rows = self.select_in('SELECT c.id, c.file_id, f.path, c.ordinal, c.start, c."end", c.page, c.text, '
                               "coalesce(f.date_ns, f.mtime_ns) FROM chunks c JOIN files f ON f.id = c.file_id "
                               "WHERE c.id IN ({})", ids)
        return {r[0]: ChunkRow(*r) for r in rows}

    def chunk_files(self, ids: Sequence[int]) -> dict[int, int]:
        """chunk id -> file id (a light lookup: results by file group candidates before reading their text)."""
        return dict(self.select_in("SELECT id, file_id FROM chunks WHERE id IN ({})", ids))

    def chunk_owners(self) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, their file ids) of every passage, by chunk id, as two int64 arrays: read straight
        into arrays, as a list of a million row tuples would hold ~100 MB of Python objects."""
        cur = self.conn.execute("SELECT id, file_id FROM chunks ORDER BY id")
        flat = np.fromiter((v for row in cur for v in row), dtype=np.int64)
        return flat[0::2].copy(), flat[1::2].copy()

    def chunk_ids_of_file(self, file_id: int, page: Optional[int] = None) -> list[int]:
        """A file's passages (only those on `page` when given), in reading order."""
        sql = "SELECT id FROM chunks WHERE file_id = ?" + (" AND page = ?" if page is not None else "")  # noqa: S608 (constants and ? only)
        return [r[0] for r in self.conn.execute(sql + " ORDER BY ordinal",
                                                (file_id, page) if page is not None else (file_id,))]

    def file_paths(self) -> dict[int, str]:
        """file id -> path of every stored entry."""
        return dict(self.conn.execute("SELECT id, path FROM files").fetchall())

    def file_hashes(self) -> list[tuple[int, str, str]]:
        """(file id, path, sha256) of every indexed file with passages and a hash, by path."""
        return self.conn.execute(
            "SELECT id, path, sha256 FROM files WHERE status = 'indexed' AND n_chunks > 0 AND sha256 IS NOT NULL "
            "ORDER BY path").fetchall()

    def file_sha256s(self, file_ids: Sequence[int]) -> dict[int, str]:
        """file id -> sha256 of the content, for those of `file_ids` that have one (exact copies share it)."""
        return dict(self.select_in("SELECT id, sha256 FROM files WHERE sha256 IS NOT NULL AND id IN ({})",
                                    file_ids))

    def paths_by_sha256(self, hashes: Iterable[str]) -> dict[str, list[str]]:
        """sha256 -> paths of the indexed files with that content, by path."""
        out: dict[str, list[str]] = {}
        for sha, path in self.select_in("SELECT sha256, path FROM files WHERE status = 'indexed' AND n_chunks > 0 "
                                         "AND sha256 IN ({}) ORDER BY path", dict.fromkeys(hashes)):
            out.setdefault(sha, []).append(path)
        return out

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
