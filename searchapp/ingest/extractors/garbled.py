"""Is a page's text layer garbled: glyph codes or control bytes instead of words?

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
- Text that is letters, but the wrong ones (a font whose codes are shifted), is not detected: that needs a
  dictionary per language.
"""

from __future__ import annotations

import re

__all__ = ["GARBLED_SHARE", "garbled_share", "is_garbled"]

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
    return garbled_share(text) > GARBLED_SHARE
