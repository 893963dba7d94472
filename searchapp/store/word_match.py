"""Which words of a text the words index matches for a query's words, decided by the index's own tokenizer.

The lexical index reads passages with FTS5's 'porter unicode61 remove_diacritics 2' (store/bm25_postings.py:
TOKENIZERS), so "residents" finds "resident", "association" finds "associated" and "parking" finds "Park". A
snippet marked by word starts alone showed such hits with nothing marked. SQLite is asked the same question the
search asked: the distinct words of a text go in an in-memory FTS5 table with that tokenizer, one row a word, and
the query's words MATCH them (well under a millisecond a snippet; each word's answer is kept for the next ones).
In the store, as all SQL is; library/search/snippet.py turns its answer into spans for the front ends, which never
touch SQLite.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from typing import Iterable, Optional

from .bm25_postings import TOKENIZERS
from .cjk import CJK_CLASS, is_cjk

__all__ = ["TOKEN", "matched_words"]

# A word as the index's tokenizer cuts it (unicode61: letters and digits; "_" and "-" separate), CJK characters
# left out: the character table matches those by pairs (snippet.py marks them so).
TOKEN = re.compile(f"[^\\W_{CJK_CLASS}]+")
_KEPT_TERM_SETS = 8  # the queries whose words' answers are kept (a search's hits share one)
_KEPT_WORDS = 50_000  # answers kept for one query's words

_local = threading.local()  # one connection a thread: the window's, a warm server's threads
_answers: dict[tuple[str, ...], dict[str, bool]] = {}  # query words -> word -> whether they match it
_answers_lock = threading.Lock()  # those threads share the answers


def _table() -> sqlite3.Connection:
    conn: Optional[sqlite3.Connection] = getattr(_local, "conn", None)
    if conn is None:
        conn = sqlite3.connect(":memory:")
        # Contentless, no positions: only which row matches is asked (and deleting every row is one statement)
        conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(word, content='', detail=none, "
                     f"tokenize='{TOKENIZERS['chunks_fts']}')")
        _local.conn = conn
    return conn


def _ask(words: list[str], terms: tuple[str, ...]) -> set[str]:
    """Those of `words` (distinct) one of `terms` MATCHes as the index would; none when SQLite cannot say."""
    expr = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)  # quoted: no FTS5 syntax leaks in
    conn = _table()
    try:
        with conn:
            conn.execute("INSERT INTO w(w) VALUES ('delete-all')")
            conn.executemany("INSERT INTO w(rowid, word) VALUES (?, ?)", enumerate(words))
            return {words[r] for (r,) in conn.execute("SELECT rowid FROM w WHERE w MATCH ?", (expr,))}
    except sqlite3.Error:  # nothing more to mark than the word starts already are
        return set()


def matched_words(words: Iterable[str], terms: Iterable[str]) -> set[str]:
    """The lower-case forms of `words` that one of `terms` (a query's words, as snippet.query_terms gives them)
    matches in the words index: the same stem after case and diacritics are folded."""
    # Terms of one token: a term the tokenizer splits (e_mail) is a phrase the index matched by its parts in a row,
    # which a table of single words cannot ask; its parts alone would mark every "mail" (word starts mark e_mail)
    key = tuple(sorted({toks[0].lower() for t in terms if not is_cjk(t)
                        for toks in [TOKEN.findall(t)] if len(toks) == 1 and len(toks[0]) > 1}))
    if not key:
        return set()
    wanted = list(dict.fromkeys(w.lower() for w in words))
    with _answers_lock:
        known = _answers.get(key)
        if known is None or len(known) > _KEPT_WORDS:
            if len(_answers) >= _KEPT_TERM_SETS:
                _answers.pop(next(iter(_answers)), None)
            known = _answers[key] = {}
        new = [w for w in wanted if w not in known]
    if new:
        found = _ask(new, key)  # this thread's own table
        with _answers_lock:
            known.update((w, w in found) for w in new)
    return {w for w in wanted if known.get(w)}
