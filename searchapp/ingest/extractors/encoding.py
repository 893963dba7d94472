"""Bytes to text: bounded reads, binary detection, and encoding detection that never fails."""

from __future__ import annotations

import codecs
import re
import unicodedata
from pathlib import Path
from typing import Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.safe_open import open_regular, read_at_most

__all__ = ["read_capped", "decode_text", "clean_text", "is_binary", "known_codec"]

SNIFF_BYTES = 8192
CONTROL_RATIO = 0.10  # more control characters than this in the sniffed prefix means "binary"

# Longest BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# C0 controls other than \t \n \v \f \r and ESC, plus DEL: what text files essentially never hold.
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27)) + b"\x7f"
CONTROL_CHARS = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_NEWLINES = re.compile(r"\r\n?")
# Compatibility characters that only a font or a PDF's glyph names produce, never a person searching: Latin,
# Armenian and Hebrew presentation forms (U+FB00-FB4F: the ligatures "ﬁ", "ﬀ", "ﬃ"), and Arabic presentation
# forms (U+FB50-FDFF, U+FE70-FEFF: a letter's contextual shape). Kept as they are, "misﬁts" and a shaped
# "اﻟﻌﺮﺑﻴﺔ" never match "misfits" or "العربية". Only these ranges are folded: NFKC of the whole text would also
# change "²", "①", full-width forms and "ſ", which people may search as written.
_PRESENTATION_FORMS = re.compile("[\ufb00-\ufdff\ufe70-\ufeff]+")


def read_capped(path: Path, max_bytes: int) -> bytes:
    """The whole file, or ExtractionError if it holds more than `max_bytes` (never reads more than that + 1)."""
    with open_regular(path) as fh:
        data = read_at_most(fh, max_bytes + 1)
    if len(data) > max_bytes:
        raise ExtractionError(f"file too large (over {max_bytes / 2**20:g} MB)")
    return data


def _is_utf32(body: bytes, name: str) -> bool:
    """Whether the bytes after a UTF-32 BOM really are UTF-32: whole 4-byte units, valid code points (checked on
    the first 4 KiB)."""
    if len(body) % 4:
        return False
    try:
        body[:4096].decode(name)
    except UnicodeDecodeError:
        return False
    return True


def _bom(data: bytes) -> Optional[tuple[int, str]]:
    for bom, name in _BOMS:
        if data.startswith(bom):
            if name.startswith("utf-32") and not _is_utf32(data[len(bom):], name):
                continue  # FF FE 00 00 is also UTF-16-LE's BOM followed by a NUL character
            return len(bom), name
    return None


def is_binary(data: bytes) -> bool:
    """NUL bytes or many control bytes in the prefix of BOM-less data."""
    head = data[:SNIFF_BYTES]
    if not head:
        return False
    if b"\x00" in head:
        return True
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > CONTROL_RATIO * len(head)


def known_codec(name: Optional[str]) -> Optional[str]:
    """Python's name of the codec `name` (a declared charset, an RTF code page), or None when it has none."""
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_text(data: bytes, declared: Optional[str] = None) -> str:
    """Decode with: BOM, then a declared charset (e.g. HTML meta), then strict UTF-8, then
    charset-normalizer, then latin-1 (which cannot fail). Raises UnsupportedFileError("binary content").
    Returns text with \\n newlines and no NUL characters.
    """
    bom = _bom(data)
    utf16 = None if bom is not None else _utf16_without_bom(data)
    if bom is not None:
        size, name = bom
        text = data[size:].decode(name, errors="replace")
    elif utf16 is not None:
        text = utf16
    else:
        if is_binary(data):
            raise UnsupportedFileError("binary content")
        text = _decode_bomless(data, known_codec(declared))
    sample = text[:SNIFF_BYTES]
    if sample and len(CONTROL_CHARS.findall(sample)) > CONTROL_RATIO * len(sample):
        raise UnsupportedFileError("binary content")
    return clean_text(text)


