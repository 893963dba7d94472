"""PowerPoint 97-2003 .ppt: the text of the slides and notes, read from the text atoms of the "PowerPoint Document"
stream (MS-PPT 2.3).

The stream is a tree of records, each an 8-byte header (version/instance, type, length) and its body; a container
(version 0xF) holds records, an atom holds data. Slide text lives in TextCharsAtom (UTF-16LE) and TextBytesAtom
(8-bit) records: for placeholders in the document's SlideListWithText, for other text boxes in the slides' and
notes' drawings (whose OfficeArt records share the header). The whole tree is walked in stream order; the template
text of the masters ("Click to edit Master title style") is left out: the main master's, the handout master's and the
notes master's. The notes master is a NotesContainer like a slide's notes; its NotesAtom names no slide (MS-PPT
2.5.12: 0, in practice 0x80000000 or above, while a slide id is 0x100-0x7FFFFFFF), a slide's notes always name one.

Caps: the walk is a loop over a stack (no recursion), at most MAX_RECORDS records and MAX_DEPTH levels, and stops
at the text cap. A record running past its container ends that container (real files hold blobs marked as
containers: a round-trip zip), counted in a note; the walk always moves forward, so it ends. An encrypted
presentation (a CryptSession10Container, or the EncryptedSummary stream ole.py sees) is said to be encrypted.

Older PowerPoint: a PowerPoint 95 file has a "PowerPoint Document" stream whose records are not the 97 ones (no
text atoms), but it keeps its slides' text, 8-bit, in a "Text_Content" stream; that is read (up to
MAX_TEXT_CONTENT bytes) when the records give no text, in the code page its SummaryInformation names (a Russian
Windows saves cp1251), else cp1252. A PowerPoint 4.0 file keeps everything in one "PP40" stream and is skipped,
said to be that.
"""

from __future__ import annotations

import struct
from typing import Iterator, Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text, known_codec
from .ole import OleFile, corrupt
from .ole_encrypted import ENCRYPTED

__all__ = ["SUFFIXES", "MAX_RECORDS", "MAX_DEPTH", "read_ppt"]

SUFFIXES = frozenset({".ppt", ".pps", ".pot"})
STREAM = "PowerPoint Document"
TEXT_CONTENT, PP40 = "Text_Content", "PP40"
MAX_TEXT_CONTENT = 4 << 20  # a 40-slide PowerPoint 95 deck keeps 10 KB
MAX_RECORDS = 2_000_000  # a 500-slide deck has ~200,000
MAX_DEPTH = 64  # real nesting is under 10
_TEXT_CHARS, _TEXT_BYTES = 0x0FA0, 0x0FA8
# MainMaster and HandoutContainer: template placeholders, and what a person added to the master.
_MASTERS = frozenset({0x03F8, 0x0FC9})
_NOTES_ATOM = 0x03F1  # first in a NotesContainer: the notes master's names no slide
_SLIDE_IDS = range(0x100, 0x80000000)  # MS-PPT 2.2.24 SlideId
_SHAPE, _PLACEHOLDER = 0xF004, 0x0BC3  # OfficeArtSpContainer; OEPlaceholderAtom (in the shape's client data)
_CRYPT_SESSION = 0x2F14
_USER_EDIT, _PERSIST_DIRECTORY = 0x0FF5, 0x1772
MAX_EDITS = 10_000  # saves followed back through the edit chain
_CHECK_EVERY = 4096
_MARKS = str.maketrans({"\r": "\n", "\x0b": "\n"})
SUMMARY = "\x05SummaryInformation"
MAX_SUMMARY = 64 << 10  # a few hundred bytes in a real file
_CODE_PAGE, _VT_I2 = 1, 0x0002  # MS-OLEPS 2.18: PID_CODEPAGE, a 16-bit integer


