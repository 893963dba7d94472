"""The objects embedded in a Word, Excel or PowerPoint 97-2003 file (embedded.py's members), each opened by
ole_objects.py for the file it holds:
- a .doc keeps each object as a storage of its compound file, `ObjectPool/_1345470949` (MS-DOC 2.1.2);
- an .xls as a storage at its root, `MBD0003271D` (MBD and 8 hex digits);
- a .ppt as an ExOleObjStg record of its "PowerPoint Document" stream (MS-PPT 2.10.34), the object's own compound
  file, zlib-compressed when the record's instance is 1. The records the presentation is made of now are read
  (a fast save leaves older copies behind, ppt97's edit chain), and are named by their order, `oleObject1`.

Every object's size is told before its bytes are read (a storage's streams from the directory, a compressed
record's from its header) and taken from the container's budget (members.py); a record is never inflated past it.
A .ppt's VBA project is such a record too: macros, no file a person embedded, left out unlisted.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Callable, Iterator

from ...base.errors import ExtractionError, UnsupportedFileError
from .ole import OleFile
from .ole_objects import Found, object_file

__all__ = ["compound_holds", "compound_objects"]

Take = Callable[[int], str]
_POOL = "ObjectPool"  # a .doc's
_MBD = "MBD"  # an .xls's storages: "MBD" and 8 hex digits
_PPT = "PowerPoint Document"
_OLE_STG = 0x1011  # RT_ExternalOleObjectStg
MAX_RECORDS = 2_000_000  # top-level records looked at (ppt97.MAX_RECORDS: a 500-slide deck has ~200,000 in all)
# Objects read from one document, at most: olefile finds a name among its siblings one by one, so n objects in one
# storage cost n^2 look-ups (a reviewer's .doc of 2,000: 1.9 s on a busy 2-core machine, 0.12 s at 500); a
# document a person writes embeds a few
MAX_OBJECTS = 500


def _storages(ole: OleFile) -> list[str]:
    pool = ole.storages(_POOL) if ole.exists(_POOL) else []
    return pool + [s for s in ole.storages() if s.upper().startswith(_MBD)]


def compound_holds(ole: OleFile) -> bool:
    """Whether the file holds an object: a storage of the object pool or an MBD storage, or an ExOleObjStg record."""
    return bool(_storages(ole)) or any(True for _ in _records(ole))


def compound_objects(src: Path | bytes, max_member: int, take: Take) -> Iterator[Found]:
    """(name, bytes, "") of each object's file, or (name, None, why not)."""
    with OleFile(src) as ole:
        storages = _storages(ole)
        for storage in storages[:MAX_OBJECTS]:
            why = take(_size(ole, storage))
            yield (storage, None, why) if why else object_file(storage, storage, ole, storage, None, max_member)
        capped = len(storages) > MAX_OBJECTS
        for n, (instance, body) in enumerate(_records(ole), start=len(storages) + 1):
            if n > MAX_OBJECTS:
                capped = True
                break
            found = _record_object(f"oleObject{n - len(storages)}", instance, body, max_member, take)
            if found is not None:
                yield found
        if capped:  # a note about the rest (members.py's "…")
            yield "", None, f"only the first {MAX_OBJECTS:,} embedded objects read"


def _size(ole: OleFile, storage: str) -> int:
    """The bytes of a storage's streams together, by the directory (nothing read)."""
    return sum(ole.ole.get_size(name) for name in ole.below(storage) if ole.ole.get_type(name) == 2)  # streams


def _records(ole: OleFile) -> Iterator[tuple[int, bytes]]:
    """(instance, body) of each ExOleObjStg record among the presentation's live top-level records."""
    if not ole.exists(_PPT):
        return
    from .ppt97 import _live_records

    data = ole.stream(_PPT, ole.size)  # no stream is larger than its file
    live = _live_records(data, ole.optional("Current User", 4096))
    data = live if live is not None else data
    pos = count = 0
    while pos + 8 <= len(data) and count < MAX_RECORDS:
        count += 1
        ver_inst, kind, length = struct.unpack_from("<HHI", data, pos)
        if kind == _OLE_STG:
            yield ver_inst >> 4, data[pos + 8: pos + 8 + length]
        pos += 8 + length


def _record_object(name: str, instance: int, body: bytes, max_member: int, take: Take) -> Found | None:
    if instance == 1:  # compressed: the object's size, then its zlib stream
        if len(body) < 4:
            return name, None, "embedded object is cut short"
        (size,) = struct.unpack_from("<I", body)
        why = take(size)
        if why:
            return name, None, why
        inflate = zlib.decompressobj()
        try:
            data = inflate.decompress(body[4:], size)  # never more than it said, within the budget taken
        except zlib.error:
            return name, None, "embedded object could not be decompressed"
        if len(data) < size:
            return name, None, "embedded object is cut short"
    else:
        why = take(len(body))
        if why:
            return name, None, why
        data = body
    try:
        with OleFile(data) as ole:
            if ole.exists("VBA") and ole.exists("PROJECT"):
                return None  # the presentation's macros: not a file
            return object_file(name, name, ole, "", data, max_member)
    except (ExtractionError, UnsupportedFileError) as exc:
        return name, None, str(exc)