def _utf16_without_bom(data: bytes) -> Optional[str]:
    """UTF-16 text saved without a BOM (some Windows tools do): mostly-Latin text then has a NUL in nearly
    every high byte and almost none in the low ones. Such data would otherwise look binary (NUL bytes)."""
    head = data[:SNIFF_BYTES]
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    for name, high, low in (("utf-16-le", nul_odd, nul_even), ("utf-16-be", nul_even, nul_odd)):
        if high > 0.4 and low < 0.02:
            try:
                return data[: len(data) - len(data) % 2].decode(name)
            except UnicodeDecodeError:  # lone surrogates: not UTF-16 after all
                return None
    return None


# Declared charsets that decode any bytes (ASCII aside), so a page saved as UTF-8 under an old <meta> or mail
# header that still says Latin-1 read as mojibake ("â\x80\x9ccurlyâ\x80\x9d"). Latin text in these charsets is
# almost never valid UTF-8 once it holds a byte over 0x7F: such bytes are read as UTF-8 instead.
_WESTERN = frozenset({"ascii", "iso8859-1", "iso8859-15", "cp1252"})


def _decode_bomless(data: bytes, declared: Optional[str]) -> str:
    if declared in _WESTERN and not data.isascii():
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass  # really the declared charset
    for name in (declared, "utf-8"):
        if name:
            try:
                return data.decode(name)
            except (UnicodeDecodeError, LookupError):
                pass
    mixed = _utf8_among_cp1252(data)
    if mixed is not None:
        return mixed
    try:
        guess = _detect(data)
        if guess is not None:
            return guess
    except Exception:  # a detector failure must not lose the file: latin-1 below always works
        pass
    return data.decode("latin-1")


# A well-formed UTF-8 sequence of two to four bytes (no overlong form, no surrogate).
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
                            rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
                            rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}")


# A byte UTF-8 cannot read, as `surrogateescape` keeps it (U+DC80 + byte), -> that byte read as Windows-1252
# (Latin-1 where cp1252 assigns none): a translate table, so a big file costs no Python call per byte.
_ESCAPED_AS_CP1252 = {0xDC00 + b: bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in range(0x80, 0x100)}


# What a Western text's UTF-8 sequences hold: Latin letters, punctuation, currency and letterlike symbols (and
# the bytes surrogateescape kept, read as cp1252 next).
_NOT_WESTERN = re.compile("[^\x00-\u024f\u1e00-\u1eff\u2000-\u20cf\u2100-\u214f\udc80-\udcff]")
_JUDGED_CHARS = 65536


def _utf8_among_cp1252(data: bytes) -> Optional[str]:
    """A Western file written by two programs, UTF-8 in parts and Windows-1252 in others (an invoice whose "€" was
    pasted in as UTF-8 beside "Fällig" typed in cp1252): read as cp1252 whole, its euro sign was "â‚¬". Each
    well-formed UTF-8 sequence is read as UTF-8, every other byte as cp1252, when the text then reads as Western
    text (_western); else None (no UTF-8 sequence, or another script: the detector decides). A cp1252 text's
    letter before a symbol can form a sequence ("ß“" is U+07D3): no Western character, so it is refused."""
    if _UTF8_SEQUENCE.search(data) is None:
        return None
    escaped = data.decode("utf-8", errors="surrogateescape")
    if _NOT_WESTERN.search(escaped):  # a UTF-8 sequence of another script (or a cp1251 pair reading as one)
        return None
    # the bytes read as cp1252 judged on the file's head: _western of a whole 10 MB file took 6 s, and another
    # script's bytes read as cp1252 ("Ïðèâåò") fill every line of such a file
    if not _western(escaped[:_JUDGED_CHARS].translate(_ESCAPED_AS_CP1252)):
        return None
    return escaped.translate(_ESCAPED_AS_CP1252)


