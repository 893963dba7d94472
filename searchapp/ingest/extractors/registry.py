"""Which extractor reads which suffix, and the one entry point that turns any failure into ExtractionError."""

from __future__ import annotations

import importlib
import os
import re
import stat
from pathlib import Path
from typing import Any, Callable, Optional

from ...base.errors import Cancelled, ExtractionError, UnsupportedFileError
from ...base.member_paths import MEMBER_SEP
from ...base.progress import CancelToken
from ...base.types import Document
from ..connection_strings import hide_connection_passwords
from ..secrets import refuse_secret_text
from ..text_caps import DEFAULT_MAX_CHARS, bound_text
from . import sniff, text
from .mail_sniff import MAILDIR_FOLDERS, sniff_mail

__all__ = ["Extractor", "supported_suffixes", "extractor_name", "extract", "takes_data", "reader_version",
           "readers_fingerprint", "sniffed_suffix", "sniffable", "NOT_READ",
           "DEFAULT_MAX_BYTES", "DEFAULT_MAX_CHARS"]

DEFAULT_MAX_BYTES = 50 * 2**20

# (path, max_bytes, max_chars=, cancel=) -> Document. max_chars: an extractor may stop reading once it has
# that much text (the registry cuts it exactly); cancel: checked between pages, chapters, XML elements.
Extractor = Callable[..., Document]


def _on_first_use(module: str, function: str) -> Extractor:
    """`function` of this package's `module`, imported at its first call: a command that reads text files
    never imports the readers of other formats (email, xml.etree, zipfile, pypdf, olefile: ~0.1 CPU-s of a
    one-file `index --words-only`, issue 45). An import that fails fails the file being read (ExtractionError),
    not the command."""

    def extractor(*args: Any, **kwargs: Any) -> Document:
        found: Extractor = getattr(importlib.import_module(f"{__package__}.{module}"), function)
        return found(*args, **kwargs)

    extractor.__name__ = extractor.__qualname__ = function
    return extractor


