"""PowerPoint 97-2003 .ppt: the text of the slides and notes, read from the text atoms of the "PowerPoint Document"
stream (MS-PPT 2.3).

The stream is a tree of records, each an 8-byte header (version/instance, type, length) and its body; a container
(version 0xF) holds records, an atom holds data. Slide text lives in TextCharsAtom (UTF-16LE) and TextBytesAtom
(8-bit) records: for placeholders in the document's SlideListWithText, for other text boxes in the slides' and
notes' drawings (whose OfficeArt records share the header). The whole tree is walked in stream order; the masters'
text ("Click to edit Master title style") is left out.

Caps: the walk is a loop over a stack (no recursion), at most MAX_RECORDS records and MAX_DEPTH levels, and stops
at the text cap. A record running past its container ends that container (real files hold blobs marked as
containers: a round-trip zip), counted in a note; the walk always moves forward, so it ends. An encrypted
presentation (a CryptSession10Container, or the EncryptedSummary stream ole.py sees) is said to be encrypted.
"""

from __future__ import annotations

import struct
from typing import Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text
from .ole import OleFile, corrupt
from .ole_encrypted import ENCRYPTED

__all__ = ["SUFFIXES", "MAX_RECORDS", "MAX_DEPTH", "read_ppt"]

SUFFIXES = frozenset({".ppt", ".pps", ".pot"})
STREAM = "PowerPoint Document"
MAX_RECORDS = 2_000_000  # a 500-slide deck has ~200,000
MAX_DEPTH = 64  # real nesting is under 10
_TEXT_CHARS, _TEXT_BYTES = 0x0FA0, 0x0FA8
_MASTER = 0x03F8  # MainMaster container: template placeholders, not the deck's words
_CRYPT_SESSION = 0x2F14
_CHECK_EVERY = 4096
_MARKS = str.maketrans({"\r": "\n", "\x0b": "\n"})


def read_ppt(ole: OleFile, max_bytes: int, max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    if not ole.exists(STREAM):
        raise corrupt(f"PowerPoint file: the {STREAM!r} stream is missing")
    data = ole.stream(STREAM, max_bytes)
    damaged = [0]
    paragraphs = list(_texts(data, max_chars, cancel, damaged))
    notes = (f"{damaged[0]} damaged or unknown record(s) skipped",) if damaged[0] else ()
    return Document(clean_text("\n\n".join(paragraphs)), kind="ppt", notes=notes)


def _texts(data: bytes, max_chars: Optional[int], cancel: Optional[CancelToken], damaged: list[int]):
    budget = max_chars + 1 if max_chars is not None else 1 << 62
    ends: list[tuple[int, bool]] = [(len(data), False)]  # open containers: (end, inside a master)
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
        if ver_inst & 0x000F == 0x000F:  # a container: walk into it
            if len(ends) > MAX_DEPTH:
                raise corrupt(f"PowerPoint file: records nested deeper than {MAX_DEPTH}")
            ends.append((end, master or kind == _MASTER))
            pos += 8
            continue
        if not master and kind in (_TEXT_CHARS, _TEXT_BYTES):
            body = data[pos + 8:end]
            text = body.decode("utf-16-le", "replace") if kind == _TEXT_CHARS else body.decode("cp1252", "replace")
            text = text.translate(_MARKS).strip()
            if text and text != "*":  # "*": a slide-number or date field's stand-in
                yield text
                budget -= len(text) + 2
                if budget < 0:
                    return
        pos = end
