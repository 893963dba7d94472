"""Exact enforcement of a parsed query's constraints (query_syntax.py) in every search mode.

Unit: the **file** (Recoll/DocFetcher semantics). A file is allowed when it contains every required phrase
or prefix somewhere, at least one alternative of every OR group, none of the excluded words or phrases
anywhere, and passes the fields; `page:N` then keeps only its passages on page N. The allowed set is one
WHERE fragment over `files f` and `chunks c` whose term tests are FTS5 subqueries (parameterised MATCH
strings, each term quoted as an FTS5 phrase), so `FilterScope` (filters.py) turns it into allowed chunk ids
for the dense side and joins it into BM25 on the lexical side: both honour it before the top k are cut.

What "contains" means is the lexical index's notion of a word: case and accents ignored, English words
stemmed (porter), so -run also excludes "running", and `word*` matches index words that start with the
stemmed prefix. A phrase matches its words in order, adjacent, within one passage. Passages overlap by
whole trailing sentences (ingest/chunking.py), so a phrase inside one sentence is always inside one passage
(unless that sentence alone is over the passage limit and is cut into words, or crosses a page break); a
phrase spanning a sentence boundary is found only where both sentences share a passage. CJK text is matched
in the character table (store/cjk.py): a CJK run as its characters in order; a term mixing scripts requires
each part (no order between the parts).
"""

from __future__ import annotations

import os
import re
import sqlite3
from typing import Optional

from ...base.errors import StoreError
from ...base.types import Hit, StageRanks, StageScores
from ...store import Store
from ...store.cjk import CJK_CLASS, CJK_TABLE, cjk_chars
from .filters import FilterScope, SearchFilters
from ..query.syntax import _TOKEN_CHAR, ParsedQuery, Term, filters_of

__all__ = ["QueryConstraints", "constraint_scope", "list_by_date", "parse_for_search"]

_CJK_SPLIT = re.compile(f"([{CJK_CLASS}]+)")  # capturing: split() keeps the CJK runs
_GLOB_CHARS = frozenset("*?[")


def parse_for_search(query: str, literal: bool) -> Optional[ParsedQuery]:
    """The parsed query when it has syntax; None for a plain query or --literal (searched as before)."""
    from ..query.syntax import parse_query

    if literal:
        return None
    parsed = parse_query(query)
    return parsed if parsed.has_syntax else None


def _phrase(text: str, prefix: bool = False) -> str:
    return '"' + text.replace('"', '""') + '"' + (" *" if prefix else "")


def term_files(term: Term) -> tuple[str, list]:
    """A SELECT of the ids of files containing `term`, and its parameters."""
    selects: list[str] = []
    params: list = []
    pieces = _CJK_SPLIT.split(term.text)  # odd indexes: CJK runs
    last_latin = max((i for i, p in enumerate(pieces) if i % 2 == 0 and _TOKEN_CHAR.search(p)), default=-1)
    for i, piece in enumerate(pieces):
        if i % 2:
            table, expr = CJK_TABLE, _phrase(cjk_chars(piece))
        elif _TOKEN_CHAR.search(piece):
            table, expr = "chunks_fts", _phrase(" ".join(piece.split()), term.prefix and i == last_latin)
        else:
            continue
        selects.append(f"SELECT c.file_id FROM {table} JOIN chunks c ON c.id = {table}.rowid "  # a constant
                       f"WHERE {table} MATCH ?")
        params.append(expr)
    if not selects:  # no word at all (the parser never makes such a term): no file contains it
        return "SELECT NULL WHERE 0", []
    return "SELECT file_id FROM (" + " INTERSECT ".join(selects) + ")", params


def _ascii_lower(text: str) -> str:
    return "".join(ch.lower() if ch.isascii() else ch for ch in text)  # what SQLite's lower() does


