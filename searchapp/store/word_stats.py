"""How common a word is in the library, read from the words index itself, and which files already have meaning:
what Similar files' words side weighs a file's words by and leaves to the meaning side (library/search/
similar_words.py, decision 0159). A mixin of Store; PgStore has the same two reads over its postings table.

A term here is what the words table indexes (FTS5's `porter unicode61 remove_diacritics 2`: "warranty" is
"warranti"): `word_terms` makes them from words with FTS5's own tokenizer, as a query's words are made.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Iterable, Iterator, Optional, Sequence

from .bm25_postings import TOKENIZERS, fts_averages, read_snapshot
from .vector_queue import EMBEDDED

__all__ = ["WordStats", "word_terms", "text_terms"]

_TABLE = "chunks_fts"
_ROWS_VIEW = "chunks_fts_terms"  # fts5vocab 'row': a term's passage count (`doc`), a temp table of the connection
_PLACES_VIEW = "chunks_fts_places"  # fts5vocab 'instance': each place of a term (its passage is `doc`), likewise


def word_terms(words: Sequence[str]) -> list[Optional[str]]:
    """The term the words table indexes each of `words` as; None for a word it splits into several tokens (or
    none): such a word is a phrase to FTS5, not one term."""
    from .postgres.tokens import passage_postings  # FTS5's own tokenizer, each distinct piece tokenized once

    posts = passage_postings(list(words))
    out: list[Optional[str]] = [None] * len(words)
    single = posts.lengths[posts.doc] == 1
    for term, doc in zip(posts.term[single].tolist(), posts.doc[single].tolist(), strict=True):
        out[doc] = posts.terms[term]
    return out


def text_terms(texts: Sequence[str]) -> list[set[str]]:
    """The terms the words table indexes each of `texts` as."""
    from .postgres.tokens import passage_postings

    posts = passage_postings(list(texts))
    out: list[set[str]] = [set() for _ in texts]
    for term, doc in zip(posts.term.tolist(), posts.doc.tolist(), strict=True):
        out[doc].add(posts.terms[term])
    return out


class WordStats:
    """Needs `conn` and `select_in` of Store."""

    conn: sqlite3.Connection

    def select_in(self, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        raise NotImplementedError  # Store's

    def word_counts(self, terms: Sequence[str], at_most: Optional[int] = None) -> Optional[tuple[int, dict[str, int]]]:
        """(passages in the words table, {term: passages holding it}) for terms as `word_terms` makes them; a
        term no passage holds is left out. None where the table cannot be read so (another tokenizer, an SQLite
        without fts5vocab): the caller goes without. One read transaction, so the counts are of one state.
        `at_most`: no count above it is needed; each count is cut there, as a shared library's is (its postings
        are read no further; here each term's count is one read whatever it is)."""
        row = self.conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (_TABLE,)).fetchone()
        if row is None or f"tokenize='{TOKENIZERS[_TABLE]}'" not in (row[0] or ""):
            return None
        try:
            self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_ROWS_VIEW} "  # two constants of this module
                              f"USING fts5vocab(main, {_TABLE}, row)")
            with read_snapshot(self.conn):
                totals = fts_averages(self.conn, _TABLE)
                # IN over json_each: FTS5's vocabulary is looked up a term at a time, not scanned
                counts = {str(t): int(n) for t, n in self.conn.execute(
                    f"SELECT term, doc FROM temp.{_ROWS_VIEW} WHERE term IN (SELECT value FROM json_each(?))",  # noqa: S608 (a constant; the terms are one parameter)
                    (json.dumps(list(dict.fromkeys(terms))),))}
        except sqlite3.OperationalError:  # an SQLite without fts5vocab
            return None
        if at_most is not None:
            counts = {t: min(n, at_most) for t, n in counts.items()}
        return (totals[0], counts) if totals is not None else None

    def passages_holding(self, terms: Sequence[str]) -> set[int]:
        """The ids of the passages holding any of `terms` (as `word_terms` makes them), read from the words index:
        each term's places, looked up a term at a time, so a term few passages hold costs a few rows. Empty where
        the table cannot be read so (see word_counts)."""
        row = self.conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (_TABLE,)).fetchone()
        if not terms or row is None or f"tokenize='{TOKENIZERS[_TABLE]}'" not in (row[0] or ""):
            return set()
        try:
            self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_PLACES_VIEW} "  # two constants of this module
                              f"USING fts5vocab(main, {_TABLE}, instance)")
            return {int(r[0]) for r in self.conn.execute(
                f"SELECT DISTINCT doc FROM temp.{_PLACES_VIEW} WHERE term IN (SELECT value FROM json_each(?))",  # noqa: S608 (a constant; the terms are one parameter)
                (json.dumps(list(dict.fromkeys(terms))),))}
        except sqlite3.OperationalError:  # an SQLite without fts5vocab
            return set()

    def files_embedded(self, file_ids: Sequence[int]) -> set[int]:
        """Those of `file_ids` whose every passage has its vector (the meaning side judges them whole). Not "any
        passage": the meaning queue embeds every file's first passages first (store/vector_queue.py), so midway
        most files have some, and a match deep in one would be left to neither side."""
        return {int(r[0]) for r in self.select_in(
            f"SELECT file_id FROM chunks WHERE file_id IN ({{}}) GROUP BY file_id HAVING min({EMBEDDED})",  # noqa: S608 (a constant and ?)
            dict.fromkeys(int(f) for f in file_ids))}
