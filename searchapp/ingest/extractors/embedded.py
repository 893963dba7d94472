"""Files embedded in documents, read as the document's members (members.py): a PDF's attached files (the
/EmbeddedFiles name tree of a portfolio or an invoice's XML, and file-attachment annotations) and an Office Open XML
file's embedded parts (`word/embeddings/*`, `ppt/embeddings/*`, `xl/embeddings/*`).

The document's own text stays its own entry, read by its reader; each embedded file is a member read by the reader
of its type ("report.pdf › data.csv", "deck.pptx › embeddings/oleObject1.pdf"). Nothing embedded is run or fetched:
bytes are copied out of the document, within the archive caps (members.py's budget: bytes per member and per
container, members per container, nesting depth). An Office embedding wrapped in an OLE object (`oleObject1.bin`,
a compound file) is opened with the compound-file reader the legacy Office readers use (ole.py): an Acrobat
document's `CONTENTS` stream, an OLE package's file (`\\x01Ole10Native`, named by its own file name), or a Word,
Excel or PowerPoint 97-2003 file that is the object itself. Any other object (an equation, a chart's OLE data) is
named, with the reason, and not read.
"""

from __future__ import annotations

import io
import os
import re
import struct
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from ...base.errors import ExtractionError, SearchAppError, UnsupportedFileError
from ...base.safe_open import open_regular
from .ziputil import SafeZip, bomb_reason

__all__ = ["DOCUMENT_SUFFIXES", "holds_files", "embedded_files"]

_PDF = frozenset({".pdf"})
_OOXML = frozenset({".docx", ".docm", ".dotx", ".xlsx", ".xlsm", ".pptx", ".pptm", ".ppsx"})
DOCUMENT_SUFFIXES = _PDF | _OOXML
# The words that say a PDF holds a file: an embedded file stream's /Type or its /Params (Acrobat writes no /Type;
# streams are never inside object streams, so their dictionaries are in the file's bytes as written), the catalog's
# name tree, an annotation's subtype. Of the newcomer's 125 PDFs, 19 match, 15 of them holding files.
_PDF_MARKS = re.compile(rb"/EmbeddedFiles?\b|/FileAttachment\b|/Params\s*<<")
_SCAN_CHUNK = 2**20
# A hostile PDF's structures walked for attachments: name-tree nodes and annotations looked at, each node once. A
# 748-byte PDF whose name-tree node listed itself 8 times as a kid held a sync for over 11 minutes, deaf to its
# stop and to the file's budget (nothing here checks a token); one whose pages share an /Annots array of 100,000
# entries would be walked once a page.
MAX_TREE_NODES = 10_000
MAX_ANNOTS_LOOKED = 100_000
_EMBEDDINGS = re.compile(r"^[^/]+/embeddings/[^/]+$")
# An attached file's names in a filespec, each with the /EF key of its own stream (PDF 32000 7.11.3).
_EF_KEYS = ("/UF", "/F", "/DOS", "/Mac", "/Unix")
_OLE_DOCUMENTS = (("WordDocument", ".doc"), ("Workbook", ".xls"), ("Book", ".xls"), ("PowerPoint Document", ".ppt"))
_OOXML_MAIN = (("word/document.xml", ".docx"), ("xl/workbook.xml", ".xlsx"), ("ppt/presentation.xml", ".pptx"))

Take = Callable[[int], str]  # members.py's budget: "" when n more bytes may be read, else why not
Want = Callable[[str], bool]  # is this member's body wanted (members.py's `only`)
Found = tuple[str, Optional[bytes], str]  # (name, its bytes or None, why it is not read)