def _detect(data: bytes) -> Optional[str]:
    """charset-normalizer's answer, except that among equally good single-byte guesses
    Windows-1252 wins: it often ties with cp1250 on Western text, and is the likelier origin; and that a guess
    of no Latin code page gives way to Windows-1252 when the text reads as Western text that way (_western)."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    best = matches[0]
    for m in matches:
        if m.chaos <= best.chaos + 0.01 and m.coherence >= best.coherence - 0.01:
            if {"cp1252", "latin_1"} & set(m.could_be_from_charset):
                try:
                    return data.decode("cp1252")
                except UnicodeDecodeError:  # 0x81, 0x8d, ... are unassigned in cp1252
                    return data.decode("latin-1")
    if best.encoding not in _LATIN_PAGES:
        try:
            western = data.decode("cp1252")
        except UnicodeDecodeError:
            western = None
        if western is not None and _western(western):
            return western
    return str(best)


# The Latin code pages a detector's guess is taken from as it is (Central European, Turkish, Baltic text: their
# letters read as cp1252 are other Latin letters, so _western cannot tell them apart).
_LATIN_PAGES = frozenset({"cp1250", "cp1252", "cp1254", "cp1257", "cp1258", "latin_1", "iso8859_2", "iso8859_3",
                          "iso8859_4", "iso8859_9", "iso8859_10", "iso8859_13", "iso8859_14", "iso8859_15",
                          "iso8859_16"})
_LETTERS = re.compile(r"[^\W\d_]+")
# A character past ASCII that is no letter, between two letters: how another script's bytes read as cp1252
# ("Za¿ó³æ", "Ã©"); an apostrophe (’) or Catalan's middle dot (l·l) is the only one Western words hold.
_INSIDE_A_WORD = re.compile(r"(?<=[^\W\d_])[^\x00-\x7f\w’·](?=[^\W\d_])")


def _western(text: str) -> bool:
    """Whether `text` (bytes read as cp1252) reads as Western text: every letter past ASCII a Latin one, none of
    cp1252's symbols inside a word, and every word holding such a letter holding a plain one too, or of one letter
    ("à", "é"). Short notes and one-line files have too little text for a detector's statistics: "Le café était
    très bon" was read as Mac Central European ("cafť ťtait"), "“Smart” – 5 €" as Cyrillic. Cyrillic, Greek and CJK
    bytes read as cp1252 make words of no plain letter ("Ïðèâåò") or symbols inside words."""
    if _INSIDE_A_WORD.search(text):
        return False
    for word in _LETTERS.findall(text):
        if word.isascii():
            continue
        if any(not ch.isascii() and "LATIN" not in unicodedata.name(ch, "") for ch in word):
            return False
        if len(word) > 1 and not any(ch.isascii() for ch in word):
            return False
    return True


# A font's charset, as Windows names it (LOGFONT lfCharSet: RTF's \fcharsetN, a Word font table's chs) -> its
# code page; 0 (ANSI), 1 (default), 2 (symbol) and 255 (OEM) name none. RTF and Word 6/95 read fonts by it.
FONT_CHARSETS = {77: "mac_roman", 128: "cp932", 129: "cp949", 130: "johab", 134: "gbk", 136: "cp950", 161: "cp1253",
                 162: "cp1254", 163: "cp1258", 177: "cp1255", 178: "cp1256", 186: "cp1257", 204: "cp1251",
                 222: "cp874", 238: "cp1250", 254: "cp437"}


def clean_text(text: str) -> str:
    """Normalise newlines to \\n, drop NUL characters (they break SQLite FTS and tokenizers) and soft hyphens
    (U+00AD: a place a word may break, kept by PowerPoint and HTML's &shy; where Word's readers drop it; kept, it
    splits the word for search), and fold ligatures and presentation forms (_PRESENTATION_FORMS) with NFKC.
    The text may change length ("ﬃ" is "ffi"): every reader cleans before it counts offsets (page spans), so
    none shift."""
    if "\r" in text:
        text = _NEWLINES.sub("\n", text)
    text = text.replace("\x00", "").replace("\u00ad", "")
    if text.isascii():  # no presentation form to fold: the scan below was a tenth of a small file's reading
        return text
    return _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
