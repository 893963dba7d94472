"""Word 97-2003 .doc: the text of the document, read from its piece table (MS-DOC 2.4.1).

The WordDocument stream starts with the FIB; its fcClx/lcbClx point into the table stream (0Table or 1Table, as
the FIB's fWhichTblStm says) at the CLX, whose PlcPcd lists the pieces: runs of character positions, each stored
at an offset of the WordDocument stream either as 8-bit text (cp1252, "compressed") or as UTF-16LE. Joined in
order they are the document's text: the main story, then footnotes, headers, comments, text boxes.

Text deleted under tracked changes is left out (word97_props reads which); hidden text is kept. Word's marks
become text: paragraph and cell ends break lines; of a field ("\\x13 code \\x14 result \\x15") only
the result is kept (a hyperlink's words, not its HYPERLINK instruction), or an EQ field's text (furigana: see
word97_fields). Word 6/95 files have no CLX: their
text is the run fcMin..fcMac of the WordDocument stream, in the code page its fonts and language say (word6).

Caps: the streams are read whole but each within the file's size (ole.py); at most MAX_PIECES pieces; reading
stops at the text cap; a piece pointing past its stream, an FIB too short for its counts, a CLX that does not
parse all fail the file with a one-line reason.
"""

from __future__ import annotations

import re
import struct
from typing import Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text
from .ole import OleFile, corrupt
from .ole_encrypted import ENCRYPTED
from .word6 import word6_text
from .word97_fields import fields_shown
from .word97_props import deleted_spans, drop_deleted

__all__ = ["SUFFIXES", "MAX_PIECES", "read_doc"]

SUFFIXES = frozenset({".doc", ".dot"})
MAX_PIECES = 100_000  # a long real document has a few thousand
_WORD97, _WORD6 = 0xA5EC, 0xA5DC  # the FIB's wIdent: Word 97 and later; Word 6/95
_FC_BTE_CHPX, _FC_CLX = 12, 33  # indexes of fcPlcfBteChpx and fcClx among the FIB's (fc, lcb) pairs
_CHECK_EVERY = 1024
# Word's control characters: paragraph, cell and line ends, page and column breaks, hyphens; anchors for
# pictures, notes and comments (\x01 \x02 \x05 \x08) carry no words.
_MARKS = str.maketrans({"\r": "\n", "\x07": "\n", "\x0b": "\n", "\x0c": "\n\n", "\x0e": "\n", "\x1e": "-",
                        "\x1f": None, "\x01": None, "\x02": None, "\x03": None, "\x04": None, "\x05": None,
                        "\x08": None})
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")  # left after _MARKS: nothing a person wrote


def read_doc(ole: OleFile, max_bytes: int, max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    word = ole.stream("WordDocument", max_bytes)
    ident = struct.unpack_from("<H", word, 0)[0] if len(word) >= 0x22 else 0
    if ident not in (_WORD97, _WORD6):
        raise corrupt("Word document: no FIB at the start of the WordDocument stream")
    flags = struct.unpack_from("<H", word, 0x0A)[0]
    if flags & 0x0100:  # fEncrypted
        raise UnsupportedFileError(ENCRYPTED)
    if ident == _WORD6:
        raw = word6_text(word)
    else:
        table = "1Table" if flags & 0x0200 else "0Table"
        if not ole.exists(table):
            raise corrupt(f"Word document: its table stream {table} is missing")
        fc, lcb = _clx_pointer(word)
        tbl = ole.stream(table, max_bytes)
        if lcb == 0 or fc + lcb > len(tbl):
            raise corrupt(f"Word document: the piece table ({lcb:,} bytes at {fc:,}) lies outside {table}")
        bte_fc, bte_lcb = _fib_pair(word, _FC_BTE_CHPX)
        spans = deleted_spans(word, tbl[bte_fc:bte_fc + bte_lcb])
        raw = _pieces_text(word, tbl[fc:fc + lcb], max_chars, cancel, spans)
    return Document(_visible(raw), kind="doc")


def _clx_pointer(word: bytes) -> tuple[int, int]:
    return _fib_pair(word, _FC_CLX)


def _fib_pair(word: bytes, index: int) -> tuple[int, int]:
    """The FIB's (fc, lcb) pair `index` from its variable parts (csw, cslw and cbRgFcLcb say how long each is)."""
    at = 0x20
    try:
        csw = struct.unpack_from("<H", word, at)[0]
        at += 2 + 2 * csw
        cslw = struct.unpack_from("<H", word, at)[0]
        at += 2 + 4 * cslw
        pairs = struct.unpack_from("<H", word, at)[0]
        if pairs <= index:
            raise corrupt(f"Word document: its FIB lists {pairs} stream pointers, too few for the piece table")
        return struct.unpack_from("<II", word, at + 2 + 8 * index)
    except struct.error:
        raise corrupt("Word document: its FIB is cut short") from None


def _pieces_text(word: bytes, clx: bytes, max_chars: Optional[int], cancel: Optional[CancelToken],
                 deleted: list[tuple[int, int]] | None = None) -> str:
    """The pieces' text in order, less what `deleted` (FC spans, word97_props) marks deleted."""
    plc = _plc_pcd(clx)
    n = (len(plc) - 4) // 12
    if n <= 0 or (len(plc) - 4) % 12:
        raise corrupt("Word document: the piece table's size is not that of a PlcPcd")
    if n > MAX_PIECES:
        raise ExtractionError(f"Word document has {n:,} pieces, more than {MAX_PIECES:,}")
    cps = struct.unpack_from(f"<{n + 1}I", plc, 0)
    budget = max_chars + 1 if max_chars is not None else 1 << 62
    out: list[str] = []
    for i in range(n):
        if cancel is not None and i % _CHECK_EVERY == 0:
            cancel.check()
        count = cps[i + 1] - cps[i]
        if count < 0 or count > len(word):
            raise corrupt(f"Word document: piece {i} spans {count:,} characters")
        fc = struct.unpack_from("<I", plc, 4 * (n + 1) + 8 * i + 2)[0]  # a PCD: flags, fc, prm
        if fc & 0x40000000:  # fCompressed: 8-bit text at fc / 2
            at = (fc & 0x3FFFFFFF) // 2
            data, text, width = word[at:at + count], None, 1
            if len(data) == count:
                text = data.decode("cp1252", "replace")
        else:
            at, data, width = fc, word[fc:fc + 2 * count], 2
            text = data.decode("utf-16-le", "replace") if len(data) == 2 * count else None
        if text is None:
            raise corrupt(f"Word document: piece {i} points past the end of the WordDocument stream")
        text = drop_deleted(text, at, width, deleted or [])
        out.append(text)
        budget -= len(text)
        if budget < 0:
            break
    return "".join(out)


def _plc_pcd(clx: bytes) -> bytes:
    """The PlcPcd of a CLX: past any Prc (0x01) blocks, the Pcdt (0x02) with its length."""
    at = 0
    while at < len(clx) and clx[at] == 0x01:
        if at + 3 > len(clx):
            break
        at += 3 + struct.unpack_from("<H", clx, at + 1)[0]
    if at + 5 > len(clx) or clx[at] != 0x02:
        raise corrupt("Word document: no piece table in its CLX")
    lcb = struct.unpack_from("<I", clx, at + 1)[0]
    if at + 5 + lcb > len(clx):
        raise corrupt("Word document: the piece table runs past its CLX")
    return clx[at + 5:at + 5 + lcb]


def _visible(raw: str) -> str:
    """Word's marks as text, each field as what it shows (word97_fields)."""
    return clean_text(_CONTROL.sub("", fields_shown(raw).translate(_MARKS)))