def read_ppt(ole: OleFile, max_bytes: int, max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    if not ole.exists(STREAM):
        if ole.exists(PP40):
            raise UnsupportedFileError("PowerPoint 4.0 format: not supported")
        raise corrupt(f"PowerPoint file: the {STREAM!r} stream is missing")
    data = ole.stream(STREAM, max_bytes)
    live = _live_records(data, ole.optional("Current User", 4096), cancel)
    data = live if live is not None else data
    damaged = [0]
    paragraphs = list(_texts(data, max_chars, cancel, damaged))
    if not paragraphs:  # PowerPoint 95: records without text atoms
        paragraphs = _text_content(ole, min(max_bytes, MAX_TEXT_CONTENT), max_chars)
    notes = (f"{damaged[0]} damaged or unknown record(s) skipped",) if damaged[0] else ()
    return Document(clean_text("\n\n".join(paragraphs)), kind="ppt", notes=notes)


def _text_content(ole: OleFile, cap: int, max_chars: Optional[int]) -> list[str]:
    """A PowerPoint 95 file's text, from the stream it keeps for search tools: 8-bit in the file's code page
    (cp1252 when it names none), paragraphs ended by CR, a blank line between slides. [] when there is none (or
    it is over `cap`)."""
    data = ole.optional(TEXT_CONTENT, cap)
    if data is None:
        return []
    if max_chars is not None:
        data = data[:max_chars + 1]  # one byte a character at most
    text = data.decode(_code_page(ole.optional(SUMMARY, MAX_SUMMARY)), "replace").translate(_MARKS).strip()
    return [text] if text else []


# Windows' ANSI code pages (Thai, CJK double-byte, Central European to Vietnamese) and Johab
_ANSI_PAGES = frozenset({874, 932, 936, 949, 950, 1361, *range(1250, 1259)})


def _code_page(summary: Optional[bytes]) -> str:
    """The codec of the code page a SummaryInformation property set names (MS-OLEPS 2.21: its first section's
    PID_CODEPAGE), else cp1252; every offset and count is checked against the bytes there are."""
    if not summary or len(summary) < 48 or summary[:2] != b"\xfe\xff":
        return "cp1252"
    section = struct.unpack_from("<I", summary, 44)[0]  # the first section's offset, after its FMTID
    if section + 8 > len(summary):
        return "cp1252"
    count = min(struct.unpack_from("<I", summary, section + 4)[0], (len(summary) - section - 8) // 8)
    for i in range(count):
        pid, at = struct.unpack_from("<II", summary, section + 8 + 8 * i)
        if pid == _CODE_PAGE and section + at + 6 <= len(summary):
            kind, value = struct.unpack_from("<H2xH", summary, section + at)
            # Only Windows' ANSI and double-byte code pages are 8-bit text like Text_Content's: not 65001 (UTF-8),
            # 1200 (UTF-16) or an EBCDIC page (500), which would read it as noise.
            codec = known_codec(f"cp{value}") if kind == _VT_I2 and value in _ANSI_PAGES else None
            return codec or "cp1252"
    return "cp1252"


def _live_records(data: bytes, current_user: Optional[bytes], cancel: Optional[CancelToken] = None) -> Optional[bytes]:
    """The records the presentation is made of now, in stream order, joined; None when the edit chain cannot be
    followed (then the whole stream is walked). A fast save appends new versions of the document and its slides
    and leaves the old ones in place: the "Current User" stream points at the last UserEditAtom, each edit at its
    PersistDirectoryAtom (persist id -> offset) and at the edit before it; the newest offset of each id is live.

    Bounded by the stream: the live records are disjoint top-level records, so an offset inside a record already
    taken is skipped (the joined bytes never exceed the stream), each directory is read once, and all directories
    together may list no more offsets than the stream has 4-byte words (real ones are disjoint records of it)."""
    offsets = _persist_offsets(data, current_user, cancel)
    if not offsets:
        return None
    parts: list[bytes] = []
    taken_end = 0
    for n, off in enumerate(sorted(set(offsets.values()))):
        if cancel is not None and n % _CHECK_EVERY == 0:
            cancel.check()
        if off + 8 > len(data):
            return None
        if off < taken_end:
            continue  # inside the record before: a hostile or damaged directory, not a record of its own
        taken_end = off + 8 + struct.unpack_from("<I", data, off + 4)[0]
        parts.append(data[off:taken_end])
    return b"".join(parts)


def _persist_offsets(data: bytes, current_user: Optional[bytes],
                     cancel: Optional[CancelToken]) -> Optional[dict[int, int]]:
    """persist id -> its newest offset, from the edit chain; None when the chain cannot be followed."""
    if current_user is None or len(current_user) < 20:
        return None
    edit = struct.unpack_from("<I", current_user, 16)[0]  # offsetToCurrentEdit
    offsets: dict[int, int] = {}
    seen: set[int] = set()
    directories: set[int] = set()
    words_left = len(data) // 4
    while edit and edit not in seen and len(seen) < MAX_EDITS:
        seen.add(edit)
        if cancel is not None:
            cancel.check()
        if edit + 28 > len(data) or struct.unpack_from("<H", data, edit + 2)[0] != _USER_EDIT:
            return None
        last_edit, directory = struct.unpack_from("<II", data, edit + 16)
        edit = last_edit
        if directory in directories:
            continue  # an older edit naming the same directory adds nothing new
        directories.add(directory)
        if directory + 8 > len(data) or struct.unpack_from("<H", data, directory + 2)[0] != _PERSIST_DIRECTORY:
            return None
        end = min(directory + 8 + struct.unpack_from("<I", data, directory + 4)[0], len(data))
        at = directory + 8
        while at + 4 <= end:
            word = struct.unpack_from("<I", data, at)[0]
            first, count = word & 0xFFFFF, word >> 20
            at += 4
            words_left -= 1 + count
            if words_left < 0:
                raise corrupt("PowerPoint file: its persist directories list more offsets than the stream holds")
            if at + 4 * count > end:
                return None
            for k, off in enumerate(struct.unpack_from(f"<{count}I", data, at)):
                offsets.setdefault(first + k, off)  # the newest edit is met first
            at += 4 * count
    return offsets


def _texts(data: bytes, max_chars: Optional[int], cancel: Optional[CancelToken], damaged: list[int]) -> Iterator[str]:
    budget = max_chars + 1 if max_chars is not None else 1 << 62
    # Open containers: [end, inside a master, a shape (OfficeArtSpContainer), a placeholder shape].
    ends: list[list[int | bool]] = [[len(data), False, False, False]]
    pos = count = 0
    while True:
        while ends and pos >= ends[-1][0]:
            if pos > ends[-1][0]:
                raise corrupt(f"PowerPoint file: a record at byte {pos:,} runs past its container")
            ends.pop()
        if not ends or pos + 8 > len(data):
            return
        count += 1
        if count > MAX_RECORDS:
            raise ExtractionError(f"PowerPoint file has more than {MAX_RECORDS:,} records")
        if cancel is not None and count % _CHECK_EVERY == 0:
            cancel.check()
        ver_inst, kind, length = struct.unpack_from("<HHI", data, pos)
        end = pos + 8 + length
        if end > ends[-1][0]:
            if len(ends) == 1:
                return  # trailing bytes after the last top-level record (padding, a cut-off save)
            # A blob marked as a container (a round-trip zip) or a damaged record: the rest of this container is
            # skipped, the walk goes on after it (so it always moves forward).
            damaged[0] += 1
            pos = ends[-1][0]
            continue
        if kind == _CRYPT_SESSION:
            raise UnsupportedFileError(ENCRYPTED)
        master = ends[-1][1]
        shape = next((frame for frame in reversed(ends) if frame[2]), None)
        if ver_inst & 0x000F == 0x000F:  # a container: walk into it
            if len(ends) > MAX_DEPTH:
                raise corrupt(f"PowerPoint file: records nested deeper than {MAX_DEPTH}")
            ends.append([end, master or kind in _MASTERS, kind == _SHAPE, False])
            pos += 8
            continue
        if (kind == _NOTES_ATOM and len(ends) > 1 and length >= 4
                and struct.unpack_from("<I", data, pos + 8)[0] not in _SLIDE_IDS):
            ends[-1][1] = True  # the notes master: the rest of its container is read as a master's
        if kind == _PLACEHOLDER and shape is not None:
            shape[3] = True
        # On a master only text a person added is kept: a placeholder's is the template's ("Click to edit ...").
        keep = not master or (shape is not None and not shape[3])
        if keep and kind in (_TEXT_CHARS, _TEXT_BYTES):
            body = data[pos + 8:end]
            text = body.decode("utf-16-le", "replace") if kind == _TEXT_CHARS else body.decode("cp1252", "replace")
            text = text.translate(_MARKS).strip()
            if text and text != "*":  # "*": a slide-number or date field's stand-in
                yield text
                budget -= len(text) + 2
                if budget < 0:
                    return
        pos = end
