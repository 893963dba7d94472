"""Exact enforcement of a parsed query's constraints (query/syntax.py) in every search mode.

Unit: the **file** (Recoll/DocFetcher semantics). A file is allowed when it contains every required phrase
or prefix somewhere, holds every #tag (a note's tag tags the note: store/scope.py holds_tag), at least one
alternative of every OR group, none of the excluded words, phrases or tags anywhere, and passes the fields; `page:N` then keeps only its passages on page N. The allowed set is one
WHERE fragment over `files f` and `chunks c` whose term tests are FTS5 subqueries (parameterised MATCH
strings, each term quoted as an FTS5 phrase), so `FilterScope` (filter_scope.py) turns it into allowed chunk ids
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

import re
from typing import Any, Optional

from ...base.types import Hit, StageRanks, StageScores
from ...store import Store
from ...store.cjk import CJK_CLASS
from ...store.rows import ChunkRow
from ...store.scope import (INDEXED, Fragment, all_of, any_of, files_containing, header_matches, name_matches, on_page,
                             tags_held)
from ..query.filters import SearchFilters
from .filter_scope import FilterScope
from .folding import Copies, Folded, fold_copies, mark_folded, on_disk_elsewhere
from .grouping import MAX_POOL
from .near_copies import POOL_MIN, POOL_PER_K, fold_near_copies
from ..query.syntax import HEADER_FIELDS, TOKEN_CHAR, Clause, ParsedQuery, Term, filters_of

__all__ = ["QueryConstraints", "constraint_scope", "list_by_date", "listed", "parse_for_search"]

_CJK_SPLIT = re.compile(f"([{CJK_CLASS}]+)")  # capturing: split() keeps the CJK runs
_GLOB_CHARS = frozenset("*?[")


def parse_for_search(query: str, literal: bool) -> Optional[ParsedQuery]:
    """The parsed query when it has syntax; None for a plain query or --literal (searched as before)."""
    from ..query.syntax import parse_query

    if literal:
        return None
    parsed = parse_query(query)
    return parsed if parsed.has_syntax else None


def term_pieces(term: Term) -> list[tuple[str, bool]]:
    """What a file must contain for `term`: each CJK run, and each stretch of other text that has a word, in
    order, with whether it ends in a prefix (store/scope.py matches them)."""
    pieces = _CJK_SPLIT.split(term.text)  # odd indexes: CJK runs
    last_latin = max((i for i, p in enumerate(pieces) if i % 2 == 0 and TOKEN_CHAR.search(p)), default=-1)
    return [(piece, term.prefix and i == last_latin) for i, piece in enumerate(pieces)
            if i % 2 or TOKEN_CHAR.search(piece)]


class QueryConstraints:
    """Looks like SearchFilters to FilterScope (`active`, `where()`, `to_json()`): the given filters (CLI
    flags, the filter bar) AND the query's fields AND its term constraints."""

    active = True

    def __init__(self, parsed: ParsedQuery, filters: Optional[SearchFilters] = None,
                 store: Optional[Store] = None) -> None:
        self.parsed, self.filters = parsed, filters
        self._store = store  # whose SQL the term and name tests are written in (the desktop's when None)
        self._where = self._build()

    def _build(self) -> Fragment:
        p = self.parsed
        parts: list[Fragment] = [flt.where() for flt in (self.filters, filters_of(p)) if flt is not None and flt.active]
        if not parts:
            parts.append(INDEXED)
        if p.names:
            globs = [g if _GLOB_CHARS & set(g) else f"*{g}*" for g in p.names]
            parts.append(name_matches(globs) if self._store is None else self._store.name_fragment(globs))
        for field in dict.fromkeys(name for name, _ in p.headers):  # from:, to:, subject: (any value of one field)
            values = [v for name, v in p.headers if name == field]
            parts.append(header_matches(field, values) if self._store is None
                         else self._store.header_fragment(field, values))
        if p.page is not None:
            parts.append(on_page(p.page))
        for clause in p.clauses:
            if clause.kind != "word":
                parts.append(self._clause(clause))
        return all_of(parts)

    def _clause(self, clause: Clause) -> Fragment:
        """A file containing the clause's terms (one of them for an OR group; none for an exclusion): its words and
        phrases by the words index, its tags by the passages holding them."""
        exclude = clause.kind == "exclude"
        pieces = [term_pieces(t) for t in clause.terms if not t.tag]
        tags = [(t.text, term_pieces(Term(t.text))) for t in clause.terms if t.tag]
        fragments: list[Fragment] = []
        if pieces:
            fragments.append(files_containing(pieces, exclude=exclude) if self._store is None
                             else self._store.term_fragment(pieces, exclude=exclude))
        if tags:
            fragments.append(tags_held(tags, exclude=exclude) if self._store is None
                             else self._store.tag_fragment(tags, exclude=exclude))
        return all_of(fragments) if exclude else any_of(fragments)

    def where(self) -> tuple[str, list[Any]]:
        return self._where[0], list(self._where[1])

    def to_json(self) -> dict[str, Any]:
        p = self.parsed
        out: dict[str, Any] = {**(self.filters.to_json() if self.filters is not None else {}), "query": {
            "free_text": p.free_text, "required": [c.to_text() for c in p.of_kind("require")],
            "any_of": [c.to_text() for c in p.of_kind("any")], "excluded": [c.to_text() for c in p.of_kind("exclude")],
            "in": list(p.folders), "type": list(p.types), "name": list(p.names), "after": p.after,
            "before": p.before, "page": p.page,
            **{field: [v for name, v in p.headers if name == field] for field in HEADER_FIELDS}}}
        if p.warnings:
            out["query"]["warnings"] = list(p.warnings)
        return out


