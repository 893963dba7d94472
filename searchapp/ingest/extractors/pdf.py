"""PDF text, page by page, with pypdf.

Decisions:
- Pages are joined with a blank line; `Document.pages` maps each page's characters.
- Encrypted files are opened with the empty password (common for "no printing" PDFs), by pdfium when pypdf
  cannot; otherwise UnsupportedFileError("encrypted: password-protected, not indexed"), as for Office files.
  pypdf cannot check a password of AES-256 without the `cryptography` package: pdfium's "incorrect password"
  decides (`PasswordNeeded`), and without pdfium the file fails saying what it lacks, never "corrupt PDF".
- Only the first MAX_PAGES pages are read: beyond that a file is almost surely generated data, and
  reading it would stall a sync. The cut is logged as a warning, never done silently.
- A page whose text cannot be extracted counts as empty (one bad content stream must not
  make a long document unsearchable); if every page fails the file fails.
- A file pypdf finds corrupt that starts as a PDF but has no %%EOF in its last 1,024 bytes is reported as
  truncated (an incomplete download), unless pdfium can read it.
- pypdf's decompression limits (a PDF bomb) are reported as such, never as "corrupt PDF"; pypdf's own
  warnings go to this module's debug log, not to stderr as bare lines.
- Cancel is checked between pages; reading stops once the text cap is reached.
- A page whose pypdf text is garbled (glyph names like `/g18/g152`, control bytes, the wrong letters:
  `garbled.is_garbled`) or cannot be read (other than by a decompression limit) is read again with pdfium
  (`pdfium_doc`, when the ocr extra is installed); if that is garbled too the page is left empty, so the OCR
  step reads it (`ocr.pdf_pages`), and a note says so. Its other pages are indexed as usual. A page pypdf
  reads one word a line (`line_breaks.word_a_line`) is taken from pdfium when pdfium's has lines of words and
  every character of pypdf's; without pdfium it stays as pypdf reads it. pypdf stays the first reader: on real
  PDFs (tests/benchmarks/bench_pdf_text.py) it keeps word spaces that pdfium drops, and pdfium is optional.
  A file pypdf cannot open at all (no startxref, AES with an empty password but no `cryptography`) is read
  whole by pdfium, with a note saying so: 16 of pdf.js's 971 test PDFs; never a file pypdf stopped at a
  decompression limit.
- A page shows what lies within its CropBox, and the words a viewer cannot show (printers' marks and slug lines
  outside it, the rest of a larger sheet) are not indexed: a page whose CropBox is smaller than its MediaBox
  (`pdfium_doc.shown_box`, rare) takes pdfium's text without the words wholly outside it, when there are any
  (`pdfium_doc`); a word partly inside is kept. Without pdfium such a page is read whole, as pypdf reads it.
- A ligature a font names without a Unicode map, which pypdf writes as its glyph name ("of/f_ices", "/T_he"), is
  written as its letters (`ligatures_named`): the word is found by its spelling.
- A word split by a hyphen at a line end is joined again (`line_breaks`), on each page before its span is
  counted; the document's own hyphenated words keep their hyphen.
- A filled XFA form (`xfa`) shows its field values: in place of the "Please wait..." page of a dynamic
  form, after the last page of a static one.
  A filled AcroForm shows the values of its text and choice fields (`acroform`), after the text of the
  page each field is on.
- A page's notes (`pdf_notes`: sticky notes, text boxes, comments on highlights) follow its text and form values.
  What is written over a page is not its text layer (`PageSpan.layer_end`): OCR chooses its pages by their own
  letters, and keeps what was written over a page after its OCR'd text. A PDF with no text at all, neither on its
  pages nor written over them, is read as its title, written over its first page: it is found by it, and its blank
  pages are still OCR'd (a scan may be titled).
- The title is the document information /Title when usable (`title.clean_title`); a broken information
  dictionary means no title, never a failed file. XMP metadata is not read (it would need an XML parser
  that pypdf does not defuse).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular
from ...base.types import Document
from . import acroform, xfa
from .encoding import clean_text
from .garbled import is_garbled
from .line_breaks import better_lines, join_hyphenated, word_a_line
from .paged import join_layers, join_pages
from .pdf_notes import Notes
from .pdfium_doc import PasswordNeeded, PdfiumDoc, available, shown_box
from .ole_encrypted import ENCRYPTED, RIGHTS_MANAGED
from .title import clean_title

if TYPE_CHECKING:  # pypdf is imported when a PDF is read, not with this module
    from pypdf import PageObject, PdfReader

__all__ = ["SUFFIXES", "MAX_PAGES", "NO_PAGES", "extract_pdf"]

SUFFIXES = frozenset({".pdf"})
MAX_PAGES = 5000

log = logging.getLogger(__name__)


class _ToDebugLog(logging.Handler):
    """pypdf logs a warning for every robustness fix it applies; with no handler configured Python
    prints them to stderr as bare lines. They are kept, at debug level, under this module's logger."""

    def emit(self, record: logging.LogRecord) -> None:
        log.debug("pypdf: %s", record.getMessage())


