"""Filled AcroForm fields: what a person typed or chose in a PDF form's text and choice fields.

A form's values are not in its pages' content: each lives in its field's /V, drawn by a widget annotation, so
neither pypdf nor pdfium reads them as page text. A filled tax form, an application, a survey answer is
found by what was written in it only if these values are indexed.

Decisions:
- Text (/Tx) and choice (/Ch) fields only: a check box or radio button's value is a state name (/Yes, /Off),
  a push button has none, a signature is binary data.
- One line per filled field, "Field name: value", as XFA values are (`xfa`): the name is the field's own
  partial name (/T, "First Name"; "p2-t124" for a generated "p2-t124[0]"), not the dotted path of its parents.
  A choice shows the text a person saw (/Opt's display text), not its export value; a list with several
  choices shows them joined by commas; a value's lines are joined into one. Empty fields, and values with no
  letter or digit (a lone "\\" in an IRS form), are left out.
- Each value goes on the page of its field's first widget (from the pages' /Annots); a field with no widget
  on a page read goes after the last page's text, as static XFA values do.
- Caps: MAX_NODES field dictionaries walked and kids a field (a loop, never recursion; each object once, so a
  field tree that refers back to itself ends), MAX_ANNOTS widgets mapped to pages, MAX_VALUE characters a value.
- A broken field tree leaves the pages' text as it was, with a note; it never fails the file.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Optional

from .encoding import clean_text

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["MAX_NODES", "MAX_ANNOTS", "MAX_VALUE", "field_values", "form_of"]

MAX_NODES = 20_000
MAX_ANNOTS = 100_000
MAX_VALUE = 10_000

_KINDS = frozenset({"/Tx", "/Ch"})
_INDEX = re.compile(r"\[\d+\]$")  # LiveCycle's "p2-t124[0]": an index, not part of the name
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]")  # a letter or a digit

log = logging.getLogger(__name__)


def field_values(reader: PdfReader, pages: int, notes: list[str]) -> list[tuple[Optional[int], str]]:
    """(0-based page of the field's widget among the first `pages` pages, or None; "Name: value") for every
    filled text and choice field, in the form's order. A broken form gives what was read before it broke."""
    found: list[tuple[Optional[int], str]] = []
    try:
        fields = _fields(reader)
        if fields:
            _walk(fields, _widget_pages(reader, pages), found)
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # a broken field tree: the pages' text is still good
        log.debug("form fields: %s", exc)
        notes.append(f"form field values left out after {len(found)}: the form is damaged ({exc})"[:300])
    return found


def form_of(reader: PdfReader) -> Any:
    """The document's /AcroForm dictionary (its fields, or an XFA form's packets: xfa.py), or None. pypdf types
    a dictionary's items as PdfObject; the readers take the file's objects as they come (hasattr, isinstance), a
    broken one failing inside their callers' except, so they are Any here."""
    catalog: Any = reader.trailer["/Root"]
    form = catalog.get("/AcroForm")
    form = form.get_object() if form is not None else None
    return form if hasattr(form, "get") else None


def _fields(reader: PdfReader) -> list[Any]:
    form = form_of(reader)
    fields = form.get("/Fields") if form is not None else None
    fields = fields.get_object() if fields is not None else None
    return list(fields) if isinstance(fields, list) else []


def _widget_pages(reader: PdfReader, pages: int) -> dict[int, int]:
    """Object number of each annotation on the first `pages` pages -> its 0-based page."""
    where: dict[int, int] = {}
    for index in range(pages):
        annots: Any = reader.pages[index].get("/Annots")
        annots = annots.get_object() if annots is not None else None
        for ref in annots if isinstance(annots, list) else ():
            if len(where) >= MAX_ANNOTS:
                return where
            if hasattr(ref, "idnum"):
                where.setdefault(ref.idnum, index)
    return where


def _walk(fields: list[Any], pages: dict[int, int], found: list[tuple[Optional[int], str]]) -> None:
    """Each terminal field of the tree, depth first in the form's order; kind (/FT) is inherited."""
    stack: list[tuple[Any, Optional[str]]] = [(ref, None) for ref in reversed(fields)]
    seen: set[int] = set()
    walked = 0
    while stack and walked < MAX_NODES:
        ref, kind = stack.pop()
        if hasattr(ref, "idnum"):
            if ref.idnum in seen:
                continue
            seen.add(ref.idnum)
        node = ref.get_object()
        if not hasattr(node, "get"):
            continue
        walked += 1
        kind = str(node.get("/FT", kind) or "") or None
        kids = node.get("/Kids")
        kids = list(kids.get_object())[:MAX_NODES] if kids is not None else []
        children = [k for k in kids if "/T" in _dict(k)]  # kids without a name are its widgets
        if children:
            stack.extend((k, kind) for k in reversed(children))
            continue
        line = _line(node, kind)
        if line:
            widgets = [ref, *kids]
            found.append((next((pages[w.idnum] for w in widgets if getattr(w, "idnum", None) in pages), None), line))


def _dict(ref: Any) -> Any:
    node = ref.get_object()
    return node if hasattr(node, "get") else {}


def _line(node: Any, kind: Optional[str]) -> str:
    """"Name: value" for a filled text or choice field, else ""."""
    if kind not in _KINDS:
        return ""
    value = _value(node.get("/V"), node.get("/Opt"))
    if not value:
        return ""
    name = node.get("/T")
    name = _INDEX.sub("", str(name)).strip() if isinstance(name, str) else ""
    return f"{name}: {value}" if name else value


def _value(raw: Any, options: Any) -> str:
    """A field's value as the person saw it: a choice's display text, several choices joined, one line."""
    from pypdf.generic import NameObject

    raw = raw.get_object() if hasattr(raw, "get_object") else raw
    chosen = list(raw) if isinstance(raw, list) else [raw]
    shown = _display_texts(options)
    # a name (/Off, /Yes) is a state, not text; bytes that are not text (a ByteStringObject) are left out
    texts = [shown.get(v, v) for v in chosen if isinstance(v, str) and not isinstance(v, NameObject)]
    value = _SPACES.sub(" ", clean_text(", ".join(t for t in texts if t.strip()))).strip()
    return value[:MAX_VALUE] if _WORD.search(value) else ""  # a lone backslash or dash: nothing to search


def _display_texts(options: Any) -> dict[str, str]:
    """A choice field's export value -> the text shown for it (/Opt's [export, display] pairs)."""
    options = options.get_object() if hasattr(options, "get_object") else options
    shown: dict[str, str] = {}
    for option in options[:MAX_NODES] if isinstance(options, list) else ():
        option = option.get_object() if hasattr(option, "get_object") else option
        if isinstance(option, list) and len(option) == 2 and all(isinstance(o, str) for o in option):
            shown[option[0]] = option[1]
    return shown
