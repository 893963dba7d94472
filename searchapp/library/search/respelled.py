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

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["respelled"]

_DIGRAPH = re.compile(r"([aou])e", re.I)  # ae, oe, ue: ä, ö, ü written without the umlaut
_WORD = re.compile(r"[^\W\d_]{4,}")  # letters only, a few at least: "ue" alone is no umlaut
MAX_WORDS = 8  # query words looked up (one read of the words index for all of them)


def respelled(store: Store, text: str) -> tuple[str, list[tuple[str, str]]]:
    """(the text to search, [(a word as typed, as searched)]): `text` unchanged where no word is respelled."""
    typed = list(dict.fromkeys(w for w in _WORD.findall(text) if _DIGRAPH.search(w)))[:MAX_WORDS]
    if not typed:
        return text, []
    plain = [_DIGRAPH.sub(r"\1", w) for w in typed]
    terms = word_terms([*typed, *plain])
    got = store.word_counts([t for t in terms if t is not None], at_most=1)
    if got is None:
        return text, []
    counts = got[1]
    changes = [(w, p) for w, p, tw, tp in zip(typed, plain, terms[:len(typed)], terms[len(typed):], strict=True)
               if tw is not None and tp is not None and not counts.get(tw) and counts.get(tp)]
    for w, p in changes:
        text = re.sub(rf"(?<!\w){re.escape(w)}(?!\w)", p, text)
    return text, changes
