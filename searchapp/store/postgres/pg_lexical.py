"""BM25 over the shared library's postings table: the SQLite library's lexical scores, computed the same way.

A query's words are chosen as fts_query chooses them (stop words dropped, each word once, in order), each word
is tokenized by FTS5's own tokenizer (tokens.py), and the score is store/bm25_postings.py's `_scores` over the
same term frequencies, passage lengths, passage count and token total: the same doubles as SQLite's bm25(), so
the same order and the same ties (lower passage id first). Measured against PostgreSQL's own full text
(tsvector, ts_rank_cd) in decision 0119: that changes the stems and the ranking; this does not.

Not yet here (a gap of the shared engine, said where it is met): CJK character pairs (SQLite's second table),
a word FTS5 splits into several tokens is scored by its tokens' least frequency rather than as a phrase, and
filters by file (`where`).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from ...base.errors import StoreError
from ..bm25_postings import _idf, _scores
from ..lexical import STOP_WORDS

__all__ = ["PgLexical", "query_phrases", "NOT_YET"]

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

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # PgStore's

    schema_version = 2  # PgStore's: the opened library's

    def lexical_totals(self) -> tuple[int, int]:
        """(passages, tokens) of the whole library, as BM25 reads N and the mean length: from the per-root
        totals the triggers keep (schema.py, decision 0123), not a count of a million rows per search. A library
        made before them (version 1, not yet opened by a writer) is counted."""
        if self.schema_version >= 2:
            row = self.rows("SELECT coalesce(sum(n_rows), 0), coalesce(sum(n_tokens), 0) FROM chunk_totals")[0]
        else:
            row = self.rows("SELECT count(*), coalesce(sum(n_tokens), 0) FROM chunks")[0]
        return int(row[0]), int(row[1])

    def search_lexical(self, query: str, limit: int, within: Optional[Sequence[int]] = None,
                       prefixes: Iterable[str] = ()) -> Scored:
        if within is not None:
            if not within:
                return []
            _, scores = self._bm25(query, 0, within, prefixes)
            return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: max(0, int(limit))]
        return self._bm25(query, limit, (), prefixes)[0]

    def search_lexical_and_score(self, query: str, limit: int, also: Sequence[int], prefixes: Iterable[str] = (),
                                 where: Optional[Any] = None, allowed: Optional[np.ndarray] = None
                                 ) -> tuple[Scored, dict[int, float]]:
        if where is not None or allowed is not None:
            raise StoreError(f"{NOT_YET}: filters by file, folder, type or date")
        return self._bm25(query, limit, also, prefixes)

    def search_lexical_where(self, *args: Any, **kwargs: Any) -> Scored:
        raise StoreError(f"{NOT_YET}: filters by file, folder, type or date")

    def _bm25(self, query: str, limit: int, also: Sequence[int], prefixes: Iterable[str]
              ) -> tuple[Scored, dict[int, float]]:
        """(the top `limit` by BM25, best first, ties by lower id; {id: score} of the passages of `also` that
        hold a query word)."""
        phrases = [p for p in query_phrases(query, prefixes) if p[0]]
        if not phrases:
            return [], {}
        n_rows, n_tokens = self.lexical_totals()
        if n_rows <= 0:
            return [], {}
        postings = [self._postings(terms, prefix) for terms, prefix in phrases]
        docs = np.unique(np.concatenate([p[0] for p in postings])) if postings else np.empty(0, np.int64)
        if not len(docs):
            return [], {}
        tf = np.zeros((len(postings), len(docs)))
        dl = np.zeros(len(docs))
        for i, (ids, f, lengths) in enumerate(postings):
            at = np.searchsorted(docs, ids)
            tf[i, at] = f
            dl[at] = lengths
        idf = [_idf(n_rows, len(p[0])) for p in postings]
        scores = _scores(tf, dl, idf, float(n_tokens) / float(n_rows))
        top: Scored = []
        if limit > 0:
            order = np.lexsort((docs, -scores))[: int(limit)]
            top = list(zip(docs[order].tolist(), scores[order].tolist(), strict=True))
        wanted = np.asarray(sorted({int(i) for i in also}), dtype=np.int64)
        at = np.searchsorted(docs, wanted)
        hit = at < len(docs)
        hit[hit] = docs[at[hit]] == wanted[hit]
        return top, dict(zip(wanted[hit].tolist(), scores[at[hit]].tolist(), strict=True))

    def _postings(self, terms: tuple[str, ...], prefix: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(passage ids ascending, term frequency, passage length) of one query word."""
        if prefix:  # every term starting with it, as FTS5's "word" * reads
            rows = self.rows("SELECT chunk_id, sum(tf), min(dl) FROM postings WHERE starts_with(term, %s) "
                             "GROUP BY chunk_id ORDER BY chunk_id", (terms[0],))
        elif len(terms) == 1:
            rows = self.rows("SELECT chunk_id, tf, dl FROM postings WHERE term = %s ORDER BY chunk_id", (terms[0],))
        else:  # a word FTS5 splits (foo_bar): the passages holding all its tokens, at their least frequency
            rows = self.rows("SELECT chunk_id, min(tf), min(dl) FROM postings WHERE term = ANY(%s) GROUP BY chunk_id "
                             "HAVING count(*) = %s ORDER BY chunk_id", (list(terms), len(set(terms))))
        arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
        return arr[:, 0], arr[:, 1].astype(np.float64), arr[:, 2].astype(np.float64)

    def files_with_phrase(self, phrase: str, cap: int = 100_000) -> int:
        """How many files hold `phrase` (its terms in a row, as FTS5 reads a quoted phrase), up to `cap`: the
        passages holding every term are read and their terms checked in order."""
        from .tokens import word_terms

        terms = word_terms(phrase)
        if not terms:
            return 0
        rows = self.rows("SELECT c.file_id, c.text FROM chunks c WHERE c.id IN (SELECT chunk_id FROM postings WHERE "
                         "term = ANY(%s) GROUP BY chunk_id HAVING count(*) = %s)", (list(terms), len(set(terms))))
        files: set[int] = set()
        n = len(terms)
        for file_id, text in rows:
            if int(file_id) in files:
                continue
            seq = word_terms(text)
            if any(seq[i:i + n] == terms for i in range(len(seq) - n + 1)):
                files.add(int(file_id))
                if len(files) >= cap:
                    break
        return len(files)