# name -> (the suffixes it reads, its extractor). The suffixes of the formats read on first use are written here,
# not read from their modules (that would import them); tests/unit/ingest/test_registry_first_use.py checks
# that each module's own SUFFIXES constant says the same.
_BY_NAME: dict[str, tuple[frozenset[str], Extractor]] = {
    "text": (text.SUFFIXES, text.extract_text),
    # a developer's files read as what a person would search (decision 0178): a JSON file's keys and values, a
    # notebook's cells, a drawing's words
    "json": (frozenset({".json"}), _on_first_use("json_data", "extract_json")),
    "notebook": (frozenset({".ipynb"}), _on_first_use("notebook", "extract_notebook")),
    "svg": (frozenset({".svg"}), _on_first_use("svg", "extract_svg")),
    "html": (frozenset({".htm", ".html", ".xhtml"}), _on_first_use("html", "extract_html")),
    # a web page saved as one file: its HTML part read like an .html file
    "mhtml": (frozenset({".mht", ".mhtml"}), _on_first_use("mhtml", "extract_mhtml")),
    "rtf": (frozenset({".rtf"}), _on_first_use("rtf", "extract_rtf")),
    "pdf": (frozenset({".pdf"}), _on_first_use("pdf", "extract_pdf")),
    "docx": (frozenset({".docx", ".docm", ".dotx"}), _on_first_use("legacy_office", "extract_newer_doc")),
    "odt": (frozenset({".odt", ".ott"}), _on_first_use("odt", "extract_odt")),
    "epub": (frozenset({".epub"}), _on_first_use("epub", "extract_epub")),
    "xlsx": (frozenset({".xlsx", ".xlsm"}), _on_first_use("legacy_office", "extract_newer_xls")),
    "ods": (frozenset({".ods", ".ots"}), _on_first_use("ods", "extract_ods")),
    "pptx": (frozenset({".pptx", ".pptm", ".ppsx"}), _on_first_use("legacy_office", "extract_newer_ppt")),
    "odp": (frozenset({".odp", ".otp"}), _on_first_use("odp", "extract_odp")),
    # Office 97-2003: ole.py, word97/xls97/ppt97. Every Office suffix goes through legacy_office, which reads a file
    # by its content: a .doc that is a zip by the .docx reader, a .docx that is a compound file (renamed, or
    # password-protected) by the .doc reader.
    "doc": (frozenset({".doc", ".dot"}), _on_first_use("legacy_office", "extract_doc")),
    "xls": (frozenset({".xls", ".xlt"}), _on_first_use("legacy_office", "extract_xls")),
    "ppt": (frozenset({".ppt", ".pps", ".pot"}), _on_first_use("legacy_office", "extract_ppt")),
    "eml": (frozenset({".eml"}), _on_first_use("mail", "extract_eml")),
    "mbox": (frozenset({".mbox"}), _on_first_use("mail", "extract_mbox")),
    # Outlook's: read like an .eml, its attachments as entries of their own
    "msg": (frozenset({".msg"}), _on_first_use("mail", "extract_msg")),
    # the listing; members are entries of their own
    "archive": (frozenset({".zip", ".tar", ".tgz", ".gz"}), _on_first_use("members", "extract_archive")),
    # Word's and Excel's 2003 XML by their readers, any other XML as text, as the text reader reads it
    "xml": (frozenset({".xml"}), _on_first_use("office_xml", "extract_xml")),
    "sniffed": (frozenset(), sniff.extract_sniffed),  # any other suffix: plain text when the content is
}
# Mail stores that are no documents we read, said plainly: "not plain text (binary content)" told a person with
# years of Outlook mail nothing about what to do. Listed as skipped, never opened.
_EXPORT = "export the folders to .mbox or .eml"
NOT_READ = {
    ".pst": f"an Outlook .pst data file: not read ({_EXPORT})",
    ".ost": f"an Outlook .ost offline data file: not read ({_EXPORT})",
}
# A name no reader takes whose first bytes are mail (mail_sniff.py) is read by the mail readers instead.
_SNIFFED_MAIL = {".mbox": "mbox", ".eml": "eml"}
# Where each format's own SUFFIXES constant lives (module, name), for the test above.
SUFFIXES_DECLARED_IN = {
    "json": ("json_data", "SUFFIXES"), "notebook": ("notebook", "SUFFIXES"), "svg": ("svg", "SUFFIXES"),
    "html": ("html", "SUFFIXES"), "mhtml": ("mhtml", "SUFFIXES"), "rtf": ("rtf", "SUFFIXES"), "pdf": ("pdf", "SUFFIXES"),
    "docx": ("docx", "SUFFIXES"), "odt": ("odt", "SUFFIXES"),
    "epub": ("epub", "SUFFIXES"), "xlsx": ("xlsx", "SUFFIXES"), "ods": ("ods", "SUFFIXES"),
    "pptx": ("pptx", "SUFFIXES"), "odp": ("odp", "SUFFIXES"), "doc": ("legacy_office", "DOC_SUFFIXES"),
    "xls": ("legacy_office", "XLS_SUFFIXES"), "ppt": ("legacy_office", "PPT_SUFFIXES"),
    "eml": ("mail", "EML_SUFFIXES"), "mbox": ("mail", "MBOX_SUFFIXES"), "msg": ("mail", "MSG_SUFFIXES"),
    "archive": ("members", "ARCHIVE_SUFFIXES"), "xml": ("office_xml", "SUFFIXES"),
}
# What a file's text was read with (decision 0152): an entry keeps the version of its reader, and a sync reads it
# again, bytes unchanged, once this version reads that format differently. Raise a reader's number when a change
# gives other text for files it read before (a fix that finds words it missed, or stops indexing what a viewer does
# not show); raise _TEXT_STEPS when the steps every reader shares do (encoding.clean_text, text_caps, the line
# joins, chunking). Passages that come out the same keep their vectors: only changed ones are embedded again.
_TEXT_STEPS = 1
_READER_VERSIONS: dict[str, int] = {name: 1 for name in _BY_NAME} | {
    # 2: a container's listing names its members without why one was not read; archive 3: a tar cut short fails as
    # a zip cut short does (its listing of the members before the cut was kept as if the archive were whole)
    "archive": 3, "mbox": 2,
    # 2: a message file is dated by its message (Document.date_ns), as an mbox's messages were; an mbox's messages
    # carry the eml reader's version, so they are read once more too (the same passages, kept). 3: a message's Cc
    # line is written beside its To line (to: and cc: read it)
    "eml": 3, "msg": 3,
    # 2: a name without a suffix whose bytes are an mbox or a Maildir message is read as mail; 3: with its Cc line;
    # 4 (and text, html 2): a short text that is not UTF-8 and reads as Western text is read as cp1252, where the
    # detector guessed a Mac or a Cyrillic code page (encoding._western, decision 0179); 5: a message saved outside
    # a Maildir folder (`message`, `1.`, a Maildir file copied out) is read as mail when its headers are a sent mail's
    "sniffed": 5, "html": 2,
    # decision 0178: text 3, a .js or .css file of minified lines is left out (GeneratedFileError). Each new reader's
    # number is above the one that read its files before it, so they are read again: a .json read as text (2),
    # an .ipynb or .svg sniffed as text (4)
    "text": 3, "json": 3, "notebook": 5, "svg": 5,
    # 4 (above text's 3, which read it before): Word's and Excel's 2003 XML by their readers (office_xml.py); 2:
    # Excel's XML named .xls (was HTML), Word's XML named .doc without an XML declaration (was text)
    "xml": 4,
    # 2: a PDF's notes (pdf_notes) and, when it has no text at all, its metadata title; an xlsx sheet's headers,
    # footers and text boxes; an RTF's headers and footers (doc 3: an RTF file named .doc is read by it). A .docx's
    # imported RTF part (altChunk) and an .xls that is an xlsx inside are read by them too, but are rare enough
    # that their readers' numbers stay: every .docx and .xls of a library would be read again for them. (xls 2,
    # rtf 2, doc 3: raised again below)
    # pdf, xlsx 3, docx, pptx 2 (decision 0189): a PDF's attached files and an Office Open XML file's embedded files
    # are read as its members. The document's own entry is the same; the numbers rise so that a library reads its
    # documents once more and finds the files they hold (pdf and xlsx 2 came in the same release: no more reading;
    # pptx 2 also reads a slide's comments, same release)
    # (pdf stays 3 for a ligature's glyph name read as its letters, pdf.ligatures_named: rare, and every PDF of a
    # library would be read again for it)
    "pdf": 3, "xlsx": 3, "docx": 2, "pptx": 2,
    # doc 4, xls 3, ppt 2, rtf 3 (decision 0189, amended): the embedded OLE objects of a Word, Excel or PowerPoint
    # 97-2003 file and of an RTF file are read as its members, so each such file is read once more
    # (a Microsoft Graph chart among them is listed as a chart, where it failed as a corrupt Excel file, and an RTF
    # object written after \bin is read, where it was a note: rare enough, as a .docx's altChunk above, that the
    # numbers stay; `searchapp reindex` reads them again)
    "doc": 4, "xls": 3, "ppt": 2, "rtf": 3,
}
_BY_SUFFIX: dict[str, str] = {s: name for name, (suffixes, _) in _BY_NAME.items() for s in suffixes}
_SUFFIXES = frozenset(_BY_SUFFIX)
# Extractors that read the whole file into memory anyway: they take its bytes when the caller has them.
_TAKES_DATA = frozenset({"text", "html", "mhtml", "rtf", "sniffed", "json", "notebook", "svg", "xml"})