def _quiet_pypdf() -> None:
    pypdf_log = logging.getLogger("pypdf")
    if not any(isinstance(h, _ToDebugLog) for h in pypdf_log.handlers):
        pypdf_log.addHandler(_ToDebugLog())
        pypdf_log.propagate = False


LIMIT = "PDF exceeds a decompression or size limit"
AES = "encrypted with AES, which pypdf reads only with the cryptography package"
# pypdf has no reader for the file's encryption (NotImplementedError from PdfReader): a rights-management handler
# (RIGHTS_MANAGED), or a cipher or revision it lacks. pdfium may have one; when it has not, the file is skipped as a
# password-protected one is, not failed and read again at every sync.
SCHEME = "encrypted by a scheme pypdf cannot read"
TRUNCATED = "truncated PDF (no end-of-file marker): an incomplete download?"
# A PDF of no pages has nothing to read, now or by OCR: skipped for it, not "no text found", which a sync with OCR on
# reads again as a scan read while OCR was off (sync/ocr_waits.ocr_turned_on): it was, at every sync (a reviewer)
NO_PAGES = "a PDF of no pages: nothing to read"
_TAIL = 1024  # the PDF standard has readers look for %%EOF in a file's last 1,024 bytes


def limit_reason(exc: BaseException) -> str:
    return f"{LIMIT} (a PDF bomb?): {exc}"


