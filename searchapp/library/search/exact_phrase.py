"""A long query said word for word (decision 0169): the candidates whose passage holds the query's whole text as a
phrase.

A person who types a sentence of five words or more and has a file holding that very sentence wants that file; the
bi-encoder does not know it: a passage holding the sentence among other text sits further from the query in
meaning than a short one that paraphrases it (a scanned letter holding the query's sentence came 2nd, 0.51 against
a paraphrase's 0.52). So such a candidate is fused with at least the best cosine among the candidates, as near the
query in meaning as the nearest (fusion.convex_fusion's `exact`): the query's own sentence in it would sit at ~1.

The phrase is the query's words in order, adjacent, as the words index reads them (FTS5's tokenizer: case,
diacritics and Porter stems folded; punctuation and line breaks between the words do not count), checked over the
candidates' own texts with FTS5 (store/postgres/tokens.py: matching, the same on both engines), only those holding
a query word and the starts of the query words' stems in order (`_near_phrase`, a regular expression: FTS5's
in-memory check of every candidate cost 13-85 ms a search on SciFact). Nothing here depends on vectors, and the best cosine only rises as vectors are added, so a lifted
score only rises as meaning fills (decision 0109).

The same lift, where the holders are few enough to say which file is meant (decision 0194: a newcomer's lease, letter
and report came 2nd to 8th under texts full of other dates and numbers): a short query (two to four words, two of
them no stop word: "security deposit") held whole; a date written with its month's name ("18 September 2025",
"October 2025") held whole; and an amount held by too many candidates ("1.8", in a dozen tables) where those of them
holding every other word of the query too ("coefficient of performance 1.8") are few.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Mapping

from ...store.cjk import cjk_query
from ...store.lexical import STOP_WORDS
from .rare_words import RARE_DF

__all__ = ["PHRASE_WORDS", "SHORT_WORDS", "phrase_of", "holding_phrase", "codes_of", "holding_codes", "dates_of"]

# Words a query needs for its whole text to be evidence as a phrase: fewer are often said word for word by chance.
PHRASE_WORDS = 5
# ... unless the query is short and the phrase rare: two to four words, at least SHORT_WORDS of them no stop word
# ("security deposit"), held as typed by at most RARE_DF of the candidates (decision 0194)
SHORT_WORDS = 2
# A date written with its month's name: "18 September 2025", "7th of October 2025", "Sept. 24, 1973", "October 2025",
# "18 September". The words index reads it as two or three words that every dated text holds apart ("18", "2025"):
# said together, in order, it identifies a letter as an amount does (decision 0194).
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
_YEAR = r"(?:1[5-9]|2\d)\d\d"
_DATE = re.compile(rf"(?<![\w.,])(?:{_DAY}\s+(?:of\s+)?{_MONTH},?(?:\s+{_YEAR})?|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
                   rf"|{_MONTH},?\s+{_YEAR})(?![\w])", re.I)
_WORD = re.compile(r"\w+", re.UNICODE)  # the lexical index's notion of a word (store/lexical_queries.py)
_MARKS = re.compile("[\u0300-\u036f]")  # the combining diacritics NFKD splits off ("é" is "e" and U+0301)
_DIGITS_SPAN = re.compile(r"\d.*\d", re.S)  # a token from its first digit to its last
# a comma, apostrophe or (thin, no-break) space between a digit and a group of exactly three: a thousands separator
_THOUSANDS = re.compile("(?<=\\d)[,'\u00a0\u2009\u202f](?=\\d{3}(?!\\d))")


def phrase_of(text: str) -> str | None:
    """The FTS5 phrase of `text`'s words when it has at least PHRASE_WORDS of them, or two to four of which at least
    SHORT_WORDS are no stop word (and no CJK, which the character table reads); else None."""
    words = _WORD.findall(text)
    short = 2 <= len(words) < PHRASE_WORDS and sum(w.lower() not in STOP_WORDS for w in words) >= SHORT_WORDS
    if (len(words) < PHRASE_WORDS and not short) or cjk_query(text) is not None:
        return None
    return _phrase(words)


def _phrase(words: list[str]) -> str:
    return '"' + " ".join(words) + '"'  # \w+ words hold no quote: nothing of FTS5's syntax can be in it


def holding_phrase(text: str, candidates: Mapping[int, str]) -> set[int]:
    """Those of `candidates` ({passage id: its text}, the ones holding a query word) that hold `text` as a phrase,
    or one of its written dates (dates_of), where at most RARE_DF of them do."""
    phrase = phrase_of(text)
    found = _holding(_WORD.findall(text), phrase, candidates) if phrase is not None and candidates else set()
    for date in dates_of(text) if candidates else []:
        words = _WORD.findall(date)
        found |= _holding(words, _phrase(words), candidates)
    return found


def dates_of(text: str) -> list[str]:
    """The dates `text` writes with a month's name ("18 September 2025", "Sept. 24, 1973", "October 2025")."""
    return list(dict.fromkeys(m.group() for m in _DATE.finditer(text)))


