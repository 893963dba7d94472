"""Rich Text Format (.rtf, and an RTF file named .doc): the text a word processor shows, without its markup.

RTF is text with control words (`\\par`, `\\b`, `\\'e9`, `\\u8364?`) in nested `{ }` groups. Read here by one
regex scan and a stack of group states, never by recursion (a file of 100,000 nested groups is one list):
- destinations that hold no document text are skipped whole: the font, colour, style and list tables, pictures,
  embedded objects' data, field instructions (a field's result is kept), document properties, and any group
  marked `\\*` (ignorable: what a reader does not know);
- `\\'hh` bytes are decoded in the code page in force: the document's `\\ansicpgN`, or the current font's
  `\\fcharsetN` (Japanese, Chinese, Korean fonts use two-byte code pages), consecutive bytes together;
- `\\uN` is one Unicode character (UTF-16 units, surrogate pairs joined), and the `\\ucN` characters after it are
  the fallback for old readers, skipped;
- `\\binN` skips N raw bytes;
- the headers and footers (`{\\header …}`, `{\\footerf …}`) are read after the document's text, each line once and
  without the lines of a page number alone, as a .docx's are: a letterhead or a form's printed name
  is often all a letter's header holds.
The title comes from `{\\info{\\title …}}`. Nothing an RTF file points to (a linked picture, a field's
INCLUDETEXT) is fetched: field instructions are never read.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import FONT_CHARSETS, clean_text, known_codec, read_capped
from .title import clean_title

__all__ = ["SUFFIXES", "extract_rtf", "rtf_text"]

SUFFIXES = frozenset({".rtf"})
MAX_DEPTH = 10_000  # nested groups; Word writes a few dozen
MAX_TITLE_CHARS = 1000  # a document property, not a second text
_CHECK_EVERY = 1 << 16  # tokens between two cancel checks

_TOKEN = re.compile(rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|[\r\n]+|([^\\{}\r\n]+)",
                    re.DOTALL)
# Destinations whose content is no document text.
_SKIP = frozenset(b"""fonttbl colortbl stylesheet listtable listoverridetable revtbl rsidtbl pict object objdata
    fldinst datafield themedata colorschememapping datastore latentstyles xmlnstbl generator filetbl
    bkmkstart bkmkend pgdsctbl mmathPr
    xmlopen xmlclose wgrffmtfilter pnseclvl pntext pntxta pntxtb listtext""".split())
_BREAKS = {b"par": "\n", b"line": "\n", b"sect": "\n\n", b"page": "\n\n", b"row": "\n", b"cell": "\t",
           b"tab": "\t", b"emdash": "\u2014", b"endash": "\u2013", b"bullet": "\u2022", b"lquote": "\u2018",
           b"rquote": "\u2019", b"ldblquote": "\u201c", b"rdblquote": "\u201d", b"emspace": "\u2003",
           b"enspace": "\u2002", b"qmspace": "\u2005"}
# A section's headers and footers (all pages', left and right pages', the first page's): read after the text.
_HEADERS = frozenset(b"header headerl headerr headerf footer footerl footerr footerf".split())
MAX_HEADER_CHARS = 100_000  # of all headers and footers together: a letterhead is a few hundred
_SYMBOLS = {b"~": "\u00a0", b"_": "\u2011", b"-": "", b"\\": "\\", b"{": "{", b"}": "}", b"\n": "\n", b"\r": "\n"}
# \fcharsetN -> code page (encoding.FONT_CHARSETS, the RTF specification's table); 0 (ANSI) means the
# document's \ansicpg.
_CHARSETS = FONT_CHARSETS


class _Group:
    """What a `{` opens: whether its text is skipped, the \\uc fallback count and the code page in force."""

    __slots__ = ("skip", "uc", "codepage", "title", "header")

    def __init__(self, skip: bool = False, uc: int = 1, codepage: str = "cp1252", title: bool = False,
                 header: bool = False) -> None:
        self.skip, self.uc, self.codepage, self.title, self.header = skip, uc, codepage, title, header

    def copy(self) -> "_Group":
        return _Group(self.skip, self.uc, self.codepage, self.title, self.header)


class _Reader:
    """One pass over an RTF file's tokens: the group stack, the code pages in force, the text and the title."""

    def __init__(self, data: bytes, cancel: Optional[CancelToken], max_chars: Optional[int] = None) -> None:
        self.data, self.cancel = data, cancel
        self.max_chars = max_chars if max_chars is not None else 1 << 62  # read no further than the text cap
        self.stack: list[_Group] = []
        self.group = _Group()
        self.out = io.StringIO()  # one buffer: a list of every run's str cost ~15 times the file in memory
        self.title: list[str] = []
        self.headers = io.StringIO()  # the headers' and footers' text, read after the document's
        self.pending = bytearray()  # \'hh bytes waiting to be decoded together (a two-byte character)
        self.fonts: dict[int, str] = {}  # font number -> code page, from the font table
        self.font: Optional[int] = None  # the font being declared in the font table
        self.skip_chars = 0  # fallback characters still to skip after a \u
        self.high: Optional[int] = None  # a high surrogate waiting for its low half
        self.document_codepage = "cp1252"
        self.in_fonttbl_depth = -1
        self.info_depth = -1  # the document properties' group (its \\title is the title; elsewhere it is none)
        self.upr_depth, self.upr_at = -1, (0, 0)  # a \\upr group, and the text and title lengths when it opened
        self.upr_skip = False  # whether the \\upr group's text is skipped (in \\info: an author's name)
        self.opened = False  # the last token opened a group: a \\* there marks the group ignorable
        self.ended = False  # the document's outermost group has closed: what follows is no RTF (junk, padding)

    def emit(self, text: str) -> None:
        self.flush()
        self._put(text)

    def flush(self) -> None:
        if self.pending:
            self._put(self.pending.decode(self.group.codepage, errors="replace"))
            self.pending.clear()

    def _put(self, text: str) -> None:
        if self.group.title:
            if sum(map(len, self.title)) < MAX_TITLE_CHARS:
                self.title.append(text)
            return
        if self.group.header:
            if self.headers.tell() < MAX_HEADER_CHARS:
                self.headers.write(text)
            return
        room = self.max_chars - self.out.tell()
        if len(text) > room:  # the text cap: what follows would be cut anyway
            text, self.ended = text[: max(0, room) + 1], True
        self.out.write(text)

    def read(self) -> str:
        pos, data, n = 0, self.data, 0
        while pos < len(data) and not self.ended:
            m = _TOKEN.match(data, pos)
            if m is None:  # a lone backslash at the end
                break
            pos = m.end()
            n += 1
            if n % _CHECK_EVERY == 0 and self.cancel is not None:
                self.cancel.check()
            word, hexbyte, symbol, brace, text = m.group(1), m.group(3), m.group(4), m.group(5), m.group(6)
            if m.lastindex is None:  # a line break in the markup: no text, and no token of the group
                continue
            opened, self.opened = self.opened, False
            if symbol == b"*":
                self.group.skip |= opened  # `{\\*\\dest …}`: a destination to skip unless known (\\ud below)
            elif word is not None:
                pos = self.control(word, m.group(2), pos)
            elif hexbyte is not None:
                self.byte(int(hexbyte, 16))
            elif symbol is not None:
                self.symbol(symbol)
            elif brace is not None:
                self.brace(brace)
            elif text is not None:
                self.text(text)
        self.flush()
        return self.out.getvalue()

    def brace(self, brace: bytes) -> None:
        self.flush()
        self.skip_chars = 0
        if brace == b"{":
            if len(self.stack) >= MAX_DEPTH:
                raise ExtractionError(f"RTF groups nested deeper than {MAX_DEPTH:,}")
            self.stack.append(self.group)
            self.group = self.group.copy()
            self.opened = True
        elif self.stack:
            depth = len(self.stack)  # the group closing now
            if self.font is not None and depth <= self.in_fonttbl_depth + 1:
                self.font = None
            if depth == self.in_fonttbl_depth:
                self.in_fonttbl_depth = -1
            if depth == self.info_depth:
                self.info_depth = -1
            if depth == self.upr_depth:
                self.upr_depth = -1
            self.group = self.stack.pop()
            self.ended = not self.stack

    def control(self, word: bytes, arg: Optional[bytes], pos: int) -> int:
        g = self.group
        value = int(arg) if arg is not None else None
        if word == b"bin" and value:
            self.flush()
            return pos + max(0, value)  # raw bytes: never text
        if word == b"u" and value is not None:
            self.unicode(value)
            return pos
        if self.skip_chars:  # a control word counts as one fallback character
            self.skip_chars -= 1
            return pos
        if word == b"uc" and value is not None:
            g.uc = max(0, value)
        elif word == b"ansicpg" and value:
            # an unknown page: Windows' Western one, as RTF readers fall back to
            self.document_codepage = g.codepage = known_codec(f"cp{value}") or "cp1252"
        elif word == b"fonttbl":
            g.skip, self.in_fonttbl_depth = True, len(self.stack)
        elif word == b"f" and value is not None:
            self.font_word(value)
        elif word == b"fcharset" and value is not None and self.font is not None:
            self.fonts[self.font] = _CHARSETS.get(value, self.document_codepage)
        elif word == b"info":
            g.skip, self.info_depth = True, len(self.stack)
        elif word == b"title" and self.info_depth >= 0:
            g.title, g.skip = True, False
        elif word == b"upr":  # `{\\upr{ANSI text}{\\*\\ud{Unicode text}}}`: the same text twice
            self.upr_depth, self.upr_at = len(self.stack), (self.out.tell(), len(self.title))
            self.upr_skip = g.skip
        elif word == b"ud" and self.upr_depth >= 0:  # the Unicode copy is read instead of the ANSI one before it
            # `\\*` marked the \\ud group skipped; it is shown exactly when its \\upr is (an \\author in \\info is not)
            g.skip = self.upr_skip
            self.out.truncate(self.upr_at[0])
            self.out.seek(self.upr_at[0])
            del self.title[self.upr_at[1]:]
        elif word in _HEADERS:
            self.flush()
            g.header = not g.skip  # a header inside a skipped group stays skipped
            if g.header:
                self.headers.write("\n")  # each header or footer a paragraph of its own
        elif word in _SKIP:
            g.skip = True
        elif not g.skip and word in _BREAKS:
            self.emit(_BREAKS[word])
        return pos

    def font_word(self, number: int) -> None:
        if self.in_fonttbl_depth >= 0:
            self.font = number  # declared here: its \fcharset follows
        else:
            self.flush()
            self.group.codepage = self.fonts.get(number, self.document_codepage)

    def symbol(self, symbol: bytes) -> None:
        if self.skip_chars:
            self.skip_chars -= 1
            return
        if not self.group.skip and symbol in _SYMBOLS:
            self.emit(_SYMBOLS[symbol])

    def byte(self, value: int) -> None:
        if self.skip_chars:
            self.skip_chars -= 1
            return
        if not self.group.skip:
            self.pending.append(value)

    def text(self, raw: bytes) -> None:
        if self.skip_chars:
            cut = min(self.skip_chars, len(raw))
            self.skip_chars -= cut
            raw = raw[cut:]
        if raw and not self.group.skip:
            if self.pending:  # a two-byte character written as \\'83 then a plain "A": decoded together
                raw = bytes(self.pending) + raw
                self.pending.clear()
            self.emit(raw.decode(self.group.codepage, errors="replace"))

    def unicode(self, value: int) -> None:
        self.skip_chars = self.group.uc
        if self.group.skip:
            return
        value = value + 65536 if value < 0 else value  # RTF writes UTF-16 units as signed 16-bit numbers
        if 0xD800 <= value < 0xDC00:
            self.high = value
            return
        if 0xDC00 <= value < 0xE000 and self.high is not None:
            value = 0x10000 + ((self.high - 0xD800) << 10) + (value - 0xDC00)
        self.high = None
        if 0 < value < 0x110000 and not 0xD800 <= value < 0xE000:
            self.emit(chr(value))


