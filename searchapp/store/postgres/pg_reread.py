"""`reindex` on a shared library (decision 0135): this machine's files are marked to be read again, in one
transaction, and the ordinary sync then reads each marked file as a changed one, replacing its passages in its
own batch. The mark is in the rows (a size of -1, which no file has, and no hash), so what a killed reindex left
is exactly the files still marked: the next `reindex` or `index` reads those and keeps what was done. Searches
find a file's old passages until its new ones are committed.

Meta `reindex:MACHINE` says a reindex of that machine's folders is under way (the number of files it marked): a
second `reindex` then resumes instead of marking every file again, and the sync that finishes every folder of the
machine clears it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .pg_store import PgStore

__all__ = ["UNREAD", "mark_all", "files_left", "under_way", "finished"]

UNREAD = -1  # files.size of a file marked to be read again


def _key(store: PgStore) -> str:
    return f"reindex:{store.machine}"


def under_way(store: PgStore) -> Optional[int]:
    """The files a reindex of this machine's folders marked when it began, None when none is under way."""
    value = store.get_meta(_key(store))
    return int(value) if value and value.isdigit() else None


def mark_all(store: PgStore) -> int:
    """Inside a transaction: mark every file of this machine to be read again; how many."""
    marked = len(store.rows("UPDATE files SET size = %s, sha256 = NULL WHERE machine = %s RETURNING id",
                            (UNREAD, store.machine)))
    store.set_meta(_key(store), str(marked))
    store.bump_generation()
    return marked


def files_left(store: PgStore) -> int:
    row = store.one("SELECT count(*) FROM files WHERE machine = %s AND size = %s", (store.machine, UNREAD))
    return int(row[0]) if row else 0


def finished(store: PgStore) -> None:
    """After a sync of every folder of this machine, none missing: no reindex is under way any more."""
    if under_way(store) is not None:
        store.rows("DELETE FROM meta WHERE key = %s", (_key(store),))
