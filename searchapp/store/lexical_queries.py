"""Lexical search over the passages: a query's words as a safe FTS5 expression, and the Store's named lexical
reads (a mixin of Store; the SQL and the one merge of the word and CJK tables' scores are in lexical.py)."""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Iterable, Optional, Sequence

from . import lexical
from .cjk import CJK_TABLE, cjk_query
from .lexical import STOP_WORDS

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LexicalQueries", "fts_query"]

_WORD = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str, prefixes: Iterable[str] = ()) -> Optional[str]:
    """A safe FTS5 MATCH expression: each word quoted (so no FTS syntax can leak in), OR'ed for BM25. A word
    of `prefixes` (typed `word*`) matches every index word starting with it (`"word" *`), common or not."""
    starts = {p.lower() for p in prefixes}
    words = [w.lower() for w in _WORD.findall(text)]
    kept = [w for w in words if w not in STOP_WORDS or w in starts] or words
    unique = list(dict.fromkeys(kept))
    if not unique:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' + (" *" if w in starts else "") for w in unique)


def _matches(query: str, prefixes: Iterable[str] = ()) -> list[lexical.Match]:
    """The MATCH expressions of a query: its words in the word table, its CJK pairs in the character table."""
    expr = fts_query(query, prefixes)
    if expr is None:
        return []
    cjk = cjk_query(query)  # CJK words match as character pairs in their own table; the scores add up
    return [("chunks_fts", expr)] + ([(CJK_TABLE, cjk)] if cjk is not None else [])


class LexicalQueries:
    """Needs `conn` of Store. A mixin of Store: BM25 over the passages' text."""

    conn: sqlite3.Connection

    def files_with_phrase(self, phrase: str, cap: int = 100_000) -> int:
        """How many files hold `phrase` (its words in order, as the lexical index reads them), counted up to
        `cap`; 0 when it has no word. The phrase goes in as one quoted FTS5 string: no syntax can leak in."""
        if not _WORD.search(phrase):
            return 0
        expr = '"' + phrase.replace('"', '""') + '"'
        row = self.conn.execute(
            "SELECT count(*) FROM (SELECT DISTINCT c.file_id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
            "WHERE chunks_fts MATCH ? LIMIT ?)", (expr, cap)).fetchone()
        return int(row[0])

    # -- lexical (lexical.py: the SQL and the one merge of the two tables' scores) ---------------------------
    def search_lexical(self, query: str, limit: int, within: Optional[Sequence[int]] = None,
                       prefixes: Iterable[str] = ()) -> list[tuple[int, float]]:
        """BM25 over chunk text: [(chunk id, score)] best first (ties: lower id first); score = -bm25 so higher
        is better. `within`: only these chunk ids. `prefixes`: words of `query` typed as `word*` (fts_query)."""
        return lexical.ranked(self.conn, _matches(query, prefixes), limit, within=within)

    def search_lexical_where(self, query: str, limit: int, where: lexical.Fragment, prefixes: Iterable[str] = (),
                             allowed: Optional[np.ndarray] = None) -> list[tuple[int, float]]:
        """search_lexical over the passages of the files a WHERE fragment allows (scope.py); `allowed`: the
        chunk ids it allows (sorted), when the caller has them already."""
        return lexical.ranked(self.conn, _matches(query, prefixes), limit, where=where, allowed=allowed)

    def search_lexical_and_score(self, query: str, limit: int, also: Sequence[int], prefixes: Iterable[str] = (),
                                 where: Optional[lexical.Fragment] = None, allowed: Optional[np.ndarray] = None
                                 ) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """(`search_lexical(query, limit)`, or `search_lexical_where` with `where`, and {id: score} for each
        passage of `also` that matches the query) from one reading of each table; a passage of `also` missing
        from the dict shares no word with the query."""
        return lexical.ranked_and_scored(self.conn, _matches(query, prefixes), limit, also, where=where,
                                         allowed=allowed)
