"""Words split by a hyphen at a line end, joined again: "discov-\\nered" is one word to search.

Typeset text (papers, books) breaks long words at line ends; the PDF keeps the hyphen and the line break, so
`anathema` finds nothing where the page says "anath-\\nema" (about 1,600 such words in pdf.js's freeculture.pdf).
pdfium marks a hyphen it takes for a break (U+FFFE, \\x02 in older builds) and joins the lines itself
("discov\\ufffeered").

Decisions:
- Joined only when the next line starts with a lowercase letter and both halves have two letters or more: a
  capital starts a name or a sentence ("Trace-\\nMonkey"), a digit a number ("pages 10-\\n20"), one letter a
  compound ("x-\\naxis", "e-\\nmail").
- The document's own vocabulary decides between a break and a compound: a hyphen stays where the document
  writes that hyphenated pair elsewhere on a line ("well-known", also inside "state-of-the-art"). A compound
  the document writes only at line ends is joined: no dictionary is kept per language.
- A joined word moves to the line its first half is on, the line break after it, so lines stay lines (a
  paragraph's blank line is never made or lost). pdfium's marks after a word are made a word or a hyphen;
  a \\x02 elsewhere is no mark (pypdf's text of a symbol font has them), left as it is.
- A token with `/` or `@` (a link, a path, an address) is never joined: its hyphen is its own. A word with a
  hyphen of its own is judged like any other: kept whole, "stop-the-\\nworld" would be right, but so many
  "sen-\\ntence-level" and "3,4-meth-\\nylenedioxy" are real breaks (pdf.js, Tika test files) that it is not.
- Used for PDF text only, on each page before its span is counted, so page offsets stay exact.

A page pypdf reads one word (or one CJK character) a line (pdf.js's issue19971.pdf: 1,889 lines, `地理` split
over two) is matched as words but never as a phrase: `word_a_line` tells it, and `better_lines` whether the
other reader's text of it has lines of words and every character, so `extractors.pdf` can take that one instead.
"""

from __future__ import annotations

import re
from itertools import pairwise

__all__ = ["join_hyphenated", "word_a_line", "better_lines"]

_LETTERS = r"[^\W\d_]"
# A hyphen at a line end. Its halves are found from it, the first by looking back over its token, the second
# forward: one regex for the whole (a token, letters, the break, letters) backtracked over every start of a long
# run without spaces, 60 s for 2,000 letters.
_BREAK = re.compile(r"[-\u2010][ \t]*\n[ \t]*")
# the second half: its letters, the rest of its token, the spaces after it
_RIGHT = re.compile(rf"(?P<right>{_LETTERS}{{2,}})(?P<rest>\S*)(?P<space>[ \t]*)")
_HYPHEN = re.compile("[-\u2010]")  # the ASCII hyphen and U+2010, which a compound may be written with
# Each starts where a word starts (no letter before it): started inside a long run of letters, every start would
# read the run to its end again.
_WORD_START = rf"(?<!{_LETTERS})"
_MARKED = re.compile(rf"{_WORD_START}(?P<left>{_LETTERS}{{2,}})[\ufffe\x02](?P<newline>\n?)(?P<right>{_LETTERS}{{2,}})?")
_LINK = re.compile("[/@]")  # a link, a path, an address: its hyphen is its own
# Chinese and Japanese are written without spaces and wrap anywhere: a line break between two of their characters
# splits a word ("気候変\n動": 変動, the pair search matches, was never in the index). Korean wraps at its spaces,
# so a break beside Hangul is a word's end and stays. A blank line (a paragraph) is never this.
_HAN = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_WRAP = re.compile(f"(?<=[{_HAN}])[ \t]*\n[ \t]*(?=[{_HAN}])")
_COMPOUND = re.compile(rf"{_WORD_START}{_LETTERS}+(?:[-\u2010]{_LETTERS}+)+")


def join_hyphenated(pages: list[str]) -> list[str]:
    """`pages` with their line-end hyphenations joined; the vocabulary of compounds is the whole document's."""
    compounds = _compounds(pages)
    return [_join(text, compounds) for text in pages]


