"""Word XML saved as .doc: Word 2003's "XML Document" (a w:wordDocument root) and Word 2007's flat XML (a
pkg:package of parts), both marked `<?mso-application progid="Word.Document"?>`. Word opens either under a .doc
name, so people keep them so; read as HTML they gave only their field codes ("PAGE NUMPAGES").

The text is that of the w:t elements in document order (the body, then headers and footers as the file places
them): a paragraph ends a line, a run's tab and break are kept; field instructions (w:instrText) and deleted text
(w:delText, anything under w:del, w:moveFrom or a Word.Deletion annotation) are not w:t, or are left out. Hidden
text is read, as for .doc and .docx.

The file is read whole within the size cap and parsed with DTDs, entities and external references forbidden
(ziputil.parse_xml); the tree is walked without recursion, so nesting depth costs no stack.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.safe_open import open_regular
from ...base.types import Document
from .encoding import clean_text, read_capped
from .ziputil import local_name, parse_xml

__all__ = ["is_wordml", "extract_wordml"]

_HEAD = 4096  # the processing instruction or the root comes after at most an XML declaration and a comment
_MARKERS = (b'progid="Word.Document"', b"<w:wordDocument")
_WORD_NAMESPACES = ("{http://schemas.microsoft.com/office/word/2003/wordml}",
                    "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}")
_DELETED = frozenset({"del", "moveFrom"})
_CHECK_EVERY = 4096


def is_wordml(path: Path) -> bool:
    with open_regular(path) as fh:
        head = fh.read(_HEAD)
    return any(marker in head for marker in _MARKERS)


def extract_wordml(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                   cancel: Optional[CancelToken] = None) -> Document:
    root = parse_xml(read_capped(path, max_bytes), path.name)
    budget = max_chars + 1 if max_chars is not None else 1 << 62
    out: list[str] = []
    stack: list[tuple[Element, bool]] = [(root, False)]  # (element, under a deletion?), in document order
    n = 0
    while stack and budget >= 0:
        el, gone = stack.pop()
        n += 1
        if cancel is not None and n % _CHECK_EVERY == 0:
            cancel.check()
        if not isinstance(el.tag, str):  # a comment or processing instruction
            continue
        gone = gone or _is_deletion(el)
        if el.tag.startswith(_WORD_NAMESPACES) and not (gone and local_name(el.tag) == "t"):
            text = _text_of(el)
            out.append(text)
            budget -= len(text)
        stack.extend((child, gone) for child in reversed(el))
    return Document(clean_text("".join(out)).strip(), kind="doc", title=_title(root))


def _text_of(el: Element) -> str:
    """What one Word element adds: a paragraph's line, a w:t's text, a run's tab or break."""
    name = local_name(el.tag)
    if name == "p" or name in ("br", "cr"):
        return "\n"
    if name == "t":
        return el.text or ""
    if name == "tab" and not el.attrib:  # a run's tab; a paragraph's tab stops carry w:val and w:pos
        return "\t"
    return ""


def _is_deletion(el: Element) -> bool:
    """w:del / w:moveFrom (Word 2007), a Word.Deletion annotation (Word 2003)."""
    name = local_name(el.tag)
    return name in _DELETED or (name == "annotation" and any(
        local_name(k) == "type" and v == "Word.Deletion" for k, v in el.attrib.items()))


def _title(root: Element) -> str:
    """Word 2003's o:DocumentProperties/o:Title, when set."""
    for el in root.iter("{urn:schemas-microsoft-com:office:office}Title"):
        return (el.text or "").strip()
    return ""
