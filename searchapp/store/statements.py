"""What the Store's record mixins (roots, files, passages) need of it: its connection and its two ways to run a
statement, which Store itself defines (store/db.py). Declared for the type checker only, so that no stub can
shadow Store's own methods in the method order."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

__all__ = ["Statements"]


class Statements:
    conn: sqlite3.Connection

    if TYPE_CHECKING:
        def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor: ...

        def select_in(self, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]: ...
