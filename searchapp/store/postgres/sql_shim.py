"""SQLite-style SQL (`?` placeholders) run on a psycopg connection, for the few portable helpers over a Store
that take its `conn` or `db` (store/ledger.py: the ledger's state, an entry's date, OCR marks; Store.select_in).

Only placeholders change: each `?` outside a quoted literal becomes psycopg's `%s` (and a literal `%` is
doubled), so values still travel as parameters, never as SQL text. SQL that only SQLite understands is not
translated: it fails as a StoreError naming the statement's first words (a gap of the shared engine, said).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator, Optional, Protocol, Sequence


class Runs(Protocol):
    """What the shim and pg_cjk's backfill ask of a PgStore (a protocol, not an import of pg_store: that module
    imports both)."""

    def rows(self, sql: str, params: Sequence[Any] = ...) -> list[tuple[Any, ...]]: ...

    def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

__all__ = ["to_psycopg", "ShimConnection", "ShimCursor", "Runs"]


@lru_cache(maxsize=256)
def to_psycopg(sql: str) -> str:
    out: list[str] = []
    quote: Optional[str] = None
    for ch in sql:
        if quote is not None:
            out.append("%%" if ch == "%" else ch)
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        elif ch == "%":
            out.append("%%")
        else:
            out.append(ch)
    return "".join(out)


class ShimCursor:
    """The rows of one statement, read as sqlite3's cursor is (iterated, fetchone, fetchall)."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows
        self._at = 0

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        while self._at < len(self._rows):
            self._at += 1
            yield self._rows[self._at - 1]

    def fetchone(self) -> Optional[tuple[Any, ...]]:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[tuple[Any, ...]]:
        rest, self._at = self._rows[self._at:], len(self._rows)
        return rest


class ShimConnection:
    """`store.conn` / `store.db` of a PgStore: execute(sql with ?, params) -> a cursor of its rows."""

    def __init__(self, store: Runs) -> None:
        self._store = store

    def execute(self, sql: str, params: Sequence[Any] = ()) -> ShimCursor:
        return ShimCursor(self._store.rows(to_psycopg(sql), tuple(params)))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._store.run_many(to_psycopg(sql), [tuple(r) for r in rows])
