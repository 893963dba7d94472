"""Search history and saved searches of a shared library, in its own database (decision 0124).

The same calls as store/history.SearchesDB (what library/query/saved.py asks of it), over a PgStore's
connection, each desktop's own rows (`owner`: the machine name its roots are kept under). Every statement takes
its values as parameters; each write is one transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional

from ..history import HistoryRow, SavedSearch

if TYPE_CHECKING:
    from .pg_store import PgStore

__all__ = ["PgSearches", "open_searches"]

_SAVED_COLUMNS = "name, query, mode, k, literal, created_at, opened_at, checked_generation, new_hits, hits"


def _saved(row: tuple[Any, ...]) -> SavedSearch:
    return SavedSearch(str(row[0]), str(row[1]), str(row[2]), int(row[3]), bool(row[4]), float(row[5]),
                       None if row[6] is None else float(row[6]), None if row[7] is None else int(row[7]),
                       int(row[8]), int(row[9]))


def open_searches(address: str) -> "PgSearches":
    """The searches of the shared library at `address`, on a connection of their own (`history list`, a search's
    record)."""
    from .pg_store import PgStore

    return PgSearches(PgStore(address), owned=True)


def _text(value: str) -> str:
    return value.replace("\x00", "\ufffd")  # PostgreSQL text holds no NUL (a query typed with one still searches)


class PgSearches:
    """SearchesDB's calls on a shared library. `owned`: close the store with this (opened for it alone)."""

    def __init__(self, store: "PgStore", *, owned: bool = False) -> None:
        self.store, self.owner, self._owned = store, store.machine, owned
        self.path = store.path  # what messages name

    def close(self) -> None:
        if self._owned:
            self.store.close()

    def __enter__(self) -> "PgSearches":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- history ----------------------------------------------------------
    def add_history(self, query: str, mode: str, at: float, keep: int) -> None:
        with self.store.atomic():
            self.store.rows("DELETE FROM history WHERE owner = %s AND query = %s", (self.owner, _text(query)))
            if keep > 0:
                self.store.rows("INSERT INTO history (owner, query, mode, at) VALUES (%s, %s, %s, %s)",
                                (self.owner, _text(query), mode, at))
            self.store.rows("DELETE FROM history WHERE owner = %s AND id NOT IN (SELECT id FROM history WHERE "
                            "owner = %s ORDER BY id DESC LIMIT %s)", (self.owner, self.owner, keep))

    def history(self, limit: int) -> list[HistoryRow]:
        return [HistoryRow(str(q), str(m), float(a)) for q, m, a in self.store.rows(
            "SELECT query, mode, at FROM history WHERE owner = %s ORDER BY id DESC LIMIT %s", (self.owner, limit))]

    def clear_history(self) -> int:
        return len(self.store.rows("DELETE FROM history WHERE owner = %s RETURNING id", (self.owner,)))

    # -- saved searches ---------------------------------------------------
    def saved(self) -> list[SavedSearch]:
        return [_saved(r) for r in self.store.rows(
            f"SELECT {_SAVED_COLUMNS} FROM saved WHERE owner = %s ORDER BY lower(name), name",  # noqa: S608 (constant columns)
            (self.owner,))]

    def saved_one(self, name: str) -> Optional[SavedSearch]:
        row = self.store.one(f"SELECT {_SAVED_COLUMNS} FROM saved WHERE owner = %s AND name = %s",  # noqa: S608 (constant columns)
                             (self.owner, name))
        return None if row is None else _saved(row)

    def save(self, name: str, query: str, mode: str, k: int, literal: bool, at: float, replace: bool) -> None:
        with self.store.atomic():
            if replace:
                self.store.rows("DELETE FROM saved WHERE owner = %s AND name = %s", (self.owner, name))
            self.store.rows("INSERT INTO saved (owner, name, query, mode, k, literal, created_at) VALUES "
                            "(%s, %s, %s, %s, %s, %s, %s)", (self.owner, name, _text(query), mode, k, bool(literal), at))

    def set_query(self, name: str, before: str, after: str) -> bool:
        return bool(self.store.rows("UPDATE saved SET query = %s, checked_generation = NULL WHERE owner = %s AND "
                                    "name = %s AND query = %s RETURNING name",
                                    (_text(after), self.owner, name, _text(before))))

    def remove_saved(self, name: str) -> bool:
        return bool(self.store.rows("DELETE FROM saved WHERE owner = %s AND name = %s RETURNING name",
                                    (self.owner, name)))

    def seen(self, name: str) -> set[str]:
        return {str(r[0]) for r in self.store.rows("SELECT path FROM saved_seen WHERE owner = %s AND name = %s",
                                                   (self.owner, name))}

    def add_seen(self, rows: Iterable[tuple[str, str]]) -> None:
        self.store.run_many("INSERT INTO saved_seen (owner, name, path) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                            [(self.owner, name, path) for name, path in rows])

    def mark_opened(self, name: str, paths: Iterable[str], generation: int, at: float) -> None:
        paths = list(dict.fromkeys(paths))
        with self.store.atomic():
            self.store.rows("DELETE FROM saved_seen WHERE owner = %s AND name = %s", (self.owner, name))
            self.store.run_many("INSERT INTO saved_seen (owner, name, path) VALUES (%s, %s, %s)",
                                [(self.owner, name, p) for p in paths])
            self.store.rows("UPDATE saved SET opened_at = %s, checked_generation = %s, new_hits = 0, hits = %s "
                            "WHERE owner = %s AND name = %s", (at, generation, len(paths), self.owner, name))

    def set_counts(self, name: str, generation: int, new_hits: int, hits: int) -> None:
        self.store.rows("UPDATE saved SET checked_generation = %s, new_hits = %s, hits = %s WHERE owner = %s AND "
                        "name = %s", (generation, new_hits, hits, self.owner, name))
