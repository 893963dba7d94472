"""A PDF page's notes: what a person wrote on it in a viewer (a sticky note, a typewriter or text box, a comment on a
highlight), kept in each annotation's /Contents. Neither pypdf nor pdfium reads them as page text, so a PDF whose
only words are a reviewer's notes was "no text found", and a note on a long report could not be searched.

Decisions:
- The /Contents of every annotation but a link (its /Contents is a tooltip for a URL), a form widget (its value is
  read by `acroform`) and a popup (the window that shows its parent's note: the same text again). A note's author
  (/T) goes in front of it, "igalsh: this is the note", as a viewer's comment list shows it.
- Plain /Contents only: the rich-text copy (/RC) is XHTML, the same words with styles, and is not parsed.
- A note's lines are joined into one; one with no letter or digit is left out; the same note twice on a page
  (a reply quoting it, a copy of a stamp) is read once.
- Caps: MAX_ANNOTS annotations looked at on a page, MAX_NOTES notes in a document, MAX_NOTE characters a note.
  A broken annotation is skipped, never fails the page.
- Nothing an annotation points to (a link, a file attachment, a sound, a movie) is opened.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Sequence

from .encoding import clean_text

if TYPE_CHECKING:
    from pypdf import PageObject

__all__ = ["MAX_ANNOTS", "MAX_NOTES", "MAX_NOTE", "Notes"]

MAX_ANNOTS = 10_000
MAX_NOTES = 10_000
MAX_NOTE = 10_000

_NOT_NOTES = frozenset({"/Link", "/Widget", "/Popup"})
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]")  # a letter or a digit

log = logging.getLogger(__name__)


class Notes:
    """The notes of a document's pages, read page by page under one MAX_NOTES cap."""

    def __init__(self) -> None:
        self.count = 0

    def of_page(self, pages: Sequence[PageObject], index: int) -> list[str]:
        """The notes on page `index` (0-based) of `pages`, in the order its /Annots lists them, "author: text"
        each."""
        if self.count >= MAX_NOTES:
            return []
        try:
            annots: Any = pages[index].get("/Annots")
            annots = annots.get_object() if annots is not None else None
        except (MemoryError, RecursionError):
            raise
        except Exception as exc:  # a broken /Annots: the page's text is still good
            log.debug("annotations: %s", exc)
            return []
        found: list[str] = []
        for ref in list(annots)[:MAX_ANNOTS] if isinstance(annots, list) else ():
            try:
                note = _note(ref)
            except (MemoryError, RecursionError):
                raise
            except Exception as exc:  # one broken annotation: the others are read
                log.debug("annotation: %s", exc)
                continue
            if note and note not in found:
                found.append(note)
                self.count += 1
                if self.count >= MAX_NOTES:
                    break
        return found


def _note(ref: Any) -> str:
    annot = ref.get_object() if hasattr(ref, "get_object") else ref
    if not hasattr(annot, "get") or str(annot.get("/Subtype", "")) in _NOT_NOTES:
        return ""
    text = _one_line(annot.get("/Contents"))
    if not _WORD.search(text):
        return ""
    author = _one_line(annot.get("/T"))[:200]
    return f"{author}: {text}" if _WORD.search(author) else text


def _one_line(raw: Any) -> str:
    from pypdf.generic import NameObject

    raw = raw.get_object() if hasattr(raw, "get_object") else raw
    if not isinstance(raw, str) or isinstance(raw, NameObject):  # bytes that are no text, a number, a name
        return ""
    return _SPACES.sub(" ", clean_text(raw[:4 * MAX_NOTE])).strip()[:MAX_NOTE]