class QueryConstraints:
    """Looks like SearchFilters to FilterScope (`active`, `where()`, `to_json()`): the given filters (CLI
    flags, the filter bar) AND the query's fields AND its term constraints."""

    active = True

    def __init__(self, parsed: ParsedQuery, filters: Optional[SearchFilters] = None) -> None:
        self.parsed, self.filters = parsed, filters
        self._where = self._build()

    def _build(self) -> tuple[str, list]:
        p = self.parsed
        clauses: list[str] = []
        params: list = []
        for flt in (self.filters, filters_of(p)):
            if flt is not None and flt.active:
                w, ps = flt.where()
                clauses.append(w)
                params += ps
        if not clauses:
            clauses.append("f.status = 'indexed'")
        if p.names:
            # The name after the last separator: rtrim() drops every trailing character that is not one.
            base = "lower(substr(f.path, length(rtrim(f.path, replace(f.path, ?, ''))) + 1))"
            clauses.append("(" + " OR ".join(f"{base} GLOB ?" for _ in p.names) + ")")
            for glob in p.names:
                pattern = glob if _GLOB_CHARS & set(glob) else f"*{glob}*"
                params += [os.sep, _ascii_lower(pattern)]
        if p.page is not None:
            clauses.append("c.page = ?")
            params.append(p.page)
        for clause in p.clauses:
            if clause.kind == "word":
                continue
            sqls = [term_files(t) for t in clause.terms]
            sql = " UNION ".join(s for s, _ in sqls)
            clauses.append(f"f.id {'NOT IN' if clause.kind == 'exclude' else 'IN'} ({sql})")
            params += [x for _, ps in sqls for x in ps]
        return " AND ".join(clauses), params

    def where(self) -> tuple[str, list]:
        return self._where[0], list(self._where[1])

    def to_json(self) -> dict:
        p = self.parsed
        out = {**(self.filters.to_json() if self.filters is not None else {}), "query": {
            "free_text": p.free_text, "required": [c.to_text() for c in p.of_kind("require")],
            "any_of": [c.to_text() for c in p.of_kind("any")], "excluded": [c.to_text() for c in p.of_kind("exclude")],
            "in": list(p.folders), "type": list(p.types), "name": list(p.names), "after": p.after,
            "before": p.before, "page": p.page}}
        if p.warnings:
            out["query"]["warnings"] = list(p.warnings)
        return out


def constraint_scope(store: Store, parsed: ParsedQuery, filters: Optional[SearchFilters]) -> FilterScope:
    return FilterScope(store, QueryConstraints(parsed, filters))  # type: ignore[arg-type]  (duck-typed filters)


def list_by_date(store: Store, scope: FilterScope, k: int, group: str) -> list[Hit]:
    """No words to rank by (a query of only operators and fields): the allowed files, newest first; by file
    their first allowed passage, by passage every allowed passage in reading order."""
    where, params = scope.filters.where()
    if group == "file":  # SQLite: a bare column next to min() comes from the row holding the minimum
        sql = (f"SELECT c.id, min(c.ordinal) FROM files f CROSS JOIN chunks c ON c.file_id = f.id WHERE {where} "
               "GROUP BY f.id ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path LIMIT ?")
    else:
        sql = (f"SELECT c.id, c.ordinal FROM files f CROSS JOIN chunks c ON c.file_id = f.id WHERE {where} "
               "ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path, c.ordinal LIMIT ?")
    try:
        ids = [r[0] for r in store.conn.execute(sql, [*params, int(k)])]
    except sqlite3.OperationalError as exc:
        raise StoreError(f"filtered search failed: {exc}") from exc
    rows = store.chunks(ids)
    hits = []
    for rank, cid in enumerate((i for i in ids if i in rows), start=1):
        r = rows[cid]
        hits.append(Hit(chunk_id=cid, path=r.path, page=r.page, start=r.start, end=r.end, text=r.text,
                        scores=StageScores(), ranks=StageRanks(final=rank)))
    return hits