def _compounds(pages: list[str]) -> set[tuple[str, str]]:
    """Every pair of words the document joins with a hyphen inside a line, lowercased: ("well", "known")."""
    pairs: set[tuple[str, str]] = set()
    for text in pages:
        for match in _COMPOUND.finditer(text):
            parts = _HYPHEN.split(match.group().lower())
            pairs.update(pairwise(parts))
    return pairs


def _join(text: str, compounds: set[tuple[str, str]]) -> str:
    if "\n" not in text and "\ufffe" not in text and "\x02" not in text:
        return text

    def marked(m: re.Match[str]) -> str:
        left, right = m["left"], m["right"]
        if right and right[0].islower() and (left.lower(), right.lower()) not in compounds:
            return left + right
        return f"{left}-{m['newline']}{right or ''}"

    text = _join_breaks(text, compounds)
    if "\ufffe" in text or "\x02" in text:
        text = _MARKED.sub(marked, text)
    return _HAN_WRAP.sub("", text)


def _join_breaks(text: str, compounds: set[tuple[str, str]]) -> str:
    """`text` with each hyphen at a line end joined where it breaks a word (see the module doc); each character is
    looked at a bounded number of times: a token is looked back over once, from its own hyphen."""
    out: list[str] = []
    done = 0  # text[:done] is in `out`
    for m in _BREAK.finditer(text):
        if m.start() < done:
            continue  # inside the second half of the last join
        start = max(done, _token_start(text, m.start()))
        left_start = _letters_before(text, start, m.start())
        right = _RIGHT.match(text, m.end())
        if m.start() - left_start < 2 or right is None:
            continue
        left, token, word = text[left_start:m.start()], text[start:left_start], right["right"]
        if (not word[0].islower() or (left.lower(), word.lower()) in compounds
                or _LINK.search(token + right["rest"])):
            continue
        after = right.end()
        more = after < len(text) and text[after] != "\n"  # the line goes on: the break moves after the word
        out.append(text[done:left_start] + left + word + right["rest"] + ("\n" if more else right["space"]))
        done = after
    out.append(text[done:])
    return "".join(out)


def _letters_before(text: str, start: int, end: int) -> int:
    """Where the letters ending at `end` start (not before `start`)."""
    i = end
    while i > start and (text[i - 1].isalpha()):
        i -= 1
    return i


def _token_start(text: str, end: int) -> int:
    """Where the token ending at `end` starts: after the last white space before it."""
    i = end
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    return i


ONE_WORD = 0.8  # lines holding one word, of a page's lines with text: a page read one word a line
MIN_LINES = 20  # a page with fewer lines (a title page, a slide) is not judged
_SPACE = re.compile(r"\s")
# Han, kana, Hangul: text written without spaces, where a word is one or two characters, not a line
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _one_word(line: str) -> bool:
    return not _SPACE.search(line) and (len(line) <= 2 or not _CJK.search(line))


def _lines(text: str) -> tuple[int, float, int]:
    """(lines with text, the share of them that are one word, characters other than spaces)."""
    lines = [line for line in (raw.strip() for raw in text.split("\n")) if line]
    one_word = sum(1 for line in lines if _one_word(line))
    return len(lines), one_word / max(len(lines), 1), len(text) - len(_SPACE.findall(text))


def word_a_line(text: str) -> bool:
    """Is `text` a page read one word (or one CJK character) a line?"""
    lines, one_word, _ = _lines(text)
    return lines >= MIN_LINES and one_word >= ONE_WORD


def better_lines(other: str, text: str) -> bool:
    """Has `other`, a reading of the same page as `text` (one word a line), lines of words, in half the lines or
    fewer, and every character of `text`?"""
    lines, one_word, chars = _lines(other)
    text_lines, _, text_chars = _lines(text)
    return one_word < 0.5 and 2 * lines <= text_lines and chars >= text_chars
