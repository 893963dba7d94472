"""The words of a passage exactly as the SQLite library's full-text index reads them (decision 0119).

SQLite's FTS5 table tokenizes with `porter unicode61 remove_diacritics 2` (store/migrations.py); PostgreSQL's
own text search stems with Snowball and ranks with ts_rank, neither of which gives today's BM25. So the terms
are made here by an in-memory FTS5 table with the same tokenizer (the way store/bm25_postings.py tokenizes a
query), and PostgreSQL stores them as postings: the same terms, the same passage lengths, the same BM25.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from itertools import chain, repeat
from functools import lru_cache
from typing import NamedTuple, Optional, Sequence

import numpy as np

from ..bm25_postings import TOKENIZERS
from ..cjk import cjk_chars

__all__ = ["Postings", "passage_postings", "word_terms", "cjk_passage_terms", "cjk_key", "cjk_tokens", "matching", "SPEC",
           "CJK_SPEC"]

SPEC = TOKENIZERS["chunks_fts"]
CJK_SPEC = TOKENIZERS["chunks_cjk"]  # the desktop's character table (store/cjk.py): one CJK character a token
_LOCK = threading.Lock()
_DB: list[sqlite3.Connection] = []  # one in-memory FTS5 table for the process, used under _LOCK
_BREAK = "0"  # the token cjk_chars puts between runs
_MATCH_BATCH = 5_000  # candidate passages checked by one MATCH (query constraints: matching)
# Every ASCII character but a letter or a digit, as a space: where unicode61 always ends a token
_ASCII_SEPARATORS = {c: " " for c in range(128) if not chr(c).isalnum()}


def _table() -> sqlite3.Connection:
    if not _DB:
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{SPEC}')")  # SPEC: a constant of store
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        db.execute(f"CREATE VIRTUAL TABLE k USING fts5(x, tokenize='{CJK_SPEC}')")  # CJK_SPEC: a constant too
        db.execute("CREATE VIRTUAL TABLE kv USING fts5vocab(k, instance)")
        _DB.append(db)
    return _DB[0]


class Postings(NamedTuple):
    """A batch's postings as arrays, one element a row, in the primary key's order (term byte for byte, as SQLite's
    BINARY and PostgreSQL's "C" compare UTF-8, then passage): no Python object a row, since a passage has ~80 rows
    and making and formatting them as tuples was most of a shared words pass's client time (decision 0143)."""

    lengths: np.ndarray  # each text's length in tokens
    terms: list[str]  # the batch's distinct terms, in byte order
    term: np.ndarray  # a row's term: its place in `terms`, ascending
    doc: np.ndarray  # a row's text: its place in the batch
    tf: np.ndarray  # how many times the term occurs in the text

    def rows(self) -> list[tuple[str, int, int]]:
        """(term, index of the text, how often) tuples: for tests and small batches."""
        return list(zip(map(self.terms.__getitem__, self.term.tolist()), self.doc.tolist(), self.tf.tolist(),
                        strict=True))


def passage_postings(texts: Sequence[str]) -> Postings:
    """The postings of `texts` as FTS5 counts them: each text's length in tokens, and a row per distinct term of
    a text with how many times it occurs there, in the primary key's order, so the btree takes them in order
    (decision 0136).

    Every ASCII character but a letter or a digit separates tokens in FTS5's unicode61 (its token characters are
    the categories L*, N* and Co), so a text's terms are those of its pieces between such characters, one piece
    after the other: each distinct piece is tokenized by FTS5 once (_Pieces) and the counting is NumPy's.
    Tokenizing each batch's whole texts in an FTS5 table and grouping its vocabulary took 1.85 of a shared
    words pass's 3.83 client CPU-seconds (cProfile, 11,498 passages; 1.18 then: decision 0142)."""
    empty = np.empty(0, np.int64)
    if not texts:
        return Postings(empty, [], empty, empty, empty)
    pieces = [text.translate(_ASCII_SEPARATORS).split() for text in texts]
    with _LOCK:
        piece_ids = _PIECES.ids(pieces)
        terms, all_starts, all_counts, all_flat = _PIECES.terms, _PIECES.starts, _PIECES.counts, _PIECES.flat
    per_text = np.fromiter(map(len, pieces), np.int64, len(pieces))
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), per_text)
    starts, counts = all_starts[piece_ids], all_counts[piece_ids]  # each piece's terms: a slice of all_flat
    doc = np.repeat(doc, counts)
    at = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts) + np.arange(int(counts.sum()))
    term_ids = all_flat[at]
    lengths = np.bincount(doc, minlength=len(texts))
    # UTF-8's byte order is the code points' order: sorting the terms as Python strings sorts them byte for byte.
    present = np.unique(term_ids)
    names = [terms[t] for t in present.tolist()]
    by_text = np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)
    rank = np.empty(len(terms), dtype=np.int64)
    rank[present[by_text]] = np.arange(len(present))
    keys, n = np.unique(rank[term_ids] * len(texts) + doc, return_counts=True)
    return Postings(lengths, [names[i] for i in by_text.tolist()], keys // len(texts), keys % len(texts), n)


class _Pieces:
    """Every piece met (text between ASCII separators) and the terms FTS5 makes of it, as ids: a piece is
    tokenized once per process. At most KEPT pieces of KEPT_CHARS characters are remembered; when full, forgotten
    all at once."""

    KEPT = 1 << 20  # pieces remembered at most
    KEPT_CHARS = 1 << 24  # and their characters: a CJK sentence between full-width stops is one piece

    def __init__(self) -> None:
        self.id_of: dict[str, int] = {}
        self.chars = 0  # of the pieces in id_of
        self.terms: list[str] = []  # term id -> term
        self._term_id: dict[str, int] = {}
        # piece id -> its first term's place in `flat` and its number of terms; `flat`: term ids, piece after piece
        self.starts, self.counts, self.flat = (np.empty(0, np.int64) for _ in range(3))

    def ids(self, pieces: list[list[str]]) -> np.ndarray:
        """The ids of every piece of `pieces`, text after text; new pieces tokenized in one FTS5 insert."""
        flat = list(chain.from_iterable(pieces))
        got = np.fromiter(map(self.id_of.get, flat, repeat(-1)), np.int64, len(flat))
        missing = np.flatnonzero(got < 0)
        if len(missing):
            new = list({flat[i] for i in missing.tolist()})
            if len(self.id_of) + len(new) > self.KEPT or self.chars + sum(map(len, new)) > self.KEPT_CHARS:
                self.__init__()  # type: ignore[misc]
                new = list(set(flat))
            self._add(new)
            got = np.fromiter(map(self.id_of.__getitem__, flat), np.int64, len(flat))
        return got

    def _add(self, new: list[str]) -> None:
        db = _table()
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", enumerate(new))
            made: dict[int, list[str]] = {}
            for i, term in db.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                made.setdefault(i, []).append(term)
        finally:
            db.execute("ROLLBACK")  # the table is only a tokenizer: nothing is kept
        counts, flat = [], []
        self.chars += sum(map(len, new))
        for i, piece in enumerate(new):
            got = made.get(i, ())
            self.id_of[piece] = len(self.id_of)
            counts.append(len(got))
            for term in got:
                tid = self._term_id.get(term)
                if tid is None:
                    tid = self._term_id[term] = len(self.terms)
                    self.terms.append(term)
                flat.append(tid)
        n = np.array(counts, dtype=np.int64)
        self.starts = np.concatenate((self.starts, len(self.flat) + np.cumsum(n) - n))
        self.counts = np.concatenate((self.counts, n))
        self.flat = np.concatenate((self.flat, np.array(flat, dtype=np.int64)))


_PIECES = _Pieces()  # used under _LOCK


def word_terms(word: str) -> tuple[str, ...]:
    """The terms FTS5 makes of one query word (one, almost always; none or several for a few)."""
    return _tokens_of("t", "v", word)


def cjk_tokens(chars: str) -> tuple[str, ...]:
    """The tokens the character table makes of `chars` (store/cjk.py's cjk_chars form: characters between
    spaces), in order."""
    return _tokens_of("k", "kv", chars)


def _tokens_of(table: str, vocab: str, text: str) -> tuple[str, ...]:
    """The terms `table` (the words' table, t, or the characters', k) makes of `text`, in order, read from its
    fts5vocab view `vocab`; nothing is kept. `table` and `vocab` are this module's constants."""
    with _LOCK:
        db = _table()
        db.execute("BEGIN")
        try:
            db.execute(f"INSERT INTO {table}(rowid, x) VALUES (1, ?)", (text,))  # noqa: S608 (a constant)
            return tuple(term for term, in db.execute(f"SELECT term FROM {vocab} ORDER BY offset"))  # noqa: S608
        finally:
            db.execute("ROLLBACK")


def cjk_key(term: str) -> Optional[str]:
    """The postings term of one of store/cjk.py's cjk_terms (a character pair or a lone character), as the
    character table reads the phrase cjk_query makes of it: its tokens joined by a space; None when it has none."""
    tokens = cjk_tokens(" ".join(term))
    return " ".join(tokens) if tokens else None


def cjk_passage_terms(texts: Sequence[str]) -> list[Optional[tuple[Counter[str], int]]]:
    """For each text: None when the desktop's character table keeps no row for it (no CJK character), else
    (term -> how often, its length in the table's tokens). The terms are each token (a character) and each pair
    of tokens next to each other ("天 气"): what a lone character and a character pair of a query match there.
    cjk_chars puts a space between characters, so the table tokenizes each character alone: each distinct
    character is tokenized once by FTS5 (_char_token) and the rest is counting."""
    out: list[Optional[tuple[Counter[str], int]]] = []
    for text in texts:
        chars = cjk_chars(text)
        if not chars:
            out.append(None)
            continue
        counts: Counter[str] = Counter()
        length, last = 0, _BREAK
        for ch in chars.split(" "):
            token = _BREAK if ch == _BREAK else _char_token(ch)
            if token is None:  # not a token of the table (a middle dot): no position, no pair broken
                continue
            length += 1
            if token != _BREAK:  # counted in the length; no query's character is a break
                counts[token] += 1
                if last != _BREAK:
                    counts[last + " " + token] += 1
            last = token
        out.append((counts, length))
    return out


@lru_cache(maxsize=1 << 17)  # every CJK character there is fits
def _char_token(ch: str) -> Optional[str]:
    tokens = cjk_tokens(ch)
    return tokens[0] if len(tokens) == 1 else None


def matching(texts: Sequence[tuple[int, str]], expr: str, cjk: bool) -> set[int]:
    """The ids of `texts` ((id, passage text)) that FTS5 matches with `expr` (a MATCH expression of
    store/scope.py), in the word table, or with `cjk` in the character table: a phrase of a query's
    constraint checked exactly as the desktop checks it, over the few passages the postings left."""
    found: set[int] = set()
    with _LOCK:
        db = _table()
        table = "k" if cjk else "t"
        for at in range(0, len(texts), _MATCH_BATCH):
            db.execute("BEGIN")
            try:
                db.executemany(f"INSERT INTO {table}(rowid, x) VALUES (?, ?)",  # noqa: S608 (table: t or k)
                               ((i, cjk_chars(x) if cjk else x) for i, x in texts[at: at + _MATCH_BATCH]))
                found.update(r for r, in db.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (expr,)))  # noqa: S608
            finally:
                db.execute("ROLLBACK")
    return found
