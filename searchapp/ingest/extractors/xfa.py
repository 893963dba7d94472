"""Filled XFA forms: the values typed into the form, from its datasets packet.

A dynamic XFA form (Adobe LiveCycle: tax, visa and grant forms) has one placeholder page, "Please wait...
upgrade to the latest version of Adobe Reader"; the form itself is XML packets under the AcroForm's /XFA,
and what a person typed is in `<xfa:datasets><xfa:data>`. Those values are what they search for.

Decisions:
- Only the datasets packet is read (the template can be megabytes of layout), at most MAX_XFA_BYTES once
  decompressed (pypdf's own decompression limits apply first); parsed with DTDs, entities and external
  references forbidden (`ziputil.parse_xml`). Adobe writes a bare `&` in values: it is escaped first.
- Only `xfa:data` is read: other datasets children are lists of choices and connection data, not answers.
- One line per filled field, "FieldName: value" (the name says what the value is: "FamilyName: Gauss");
  rich-text values are joined into one line; a value with a non-text content type (an image) is left out;
  at most MAX_FIELDS lines.
- A broken or hostile packet leaves the PDF's own text as it was, with a note; it never fails the file.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Optional, cast
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from .acroform import form_of
from .encoding import clean_text
from .ziputil import local_name, parse_xml

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["MAX_XFA_BYTES", "MAX_FIELDS", "xfa_values", "is_placeholder"]

MAX_XFA_BYTES = 16 * 2**20
MAX_FIELDS = 20_000
_DATA_NS = "http://www.xfa.org/schema/xfa-data/1.0/"
_XHTML_NS = "http://www.w3.org/1999/xhtml"
_BARE_AMP = re.compile(rb"&(?!(?:[A-Za-z][A-Za-z0-9._-]*|#[0-9]+|#x[0-9A-Fa-f]+);)")
# The text LiveCycle puts on the one page of a dynamic form, in the languages it ships.
_PLACEHOLDER = re.compile(r"(?i)please wait|adobe reader|may not be able to display|veuillez patienter")

log = logging.getLogger(__name__)


def _datasets(reader: PdfReader) -> Optional[bytes]:
    """The decompressed datasets packet, the whole XDP when /XFA is one stream, or None."""
    # The file's objects as they come (acroform.form_of), a broken one failing inside xfa_values' except; get_data()
    # (a stream's decoded bytes) is cast to what pypdf returns.
    form = form_of(reader)
    xfa = form.get("/XFA") if form is not None else None
    if xfa is None:
        return None
    xfa = xfa.get_object()
    if isinstance(xfa, list):
        for name, packet in zip(xfa[0::2], xfa[1::2], strict=False):
            if str(name) == "datasets":
                return cast(bytes, packet.get_object().get_data())
        return None
    return cast(bytes, xfa.get_data()) if hasattr(xfa, "get_data") else None


def _data_element(root: Element) -> Optional[Element]:
    """The `xfa:data` element under `root` (a datasets packet or a whole XDP), or None."""
    for el in root.iter(f"{{{_DATA_NS}}}data"):
        return el
    return None


def _lines(data: Element) -> list[str]:
    out: list[str] = []
    stack = [data]
    while stack and len(out) < MAX_FIELDS:  # a loop, not recursion: nesting depth is the file's to choose
        el = stack.pop()
        kids = list(el)
        if kids and not all(k.tag.startswith(f"{{{_XHTML_NS}}}") for k in kids):
            stack.extend(reversed(kids))
            continue
        if not el.get("contentType", "text/").startswith("text/"):
            continue  # an image or a file attached to the form
        # cleaned as every reader's text is (a ligature folded, a soft hyphen dropped): the page text is cleaned
        # before these lines join it
        value = " ".join(clean_text("".join(el.itertext())).split())
        if value and el is not data:
            out.append(f"{local_name(el.tag)}: {value}")
    return out


def xfa_values(reader: PdfReader, notes: list[str]) -> list[str]:
    """"Field: value" lines of a PDF's XFA form data (empty when it has none); problems go to `notes`."""
    from pypdf.errors import LimitReachedError

    try:
        raw = _datasets(reader)
    except (MemoryError, RecursionError):
        raise
    except LimitReachedError as exc:
        notes.append(f"XFA form data left out: a decompression limit: {exc}"[:300])
        return []
    except Exception as exc:  # a broken /AcroForm: the page text is still good
        log.debug("no XFA data: %s", exc)
        return []
    if not raw:
        return []
    if len(raw) > MAX_XFA_BYTES:
        notes.append(f"XFA form data left out: {len(raw) / 2**20:.1f} MB > {MAX_XFA_BYTES / 2**20:g} MB")
        return []
    try:
        root = parse_xml(_BARE_AMP.sub(b"&amp;", raw), "XFA datasets")
    except ExtractionError as exc:
        notes.append(f"XFA form data left out: {exc}"[:300])
        return []
    data = _data_element(root)
    return _lines(data) if data is not None else []


def is_placeholder(reader: PdfReader, texts: list[str]) -> bool:
    """True when the PDF's pages are only the "Please wait" stand-in of a dynamic XFA form."""
    try:
        catalog: Any = reader.trailer["/Root"]  # a dictionary in a sound file (see acroform.form_of)
        if bool(catalog.get("/NeedsRendering", False)):
            return True
    except Exception:  # a broken catalog: judge by the text
        pass
    return len(texts) == 1 and bool(_PLACEHOLDER.search(texts[0]))