def supported_suffixes() -> frozenset[str]:
    """Lowercase suffixes with the dot, e.g. '.pdf'."""
    return _SUFFIXES


def extractor_name(path: Path | str) -> Optional[str]:
    """'pdf', 'text', ... for the file's suffix (case-insensitive), or None."""
    return _BY_SUFFIX.get(os.path.splitext(os.fspath(path))[1].lower())


def reader_version(path: Path | str) -> Optional[int]:
    """The version of what reads `path` (a file's path or a member's key), as the files table keeps it; None where
    no reader does (an image or other known binary: OCR keeps its own engine's version, ocr_cache.py). An mbox's
    message is read as an .eml whatever its key ("box.mbox//1: Subject", "…//2: scan.png") ends with."""
    container, sep, member = os.fspath(path).rpartition(MEMBER_SEP)
    name = "eml" if sep and (container.lower().endswith(".mbox") or _unnamed_mailbox(container, member)) \
        else extractor_name(path)
    if name is None:
        if os.path.splitext(os.fspath(path))[1].lower() in sniff.KNOWN_BINARY_SUFFIXES:
            return None
        name = "sniffed"
    return _TEXT_STEPS + _READER_VERSIONS[name]


def _unnamed_mailbox(container: str, member: str) -> bool:
    """Whether a member is a message of a file without a known suffix outside a Maildir folder: a sniffed mbox, whose
    members are its messages, named "12: Subject" (told by names, without opening it: reader_version is asked of
    every stored entry at every sync). A sniffed message's members are its attachments, read by their own names."""
    if MEMBER_SEP in container or extractor_name(container) is not None or not _MESSAGE_NAME.match(member):
        return False
    if os.path.splitext(container)[1].lower() in sniff.KNOWN_BINARY_SUFFIXES | NOT_READ.keys():
        return False
    return os.path.basename(os.path.dirname(container)) not in MAILDIR_FOLDERS