def _of_encryption(exc: BaseException) -> bool:
    """Whether pypdf's encryption module raised `exc` (a handler, a version, a method it lacks), not its reader of
    another part of the file: the frame it was raised in is that module's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__") == "pypdf._encryption"


def _open(fh: BinaryIO) -> PdfReader:
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PyPdfError

    _quiet_pypdf()
    try:
        reader = PdfReader(fh, strict=False)
    except LimitReachedError as exc:
        raise ExtractionError(limit_reason(exc)) from None
    except PyPdfError as exc:
        raise ExtractionError(f"corrupt PDF: {exc}") from None
    except NotImplementedError as exc:  # was "pdf extraction failed: NotImplementedError: only Standard PDF ..."
        if not _of_encryption(exc):  # a stream's filter pypdf lacks is no encryption: pdfium is asked, else failed
            raise ExtractionError(f"pypdf cannot read it: {exc}") from None
        rights_managed = "Standard PDF encryption handler" in str(exc)  # its /Filter names another handler
        raise ExtractionError(RIGHTS_MANAGED if rights_managed else f"{SCHEME} ({exc})") from None
    if reader.is_encrypted:
        try:
            ok: int = reader.decrypt("")  # a PasswordType (an IntEnum), 0 when not decrypted
        except Exception:  # e.g. AES without the optional crypto dependency
            ok = 0
        if not ok:
            raise UnsupportedFileError(ENCRYPTED)  # a password is needed: skipped, not read again every sync
    return reader


def extract_pdf(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    from pypdf.errors import DependencyError, PyPdfError

    with open_regular(path) as fh:
        try:
            reader = _open(fh)
            title = _title(path, reader)
            with _Pdfium(fh) as second:
                doc = _extract(path, reader, second, max_chars, cancel, title)
            return replace(doc, title=title)
        except (ExtractionError, PyPdfError, DependencyError) as exc:
            reason = str(exc) if isinstance(exc, ExtractionError) else AES if isinstance(exc, DependencyError) \
                else f"corrupt PDF: {exc}"
            if reason.startswith(LIMIT):  # a bomb: not handed to pdfium, which has no such limit
                raise ExtractionError(reason) from None
            if reason.startswith("corrupt PDF") and _cut_short(fh):
                reason = TRUNCATED
            whole = _whole_file_by_pdfium(path, fh, max_chars, cancel)
            if whole is None:
                if reason.startswith(SCHEME):  # pdfium has no reader for it either
                    raise UnsupportedFileError(f"{reason}, not indexed") from None
                skipped = reason in (ENCRYPTED, NO_PAGES, RIGHTS_MANAGED)
                raise (UnsupportedFileError if skipped else ExtractionError)(reason) from None
            return replace(whole, notes=(f"read by pdfium: pypdf could not ({reason})"[:300], *whole.notes))


def _cut_short(fh: BinaryIO) -> bool:
    """Does the file start as a PDF but lack the %%EOF a PDF ends with: a download or a copy cut short?"""
    try:
        fh.seek(0)
        head = fh.read(_TAIL)
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - _TAIL))
        return b"%PDF-" in head and b"%%EOF" not in fh.read(_TAIL)
    except OSError:
        return False


def _whole_file_by_pdfium(path: Path, fh: BinaryIO, max_chars: Optional[int],
                          cancel: Optional[CancelToken]) -> Optional[Document]:
    """The file as pdfium reads it, for a PDF pypdf cannot open (a broken cross-reference table, AES
    encryption with an empty password without the `cryptography` package); None when pdfium cannot
    either or is not installed; UnsupportedFileError(ENCRYPTED) when pdfium needs a password. Garbled pages are
    left empty for OCR, as in `_extract`."""
    if not available():
        return None
    try:
        fh.seek(0)
        doc = PdfiumDoc(fh.read())
    except PasswordNeeded:  # pypdf could not tell (AES-256 without `cryptography`): pdfium can
        raise UnsupportedFileError(ENCRYPTED) from None
    except (ExtractionError, OSError) as exc:
        log.info("pdfium: %s", exc)
        return None
    with doc:
        texts: list[str] = []
        garbled: list[int] = []
        chars = 0
        for i in range(min(len(doc), MAX_PAGES)):
            if cancel is not None:
                cancel.check()
            text = clean_text(doc.page_text(i) or "").strip()
            if is_garbled(text):
                text = ""
                garbled.append(i + 1)
            texts.append(text)
            chars += len(text)
            if max_chars is not None and chars > max_chars:
                break
    if not texts:
        return None
    log.info("%s: read with pdfium (pypdf could not open it)", path)
    notes = [_garbled_note(garbled)] if garbled else []
    text, spans = join_pages(enumerate(join_hyphenated(texts), start=1))
    return Document(text, spans, kind="pdf", notes=tuple(notes))


class _Pdfium:
    """pdfium's text of one page, for the pages pypdf reads as glyph codes; the file is opened on first use."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.doc: Optional[PdfiumDoc] = None
        self.usable = available()
        self.read = 0  # pages whose text came from here
        self.cropped = 0  # pages whose text came from here for words outside their CropBox
        self._last: tuple[int, str] = (-1, "")  # a page pypdf read a word a line and garbled asks twice

    def __enter__(self) -> "_Pdfium":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.doc is not None:
            self.doc.close()

    def _opened(self) -> Optional[PdfiumDoc]:
        if self.usable and self.doc is None:
            try:
                self.fh.seek(0)
                self.doc = PdfiumDoc(self.fh.read())
            except (ExtractionError, OSError) as exc:
                log.info("pdfium: %s", exc)
                self.usable = False
        return self.doc

    def text(self, index: int) -> str:
        """Page `index`'s text from pdfium, cleaned; "" when pdfium is missing or cannot read it."""
        if self._last[0] != index:
            doc = self._opened()
            self._last = (index, clean_text(doc.page_text(index) or "").strip() if doc is not None else "")
        return self._last[1]

    def shown(self, index: int) -> Optional[str]:
        """Page `index`'s text from pdfium without the words outside its CropBox, cleaned; None when it has none
        such, or pdfium is missing or cannot read it."""
        doc = self._opened()
        shown = doc.shown_text(index) if doc is not None else None
        return clean_text(shown[0]).strip() if shown is not None and shown[1] else None


