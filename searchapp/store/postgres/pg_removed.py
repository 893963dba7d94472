"""Undo for Remove on a shared library (decision 0135): the removed folder's rows (root, files, passages with their
vectors, words and repeat spans) are copied into the removed_* tables (schema 5) in the very transaction that
deletes them, kept under the machine that removed them, and put back by that machine's `undo` within its minute:
nothing is read or embedded again. The desktop keeps them in a file of its data dir (library/resources/
undo_file.py); here the next process of the same machine may run on another connection, so the database keeps them.

Times are the server's clock (every desktop reads the same one). One kept removal per machine: its next Remove
replaces it. Whatever is past its minute, whoever removed it, is deleted by the next Remove or Undo of any
machine: it holds a folder's text that nothing can bring back any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ...base.member_paths import MEMBER_SEP

if TYPE_CHECKING:
    from .pg_store import PgStore

__all__ = ["KeptRemoval", "keep_removal", "kept_removal", "restore_removal", "drop_removal", "drop_expired"]

_NOW = "extract(epoch FROM clock_timestamp())"
_OF_ROOT = {  # the rows of root %s, in restore order (each table's rows point at the ones before)
    "files": "SELECT * FROM {src}files WHERE root_id = %s",
    "chunks": "SELECT c.* FROM {src}chunks c JOIN {src}files f ON f.id = c.file_id WHERE f.root_id = %s",
    "postings": ("SELECT p.* FROM {src}postings p JOIN {src}chunks c ON c.id = p.chunk_id "
                 "JOIN {src}files f ON f.id = c.file_id WHERE f.root_id = %s"),
    "spans": ("SELECT s.* FROM {src}chunk_spans s JOIN {src}chunks c ON c.id = s.chunk_id "
              "JOIN {src}files f ON f.id = c.file_id WHERE f.root_id = %s"),
    "cjk_postings": ("SELECT p.term, p.chunk_id, p.tf, p.dl FROM {src}cjk_postings p JOIN {src}chunks c ON "
                     "c.id = p.chunk_id JOIN {src}files f ON f.id = c.file_id WHERE f.root_id = %s"),
}
_TABLE = {"files": "files", "chunks": "chunks", "postings": "postings", "spans": "chunk_spans",
          "cjk_postings": "cjk_postings"}
_KEPT = {t: sql.format(src="removed_").replace("removed_chunk_spans", "removed_spans") for t, sql in _OF_ROOT.items()}
_LIVE = {t: sql.format(src="") for t, sql in _OF_ROOT.items()}


def _tables(store: PgStore) -> tuple[str, ...]:
    """What a removal keeps, in restore order: CJK postings where the library has them (a later schema's)."""
    cjk = store.one("SELECT to_regclass('cjk_postings') IS NOT NULL")
    return ("files", "chunks", "postings", "spans") + (("cjk_postings",) if cjk and cjk[0] else ())


@dataclass(frozen=True)
class KeptRemoval:
    root_id: int
    path: str
    added_at: float
    last_sync: Optional[float]
    age_s: float  # seconds since the Remove, by the server's clock
    model_fingerprint: Optional[str]


def keep_removal(store: PgStore, root_id: int) -> None:
    """Inside the transaction that deletes this machine's root `root_id`, before the delete: keep its rows (and
    let go of this machine's earlier kept removal: one Undo, the last Remove)."""
    drop_removal(store)
    store.rows(f"INSERT INTO removed_roots(machine, root_id, path, added_at, last_sync, removed_at, model_fingerprint) "  # noqa: S608 (a constant)
               f"SELECT machine, id, path, added_at, last_sync, {_NOW}, (SELECT value FROM meta WHERE key = "
               "'model_fingerprint') FROM roots WHERE id = %s AND machine = %s", (root_id, store.machine))
    for t in _tables(store):  # the kept copy's name: removed_ + the table's short name
        store.rows(f"INSERT INTO removed_{t} {_LIVE[t]}", (root_id,))


def kept_removal(store: PgStore, *, lock: bool = False) -> Optional[KeptRemoval]:
    """This machine's kept removal, None when there is none (another machine's is never this one's). `lock`: inside
    a transaction, hold its row until the end of it (a second Undo of the same machine waits, then finds none)."""
    row = store.one("SELECT root_id, path, added_at, last_sync, " + _NOW + " - removed_at, model_fingerprint "
                    "FROM removed_roots WHERE machine = %s" + (" FOR UPDATE" if lock else ""), (store.machine,))
    if row is None:
        return None
    return KeptRemoval(int(row[0]), str(row[1]), float(row[2]), None if row[3] is None else float(row[3]),
                       float(row[4]), None if row[5] is None else str(row[5]))


def taken_since(store: PgStore, kept: KeptRemoval) -> bool:
    """Whether this machine indexed the folder, or one of its files, again since the Remove (its rows would clash)."""
    return store.one(
        "SELECT 1 FROM roots WHERE machine = %s AND path = %s UNION ALL SELECT 1 FROM files f JOIN removed_files k "
        "ON k.machine = f.machine AND k.path = f.path WHERE k.root_id = %s LIMIT 1",
        (store.machine, kept.path, kept.root_id)) is not None


def restore_removal(store: PgStore, kept: KeptRemoval) -> int:
    """Inside a transaction: put the kept rows back (the triggers count their passages into the totals again) and
    let go of the copy; the number of files restored (on disk: not the members of archives and mail, as on_disk)."""
    store.rows("INSERT INTO roots(id, machine, path, added_at, last_sync) VALUES (%s, %s, %s, %s, %s)",
               (kept.root_id, store.machine, kept.path, kept.added_at, kept.last_sync))
    for t in _tables(store):
        store.rows(f"INSERT INTO {_TABLE[t]} {_KEPT[t]}", (kept.root_id,))
    row = store.one("SELECT count(*) FROM files WHERE root_id = %s AND strpos(substr(path, 2), %s) = 0",
                    (kept.root_id, MEMBER_SEP))  # past the first character, as split_member looks
    drop_removal(store)
    return int(row[0]) if row else 0


def drop_removal(store: PgStore) -> None:
    """Forget this machine's kept removal (inside the caller's transaction, if any)."""
    _drop(store, "machine = %s", (store.machine,))


def drop_expired(store: PgStore, seconds: float) -> None:
    """Forget every machine's kept removal older than `seconds`: nothing can bring it back, and it holds text."""
    _drop(store, f"removed_at < {_NOW} - %s", (float(seconds),))


def _drop(store: PgStore, where: str, params: tuple[object, ...]) -> None:
    roots = [int(r[0]) for r in store.rows(f"DELETE FROM removed_roots WHERE {where} RETURNING root_id", params)]  # noqa: S608 (constants)
    if not roots:
        return
    chunks = "SELECT c.id FROM removed_chunks c JOIN removed_files f ON f.id = c.file_id WHERE f.root_id = ANY(%s)"
    store.rows(f"DELETE FROM removed_postings WHERE chunk_id IN ({chunks})", (roots,))  # noqa: S608 (constants)
    store.rows(f"DELETE FROM removed_spans WHERE chunk_id IN ({chunks})", (roots,))  # noqa: S608 (constants)
    store.rows(f"DELETE FROM removed_cjk_postings WHERE chunk_id IN ({chunks})", (roots,))  # noqa: S608 (constants)
    store.rows("DELETE FROM removed_chunks WHERE file_id IN (SELECT id FROM removed_files WHERE root_id = ANY(%s))",
               (roots,))
    store.rows("DELETE FROM removed_files WHERE root_id = ANY(%s)", (roots,))
