"""A German word typed without its umlauts as their digraphs ("Muellgebuehren" for "Müllgebühren"), searched as
the library writes it.

The words index folds accents away (FTS5's remove_diacritics: "Müllgebühren" is the term "mullgebuhren"), so a
person who types ü finds it, and one who types u; one who types "ue", as a keyboard without umlauts has them
write, found nothing by words (a newcomer's German bill). A query word holding ae, oe or ue that no passage holds,
whose digraphs read as one letter make a word some passage holds, is searched as that word, and said so. A word
the library holds as typed ("queue", "does", "Goethe") is never touched: only words that would find nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...store.word_stats import word_terms
from .result import written_as

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["respelled"]

_DIGRAPH = re.compile(r"([aou])e", re.I)  # ae, oe, ue: ä, ö, ü written without the umlaut
_WORD = re.compile(r"[^\W\d_]{4,}")  # letters only, a few at least: "ue" alone is no umlaut
MAX_WORDS = 8  # query words looked up (one read of the words index for all of them)
MAX_DIGRAPHS = 4  # of one word, each read as an umlaut or as two letters: 15 readings at most


def respelled(store: Store, text: str) -> tuple[str, list[tuple[str, str]]]:
    """(the text to search, [(a word as typed, as searched)]): `text` unchanged where no word is respelled."""
    typed = list(dict.fromkeys(w for w in _WORD.findall(text) if _DIGRAPH.search(w)))[:MAX_WORDS]
    if not typed:
        return text, []
    readings = {w: _readings(w) for w in typed}
    every = [*typed, *(r for w in typed for r in readings[w])]
    term_of = dict(zip(every, word_terms(every), strict=True))
    got = store.word_counts([t for t in term_of.values() if t is not None])
    if got is None:
        return text, []
    counts = got[1]
    changes = []
    for w in typed:
        if term_of[w] is None or counts.get(term_of[w] or ""):
            continue  # held as typed ("queue", "Goethe"), or no single term
        held = [(counts.get(term_of[r] or "", 0), r) for r in readings[w] if term_of[r] is not None]
        best = max(held, default=(0, ""))
        if best[0]:
            changes.append((w, best[1]))
    return written_as(text, changes), changes


def _readings(word: str) -> list[str]:
    """`word` with each choice of its digraphs read as one letter (at least one read so), the most first: a "ue"
    may be the letters u and e ("Steuerbehoerde" is "Steuerbehörde", its "ue" no ü). At most MAX_DIGRAPHS of them
    are tried either way (2^n readings); the rest are read as umlauts."""
    spots = [m.start() for m in _DIGRAPH.finditer(word)]
    free, fixed = spots[:MAX_DIGRAPHS], spots[MAX_DIGRAPHS:]
    out = []
    for mask in range((1 << len(free)) - 1, 0, -1):
        cut = {s for i, s in enumerate(free) if mask >> i & 1} | set(fixed)
        out.append("".join(ch for i, ch in enumerate(word) if i - 1 not in cut))
    return list(dict.fromkeys(out))
