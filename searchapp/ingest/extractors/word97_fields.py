"""Word .doc fields ("\\x13 code \\x14 result \\x15", MS-DOC 2.8.25): what of them a reader sees.

Of a field with a result only the result is kept (a hyperlink's words, not its HYPERLINK instruction); fields
nest, in codes and results alike. A field without a result (no \\x14) shows nothing, with one exception: an EQ
field draws its own text. Word writes Japanese furigana (Phonetic Guide) as one, `EQ \\* jc2 \\* "Font:MS Mincho"
\\* hps11 \\o\\ad(\\s\\up 10(とうきょう),東京)`: the base 東京 with its reading とうきょう raised above it. It is
read "東京 (とうきょう)": the base, as the sentence says it, then the reading, which a person who knows the word
only by its sound may search for; the space and brackets keep the two apart (CJK text is matched by pairs of
adjacent characters, and "京と" is no pair anyone wrote). Any other EQ field (a fraction, an enclosed character)
reads as its arguments, spaced.
"""

from __future__ import annotations

import re

__all__ = ["fields_shown"]

_FIELD = re.compile(r"[\x13\x14\x15]")
_EQ = re.compile(r"\s*eq\b", re.IGNORECASE)
_PHONETIC = re.compile(r"\\s\s*\\up\s*-?\d*\s*\(([^()]*)\)\s*,\s*([^()]*)\)")  # \s\up N(reading),base)
_FORMAT = re.compile(r'\\\*\s*(?:"[^"]*"|\S+)')  # \* jc2, \* "Font:MS Mincho": how, not what
_SWITCH = re.compile(r"\\[A-Za-z]+(?:\s*-?\d+)?")  # \o, \ad, \up 10
_ARGUMENTS = re.compile(r"[(),;]")


def fields_shown(raw: str) -> str:
    """`raw` with each field replaced by what it shows: its result, or an EQ field's text (fields nest)."""
    out: list[str] = []
    stack: list[tuple[bool, list[str]]] = []  # per open field: past its separator? and its code so far
    pos = 0
    for m in _FIELD.finditer(raw):
        text = raw[pos:m.start()]
        if not stack or stack[-1][0]:
            out.append(text)
        else:
            stack[-1][1].append(text)
        mark = m.group()
        if mark == "\x13":
            stack.append((False, []))
        elif mark == "\x14" and stack:
            stack[-1] = (True, stack[-1][1])
        elif mark == "\x15" and stack:
            shown, code = stack.pop()
            if not shown and (not stack or stack[-1][0]):
                out.append(eq_text("".join(code)))
        pos = m.end()
    if not stack or stack[-1][0]:
        out.append(raw[pos:])
    return "".join(out)


def eq_text(code: str) -> str:
    """What an EQ field's code draws: its furigana as "base (reading)", else its arguments; "" for other fields."""
    eq = _EQ.match(code)
    if eq is None:
        return ""
    code = code[eq.end():]
    ruby = [f"{base.strip()} ({reading.strip()})" for reading, base in _PHONETIC.findall(code)]
    if ruby:
        return " ".join(ruby)
    parts = _ARGUMENTS.split(_SWITCH.sub(" ", _FORMAT.sub(" ", code)))
    return " ".join(p.strip() for p in parts if p.strip())
