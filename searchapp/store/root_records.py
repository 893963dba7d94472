"""The folders a library indexes (the `roots` table): added, listed, synced, removed, nested into one. A mixin of
Store (store/db.py)."""

from __future__ import annotations

import sqlite3
import time
from typing import Optional, Sequence

from ..base.errors import StoreError
from ..base.member_paths import MEMBER_SEP
from .file_records import IS_MEMBER
from .rows import RootCounts, RootRow
from .statements import Statements

__all__ = ["RootRecords"]


def _inserted(cur: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (an INSERT always sets it)."""
    if cur.lastrowid is None:
        raise StoreError("the library database did not say which row it inserted")
    return cur.lastrowid


class RootRecords(Statements):
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
        self.execute("DELETE FROM shelved_vectors WHERE root_id = ?", (root_id,))  # its meaning goes with it (0187)
        return ids

    def absorb_roots(self, into_id: int, from_ids: Sequence[int]) -> None:
        """Move the files of roots `from_ids` (folders inside root `into_id`) to it and drop those roots;
        passages and vectors stay as they are."""
        for rid in from_ids:
            self.execute("UPDATE files SET root_id = ? WHERE root_id = ?", (into_id, rid))
            self.execute("UPDATE shelved_vectors SET root_id = ? WHERE root_id = ?", (into_id, rid))
            self.execute("DELETE FROM roots WHERE id = ?", (rid,))

    def root_counts(self, root_id: int) -> RootCounts:
        """The files on disk, members of archives and mail, and passages of one root (decision 0163)."""
        entries, members, passages = self.conn.execute(
            f"SELECT count(*), coalesce(sum({IS_MEMBER}), 0), coalesce(sum(n_chunks), 0) FROM files "  # noqa: S608 (a constant and ? only)
            "WHERE root_id = ?", (MEMBER_SEP, root_id)).fetchone()
        return RootCounts(int(entries) - int(members), int(members), int(passages))
