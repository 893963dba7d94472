"""A word typed one letter off ("recieve", "accomodation", "colour" where the library writes "color"), searched as
the word the library holds.

The words index finds words as typed (stemmed): a query word that no passage holds finds nothing by words, and the
model reads a misspelling as a few unrelated word pieces, so meaning alone ranked the rows and the file holding the
word came late or not at all. A query word of letters only, MIN_LETTERS to MAX_LETTERS of them, typed as a plain
word (not in quotes, not `word*`), that no passage holds, is searched as the word one edit away (a letter left out,
added, changed, or two letters swapped) that the most passages hold, one keeping its first letter counted
FIRST_LETTER times: people rarely mistype a word's first letter ("hights" is "heights", not the commoner "lights"),
yet "reatment" is "treatment", not a word one passage misspells ("relatment"). Words in capitals or mixed case are
looked at too: in SciFact's claims "PPARy" read as "PPARs" found the abstract (nDCG@10 0.63 → 1.0). The note says
so, and how to search as typed (quotes). Not where a file's name holds the word as typed (named.py lists those
files). A word the library holds as typed is never touched. Decision 0176.

A word the bi-encoder's vocabulary holds whole ("brake", "colour") is a word, not a typo: it is searched as typed,
and the note offers the word one edit away ("did you mean “bake”?"). Searched as "bake", "brake pads" ranked a
focaccia recipe first. A misspelling is almost never a whole word piece (8 of codespell's 46,543 misspellings one
edit from their word), a word of five letters or more about every other time; the other half ("warranty", read
"warrant ##y") is still taken for a typo, and said. Decision 0194.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from ...store.word_stats import word_terms
from .named import names_a_file
from .result import written_as

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["Typos", "typo_fixed", "is_known", "MIN_LETTERS", "MAX_WORDS"]

MIN_LETTERS = 5  # a shorter word has too many neighbours one edit away ("form": from, fork, foam, firm, …)
MAX_LETTERS = 30  # a longer run of letters is no word to mistype (and its ~54 neighbours a letter cost memory)
MAX_WORDS = 3  # query words corrected at most: a query of many unknown words is another language, not typos
FIRST_LETTER = 20  # a word keeping the typed word's first letter counts as if this many times more passages held it
_LETTERS = string.ascii_lowercase
# A plain word: letters only, not inside quotes (checked apart), not a prefix (`word*`), not a field's value.
_WORD = re.compile(r"(?<![\w:*-])([A-Za-z]{%d,%d})(?![\w*:-])" % (MIN_LETTERS, MAX_LETTERS))
_QUOTED = re.compile(r'"[^"]*"?')


@dataclass(frozen=True)
class Typos:
    """What typo_fixed made of a query: `text` to search, the words searched otherwise (`changes`: as typed, as
    searched) and the words searched as typed that a word one edit away might mean (`offered`: as typed, that
    word), each pair in the query's order."""

    text: str
    changes: list[tuple[str, str]] = field(default_factory=list)
    offered: list[tuple[str, str]] = field(default_factory=list)


def typo_fixed(store: Store, text: str, query: str, constrained: Sequence[str] = (),
               known: Optional[Callable[[str], bool]] = None) -> Typos:
    """`text` (what the words and meaning search: the query's free text) with its typos corrected, unchanged where
    none is. The words looked at are `query`'s plain words as typed: not a word also quoted, excluded (`-word`), a
    prefix or a field's value, nor one of `constrained` (the words of the query's constraints: an `OR`
    alternative, a phrase, which the constraint reads as typed; a note saying "recieve" was searched as "receive"
    while `recieve OR lights` required "recieve" hid the file). `known(word)`: whether the bi-encoder's
    vocabulary holds the word whole (ChunkingTokenizer.reads_whole); such a word is offered a correction, never
    given one (None: every word may be a typo)."""
    quoted = {w.lower() for q in [*_QUOTED.findall(query), *constrained] for w in re.findall(r"\w+", q)}
    typed = list(dict.fromkeys(w for m in _WORD.finditer(_QUOTED.sub(" ", query)) if (w := m.group(1)).lower()
                               not in quoted and re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text)))  # not respelled
    if not typed:
        return Typos(text)
    term_of = dict(zip(typed, word_terms([w.lower() for w in typed]), strict=True))
    got = store.word_counts([t for t in term_of.values() if t is not None])
    if got is None:
        return Typos(text)
    unknown = [w for w in typed if term_of[w] is not None and not got[1].get(term_of[w] or "")]
    if not unknown or len(unknown) > MAX_WORDS:
        return Typos(text)
    nearest = _nearest_held(store, unknown)
    if nearest is None:
        return Typos(text)
    changes: list[tuple[str, str]] = []
    offered: list[tuple[str, str]] = []
    for w in unknown:
        if nearest[w] and not names_a_file(store, w):
            (offered if known is not None and is_known(w, known) else changes).append((w, _cased_as(w, nearest[w])))
    return Typos(written_as(text, changes), changes, offered)


def is_known(word: str, known: Callable[[str], bool]) -> bool:
    """Whether `known` holds `word`, or the word a plural or a verb's -s form is made of: WordPiece holds few plurals
    whole ("ditches" is "ditch ##es"), and "fortified stone buildings with water-filled ditches" was searched as
    "dutches", a bread recipe's Dutch oven first. A misspelt plural's base is no word either ("recieves")."""
    if known(word):
        return True
    w = word.lower()
    if len(w) < 4 or not w.isalpha() or not w.endswith("s") or w.endswith("ss"):
        return False
    bases = ([w[:-3] + "y"] if w.endswith("ies") else []) + ([w[:-2]] if w.endswith("es") else []) + [w[:-1]]
    return any(len(b) >= 3 and known(b) for b in bases)


def _nearest_held(store: Store, words: Sequence[str]) -> Optional[dict[str, str]]:
    """Each of `words`' nearest word the library holds ("" where none): the one of those one edit away that the
    most passages hold, one keeping the word's first letter counted FIRST_LETTER times. One read of the words
    index's counts for all candidates (None where it cannot be read so)."""
    nearby = {w: _one_edit(w.lower()) for w in words}
    every = list(dict.fromkeys(v for vs in nearby.values() for v in vs))
    terms = dict(zip(every, word_terms(every), strict=True))
    counts = store.word_counts([t for t in terms.values() if t is not None])
    if counts is None:
        return None
    out = {}
    for w in words:
        held = [(n * (FIRST_LETTER if v[0] == w[0].lower() else 1), v) for v in nearby[w]
                if terms[v] and (n := counts[1].get(terms[v] or "", 0))]
        out[w] = max(held, default=(0, ""))[1]
    return out


def _one_edit(word: str) -> list[str]:
    """Every word one edit from `word` (Damerau-Levenshtein 1, a-z): ~54 per letter."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = [a + b[1:] for a, b in splits if b]
    out += [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    out += [a + c + b[1:] for a, b in splits if b for c in _LETTERS if c != b[0]]
    out += [a + c + b for a, b in splits for c in _LETTERS]
    return [w for w in dict.fromkeys(out) if w != word]


def _cased_as(typed: str, word: str) -> str:
    """`word` written as `typed` was: "Recieve" is "Receive", "PTPRS" "PPRS"; in mixed case ("PPARy") as the
    words index reads it ("ppars"): case does not change what is found."""
    if typed.isupper():
        return word.upper()
    return word[:1].upper() + word[1:] if typed[:1].isupper() and typed[1:].islower() else word

