"""BM25 over the shared library's postings table: the SQLite library's lexical scores, computed the same way.

A query's words are chosen as fts_query chooses them (stop words dropped, each word once, in order), each word
is tokenized by FTS5's own tokenizer (tokens.py), and the score is store/bm25_postings.py's `_scores` over the
same term frequencies, passage lengths, passage count and token total: the same doubles as SQLite's bm25(), so
the same order and the same ties (lower passage id first). Measured against PostgreSQL's own full text
(tsvector, ts_rank_cd) in decision 0119: that changes the stems and the ranking; this does not.

CJK text is scored as the desktop scores its character table (store/cjk.py): a character pair or a lone
character of the query is a term of `cjk_postings` (tokens.cjk_passage_terms), with that table's own passage
count and token total, and each table's top is cut before the two are merged (store/lexical.py's merge_bm25).
Not yet here (a gap of the shared engine, said where it is met): a word FTS5 splits into several tokens is
scored by its tokens' least frequency rather than as a phrase.
Filters (store/scope.py's fragments) keep the top among the passages they allow, with the whole library's
scores, as FTS5's bm25() does under a filter.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

import numpy as np

from ..bm25_postings import _scores, bm25_idf
from ..lexical import STOP_WORDS, merge_bm25

if TYPE_CHECKING:
    from .pg_words_ahead import WordsAhead

__all__ = ["PgLexical", "query_phrases", "holds_phrase", "NOT_YET"]

_WORD = re.compile(r"\w+", re.UNICODE)
NOT_YET = "not yet on a shared library"
Scored = list[tuple[int, float]]


def query_phrases(text: str, prefixes: Iterable[str] = ()) -> list[tuple[tuple[str, ...], bool]]:
    """[(the word's terms, typed as a prefix)] in fts_query's order and choice of words."""
    from .tokens import word_terms

    starts = {p.lower() for p in prefixes}
    words = [w.lower() for w in _WORD.findall(text)]
    kept = [w for w in words if w not in STOP_WORDS or w in starts] or words
    return [(word_terms(w), w in starts) for w in dict.fromkeys(kept)]


class PgLexical:
    """A mixin of PgStore (needs `rows`)."""

    def rows(self, sql: str, params: Sequence[Any] = (), *, binary: bool = False) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # PgStore's

    schema_version = 2  # PgStore's: the opened library's
    words_ahead: "WordsAhead"  # PgStore's: the words of the search running on each thread

    def lexical_totals(self) -> tuple[int, int]:
        """(passages, tokens) of the whole library, as BM25 reads N and the mean length: from the per-root
        totals the triggers keep (schema.py, decision 0123), not a count of a million rows per search. A library
        made before them (version 1, not yet opened by a writer) is counted."""
        if self.schema_version >= 2:
            row = self.rows("SELECT coalesce(sum(n_rows), 0), coalesce(sum(n_tokens), 0) FROM chunk_totals")[0]
        else:
            row = self.rows("SELECT count(*), coalesce(sum(n_tokens), 0) FROM chunks")[0]
        return int(row[0]), int(row[1])

    def word_counts(self, terms: Sequence[str], at_most: Optional[int] = None) -> Optional[tuple[int, dict[str, int]]]:
        """(passages of the library, {term: passages holding it}) as store/word_stats.py's WordStats gives them on
        the desktop: the postings' primary key (term, passage) counted for each term, a term none holds left out.
        `at_most`: no count above it is needed (a rare term's test), so no term's postings are read past it: a
        number a query holds ("2024") can have hundreds of thousands."""
        unique = list(dict.fromkeys(terms))
        if at_most is None:
            rows = self.rows("SELECT term, count(*) FROM postings WHERE term = ANY(%s) GROUP BY term", (unique,))
        else:
            rows = self.rows("SELECT t, (SELECT count(*) FROM (SELECT 1 FROM postings WHERE term = t LIMIT %s) s) "
                             "FROM unnest(%s::text[]) t", (int(at_most), unique))
        return self.lexical_totals()[0], {str(t): int(n) for t, n in rows if n}

    def passages_holding(self, terms: Sequence[str]) -> set[int]:
        """The ids of the passages holding any of `terms`, as WordStats.passages_holding gives them on the desktop:
        the postings' primary key (term, passage) read for each term."""
        if not terms:
            return set()
        return {int(r[0]) for r in self.rows("SELECT DISTINCT chunk_id FROM postings WHERE term = ANY(%s)",
                                             (list(dict.fromkeys(terms)),))}

    def cjk_totals(self) -> tuple[int, int]:
        """(passages, tokens) of the character table: the passages with a CJK character and their lengths there
        (N and the mean length of the desktop's chunks_cjk), kept per root as the words' are (schema 6)."""
        row = self.rows("SELECT coalesce(sum(n_cjk_rows), 0), coalesce(sum(n_cjk_tokens), 0) FROM chunk_totals")[0]
        return int(row[0]), int(row[1])

    def search_lexical(self, query: str, limit: int, within: Optional[Sequence[int]] = None,
                       prefixes: Iterable[str] = ()) -> Scored:
        if within is not None:
            if not within:
                return []
            tables = self._tables(query, prefixes)
            return merge_bm25((_top(docs, scores, limit, None, within) for docs, scores in tables), limit)
        return self._bm25(query, limit, (), prefixes)[0]

    def search_lexical_and_score(self, query: str, limit: int, also: Sequence[int], prefixes: Iterable[str] = (),
                                 where: Optional[Any] = None, allowed: Optional[np.ndarray] = None
                                 ) -> tuple[Scored, dict[int, float]]:
        """`search_lexical`, or only over the passages a filter allows (`where`, a fragment of store/scope.py, or
        `allowed`, their sorted ids), and {id: BM25} of the passages of `also` that hold a query word. The scores
        are the whole library's BM25, as FTS5's bm25() is under a filter."""
        if allowed is None and where is not None:
            allowed = self.chunk_ids_where(where)
        return self._bm25(query, limit, also, prefixes, allowed)

    def search_lexical_where(self, query: str, limit: int, where: Any, prefixes: Iterable[str] = (),
                             allowed: Optional[np.ndarray] = None) -> Scored:
        return self.search_lexical_and_score(query, limit, (), prefixes, where=where, allowed=allowed)[0]

    def chunk_ids_where(self, where: Any) -> np.ndarray:
        raise NotImplementedError  # PgStore's

    def _bm25(self, query: str, limit: int, also: Sequence[int], prefixes: Iterable[str],
              allowed: Optional[np.ndarray] = None) -> tuple[Scored, dict[int, float]]:
        """(the top `limit` by BM25, best first, ties by lower id, among `allowed` when given; {id: score} of the
        passages of `also` that hold a query word). Each table's top is cut first and the tops merged, as
        store/lexical.py merges the desktop's two tables."""
        tops: list[Scored] = []
        scores: dict[int, float] = {}
        wanted = np.asarray(sorted({int(i) for i in also}), dtype=np.int64)
        for docs, table_scores in self._tables(query, prefixes):
            tops.append(_top(docs, table_scores, limit, allowed))
            at = np.searchsorted(docs, wanted)
            hit = at < len(docs)
            hit[hit] = docs[at[hit]] == wanted[hit]
            for cid, sc in zip(wanted[hit].tolist(), table_scores[at[hit]].tolist(), strict=True):
                scores[cid] = scores.get(cid, 0.0) + sc
        return merge_bm25(tops, limit), scores

    def _tables(self, query: str, prefixes: Iterable[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """`read_tables`, once a search (pg_words_ahead.py: read beside pgvector's search on a hybrid one)."""
        prefixes = tuple(prefixes)
        return self.words_ahead.tables_of(query, prefixes, lambda: self.read_tables(query, prefixes))

    def read_tables(self, query: str, prefixes: Iterable[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(passage ids ascending, their BM25) of the words and, when the query has CJK text, of the character
        table: the two tables' scores, each with its own N and mean length, as FTS5 scores its two tables."""
        phrases = [p for p in query_phrases(query, prefixes) if p[0]]
        if not phrases:  # fts_query's None: nothing is searched, not even the CJK pairs
            return []
        out = [_table_scores([self._postings(terms, prefix) for terms, prefix in phrases], *self.lexical_totals())]
        if self.schema_version >= 6:
            from ..cjk import cjk_terms
            from .tokens import cjk_key

            keys = [k for k in (cjk_key(t) for t in cjk_terms(query)) if k is not None]
            if keys:
                out.append(_table_scores([self._cjk_postings(k) for k in keys], *self.cjk_totals()))
        return out

    def _postings(self, terms: tuple[str, ...], prefix: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(passage ids ascending, term frequency, passage length) of one query word."""
        if prefix:  # every term starting with it, as FTS5's "word" * reads: a range of the primary key's btree
            from .pg_scope import term_test
            from .sql_shim import to_psycopg

            test, params = term_test(terms[0], True, self.schema_version >= 6)
            rows = self.rows(to_psycopg(f"SELECT p.chunk_id, sum(p.tf), min(p.dl) FROM postings p WHERE {test} "  # noqa: S608 (constants; values are parameters)
                                        "GROUP BY p.chunk_id ORDER BY p.chunk_id"), params, binary=True)
        elif len(terms) == 1:
            # In binary form: a common word's postings are most of a search's rows (662,292 for "a" at a million
            # passages: 64 ms as text, 21 as binary)
            rows = self.rows("SELECT chunk_id, tf, dl FROM postings WHERE term = %s ORDER BY chunk_id", (terms[0],),
                             binary=True)
        else:  # a word FTS5 splits (foo_bar): the passages holding all its tokens, at their least frequency
            rows = self.rows("SELECT chunk_id, min(tf), min(dl) FROM postings WHERE term = ANY(%s) GROUP BY chunk_id "
                             "HAVING count(*) = %s ORDER BY chunk_id", (list(terms), len(set(terms))), binary=True)
        return _arrays(rows)

    def _cjk_postings(self, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(passage ids ascending, how often, passage length in the character table) of a character or a pair."""
        return _arrays(self.rows("SELECT chunk_id, tf, dl FROM cjk_postings WHERE term = %s ORDER BY chunk_id",
                                 (key,), binary=True))

    def files_with_phrase(self, phrase: str, cap: int = 100_000) -> int:
        """How many files hold `phrase` (its terms in a row, as FTS5 reads a quoted phrase), up to `cap`.

        Boilerplate detection asks this of whole sentences with a small cap (search/boilerplate.py), several
        times a search. A passage holding the phrase holds its two longest words, which stand for its rarest (a
        long word is seldom a common one): the passages holding both are a merge join of their two ranges of the
        postings' primary key (term, passage), which streams in passage order, so a page of LIMIT rows stops as
        soon as it is full; their texts are checked for the terms in a row, a page at a time, until `cap` files
        hold it. Asking for every term instead read the postings of "a" and "the" and every text holding them:
        20-100 ms a sentence at 100k passages, 80 % of a hybrid search; grouping the two words' postings
        (GROUP BY, HAVING) read both lists whole before the first row: 18 ms a sentence at a million, against 7
        (docs/shared-scale.md)."""
        from .tokens import word_terms

        terms = word_terms(phrase)
        if not terms:
            return 0
        keys = sorted(set(terms), key=lambda t: (-len(t), t))[:2]
        files: set[int] = set()
        last, page = 0, _PHRASE_PAGE
        while True:
            if len(keys) == 2:
                rows = self.rows("SELECT c.id, c.file_id, c.text FROM postings a JOIN postings b ON b.chunk_id = "
                                 "a.chunk_id JOIN chunks c ON c.id = a.chunk_id WHERE a.term = %s AND b.term = %s AND "
                                 "a.chunk_id > %s AND b.chunk_id > %s ORDER BY a.chunk_id LIMIT %s",
                                 (keys[0], keys[1], last, last, page))
            else:  # one word, however often
                rows = self.rows("SELECT c.id, c.file_id, c.text FROM postings a JOIN chunks c ON c.id = a.chunk_id "
                                 "WHERE a.term = %s AND a.chunk_id > %s ORDER BY a.chunk_id LIMIT %s",
                                 (keys[0], last, page))
            for chunk_id, file_id, text in rows:
                last = int(chunk_id)
                if int(file_id) in files:
                    continue
                if holds_phrase(text, terms):
                    files.add(int(file_id))
                    if len(files) >= cap:
                        return len(files)
            if len(rows) < page:
                return len(files)
            page *= 4  # a phrase whose words are common: fewer, larger pages


def holds_phrase(text: str, terms: tuple[str, ...]) -> bool:
    """Whether `text` holds `terms` (tokens.word_terms of a phrase) in a row, as FTS5 reads a quoted phrase."""
    from .tokens import word_terms

    seq, n = word_terms(text), len(terms)
    return any(seq[i:i + n] == terms for i in range(len(seq) - n + 1))


_PHRASE_PAGE = 64  # passages of the first page files_with_phrase reads; each next one is 4 times larger


def _arrays(rows: list[tuple[Any, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
    return arr[:, 0], arr[:, 1].astype(np.float64), arr[:, 2].astype(np.float64)


def _table_scores(postings: list[tuple[np.ndarray, np.ndarray, np.ndarray]], n_rows: int,
                  n_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """(passage ids ascending, BM25) of one table's phrases: bm25_postings' formula over their postings."""
    docs = np.unique(np.concatenate([p[0] for p in postings])) if postings else np.empty(0, np.int64)
    if n_rows <= 0 or not len(docs):
        return np.empty(0, np.int64), np.empty(0)
    tf = np.zeros((len(postings), len(docs)))
    dl = np.zeros(len(docs))
    for i, (ids, f, lengths) in enumerate(postings):
        at = np.searchsorted(docs, ids)
        tf[i, at] = f
        dl[at] = lengths
    idf = [bm25_idf(n_rows, len(p[0])) for p in postings]
    return docs, _scores(tf, dl, idf, float(n_tokens) / float(n_rows))


def _top(docs: np.ndarray, scores: np.ndarray, limit: int, allowed: Optional[np.ndarray],
         within: Optional[Sequence[int]] = None) -> Scored:
    """The top `limit` of one table, best first, ties by lower id, among `allowed` (and `within`) when given."""
    if limit <= 0:
        return []
    order = np.lexsort((docs, -scores))
    if allowed is not None:
        order = order[np.isin(docs[order], allowed)]
    if within is not None:
        order = order[np.isin(docs[order], np.asarray(list(within), dtype=np.int64))]
    order = order[: int(limit)]
    return list(zip(docs[order].tolist(), scores[order].tolist(), strict=True))
