"""The objects embedded in an RTF file (embedded.py's members): `{\\object\\objemb … {\\*\\objdata 0105000002…}}`,
the object as OLE 1.0 saves it (MS-OLEDS 2.2.4), written in hex. Its header names its class; a Packager object
(class `Package`) holds a file with its own name (ole_objects.ole10_native), any other embedded object an OLE
compound file (a Word or Excel document, an Acrobat document's PDF: ole_objects.object_file). A linked object
(`\\objautlink`, format 1) holds only where its file was: nothing is fetched. Objects are named by their order,
`oleObject1`.

The data is hex, as Word writes it, or raw bytes after `\\binN` (N bytes, as the RTF specification allows any
writer to put them: a `}` among them closes nothing), or both in turn. Caps: an object's bytes are measured before
any is copied or decoded (half its hex digits, each `\\bin` run's N, which must lie within the file) and taken from
the container's budget; a `\\bin` count longer than 10 digits, and data that is neither (a nested group, another
control word), is a note, not a guess.
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
_SPACES = (b" ", b"\t", b"\r", b"\n")
_HEX = re.compile(rb"[0-9a-fA-F \t\r\n]*")
_BIN = re.compile(rb"\\bin(\d{1,10}) ?")  # the control word's one delimiting space is no data (rtf.py reads it so)
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
        runs, at, why = _runs(data, m.end())  # the next object is looked for after this one's data: scanned once
        why = why or take(sum(_size(data, run) for run in runs))
        if why:
            yield name, None, why
            continue
        yield _ole1(name, b"".join(_bytes(data, run) for run in runs), max_member)


Run = tuple[bool, int, int]  # (hex or not, start, end) of a run of an object's data in the file's bytes


def _runs(data: bytes, at: int) -> tuple[list[Run], int, str]:
    """The runs of an object's data from `at` to the `}` that closes it, where its scan ended, and why the object is
    not read ("" when it is). Nothing is copied: a \\bin run's N is checked against the file's bytes left."""
    runs: list[Run] = []
    while at < len(data):
        hexed = _HEX.match(data, at)
        assert hexed is not None  # the pattern matches the empty string
        if hexed.end() > at:
            runs.append((True, at, hexed.end()))
            at = hexed.end()
            continue
        if data[at: at + 1] == b"}":
            return runs, at, ""
        binary = _BIN.match(data, at)
        if binary is None:  # a nested group, another control word, any other byte: no guess at what it means
            end = data.find(b"}", at)
            return runs, end if end >= 0 else len(data), "embedded object's data is neither hex nor \\bin: not read"
        size, at = int(binary.group(1)), binary.end()
        if size > len(data) - at:
            return runs, len(data), "embedded object's \\bin data runs past the end of the file: not read"
        runs.append((False, at, at + size))
        at += size
    return runs, at, ""


def _size(data: bytes, run: Run) -> int:
    """A run's bytes: a \\bin run's count, half a hex run's digits (its white space not counted, nothing copied)."""
    hexed, start, end = run
    return (end - start - sum(data.count(c, start, end) for c in _SPACES)) // 2 if hexed else end - start


def _bytes(data: bytes, run: Run) -> bytes:
    hexed, start, end = run
    if not hexed:
        return data[start:end]
    digits = data[start:end].translate(None, _SPACE)
    return binascii.unhexlify(digits[: len(digits) // 2 * 2])


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
