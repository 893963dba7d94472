"""Word 6/95 .doc: the text, one run fcMin..fcMac of 8-bit characters, in the code page the document shows.

A Word 6 file says nothing of its text's code page directly: its bytes are in the code page of the Windows that
wrote them. The evidence it keeps is its font table (fcSttbfffn at 0xD0 of the FIB, in the WordDocument stream),
whose fonts each name a Windows character set ("Times New Roman Cyr": 204, Cyrillic), and the FIB's lid, the
language of the Word that saved it (often 0x409, English, even for a Russian letter). In that order: the one
non-Western character set the fonts name (when several, the lid's, else the one most fonts name), else the
lid's code page, else cp1252. A two-byte code page (Japanese, Chinese, Korean) needs both: such text was typed
in a Far East Word, which saves its own lid, while Western files list Far East fonts they never use (POI's
Word6.doc: Times New Roman as charset 128, English text), and the text must decode in it without error.

Caps: the font table is read within its stream, at most MAX_FONTS fonts.
"""

from __future__ import annotations

import struct
from collections import Counter
from typing import Optional

from .encoding import FONT_CHARSETS
from .ole import corrupt

__all__ = ["MAX_FONTS", "word6_text"]

MAX_FONTS = 1_000  # a document lists a few dozen
_FC_STTBFFFN = 0xD0  # the FIB's fcSttbfffn, lcbSttbfffn (Word 6/95)
# A font's charset (FFN chs) -> code page (encoding.FONT_CHARSETS). A Mac (77) or DOS (254) font in a Windows
# Word file says nothing of the text's code page: those are left out, as are the charsets that name none.
_CHARSETS = {chs: cp for chs, cp in FONT_CHARSETS.items() if chs not in (77, 254)}
# A language's primary id (the lid's low 10 bits) -> the code page Windows wrote it in.
_LANGUAGES = {0x01: "cp1256", 0x02: "cp1251", 0x05: "cp1250", 0x08: "cp1253", 0x0D: "cp1255", 0x0E: "cp1250",
              0x11: "cp932", 0x12: "cp949", 0x15: "cp1250", 0x18: "cp1250", 0x19: "cp1251", 0x1B: "cp1250",
              0x1C: "cp1250", 0x1E: "cp874", 0x1F: "cp1254", 0x20: "cp1256", 0x22: "cp1251", 0x23: "cp1251",
              0x24: "cp1250", 0x25: "cp1257", 0x26: "cp1257", 0x27: "cp1257", 0x29: "cp1256", 0x2A: "cp1258",
              0x2F: "cp1251"}
_TWO_BYTE = frozenset({"cp932", "cp949", "johab", "gbk", "cp950"})


def word6_text(word: bytes) -> str:
    fc_min, fc_mac = struct.unpack_from("<II", word, 0x18)
    if not 0 < fc_min <= fc_mac <= len(word):
        raise corrupt(f"Word 6/95 document: its text ({fc_min:,}..{fc_mac:,}) lies outside the stream")
    data = word[fc_min:fc_mac]
    codepage = _codepage(word)
    if codepage in _TWO_BYTE:
        try:
            return data.decode(codepage)
        except UnicodeDecodeError:
            codepage = "cp1252"
    return data.decode(codepage, "replace")


def _codepage(word: bytes) -> str:
    by_lid = _lid_codepage(struct.unpack_from("<H", word, 0x06)[0])
    named = Counter(_CHARSETS[c] for c in _font_charsets(word) if c in _CHARSETS)
    for codepage in _TWO_BYTE - {by_lid}:  # a Far East font in a Western Word's file: listed, not used for text
        named.pop(codepage, None)
    if len(named) == 1 or (named and by_lid not in named):
        return named.most_common(1)[0][0]
    return by_lid or "cp1252"


def _lid_codepage(lid: int) -> Optional[str]:
    primary = lid & 0x3FF
    if primary == 0x04:  # Chinese: simplified in China and Singapore, traditional elsewhere
        return "gbk" if lid in (0x0804, 0x1004) else "cp950"
    if primary == 0x1A:  # Croatian and Serbian in Latin letters; Serbian and Bosnian in Cyrillic
        return "cp1251" if lid in (0x0C1A, 0x1C1A, 0x201A) else "cp1250"
    return _LANGUAGES.get(primary)


def _font_charsets(word: bytes) -> list[int]:
    """Each font's chs: the STTBF's byte count, then FFNs (cbFfnM1, flags, wWeight, chs, ixchSzAlt, name)."""
    if len(word) < _FC_STTBFFFN + 8:
        return []
    fc, lcb = struct.unpack_from("<II", word, _FC_STTBFFFN)
    table = word[fc:fc + lcb] if lcb >= 2 else b""
    out: list[int] = []
    at = 2
    while at + 5 < len(table) and len(out) < MAX_FONTS:
        out.append(table[at + 4])
        at += table[at] + 1
    return out