def _title(path: Path, reader: PdfReader) -> str:
    try:
        info = reader.metadata
        raw = info.get("/Title") if info is not None else None
        if raw is not None and hasattr(raw, "get_object"):  # an indirect reference
            raw = raw.get_object()
        return clean_title(raw if isinstance(raw, str) else None)
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # a broken information dictionary: the text is still good
        log.debug("%s: no title: %s", path, exc)
        return ""


def _pages(reader: PdfReader) -> tuple[Any, int]:
    """The document's pages and how many; a PDF of none is NO_PAGES (unless pdfium finds pages pypdf does not:
    extract_pdf)."""
    from pypdf.errors import LimitReachedError

    try:
        pages = reader.pages
        total = len(pages)
    except LimitReachedError as exc:
        raise ExtractionError(limit_reason(exc)) from None
    except Exception as exc:
        raise ExtractionError(f"corrupt PDF: {exc}") from None
    if total == 0:
        raise UnsupportedFileError(NO_PAGES)
    return pages, total


def _extract(path: Path, reader: PdfReader, second: _Pdfium, max_chars: Optional[int], cancel: Optional[CancelToken],
             title: str = "") -> Document:
    from pypdf.errors import LimitReachedError

    pages, total = _pages(reader)
    if total > MAX_PAGES:
        log.warning("%s: %d pages, only the first %d are indexed", path, total, MAX_PAGES)
    texts: list[str] = []
    notes: list[str] = []
    failures = 0
    garbled: list[int] = []
    limited: Optional[BaseException] = None
    chars = 0
    shared: dict[_ContentKey, str] = {}  # a page's content key -> its pypdf text (_content_key)
    on_pages, notes_of = [], Notes()  # each page's notes (pdf_notes)
    for i in range(min(total, MAX_PAGES)):
        if cancel is not None:
            cancel.check()
        on_pages.append(notes_of.of_page(pages, i))
        try:
            raw, failed = _page_text(pages[i], shared), False
        except (MemoryError, RecursionError):
            raise
        except LimitReachedError as exc:  # a bomb: not handed to pdfium, which has no such limit
            log.warning("%s: page %d: %s", path, i + 1, limit_reason(exc))
            failures += 1
            limited = limited or exc
            texts.append("")
            continue
        except Exception as exc:
            log.info("%s: page %d: %s", path, i + 1, exc)
            raw, failed = "", True
        # pypdf reads WinAnsi's 0xAD, the hyphen a PDF draws, as U+00AD, which clean_text drops as the soft hyphen
        # it is elsewhere ("state-of-the-art" would read "stateoftheart"): here it is a hyphen (pdfium agrees).
        text = clean_text(raw.replace("\u00ad", "-")).strip()
        if not failed and word_a_line(text):
            text = _by_lines(text, second.text(i), second)
        if failed or is_garbled(text):
            text = second.text(i)
            if is_garbled(text):
                text = ""
            if text:
                second.read += 1
            elif failed:
                failures += 1
            else:
                garbled.append(i + 1)
        if text and _cropped(pages[i]):
            text = _crop(text, second.shown(i), second)
        texts.append(text)
        chars += len(text) + sum(map(len, on_pages[-1]))
        if max_chars is not None and chars > max_chars:
            break  # the registry cuts the text at the cap and reports it
    if texts and failures == len(texts):
        if limited is not None:
            raise ExtractionError(limit_reason(limited))
        raise ExtractionError("corrupt PDF: no page could be read")
    if second.read:
        log.info("%s: %d page(s) read with pdfium (pypdf's text was garbled, failed or a word a line)", path,
                 second.read)
    if second.cropped:
        log.info("%s: %d page(s) read with pdfium, without the words outside their CropBox", path, second.cropped)
    if garbled:
        notes.append(_garbled_note(garbled))
    texts = join_hyphenated(texts)
    over: list[list[str]] = [[] for _ in texts]  # what is written over each page: form values, then notes
    _add_form_values(reader, texts, over, notes)
    for lines, found in zip(over, on_pages, strict=True):
        lines.extend(found)
    if title and over and not any(texts) and not any(over):  # nothing else to find it by (its page is still OCR'd)
        over[0].append(title)
    text, spans = join_layers((n, page, "\n".join(lines))
                              for n, (page, lines) in enumerate(zip(texts, over, strict=True), start=1))
    return Document(text, spans, kind="pdf", notes=tuple(notes))


