"""The objects embedded in an RTF file (embedded.py's members): `{\\object\\objemb … {\\*\\objdata 0105000002…}}`,
the object as OLE 1.0 saves it (MS-OLEDS 2.2.4), written in hex. Its header names its class; a Packager object
(class `Package`) holds a file with its own name (ole_objects.ole10_native), any other embedded object an OLE
compound file (a Word or Excel document, an Acrobat document's PDF: ole_objects.object_file). A linked object
(`\\objautlink`, format 1) holds only where its file was: nothing is fetched. Objects are named by their order,
`oleObject1`.

Caps: an object's hex is measured before it is decoded (half its digits are its bytes, taken from the container's
budget), and data that is not hex and white space (a `\\bin` run, a nested group) is a note, not a guess.
"""

from __future__ import annotations

import binascii
import re
import struct
from pathlib import Path
from typing import Callable, Iterator

from ...base.errors import ExtractionError, UnsupportedFileError
from .encoding import read_capped
from .ole import OleFile
from .ole_encrypted import OLE_MAGIC
from .ole_objects import Found, object_file, ole10_native, unknown

__all__ = ["OBJDATA", "rtf_objects"]

Take = Callable[[int], str]
OBJDATA = re.compile(rb"\\objdata(?![a-zA-Z])")
_SPACE = b" \t\r\n"
_HEX = re.compile(rb"[0-9a-fA-F]*")
_EMBEDDED, _LINKED = 2, 1  # the OLE 1.0 header's FormatID
MAX_OBJECTS = 10_000  # \objdata groups looked at (members.py keeps the first 2,000 names)


def rtf_objects(src: Path | bytes, max_member: int, take: Take) -> Iterator[Found]:
    data = src if isinstance(src, bytes) else read_capped(src, max_member)
    at, n = 0, 0
    while (m := OBJDATA.search(data, at)) is not None:
        n += 1
        if n > MAX_OBJECTS:
            yield "", None, f"only the first {MAX_OBJECTS:,} embedded objects looked at"
            return
        name = f"oleObject{n}"
        end = data.find(b"}", m.end())
        end = end if end >= 0 else len(data)
        at = end  # the next object is looked for after this one's data: each byte is scanned once
        digits = data[m.end(): end].translate(None, _SPACE)
        why = take(len(digits) // 2)
        if why:
            yield name, None, why
            continue
        if _HEX.fullmatch(digits) is None:
            yield name, None, "embedded object's data is not hex: not read"
            continue
        yield _ole1(name, binascii.unhexlify(digits[: len(digits) // 2 * 2]), max_member)


def _ole1(name: str, raw: bytes, max_member: int) -> Found:
    """The file an OLE 1.0 object holds: its version, format, class, topic and item names, then its data's size and
    the data."""
    try:
        _, form, n = struct.unpack_from("<III", raw)
        kind = raw[12: 12 + n].split(b"\0", 1)[0].decode("cp1252", "replace")
        if form == _LINKED:  # its topic names the file, which is never opened
            return name, None, f"linked object{f' ({kind[:60]})' if kind else ''}: the file it links to is not read"
        if form != _EMBEDDED:
            return name, None, unknown(kind)
        at = 12 + n
        for _ in range(2):  # topic and item names: empty for an embedded object
            (n,) = struct.unpack_from("<I", raw, at)
            at += 4 + n
        (size,) = struct.unpack_from("<I", raw, at)
    except struct.error:
        return name, None, "embedded object could not be read"
    native = raw[at + 4: at + 4 + size]
    if len(native) < size:
        return name, None, "embedded object is cut short"
    if kind == "Package":  # a packaged file: the Ole10Native stream's body
        return ole10_native(name, name, struct.pack("<I", size) + native)
    if not native.startswith(OLE_MAGIC):
        return name, None, unknown(kind)
    try:
        with OleFile(native) as ole:
            return object_file(name, name, ole, "", native, max_member)
    except (ExtractionError, UnsupportedFileError) as exc:
        return name, None, str(exc)