def constraint_scope(store: Store, parsed: ParsedQuery, filters: Optional[SearchFilters]) -> FilterScope:
    return FilterScope(store, QueryConstraints(parsed, filters, store))


def list_by_date(store: Store, scope: FilterScope, k: int, group: str, fold: bool = True,
                 fold_near: bool = False) -> list[Hit]:
    """No words to rank by (a query of only operators and fields): the allowed files, newest first; by file
    their first allowed passage, exact copies in one row as in a ranked search (`fold`: search.fold_repeats), so
    the k rows are k contents, and with `fold_near` (search.fold_near_copies) a near copy in the row of its
    document's newest file (near_copies.py: the rows' first passages are the gate, as a query's best ones are),
    the next files filling the rows; by passage every allowed passage in reading order."""
    where = scope.filters.where()
    if group != "file" or not fold:
        return listed(store, store.newest_first(where, k, by_file=group == "file"))
    rows, order, copies = _newest_contents(store, where, max(POOL_MIN, POOL_PER_K * k) if fold_near else k)
    hits = _listed(rows, order)
    file_of = {cid: rows[cid].file_id for cid in order}
    if fold_near:
        hits = fold_near_copies(store, hits, file_of, k)[:k]
        for rank, h in enumerate(hits, start=1):
            h.ranks.final = rank
    mark_folded(store, hits, file_of, Folded(sha_of=copies.sha_of), where)
    return hits


def _newest_contents(store: Store, where: Fragment, k: int) -> tuple[dict[int, ChunkRow], list[int], Copies]:
    """The first allowed passage of each of the k newest contents: the files newest first, each content's row
    shown by the copy folding.fold_copies picks and at that copy's place, so the date a row shows is the one it is
    sorted by (at its newest copy's place, a row shown by an older copy, the newest being on a missing folder,
    stood above files newer than it); asked again with a wider list while copies leave fewer than k (as
    grouping.widen_to_files does for passages). The copy shown is among the files listed, so no file past the list
    is newer than it. A member of a container (dated as its container) whose file on disk is past the list leaves
    it: that file shows the content's row at its own date, when the list reaches it (a newcomer's `type:rtf` showed
    `test-documents.tgz › testRTF.rtf`, the file on disk listed as its copy). One query for them all, not per row."""
    n = 2 * k  # most lists hold few copies: one query
    while True:
        ids = store.newest_first(where, n, by_file=True)
        rows = store.chunks(ids)
        listed = [i for i in ids if i in rows]
        chunk_of = {rows[c].file_id: c for c in listed}
        copies = fold_copies(store, list(chunk_of), {f: rows[c].path for f, c in chunk_of.items()})
        order = [c for f, c in chunk_of.items() if copies.row_of.get(f, f) == f]  # the copies shown, in date order
        later = on_disk_elsewhere(store, {rows[c].file_id: rows[c].path for c in order}, where)
        order = [c for c in order if rows[c].file_id not in later]
        if len(order) >= k or len(ids) < n or n >= max(k, MAX_POOL):
            return rows, order[:k], copies
        n = min(4 * n, max(k, MAX_POOL))


def listed(store: Store, ids: list[int], rows: Optional[dict[int, ChunkRow]] = None) -> list[Hit]:
    """The passages `ids` (each a file's first, say) as unscored rows in that order: a listing's rows. `rows`:
    theirs, when the caller read them already."""
    rows = store.chunks(ids) if rows is None else rows
    return _listed(rows, [i for i in ids if i in rows])


def _listed(rows: dict[int, ChunkRow], order: list[int]) -> list[Hit]:
    hits = []
    for rank, cid in enumerate(order, start=1):
        r = rows[cid]
        hits.append(Hit(chunk_id=cid, path=r.path, page=r.page, start=r.start, end=r.end, text=r.text,
                        scores=StageScores(), ranks=StageRanks(final=rank), date_ns=r.date_ns))
    return hits
