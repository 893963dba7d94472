"""Word, Excel and PowerPoint, 97-2003 (.doc, .xls, .ppt) and newer (.docx, .xlsx, .pptx): the registry's entry
points, each reading a file by what it is (ole.sniff), whatever its suffix says.

A legacy suffix: a compound file by the legacy reader (word97, xls97, ppt97), a zip by the matching OOXML reader (a
.doc that a newer Word saved as .docx), Word's or Excel's XML by its reader (office_xml: wordml, spreadsheetml,
whichever the suffix), an HTML export by the HTML reader, an RTF file by the
RTF reader, plain text (a CSV export, a Graphviz .dot graph) as text; anything else is skipped with the reason.

A newer suffix: a compound file by the legacy reader too. That is a .doc renamed .docx (Word opens it), or a
password-protected .docx/.xlsx/.pptx, which Office saves as a compound file holding the encrypted package: OleFile
tells it by its streams (ole_encrypted.names_encrypted) and it is skipped as encrypted, not failed as a corrupt zip.
Anything else goes to the OOXML reader, whose zip errors stand.

A rights-managed (IRM) document, workbook or presentation is skipped as encrypted: its real content lies in a
`\tDRMContent` stream, transformed as `\x06DataSpaces` says (MS-OFFCRYPTO 2.2.2), and the streams the readers read
hold only Office's notice ("Permission for this document is currently restricted..."), which is no one's words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from ...base.errors import UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from . import docx, html, pptx, ppt97, sniff as text_sniff, word97, xls97, xlsx
from .ole import OleFile, sniff
from .ole_encrypted import RIGHTS_MANAGED
from .office_xml import office_xml_of, read_office_xml

__all__ = ["DOC_SUFFIXES", "XLS_SUFFIXES", "PPT_SUFFIXES", "RIGHTS_MANAGED", "extract_doc", "extract_xls",
           "extract_ppt", "extract_newer_doc", "extract_newer_xls", "extract_newer_ppt"]

DOC_SUFFIXES, XLS_SUFFIXES, PPT_SUFFIXES = word97.SUFFIXES, xls97.SUFFIXES, ppt97.SUFFIXES
_WHAT = {"doc": "a Word 97-2003 document", "xls": "an Excel 97-2003 workbook", "ppt": "a PowerPoint 97-2003 file"}


def _extract(kind: str, read: Callable[..., Document], newer: Callable[..., Document], path: Path, max_bytes: int,
             max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    found = sniff(path)
    if found == "ole":
        return _read_ole(read, path, max_bytes, max_chars, cancel)
    if found == "zip":
        return newer(path, max_bytes, max_chars=max_chars, cancel=cancel)
    xml = office_xml_of(path) if found in ("html", "") else ""
    if xml:  # Word's or Excel's own XML, which Office opens under a .doc or .xls name
        return read_office_xml(xml, path, max_bytes, max_chars, cancel)
    if found == "html":
        return html.extract_html(path, max_bytes, max_chars=max_chars, cancel=cancel)
    if found == "rtf":  # Word's "Save as RTF" keeps .doc more often than not
        from .rtf import extract_rtf

        return extract_rtf(path, max_bytes, max_chars=max_chars, cancel=cancel)
    try:  # a CSV export named .xls, a Graphviz graph named .dot: plain text when it reads as text
        return text_sniff.extract_sniffed(path, max_bytes)
    except UnsupportedFileError:
        raise UnsupportedFileError(f"not {_WHAT[kind]} (no OLE header)") from None


def _read_ole(read: Callable[..., Document], path: Path, max_bytes: int, max_chars: Optional[int],
              cancel: Optional[CancelToken]) -> Document:
    with OleFile(path) as ole:  # refuses a password-protected one (its streams say so) before `read` runs
        if _rights_managed(ole):
            raise UnsupportedFileError(RIGHTS_MANAGED)
        return read(ole, max_bytes, max_chars, cancel)


def _newer(read: Callable[..., Document], newer: Callable[..., Document], path: Path, max_bytes: int,
           max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    if sniff(path) == "ole":
        return _read_ole(read, path, max_bytes, max_chars, cancel)
    return newer(path, max_bytes, max_chars=max_chars, cancel=cancel)


def _rights_managed(ole: OleFile) -> bool:
    return ole.exists("\tDRMContent") or any(
        name.rsplit("/", 1)[-1].startswith("\tDRM") for name in ole.storages("\x06DataSpaces/TransformInfo"))


def extract_doc(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    return _extract("doc", word97.read_doc, docx.extract_docx, path, max_bytes, max_chars, cancel)


def extract_xls(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    bare = xls97.bare_format(path)
    if bare:  # Excel 2.x to 4.0 saved the workbook stream alone, with no OLE container
        return xls97.read_bare_xls(path, bare, max_bytes, max_chars, cancel)
    return _extract("xls", xls97.read_xls, xlsx.extract_xlsx, path, max_bytes, max_chars, cancel)


def extract_ppt(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    return _extract("ppt", ppt97.read_ppt, pptx.extract_pptx, path, max_bytes, max_chars, cancel)


def extract_newer_doc(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                      cancel: Optional[CancelToken] = None) -> Document:
    return _newer(word97.read_doc, docx.extract_docx, path, max_bytes, max_chars, cancel)


def extract_newer_xls(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                      cancel: Optional[CancelToken] = None) -> Document:
    return _newer(xls97.read_xls, xlsx.extract_xlsx, path, max_bytes, max_chars, cancel)


def extract_newer_ppt(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                      cancel: Optional[CancelToken] = None) -> Document:
    return _newer(ppt97.read_ppt, pptx.extract_pptx, path, max_bytes, max_chars, cancel)