def rtf_text(data: bytes, cancel: Optional[CancelToken] = None, max_chars: Optional[int] = None) -> tuple[str, str]:
    """(the text, the title) of an RTF file's bytes; reading stops past `max_chars` of text. ExtractionError when
    it is not RTF."""
    if data[:64].lstrip()[:5] != b"{\\rtf":
        raise ExtractionError("not an RTF file (no {\\rtf header)")
    reader = _Reader(data, cancel, max_chars)
    text = reader.read()
    headers = _each_once(reader.headers.getvalue())
    if headers:
        text = text.rstrip("\n") + "\n\n" + headers
    return text, "".join(reader.title)


def _each_once(text: str) -> str:
    """The headers' and footers' lines, each once (every section may repeat its header), without those that hold
    no letter and fewer than 5 digits (a page number "- 3 -", a rule of dashes; a phone number stays)."""
    seen: dict[str, None] = {}
    for line in text.split("\n"):
        line = line.strip()
        if any(c.isalpha() for c in line) or sum(c.isdigit() for c in line) >= 5:
            seen.setdefault(line)
    return "\n".join(seen)


def extract_rtf(path: Path, max_bytes: int, max_chars: Optional[int] = None, cancel: Optional[CancelToken] = None,
                data: Optional[bytes] = None) -> Document:
    text, title = rtf_text(data if data is not None else read_capped(path, max_bytes), cancel, max_chars)
    lines = [line.rstrip() for line in clean_text(text).split("\n")]
    return Document(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip(), kind="rtf", title=clean_title(title))