_MESSAGE_NAME = re.compile(r"\d+: ")  # an mbox's message as members.py names it: its number, then its subject


def sniffed_suffix(path: Path | str, head: Optional[bytes] = None) -> str:
    """".mbox" or ".eml" for a file whose name no reader takes but whose first bytes (`head`, or read from it,
    bounded) are a mailbox or a message (mail_sniff.py); "" otherwise, and for every name a reader takes: a
    .txt that holds a mail is still read as text."""
    return sniff_mail(path, head) if sniffable(path) else ""


def sniffable(path: Path | str) -> bool:
    """Whether `path`'s first bytes decide how it is read (sniffed_suffix): a name no reader takes, of no known
    binary or refused type."""
    if extractor_name(path) is not None:
        return False
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    return suffix not in sniff.KNOWN_BINARY_SUFFIXES and suffix not in NOT_READ


def readers_fingerprint() -> str:
    """Every reader's version at once ("text1,pdf1,…;1"): what a folder's full sync records it was read with, so
    `status` and the window can tell a folder an older version read (library/sync/meta_keys.py)."""
    return ",".join(f"{n}{v}" for n, v in sorted(_READER_VERSIONS.items())) + f";{_TEXT_STEPS}"


def takes_data(path: Path | str) -> bool:
    """Whether `extract(path, data=...)` reads the given bytes instead of opening the file again."""
    name = extractor_name(path)
    return sniffable(path) if name is None else name in _TAKES_DATA  # sniffed: from the bytes read for the hash


def extract(path: Path, max_bytes: int = DEFAULT_MAX_BYTES, max_chars: int = DEFAULT_MAX_CHARS,
            cancel: Optional[CancelToken] = None, data: Optional[bytes] = None, shown: str = "") -> Document:
    """The text of one file, within the caps of `text_caps.bound_text`. `data`: the file's bytes, already read
    from a regular file and at most `max_bytes` (file_sha256_and_bytes), for an extractor that `takes_data`.
    `shown`: the name its warnings give (a member's, read from a private copy whose temporary path is no name).

    Raises UnsupportedFileError (no extractor, binary content behind a text suffix, not a regular
    file, not prose; its SecretFileError for a text that holds a secret: ingest/secrets.py), ExtractionError
    with a short reason, or Cancelled; no other exception escapes.
    """
    name = extractor_name(path)
    if name is None:
        suffix = os.path.splitext(os.fspath(path))[1].lower()
        if suffix in sniff.KNOWN_BINARY_SUFFIXES:
            raise UnsupportedFileError(f'unsupported type "{suffix}"')
        if suffix in NOT_READ:
            raise UnsupportedFileError(NOT_READ[suffix])
        name = _SNIFFED_MAIL.get(sniff_mail(path, data), "sniffed")
    try:
        if data is not None and name in _TAKES_DATA:
            doc = _BY_NAME[name][1](Path(path), max_bytes, max_chars=max_chars, cancel=cancel, data=data)
        else:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):  # opening a fifo or device could block forever
                raise UnsupportedFileError("not a regular file")
            if st.st_size > max_bytes:
                raise ExtractionError(f"file too large ({st.st_size / 2**20:.1f} MB > {max_bytes / 2**20:g} MB)")
            doc = _BY_NAME[name][1](Path(path), max_bytes, max_chars=max_chars, cancel=cancel)
        if cancel is not None:
            cancel.check()
        # Before the caps: they drop a key's base64 as "not prose", and the file would be read without it, as if
        # it held no secret (decision 0177: a file holding one is refused whole, in a sync and a preview alike)
        refuse_secret_text(doc.text, shown or os.fspath(path))  # the name: whether its lines are settings
        # A connection string's password is hidden, the file kept (decision 0197): here, as a sync and a preview
        # both read through here, neither ever holds it
        doc = hide_connection_passwords(doc, shown or os.fspath(path))
        return bound_text(doc, max_chars, where=shown or os.fspath(path))
    except (ExtractionError, Cancelled):
        raise
    except MemoryError:
        raise ExtractionError("out of memory while extracting") from None
    except RecursionError:
        raise ExtractionError("document structure nested too deeply") from None
    except OSError as exc:
        raise ExtractionError(f"cannot read file: {exc.strerror or exc}") from None
    except Exception as exc:  # library bugs on hostile input: one file fails, the sync goes on
        raise ExtractionError(f"{name} extraction failed: {type(exc).__name__}: {exc}"[:300]) from None
