"""Undo for Remove: a removed folder's rows (the root, its files, passages with their vectors, repeat spans) are
copied into TEMP tables of the writer's connection in the same transaction that deletes them, so Undo puts
them back at once — no re-reading, no re-embedding. TEMP tables belong to this connection: nothing is written
to library.sqlite, another process never sees them, and they go when the library closes (or `forget_removed`).

Undo refuses (returns None) when the library changed since: a write bumped the generation, or a row's id or
path is taken again — restoring then could collide with what is there now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .db import Store

__all__ = ["keep_removed", "mark_kept", "restore_removed", "forget_removed", "has_removed"]

_TABLES = ("roots", "files", "chunks", "chunk_spans")  # in restore order (foreign keys point backwards)
_SELECT = {
    "roots": "SELECT * FROM main.roots WHERE id = ?",
    "files": "SELECT * FROM main.files WHERE root_id = ?",
    "chunks": "SELECT c.* FROM main.chunks c JOIN main.files f ON f.id = c.file_id WHERE f.root_id = ?",
    "chunk_spans": ("SELECT s.* FROM main.chunk_spans s JOIN main.chunks c ON c.id = s.chunk_id "
                    "JOIN main.files f ON f.id = c.file_id WHERE f.root_id = ?"),
}


def forget_removed(store: Store) -> None:
    """Drop what Undo would restore (a later write, the Undo's time is up)."""
    for t in _TABLES + ("meta",):
        store.conn.execute(f"DROP TABLE IF EXISTS temp.removed_{t}")


def has_removed(store: Store) -> bool:
    names = {r[0] for r in store.conn.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table'")}
    return {"removed_roots", "removed_meta"} <= names


def keep_removed(store: Store, root_id: int) -> None:
    """Inside the transaction that deletes root `root_id`, before the delete: keep its rows for Undo."""
    forget_removed(store)  # one Undo: the last Remove
    for t in _TABLES:
        store.conn.execute(f"CREATE TEMP TABLE removed_{t} AS {_SELECT[t]}", (root_id,))


def mark_kept(store: Store, generation: int) -> None:
    """After the delete: the generation it left, so Undo can tell whether anything was written since."""
    store.conn.execute("CREATE TEMP TABLE IF NOT EXISTS removed_meta (generation INTEGER NOT NULL)")
    store.conn.execute("DELETE FROM temp.removed_meta")
    store.conn.execute("INSERT INTO temp.removed_meta (generation) VALUES (?)", (generation,))


def restore_removed(store: Store, generation: int) -> Optional[tuple[str, list[int]]]:
    """Inside a transaction: put the kept rows back; (the root's path, its chunk ids) or None when there is
    nothing to restore or the library changed since the Remove (`generation`: the store's now)."""
    if not has_removed(store):
        return None
    c = store.conn
    kept = c.execute("SELECT generation FROM temp.removed_meta").fetchone()
    if kept is None or kept[0] != generation:
        return None
    taken = c.execute(
        "SELECT 1 FROM main.roots WHERE id IN (SELECT id FROM temp.removed_roots) "
        "OR path IN (SELECT path FROM temp.removed_roots) "
        "UNION ALL SELECT 1 FROM main.files WHERE id IN (SELECT id FROM temp.removed_files) "
        "OR path IN (SELECT path FROM temp.removed_files) "
        "UNION ALL SELECT 1 FROM main.chunks WHERE id IN (SELECT id FROM temp.removed_chunks) LIMIT 1").fetchone()
    if taken is not None:
        return None
    for t in _TABLES:  # the chunks' triggers fill both word indexes again
        c.execute(f"INSERT INTO main.{t} SELECT * FROM temp.removed_{t}")  # noqa: S608 (t: one of _TABLES)
    path = c.execute("SELECT path FROM temp.removed_roots").fetchone()[0]
    ids = [r[0] for r in c.execute("SELECT id FROM temp.removed_chunks ORDER BY id")]
    return path, ids
