"""Is a page's text layer garbled: glyph codes, control bytes or the wrong letters instead of words?

A PDF whose fonts carry no usable Unicode map gives a text layer that looks like text to a program and like
noise to a person: pypdf writes the glyph names (`/g18/g152/g3…`, `/uni0041`, `/C71`), pdfium and others
write the raw character codes (control bytes, U+FFFD, private-use code points). Such a page is read with
the other extractor, or by OCR; it is never indexed as it is (it would cost the embedding and match nothing).

Decisions:
- Judged per page on what is plainly not text, so any language and script passes: glyph-name and `(cid:N)`
  tokens, C0/C1 control characters other than tab and newlines, U+FFFD, and private-use characters (a
  symbol font's bullet is one of those; a page of them is not prose).
- A page is garbled when more than GARBLED_SHARE of its visible characters are such; a stray `/g3` in a
  sentence, a few bullets, or a URL's `/v2` path stay well below it.
- Text that is letters, but the wrong ones, is caught when the letters jump between scripts that never meet
  (`wrong_letters`): a Word or PowerPoint font whose Unicode map pypdf reads shifted turns Japanese into
  `ίϯύϥϒϧͳ৽ฉࣄه` (Greek, Bengali, Thai, Arabic in one word). Real text mixes Latin with every script, writes
  Greek letters as symbols in every script, and Japanese mixes kanji, kana and Latin in every sentence; none of
  these count. Shifted Latin (`$PNQVUFS` for "Computer") stays Latin and is not detected: that needs a
  dictionary per language.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["GARBLED_SHARE", "WRONG_SHARE", "garbled_share", "is_garbled", "script", "wrong_letters"]

GARBLED_SHARE = 0.15

# pypdf writes an unmapped glyph name as it is: /g18, /G43, /C6f, /LW010000, /uni00A0, /u1F600, /.notdef;
# pdfminer-style tools write (cid:12).
_GLYPH = re.compile(r"/(?:[A-Za-z]{1,6}\d[0-9A-Za-z]*|uni[0-9A-Fa-f]{4,}|u[0-9A-Fa-f]{4,6}|\.notdef)"
                    r"|\(cid:\d+\)")
_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd\ue000-\uf8ff]")
_WHITE = re.compile(r"[ \t\n\r\u00a0\u2000-\u200b\u3000]")


def garbled_share(text: str) -> float:
    """The share of `text`'s visible characters that are glyph codes or control bytes (0.0 when empty)."""
    visible = len(text) - len(_WHITE.findall(text))
    if visible <= 0:
        return 0.0
    junk = sum(m.end() - m.start() for m in _GLYPH.finditer(text))
    junk += len(_BAD.findall(_GLYPH.sub("", text)))
    return min(1.0, junk / visible)


def is_garbled(text: str) -> bool:
    return garbled_share(text) > GARBLED_SHARE or wrong_letters(text)


# -- wrong letters -------------------------------------------------------------------------------------------
WRONG_SHARE = 0.2  # jumps between scripts per letter; shifted Japanese: 0.24-0.6, real text of the corpus: 0
WRONG_MIN = 3  # fewer jumps than this never make a page wrong: "α-частица" is one, and a short page is not judged

# One family each: Japanese mixes kanji, hiragana and katakana in every sentence, Korean writes Hanja among
# Hangul (Bopomofo, the CJK symbols and iteration marks, half-width katakana and the Hangul Jamo too).
_CJK = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF),
        (0xF900, 0xFAFF), (0xFF66, 0xFFDC), (0x20000, 0x3FFFF))
# Letterlike and mathematical letters (ℓ, ℵ, 𝑥) are symbols, of no script.
_NO_SCRIPT = ((0x2100, 0x214F), (0x1D400, 0x1D7FF))
_NO_SCRIPT_NAMES = frozenset({"MODIFIER", "VARIATION", "SUPERSCRIPT", "SUBSCRIPT"})
_ALIAS = {"COPTIC": "GREEK", "VEDIC": "DEVANAGARI", "COMBINING": "MARK"}  # COMBINING: the generic accents
# Scripts that meet every other: Latin words and Greek symbols (α, μm, Δx) appear in text of any script.
_NEUTRAL = frozenset({"LATIN", "GREEK"})
_ACCENTED = frozenset({"LATIN", "GREEK", "CYRILLIC"})  # the scripts the generic combining accents are made for
_NOT_LATIN = re.compile(r"[^\x00-\u024f]")


@functools.lru_cache(maxsize=8192)
def script(char: str) -> str:
    """The script of a letter or mark, by the first word of its Unicode name ("CJK" for the Chinese, Japanese and
    Korean family, "MARK" for a generic combining accent); "" for anything else."""
    code = ord(char)
    if code < 0x250:
        return "LATIN" if char.isalpha() else ""
    if unicodedata.category(char)[0] not in "LM":
        return ""
    if any(lo <= code <= hi for lo, hi in _CJK):
        return "CJK"
    if any(lo <= code <= hi for lo, hi in _NO_SCRIPT):
        return ""
    words = unicodedata.name(char, "").split()
    if "LATIN" in words:  # FULLWIDTH LATIN ..., LATIN SMALL LIGATURE FI
        return "LATIN"
    if not words or words[0] in _NO_SCRIPT_NAMES:
        return ""
    return _ALIAS.get(words[0], words[0])


def wrong_letters(text: str) -> bool:
    """Are `text`'s letters the wrong ones: jumping between scripts that never meet, in WRONG_SHARE or more of its
    letters outside Latin and Greek?"""
    letters, jumps = _script_jumps(text)
    return jumps >= WRONG_MIN and jumps >= WRONG_SHARE * letters


def _script_jumps(text: str) -> tuple[int, int]:
    """(letters outside Latin and Greek, jumps between two scripts that never meet). Jumps are counted inside a
    word, and across a space after a one-letter word (a page pypdf reads one character a line); a list of
    language names (Русский Ελληνικά ไทย 日本語) jumps between words only, so it counts none."""
    if not _NOT_LATIN.search(text):
        return 0, 0
    letters = jumps = 0
    prev = ""
    word = last_word = 0  # letters in the word being read, in the word before the space just crossed
    for char in text:
        if char.isspace():
            if word:
                last_word, word = word, 0
            continue
        name = script(char)
        if not name:
            continue
        if name == "MARK":  # an accent belongs to the letter before it: a jump only onto kana, Arabic...
            jumps += prev != "" and prev not in _ACCENTED
            continue
        letters += name not in _NEUTRAL
        if prev and prev != name and not {prev, name} & _NEUTRAL and (word or last_word == 1):
            jumps += 1
        prev = name
        word += 1
    return letters, jumps
