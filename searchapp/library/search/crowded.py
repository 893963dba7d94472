"""Files that fill the words side's whole pool: the passages of the other files, asked apart.

A search by file asks the words index for the best passages until they come from enough files (grouping.py
widen_to_files), up to MAX_POOL passages. A file holding the query's words in thousands of passages (a generated
JSON of 60,000 items `{"retry": {"max_retries": 3}}`, a long log) can fill all of them: a newcomer's
`search retry --mode lexical` listed that one file, and their note on retries was nowhere, by words or in the
window, whatever `--candidates` said. When the pool is full and holds too few files, the best passages of the
files not in it are asked for (the same query, those files left out), a few rounds at most; they rank below the
pool's, as their BM25 is lower, so the order of the files found first is unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from ...store.lexical import Fragment
from ...store.scope import all_of
from . import grouping

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["beyond_crowding", "ROUNDS"]

ROUNDS = 3  # files left out at a time: one crowding file, then another, then a third; beyond that the pool stands


def beyond_crowding(store: Store, text: str, prefixes: Sequence[str], where: Optional[Fragment],
                    pool: list[tuple[int, float]], want_files: int, n: int) -> list[tuple[int, float]]:
    """The passages to add after `pool` (best first): [] unless `pool` is full (MAX_POOL) and its passages come
    from fewer than `want_files` files. `where`: the search's own scope (None: every file); `n`: passages asked
    of each round."""
    if len(pool) < grouping.MAX_POOL:
        return []
    seen = set(store.chunk_files([c for c, _ in pool]).values())
    more: list[tuple[int, float]] = []
    for _ in range(ROUNDS):
        if len(seen) >= want_files:
            break
        ids = sorted(seen)
        others: Fragment = (f"f.id NOT IN ({','.join('?' * len(ids))})", ids)
        got = store.search_lexical_where(text, n, all_of([others, *([where] if where else [])]), prefixes)
        if not got:
            break
        more += got
        seen |= set(store.chunk_files([c for c, _ in got]).values())
    return more
