"""The file an embedded OLE object holds (embedded.py's members): an object is a compound file of its own (an Office
Open XML file's `embeddings/oleObject1.bin`, a .ppt's ExOleObjStg record, an RTF object's data) or a storage of
its document's compound file (a .doc's `ObjectPool/_1345470949`, an .xls's `MBD0003271D`).

What it holds, by its streams: a Word, Excel or PowerPoint 97-2003 document (the object's streams are the
document's), an Acrobat document's PDF or an RTF document in `CONTENTS`, an Office Open XML file in `Package`, or a
packaged file in `\\x01Ole10Native` (Windows' Packager: any file dropped into a document, named by its own name).
Any other object (an equation, a chart, a linked file) is named with its class and not read. A chart of Microsoft
Graph (class `MSGraph.Chart.8`, the chart Office 97-2003 embeds) holds a `Workbook` stream too, but a chart's: it is
named as a chart, not handed to the .xls reader as a workbook, which failed it as a corrupt Excel file. Only bytes
are copied out of the compound file: nothing is run, nothing an object links to is fetched.
"""

from __future__ import annotations

import re
import struct
from typing import Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from .ole import OleFile
from .ziputil import SafeZip

__all__ = ["Found", "MS_GRAPH", "object_file", "ole10_native", "basename", "unknown", "chart"]

Found = tuple[str, Optional[bytes], str]  # (name, its bytes or None, why it is not read)

_OLE_DOCUMENTS = (("WordDocument", ".doc"), ("Workbook", ".xls"), ("Book", ".xls"), ("PowerPoint Document", ".ppt"))
_OOXML_MAIN = (("word/document.xml", ".docx"), ("xl/workbook.xml", ".xlsx"), ("ppt/presentation.xml", ".pptx"))
_CONTENTS = ((b"%PDF", ".pdf"), (b"{\\rtf", ".rtf"))
_PACKAGE = "Package"  # the class (ProgID) of Windows' Packager
MS_GRAPH = "MSGraph.Chart"  # Microsoft Graph's classes: MSGraph.Chart.5, MSGraph.Chart.8


def basename(name: str) -> str:
    """A file's own name: an attachment or a package may hold the path it came from ("C:\\Users\\…\\a.xml")."""
    return re.split(r"[\\/:]", name.strip())[-1] or "attachment"


def unknown(kind: str = "") -> str:
    return f"embedded object of an unknown kind{f' ({kind[:60]})' if kind else ''}: not read"


def chart(kind: str = "") -> str:
    """Why a Microsoft Graph chart is not read: its data sheet and chart records are no document a person wrote,
    and the document it sits in is read as before."""
    return f"Microsoft Graph chart{f' ({kind[:60]})' if kind else ''}: not read"


def object_file(name: str, stem: str, ole: OleFile, storage: str, whole: Optional[bytes], max_member: int) -> Found:
    """The file the object at `storage` of `ole` ("" its root) holds, named `stem` and the suffix of what it is
    (`embeddings/oleObject1.pdf`), or a packaged file by its own name (`embeddings/oleObject1/notes.txt`); else
    (`name`, None, why). `whole`: the object's own bytes when it is the whole compound file (a document object is
    then itself the document), None when it is a storage (written out as a compound file of its own)."""
    at = storage + "/" if storage else ""
    try:
        kind = prog_id(ole.optional(at + "\x01CompObj", 4096))
        if kind.startswith(MS_GRAPH):  # its Workbook stream is a chart's, no workbook: listed, not read
            return name, None, chart(kind)
        for stream, suffix in _OLE_DOCUMENTS:
            if ole.exists(at + stream):  # the object is itself a Word, Excel or PowerPoint 97-2003 file
                if whole is not None:
                    return stem + suffix, whole, ""
                from .ole_writer import storage_file

                return stem + suffix, storage_file(ole, storage, max_member), ""
        if ole.exists(at + "CONTENTS"):  # olefile finds a name in any case ("Contents"), as the format says
            inner = ole.stream(at + "CONTENTS", max_member)
            for magic, suffix in _CONTENTS:
                if inner.startswith(magic):
                    return stem + suffix, inner, ""
        if ole.exists(at + "Package"):
            return _package(name, stem, ole.stream(at + "Package", max_member))
        if ole.exists(at + "\x01Ole10Native") and kind in ("", _PACKAGE):
            return ole10_native(name, stem, ole.stream(at + "\x01Ole10Native", max_member))
    except (ExtractionError, UnsupportedFileError) as exc:
        return name, None, str(exc)
    return name, None, unknown(kind)


def prog_id(compobj: Optional[bytes]) -> str:
    """The class an object's `\\x01CompObj` stream names ("Package", "Equation.3"), "" when it names none (MS-OLEDS
    2.3.8: a 28-byte header, the user type, the clipboard format, then the ProgID, each length-prefixed)."""
    if not compobj:
        return ""
    try:
        at = 28
        (n,) = struct.unpack_from("<I", compobj, at)
        at += 4 + n
        (marker,) = struct.unpack_from("<I", compobj, at)
        at += 4 + (4 if marker in (0xFFFFFFFF, 0xFFFFFFFE) else marker)
        (n,) = struct.unpack_from("<I", compobj, at)
        if n > 256 or at + 4 + n > len(compobj):
            return ""
        return compobj[at + 4: at + 4 + n].split(b"\0", 1)[0].decode("cp1252", "replace")
    except struct.error:
        return ""


def _package(name: str, stem: str, data: bytes) -> Found:
    """An Office Open XML file embedded as an object: its main part says which."""
    try:
        with SafeZip(data, archive=True) as z:
            for part, suffix in _OOXML_MAIN:
                if part in z.names:
                    return stem + suffix, data, ""
    except (ExtractionError, UnsupportedFileError) as exc:
        return name, None, str(exc)
    return name, None, "embedded package of an unknown kind: not read"


def ole10_native(name: str, stem: str, data: bytes) -> Found:
    """A packaged file (Windows' Packager): the stream's size, flags, its label, the path it came from, two flags,
    the temporary path it was copied to, then the file's size and bytes; since Windows Vista the three names again
    in UTF-16 after them, the label second (the 8-bit one has "?" for what its code page lacks: `zip_????.zip`).
    An RTF object of class Package holds the same after its own size."""
    try:
        p = 6
        label_end = data.index(b"\0", p)
        label = data[p:label_end].decode("cp1252", "replace")
        p = data.index(b"\0", label_end + 1) + 1 + 4
        (command_len,) = struct.unpack_from("<I", data, p)
        p += 4 + command_len
        (size,) = struct.unpack_from("<I", data, p)
        p += 4
    except (ValueError, struct.error):
        return name, None, "embedded package could not be read"
    if size > len(data) - p:
        return name, None, "embedded package is cut short"
    return f"{stem}/{basename(_unicode_label(data, p + size) or label)}", data[p: p + size], ""


def _unicode_label(data: bytes, p: int) -> str:
    """The UTF-16 label after a packaged file's bytes, "" when there is none."""
    names = []
    try:
        for _ in range(2):  # the temporary path, then the label
            (n,) = struct.unpack_from("<I", data, p)
            if n > 32_767 or p + 4 + 2 * n > len(data):
                return ""
            names.append(data[p + 4: p + 4 + 2 * n].decode("utf-16-le", "replace"))
            p += 4 + 2 * n
    except struct.error:
        return ""
    return names[1].split("\0", 1)[0]