def _suffix(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def holds_files(src: Path | bytes, name: str = "") -> bool:
    """Whether a PDF or an Office Open XML file holds embedded files, told cheaply (a PDF's bytes scanned for the
    words that say so, a zip's directory looked at): a document holding none is read by its reader alone, and the
    sync's read-ahead worker may read it. `name`: the document's name when `src` is its bytes."""
    suffix = _suffix(name or ("" if isinstance(src, bytes) else os.fspath(src)))
    try:
        if suffix in _PDF:
            return _pdf_marked(src)
        if suffix in _OOXML:
            with SafeZip(src, archive=True) as z:
                return any(_EMBEDDINGS.match(n) for n in z.names)
    except (OSError, ExtractionError, UnsupportedFileError):
        return False  # its reader says what is wrong with it
    return False


def _pdf_marked(src: Path | bytes) -> bool:
    if isinstance(src, bytes):
        return _PDF_MARKS.search(src) is not None
    with open_regular(src) as fh:
        tail = b""
        while chunk := fh.read(_SCAN_CHUNK):
            if _PDF_MARKS.search(tail + chunk):
                return True
            tail = chunk[-32:]  # a word cut between two chunks
    return False


def embedded_files(src: Path | bytes, suffix: str, max_member: int, take: Take, want: Want) -> Iterator[Found]:
    """The files a document holds, each (name, bytes, "") or (name, None, why not). Raises ExtractionError when the
    document itself cannot be opened (its own entry says so)."""
    if suffix in _PDF:
        yield from _pdf_files(src, max_member, take, want)
    elif suffix in _OOXML:
        yield from _ooxml_files(src, max_member, take, want)
    else:
        raise UnsupportedFileError(f'no embedded files read from "{suffix}"')


def _pdf_files(src: Path | bytes, max_member: int, take: Take, want: Want) -> Iterator[Found]:
    from .pdf import _open  # the PDF reader's own opening: its bomb limits, its encryption rule

    fh = io.BytesIO(src) if isinstance(src, bytes) else open_regular(src)
    try:
        reader = _open(fh)
        seen: set[int] = set()  # a stream named twice (/F and /UF), or listed and annotated both: read once
        try:
            for key, spec in _name_tree(reader):
                yield from _filespec_files(spec, key, seen, max_member, take, want)
            for spec in _attachment_annotations(reader):
                yield from _filespec_files(spec, "", seen, max_member, take, want)
        except (MemoryError, RecursionError, SearchAppError):  # a cancel, a bomb's limit: not a broken structure
            raise
        except Exception as exc:  # a broken name tree or page: the document's own text is still good (a /Names
            # of a number failed the whole PDF, "internal error: TypeError"), and the files found so far are kept
            yield "", None, f"the rest of its attached files not read: broken structure ({type(exc).__name__})"
    finally:
        fh.close()


def _attachment_annotations(reader: Any) -> Iterator[Any]:
    """The filespecs of the file-attachment annotations of the pages, MAX_ANNOTS_LOOKED annotations looked at."""
    looked = 0
    for page in reader.pages:
        for annot in _resolved(page.get("/Annots")) or ():
            looked += 1
            if looked > MAX_ANNOTS_LOOKED:
                return
            annot = _resolved(annot)
            if isinstance(annot, dict) and annot.get("/Subtype") == "/FileAttachment":
                yield _resolved(annot.get("/FS"))


def _resolved(obj: Any) -> Any:
    return obj.get_object() if hasattr(obj, "get_object") else obj


def _name_tree(reader: Any) -> Iterator[tuple[str, Any]]:
    """(name, filespec) of the catalog's /EmbeddedFiles name tree: its nodes walked once each, to a bounded depth,
    MAX_TREE_NODES at most (a node that is its own kid, or a tree's nodes shared, is walked once)."""
    names = _resolved(_resolved(reader.trailer["/Root"]).get("/Names"))
    root = names.get("/EmbeddedFiles") if isinstance(names, dict) else None
    tree = _resolved(root)
    stack: list[tuple[Any, int]] = [(tree, 0)] if isinstance(tree, dict) else []
    number = getattr(root, "idnum", None)
    walked: set[int] = set() if number is None else {number}  # the object numbers of the nodes met
    nodes = 0
    while stack and nodes < MAX_TREE_NODES:
        node, depth = stack.pop()
        nodes += 1
        pairs = _resolved(node.get("/Names")) or []
        for i in range(0, len(pairs) - 1, 2):
            yield str(_resolved(pairs[i])), _resolved(pairs[i + 1])
        if depth >= 16:  # a name tree is shallow
            continue
        for kid in reversed(_resolved(node.get("/Kids")) or []):
            number = getattr(kid, "idnum", None)
            if number is not None:
                if number in walked:
                    continue
                walked.add(number)
            kid = _resolved(kid)
            if isinstance(kid, dict):
                stack.append((kid, depth + 1))


def _filespec_files(spec: Any, key: str, seen: set[int], max_member: int, take: Take, want: Want
                    ) -> Iterator[Found]:
    """Each stream of a filespec's /EF (a file for every platform: /F, /DOS, /Mac, /Unix), named by the filespec's
    name for it, else the name tree's key."""
    ef = _resolved(spec.get("/EF")) if isinstance(spec, dict) else None
    if not isinstance(ef, dict):
        return
    for ef_key in _EF_KEYS:
        ref = ef.get(ef_key)
        if ref is None:
            continue
        ident = getattr(ref, "idnum", None) or id(ref)
        if ident in seen:
            continue
        seen.add(ident)
        name = _basename(str(_resolved(spec.get(ef_key)) or _resolved(spec.get("/UF")) or key or "attachment"))
        yield _pdf_stream(name, _resolved(ref), max_member, take, want)


def _basename(name: str) -> str:
    """An attached file's own name: a filespec may hold the path it was attached from ("C:\\Users\\…\\a.xml")."""
    return re.split(r"[\\/:]", name.strip())[-1] or "attachment"


def _pdf_stream(name: str, stream: Any, max_member: int, take: Take, want: Want) -> Found:
    params = _resolved(stream.get("/Params")) if isinstance(stream, dict) else None
    declared = _resolved(params.get("/Size")) if isinstance(params, dict) else None
    if isinstance(declared, int) and declared > max_member:  # said too large: never decompressed
        return name, None, take(declared)
    if not want(name):
        return name, None, take(0) or "not read (another member was asked for)"
    try:
        data = stream.get_data()  # pypdf's decompression limits apply (a bomb fails this file alone)
    except Exception as exc:
        return name, None, f"attached file could not be decoded: {type(exc).__name__}"[:200]
    why = take(len(data))
    return (name, None, why) if why else (name, bytes(data), "")


def _ooxml_files(src: Path | bytes, max_member: int, take: Take, want: Want) -> Iterator[Found]:
    with SafeZip(src, archive=True) as z:
        for info in z.zf.infolist():
            if not _EMBEDDINGS.match(info.filename):
                continue
            name = info.filename.split("/", 1)[1]  # "embeddings/oleObject1.bin": the part's folder says what it is
            why = bomb_reason(info) or take(info.file_size)
            if why:
                yield name, None, why
                continue
            if _suffix(name) != ".bin" and not want(name):  # an object's file is named once it is opened: read
                yield name, None, "not read (another member was asked for)"
                continue
            try:
                data = z.read(info.filename)
            except ExtractionError as exc:
                yield name, None, str(exc)
                continue
            yield _ole_object(name, data, max_member) if _suffix(name) == ".bin" else (name, data, "")


def _ole_object(name: str, data: bytes, max_member: int) -> Found:
    """The file an OLE object part holds, named `embeddings/oleObject1.pdf` by what it is, or an OLE package's
    file by its own name (`embeddings/oleObject1/notes.txt`)."""
    from .ole import OleFile
    from .ole_encrypted import OLE_MAGIC

    stem = name[: -len(".bin")]
    if not data.startswith(OLE_MAGIC):
        return name, None, "embedded object of an unknown kind: not read"
    try:
        with OleFile(data) as ole:
            for stream, suffix in _OLE_DOCUMENTS:
                if ole.exists(stream):  # the object is itself a Word, Excel or PowerPoint 97-2003 file
                    return stem + suffix, data, ""
            if ole.exists("CONTENTS"):
                inner = ole.stream("CONTENTS", max_member)
                if inner.startswith(b"%PDF"):
                    return stem + ".pdf", inner, ""
            if ole.exists("Package"):
                return _package(stem, ole.stream("Package", max_member))
            if ole.exists("\x01Ole10Native"):
                return _ole10_native(stem, ole.stream("\x01Ole10Native", max_member))
    except (ExtractionError, UnsupportedFileError) as exc:
        return name, None, str(exc)
    return name, None, "embedded object of an unknown kind: not read"


def _package(stem: str, data: bytes) -> Found:
    """An Office Open XML file embedded as an object: its main part says which."""
    try:
        with SafeZip(data, archive=True) as z:
            for part, suffix in _OOXML_MAIN:
                if part in z.names:
                    return stem + suffix, data, ""
    except (ExtractionError, UnsupportedFileError) as exc:
        return stem + ".bin", None, str(exc)
    return stem + ".bin", None, "embedded package of an unknown kind: not read"


def _ole10_native(stem: str, data: bytes) -> Found:
    """An OLE package (Windows' Packager: any file dropped into a document): size, flags, its label, the path it
    came from, two flags, the temporary path it was copied to, then the file's size and bytes."""
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
        return stem + ".bin", None, "embedded package could not be read"
    if size > len(data) - p:
        return stem + ".bin", None, "embedded package is cut short"
    return f"{stem}/{_basename(label)}", data[p: p + size], ""
