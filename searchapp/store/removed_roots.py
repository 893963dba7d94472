"""Undo for Remove: a removed folder's rows (the root, its files, passages with their vectors, repeat spans) are
copied into TEMP tables of the writer's connection in the same transaction that deletes them, so Undo puts
them back at once — no re-reading, no re-embedding. TEMP tables belong to this connection: nothing is written
to library.sqlite, another process never sees them, and they go when the library closes (or `forget_removed`).

Undo refuses (returns None) only where putting the rows back would be wrong: the library's model, pooling or
chunking changed since (the kept vectors and passages are the old ones'), or a row's id or path is taken again
(restoring then could collide with what is there now). Other writes meanwhile (another folder synced or embedded
by the window, `watch` or another command) are no reason: they touched no row Undo restores (decision 0147; a
shared library's Undo has followed this rule since decision 0135).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .identity import IDENTITY_KEYS, library_identity

if TYPE_CHECKING:
    from .db import Store

__all__ = ["keep_removed", "mark_kept", "restore_removed", "forget_removed", "has_removed", "save_removed",
           "load_removed", "IDENTITY_KEYS"]

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
    """After the delete: the generation it left, and what the library's passages and vectors are (Undo refuses
    once that changed)."""
    store.conn.execute("DROP TABLE IF EXISTS temp.removed_meta")
    store.conn.execute("CREATE TEMP TABLE removed_meta (generation INTEGER NOT NULL, identity TEXT NOT NULL)")
    store.conn.execute("INSERT INTO temp.removed_meta (generation, identity) VALUES (?, ?)",
                       (generation, library_identity(store)))


def restore_removed(store: Store) -> Optional[tuple[str, list[int]]]:
    """Inside a transaction: put the kept rows back; (the root's path, its chunk ids) or None when there is
    nothing to restore, the library's model or chunking changed since the Remove, or a kept row's place is taken."""
    if not has_removed(store):
        return None
    c = store.conn
    columns = {r[1] for r in c.execute("PRAGMA temp.table_info(removed_meta)")}
    if "identity" not in columns:  # kept by an older version (its undo file lasts a minute): refuse, as it would
        return None
    kept = c.execute("SELECT identity FROM temp.removed_meta").fetchone()
    if kept is None or kept[0] != library_identity(store):
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
        # By name: rows kept before a migration added a column (files.ctime_ns) go back with it empty.
        cols = ", ".join('"' + r[1].replace('"', '""') + '"' for r in c.execute(f"PRAGMA temp.table_info(removed_{t})"))
        c.execute(f"INSERT INTO main.{t} ({cols}) SELECT {cols} FROM temp.removed_{t}")  # noqa: S608 (t: one of _TABLES; cols: its own columns, quoted)
    path = c.execute("SELECT path FROM temp.removed_roots").fetchone()[0]
    ids = [r[0] for r in c.execute("SELECT id FROM temp.removed_chunks ORDER BY id")]
    return path, ids


# -- a Remove undone by a later process (`searchapp remove`, then `searchapp undo`) ---------------------------------
# The command line's Remove ends with its process, and TEMP tables with it: the kept rows are copied into a SQLite
# file of their own in the data dir (private like it), with the time of the Remove, and read back by `undo`.

def save_removed(store: Store, file: str, removed_at: float) -> bool:
    """Outside a transaction: write what Undo would restore to `file` (replacing one there); False when nothing
    is kept. The caller writes to a temporary name and renames it, so a reader never sees half a file."""
    if not has_removed(store):
        return False
    c = store.conn
    c.execute("ATTACH DATABASE ? AS undo_file", (file,))
    try:
        c.execute("BEGIN")
        for t in _TABLES + ("meta",):
            c.execute(f"CREATE TABLE undo_file.removed_{t} AS SELECT * FROM temp.removed_{t}")  # noqa: S608
        c.execute("CREATE TABLE undo_file.removed_when (at REAL NOT NULL)")
        c.execute("INSERT INTO undo_file.removed_when (at) VALUES (?)", (removed_at,))
        c.execute("COMMIT")
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
    finally:
        c.execute("DETACH DATABASE undo_file")
    return True


def load_removed(store: Store, file: str) -> Optional[tuple[float, str]]:
    """Outside a transaction: read a saved Remove back into this connection's TEMP tables, for
    `restore_removed`; (when it was removed, the folder's path), or None when `file` holds none."""
    c = store.conn
    c.execute("ATTACH DATABASE ? AS undo_file", (file,))
    try:
        names = {r[0] for r in c.execute("SELECT name FROM undo_file.sqlite_master WHERE type = 'table'")}
        if not {f"removed_{t}" for t in _TABLES + ("meta", "when")} <= names:
            return None
        when = c.execute("SELECT at FROM undo_file.removed_when").fetchone()
        path = c.execute("SELECT path FROM undo_file.removed_roots").fetchone()
        if when is None or path is None:
            return None
        forget_removed(store)
        for t in _TABLES + ("meta",):
            c.execute(f"CREATE TEMP TABLE removed_{t} AS SELECT * FROM undo_file.removed_{t}")  # noqa: S608
        return float(when[0]), str(path[0])
    finally:
        c.execute("DETACH DATABASE undo_file")