def _by_lines(text: str, other: str, second: _Pdfium) -> str:
    """pdfium's text of a page pypdf read one word a line, when it has lines of words and all of pypdf's text."""
    if other and not is_garbled(other) and better_lines(other, text):
        second.read += 1
        return other
    return text


def _cropped(page: PageObject) -> bool:
    """Does the page's CropBox hide part of its MediaBox? Two lookups: most pages have none, or the MediaBox's."""
    try:
        return shown_box(page.mediabox, page.cropbox) is not None
    except (MemoryError, RecursionError):
        raise
    except Exception:  # a broken box: the page is read whole
        return False


def _crop(text: str, shown: Optional[str], second: _Pdfium) -> str:
    """pdfium's `shown` text of a cropped page, without the words outside its CropBox, in place of `text`; `text`
    when there were none (a margin cropped off: pypdf's text stays), or pdfium's is garbled or missing."""
    if shown is None or is_garbled(shown):
        return text
    second.cropped += 1
    return shown


# A content stream or an array of them by (object number, generation): what `_content_key` compares.
_Ident = tuple[int, int] | tuple[tuple[int, int], ...]
# (contents, resources by object or ("direct", id), rotation as text): pages with equal keys have one text.
_ContentKey = tuple[_Ident, _Ident | tuple[str, int], str]


def _page_text(page: PageObject, shared: dict[_ContentKey, str]) -> str:
    """pypdf's text of `page`; a page drawn by the very content stream(s) and resources of a page read before
    gets that page's text. pypdf parses a page's content stream at each page: 10 pages sharing one stream of
    80,000 empty text operations took 95 s, the 5,000-page version would take ~13 h."""
    key = _content_key(page)
    if key is not None and key in shared:
        return shared[key]
    text = page.extract_text() or ""
    text = ligatures_named(text, _ligature_names(page)) if "/" in text else text
    if key is not None:
        shared[key] = text
    return text


# A ligature's glyph name with no Unicode map in its font, as pypdf writes it: "/f_i" (the Adobe Glyph List's
# rule: components joined by "_"). A font of a typesetting tool (an IRS form) names fi and fl so, and pypdf knows
# only ff, ffi and ffl by name: "of/f_ices" and "/f_irst" were indexed, and `offices`, `first` found nothing there.
# Only the ligatures fonts draw (f with f, i, l, t, j, b, h, k; st, ct, Th), and only the names a font of the page
# gives its codes (its encoding's /Differences, where pypdf found the name it wrote): a page's own text "cd
# /tmp/s_test" or "C:/data/f_index.csv" is no glyph name, and was read "cd /tmpstest", "C:/datafindex.csv".
_LIGATURE_NAME = re.compile(r"/(f_f_[il]|f_[fitjbhkl]|[sc]_t|T_h)")
_FONTS_LOOKED_AT = 64  # a page's fonts (its own and its forms'), each a dictionary read: a hostile page holds more