def _holding(words: list[str], phrase: str, candidates: Mapping[int, str]) -> set[int]:
    """Those of `candidates` that hold `words` as the FTS5 `phrase`, where they identify (_identifies)."""
    from ...store.postgres.tokens import matching  # FTS5's tokenizer in memory, as the constraints use it

    near = _near_phrase(words)
    if near is None:
        kept = list(candidates.items())
    else:
        longest, pattern = near
        kept = [(cid, x) for cid, x in candidates.items()
                if longest in (low := _folded(x)) and pattern.search(low)]
    holders = matching(kept, phrase, False) if kept else set()
    # where it identifies, as an amount must: a footer every PEP holds ("This document has been placed in the public
    # domain") said word for word lifted every PEP above the files on its topic
    return holders if _identifies(holders, candidates) else set()


def _identifies(holders: set[int], candidates: Mapping[int, str]) -> bool:
    """Whether `holders` are few enough to say which file is meant: at most RARE_DF texts (a file's exact copies,
    each its own passage, hold one text)."""
    return len({candidates[c] for c in holders}) <= RARE_DF


def codes_of(text: str) -> list[str]:
    """The amounts and numbers `text` types whole ("812.60", "1,873.42", "22/815/09431", "2024-05-02"): a token
    between spaces made of digits and separators that the words index reads as two words or more, from its first
    digit to its last. Its words alone say little ("812" and "60" are in every spreadsheet: a newcomer's electricity
    bill, the one file holding 812.60, came third behind a drug schedule and a table of zeros holding them apart).
    Not a name with a number ("IL-6", "caspase-11", "7-day-old"): a field's own terms, held by many of its texts
    (SciFact lost 0.5 nDCG@10 where they counted; a word the model does not know is rare_words.py's); nor a
    share ("20-40%"), a finding's figure rather than something a person looks a file up by."""
    codes = []
    for token in text.split():
        words = _WORD.findall(token)
        span = _DIGITS_SPAN.search(token)
        if span and len(words) >= 2 and all(w.isdigit() for w in words) and "%" not in token:
            codes.append(span.group())
    return list(dict.fromkeys(codes))


def holding_codes(text: str, candidates: Mapping[int, str]) -> set[int]:
    """Those of `candidates` ({passage id: its text}, the ones holding a query word) that hold one of `text`'s codes
    (codes_of) as typed, its separators included and no digit either side: the words index alone would take "812 60
    14" (a table's columns) or "2-1" for 2.1. A number typed whole and found whole is as strong a sign as a long
    query said word for word, and gets the same lift, where it identifies: held by at most RARE_DF of the
    candidates ("p < 0.05" is in every other abstract)."""
    found: set[int] = set()
    codes = [_ungrouped(code) for code in codes_of(text)]
    texts = {cid: _ungrouped(x) for cid, x in candidates.items()} if codes else {}
    for code in codes:
        typed = re.compile(r"(?<!\d)" + re.escape(code) + r"(?!\d)")
        holders = {cid for cid, x in texts.items() if code in x and typed.search(x)}
        if not _identifies(holders, candidates):
            holders = _holding_the_rest(text, code, holders, candidates)
        if _identifies(holders, candidates):
            found |= holders
    return found


def _holding_the_rest(text: str, code: str, holders: set[int], candidates: Mapping[int, str]) -> set[int]:
    """Those of `holders` (holding `code`) that hold every other word of `text` too, stop words aside: "1.8" is in
    a dozen tables, "coefficient of performance 1.8" in one report's page. None where `text` has no other word."""
    from ...store.word_stats import text_terms

    rest = text_terms([" ".join(w for w in _WORD.findall(text.replace(code, " ")) if w.lower() not in STOP_WORDS)])[0]
    rest -= text_terms([code])[0]
    if not rest or not holders:
        return set()
    ids = sorted(holders)
    return {c for c, terms in zip(ids, text_terms([candidates[c] for c in ids]), strict=True) if rest <= terms}


def _ungrouped(text: str) -> str:
    """`text` without the separators that group a number's thousands ("1,873.42", "1'000", a thin or no-break space;
    not a plain space, which also parts a table's columns): a person
    types an amount with them or without ("1873.42" found no letter saying 1,873.42)."""
    return _THOUSANDS.sub("", text)


def _folded(text: str) -> str:
    """`text` lower-cased and, where it is not ASCII, without its diacritics ("Résumé" is "resume"), as the words
    index folds them."""
    if text.isascii():
        return text.lower()
    return _MARKS.sub("", unicodedata.normalize("NFKD", text)).lower()


def _near_phrase(words: list[str]) -> tuple[str, re.Pattern[str]] | None:
    """What an ASCII text holding the phrase must hold: its words in order, each with nothing but separators between
    (FTS5's unicode61: every character but a letter or a digit), each starting with the start of its word's stem (a
    Porter stem is its word with the last letters changed at most: "abl" of "ability" is "able"'s, "mai" of "may",
    so two letters are left off a stem of five or more, one off a stem of three or four), and the longest such start
    alone (a substring, the quick test first). None where a word is not ASCII. Only the texts it finds (folded:
    `_folded`) go to FTS5, which decides."""
    from ...store.word_stats import word_terms

    stems = word_terms([w.lower() for w in words])
    if any(t is None or not t.isascii() for t in stems):
        return None
    starts = [t if len(t) <= 2 else t[: len(t) - (1 if len(t) <= 4 else 2)] for t in stems if t is not None]
    return max(starts, key=len), re.compile(r"(?<![^\W_])" + r"[^\W_]*[\W_]+".join(re.escape(x) for x in starts))
