"""Files embedded in documents, read as the document's members (members.py): a PDF's attached files (the
/EmbeddedFiles name tree of a portfolio or an invoice's XML, and file-attachment annotations), an Office Open XML
file's embedded parts (`word/embeddings/*`, `ppt/embeddings/*`, `xl/embeddings/*`), the OLE objects of a Word,
Excel or PowerPoint 97-2003 file (ole_embedded.py) and of an RTF file (rtf_objects.py).

The document's own text stays its own entry, read by its reader; each embedded file is a member read by the reader
of its type ("report.pdf › data.csv", "deck.pptx › embeddings/oleObject1.pdf"). Nothing embedded is run or fetched:
bytes are copied out of the document, within the archive caps (members.py's budget: bytes per member and per
container, members per container, nesting depth). An Office embedding wrapped in an OLE object (`oleObject1.bin`,
a compound file) is opened with the compound-file reader the legacy Office readers use (ole.py) for the file it
holds (ole_objects.py). An Office suffix is read by what the file is (ole.sniff's first bytes), as its reader
reads it: a .doc that is an RTF file by its RTF objects, a .doc saved as a .docx by its embedded parts.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from ...base.errors import Cancelled, ExtractionError, SearchAppError, UnsupportedFileError
from ...base.safe_open import open_regular
from .ole_encrypted import OLE_MAGIC
from .ole_objects import Found, basename, object_file, unknown
from .ziputil import SafeZip, bomb_reason

__all__ = ["DOCUMENT_SUFFIXES", "holds_files", "embedded_files"]

_PDF = frozenset({".pdf"})
_OOXML = frozenset({".docx", ".docm", ".dotx", ".xlsx", ".xlsm", ".pptx", ".pptm", ".ppsx"})
# word97, xls97, ppt97 and rtf's suffixes (not imported: members.py imports this module, and xlrd with them)
_LEGACY = frozenset({".doc", ".dot", ".xls", ".xlt", ".ppt", ".pps", ".pot", ".rtf"})
DOCUMENT_SUFFIXES = _PDF | _OOXML | _LEGACY
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
_UNREAD = "not read (another member was asked for)"

Take = Callable[[int], str]  # members.py's budget: "" when n more bytes may be read, else why not
Want = Callable[[str], bool]  # is this member's body wanted (members.py's `only`)


def _suffix(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def holds_files(src: Path | bytes, name: str = "") -> bool:
    """Whether a document holds embedded files, told cheaply (a PDF's or an RTF's bytes scanned for the words that
    say so, a zip's directory or a compound file's looked at, a .ppt's top-level records): a document holding none
    is read by its reader alone, and the sync's read-ahead worker may read it. `name`: the document's name when
    `src` is its bytes."""
    suffix = _suffix(name or ("" if isinstance(src, bytes) else os.fspath(src)))
    try:
        if suffix in _PDF:
            return _marked(src, _PDF_MARKS)
        if suffix not in _OOXML and suffix not in _LEGACY:
            return False
        kind = _office_kind(src)
        if kind == "zip":
            with SafeZip(src, archive=True) as z:
                return any(_EMBEDDINGS.match(n) for n in z.names)
        if kind == "ole":
            from .ole import OleFile
            from .ole_embedded import compound_holds

            with OleFile(src) as ole:
                return compound_holds(ole)
        if kind == "rtf":
            from .rtf_objects import OBJDATA

            return _marked(src, OBJDATA)
    except (OSError, ExtractionError, UnsupportedFileError):
        return False  # its reader says what is wrong with it
    return False


def _office_kind(src: Path | bytes) -> str:
    """"ole", "zip", "rtf" or "" by an Office file's first bytes (ole.sniff's words)."""
    if isinstance(src, bytes):
        head = src[:8]
    else:
        with open_regular(src) as fh:
            head = fh.read(8)
    if head.startswith(OLE_MAGIC):
        return "ole"
    return "zip" if head.startswith(b"PK\x03\x04") else "rtf" if head.startswith(b"{\\rtf") else ""


def _marked(src: Path | bytes, marks: re.Pattern[bytes]) -> bool:
    if isinstance(src, bytes):
        return marks.search(src) is not None
    with open_regular(src) as fh:
        tail = b""
        while chunk := fh.read(_SCAN_CHUNK):
            if marks.search(tail + chunk):
                return True
            tail = chunk[-32:]  # a word cut between two chunks
    return False


def embedded_files(src: Path | bytes, suffix: str, max_member: int, take: Take, want: Want) -> Iterator[Found]:
    """The files a document holds, each (name, bytes, "") or (name, None, why not). Raises ExtractionError when the
    document itself cannot be opened (its own entry says so)."""
    if suffix in _PDF:
        yield from _pdf_files(src, max_member, take, want)
        return
    kind = _office_kind(src) if suffix in _OOXML or suffix in _LEGACY else ""
    if kind == "zip":
        yield from _ooxml_files(src, max_member, take, want)
    elif kind in ("ole", "rtf"):
        yield from _objects(src, kind, max_member, take, want)
    else:
        raise UnsupportedFileError(f'no embedded files read from "{suffix}"')


def _objects(src: Path | bytes, kind: str, max_member: int, take: Take, want: Want) -> Iterator[Found]:
    """The files of a Word, Excel or PowerPoint 97-2003 file's OLE objects, or an RTF file's."""
    from .ole_embedded import compound_objects
    from .rtf_objects import rtf_objects

    objects = compound_objects if kind == "ole" else rtf_objects
    try:
        for name, data, why in objects(src, max_member, take):
            # an object's file is named once it is opened: its bytes are let go here when another is asked for
            yield (name, None, _UNREAD) if data is not None and not want(name) else (name, data, why)
    except (MemoryError, RecursionError, Cancelled):
        raise
    except Exception as exc:  # a damaged object pool or record: the document's own text is still good (its own
        # entry, read by its reader), and the files found so far are kept
        why = str(exc) if isinstance(exc, ExtractionError) else f"broken structure ({type(exc).__name__})"
        yield "", None, f"the rest of its embedded objects not read: {why}"[:300]


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
        name = basename(str(_resolved(spec.get(ef_key)) or _resolved(spec.get("/UF")) or key or "attachment"))
        yield _pdf_stream(name, _resolved(ref), max_member, take, want)


def _pdf_stream(name: str, stream: Any, max_member: int, take: Take, want: Want) -> Found:
    params = _resolved(stream.get("/Params")) if isinstance(stream, dict) else None
    declared = _resolved(params.get("/Size")) if isinstance(params, dict) else None
    if isinstance(declared, int) and declared > max_member:  # said too large: never decompressed
        return name, None, take(declared)
    if not want(name):
        return name, None, take(0) or _UNREAD
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
                yield name, None, _UNREAD
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

    if not data.startswith(OLE_MAGIC):
        return name, None, unknown()
    try:
        with OleFile(data) as ole:
            return object_file(name, name[: -len(".bin")], ole, "", data, max_member)
    except (ExtractionError, UnsupportedFileError) as exc:
        return name, None, str(exc)
