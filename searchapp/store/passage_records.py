"""The passages a library holds (the `chunks` table: text, place in its file, vector; `chunk_spans`: the other
places a repeated text stands): written in many-row statements, read by id, by file or all at once as arrays. A
mixin of Store (store/db.py); the passages still waiting for a vector are store/vector_queue.py's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional, Sequence

import numpy as np

from ..base.errors import StoreError
from .rows import ChunkRow, NewChunk
from .statements import Statements
from .vector_queue import EMBEDDED, NO_VECTOR

__all__ = ["PassageRecords"]

_INSERT_CHUNKS = 'INSERT INTO chunks(file_id, ordinal, start, "end", page, text, text_hash, vector) VALUES '
_CHUNK_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)"
_ROWS_PER_INSERT = 120  # 960 bound parameters: under SQLite's oldest cap (999)


class PassageRecords(Statements):
    # The last passage id before the sync running on this store began (last_chunk_id), or None: a passage above it
    # that the sync deletes again (a file rewritten by OCR, an entry twice in a batch) was never in the library
    # before it, so its summary's "passages written" does not count it (sync/batches.py; a newcomer's "7147
    # written" left 7057 in the library)
    sync_mark: Optional[int] = None

    if TYPE_CHECKING:  # store/shelf.py's, later in Store's method order
        def shelved_vectors(self, hashes: Iterable[str]) -> dict[str, np.ndarray]: ...

        def unshelve(self, hashes: Iterable[str]) -> None: ...

    def vectors_by_hash(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """text_hash -> a stored vector for that text, from any file: unchanged or moved passages are never
        re-embedded; else from the shelf (store/shelf.py): a git tree's passages back after a branch switch."""
        wanted = dict.fromkeys(hashes)
        out: dict[str, np.ndarray] = {}
        for h, v in self.select_in(f"SELECT text_hash, vector FROM chunks WHERE {EMBEDDED} AND text_hash IN ({{}})", wanted):  # noqa: S608 (constants and ? only)
            vec = np.frombuffer(v, dtype=np.float32)
            if np.isfinite(vec).all():  # a NaN row of an older version is embedded again, never copied
                out[h] = vec
        out.update(self.shelved_vectors(h for h in wanted if h not in out))
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
        # a shelved vector written with its passage is the passage's again (Shelf.unshelve: none when it is empty)
        self.unshelve(c.text_hash for _, c in rows if c.vector is not None)
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

    def last_chunk_id(self) -> int:
        """The highest passage id (0 with none): every passage written later has a higher one (AUTOINCREMENT never
        gives an id again). O(1): the primary key's last entry."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])

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