def ligatures_named(text: str, names: frozenset[str]) -> str:
    """`text` with each ligature glyph name (_LIGATURE_NAME) among `names` (_ligature_names) written as its
    letters: "of/f_ices" is "offices"."""
    if not names:
        return text
    return _LIGATURE_NAME.sub(lambda m: m.group(1).replace("_", "") if m.group(0) in names else m.group(0), text)


def _ligature_names(page: PageObject) -> frozenset[str]:
    """The ligature glyph names the fonts of `page` (and of its forms, one level down) give codes in their
    encoding's /Differences ("/f_i"); none for a page whose fonts cannot be read."""
    found: set[str] = set()
    try:
        resources = [page.get("/Resources")]
        xobjects = (resources[0] or {}).get("/XObject") or {}
        resources += [xobjects[k].get_object().get("/Resources") for k in list(xobjects)[:_FONTS_LOOKED_AT]]
        fonts = [f for r in resources if r for f in list((r.get_object().get("/Font") or {}).values())]
        for font in fonts[:_FONTS_LOOKED_AT]:
            encoding = font.get_object().get("/Encoding")
            encoding = encoding.get_object() if encoding is not None else None
            differences = encoding.get("/Differences") if isinstance(encoding, dict) else None
            found.update(str(n) for n in (differences or ()) if isinstance(n, str) and _LIGATURE_NAME.fullmatch(n))
    except Exception as exc:  # a malformed font dictionary: no name is replaced, the text kept as pypdf read it
        log.debug("fonts of a page not read for ligature names: %s", exc)
        return frozenset()
    return frozenset(found)


def _content_key(page: PageObject) -> Optional[_ContentKey]:
    """What decides a page's text: its content stream(s) (by object number), resources and rotation; None when
    its content is not made of objects that other pages could share."""
    from pypdf.generic import IndirectObject

    def ident(value: object) -> Optional[_Ident]:
        if isinstance(value, IndirectObject):
            return (value.idnum, value.generation)
        if isinstance(value, list) and value and all(isinstance(v, IndirectObject) for v in value):
            return tuple((v.idnum, v.generation) for v in value)
        return None

    contents = ident(dict.get(page, "/Contents"))  # dict.get: the reference itself, not the object it names
    if contents is None:
        return None
    resources = dict.get(page, "/Resources")
    # direct resources (inherited from the page tree, or a dictionary of this page's own) by their identity
    return contents, ident(resources) or ("direct", id(resources)), str(page.get("/Rotate", 0))


def _garbled_note(pages: list[int]) -> str:
    return (f"{len(pages)} page(s) with a garbled text layer (glyph codes or wrong letters) left for OCR: "
            f"{_page_list(pages)}")


def _page_list(numbers: list[int], most: int = 10) -> str:
    shown = ", ".join(str(n) for n in numbers[:most])
    return shown + (f" and {len(numbers) - most} more" if len(numbers) > most else "")


def _add_form_values(reader: PdfReader, texts: list[str], over: list[list[str]], notes: list[str]) -> None:
    """An XFA form's field values, in place of its "Please wait" page or over the last page; else the values of
    its AcroForm fields, over the page each field is on (`acroform`). What is written over a page follows its
    text, and does not count as its text layer (`PageSpan.layer_end`)."""
    if not texts:
        return
    values = xfa.xfa_values(reader, notes)
    if not values:  # an XFA form's AcroForm fields hold the same values again
        for page, line in acroform.field_values(reader, len(texts), notes):
            over[page if page is not None else len(texts) - 1].append(line)
        return
    block = "\n".join(values)
    if xfa.is_placeholder(reader, texts):
        texts[0] = block
    else:
        over[-1].append(block)
