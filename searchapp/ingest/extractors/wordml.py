"""Word XML, saved as .xml or .doc: Word 2003's "XML Document" (a w:wordDocument root) and Word 2007's flat XML (a
pkg:package of parts), both marked `<?mso-application progid="Word.Document"?>` (told by office_xml.py). Word opens
either under a .doc name, so people keep them so; read as HTML they gave only their field codes ("PAGE NUMPAGES"),
and an .xml read as text gave its tags and styles.

The text is that of the w:t elements in document order (the body, then headers and footers as the file places
them): a paragraph ends a line, a run's tab and break are kept; field instructions (w:instrText) and deleted text
(w:delText, anything under w:del, w:moveFrom or a Word.Deletion annotation) are not w:t, or are left out. Hidden
text is read, as for .doc and .docx. Of a pkg:package only the parts .docx reads are read: the document, its
headers and footers, foot/endnotes and comments (not the glossary, whose placeholder "Click or tap here to enter
text." is no one's words); of an mc:AlternateContent only its first choice, as in docx.py (a text box is in both
the Choice and the Fallback). The title is Word 2003's o:Title or the package's core dc:title, as titles are
cleaned everywhere (title.clean_title).

The file is read within the size cap and streamed with DTDs, entities and external references forbidden
(ziputil.iterparse_xml): each element is dropped once it has ended, so memory stays flat (a 10 MB file of runs
built a 156 MB tree), nesting is capped at xmlstream.MAX_DEPTH, and reading stops at the text cap.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text, read_capped
from .title import clean_title
from .xmlstream import XmlStream
from .ziputil import iterparse_xml, local_name

__all__ = ["extract_wordml"]

_WORD_NAMESPACES = ("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}",
                    "{http://schemas.microsoft.com/office/word/2003/wordml}")
_PACKAGE = "{http://schemas.microsoft.com/office/2006/xmlPackage}"
# The parts of a package read for text, by content type (its last dotted name) or, without one, by name.
_TEXT_TYPES = frozenset({"main+xml", "header+xml", "footer+xml", "footnotes+xml", "endnotes+xml", "comments+xml"})
_TEXT_PART = re.compile(r"/word/(document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml", re.IGNORECASE)
_TITLES = {"{urn:schemas-microsoft-com:office:office}Title",  # Word 2003's, in o:DocumentProperties
           "{http://purl.org/dc/elements/1.1/}title"}  # a package's, in its /docProps/core.xml part
_DELETED = frozenset({"del", "moveFrom"})


class _Frame:
    __slots__ = ("name", "word", "gone", "skipped", "children")

    def __init__(self, name: str, word: bool, gone: bool, skipped: bool) -> None:
        self.name, self.word, self.gone, self.skipped, self.children = name, word, gone, skipped, 0


class _Reader:
    """The text and title of the elements streamed through `start` and `end`, as the module doc says (the stream,
    xmlstream.XmlStream, drops each element once it has ended and caps the nesting)."""

    def __init__(self, max_chars: Optional[int]) -> None:
        self.budget = max_chars + 1 if max_chars is not None else 1 << 62
        self.out: list[str] = []
        self.title = ""
        self.frames: list[_Frame] = []
        self.word: dict[str, bool] = {}  # tag -> a Word element?: a few dozen tags, millions of elements

    def start(self, name: str, el: Element) -> None:
        parent = self.frames[-1] if self.frames else None
        skipped = bool(parent and (parent.skipped or (parent.name == "AlternateContent" and parent.children)))
        if parent is not None:
            parent.children += 1
        if el.tag == _PACKAGE + "part":
            skipped = not _text_part(el)
        word = self.word.get(el.tag)
        if word is None:
            word = self.word[el.tag] = el.tag.startswith(_WORD_NAMESPACES)
        gone = bool(parent and parent.gone) or _is_deletion(name, el)
        self.frames.append(_Frame(name, word, gone, skipped))
        if word and not skipped and name != "t":
            self._add(_text_of(name, el))

    def end(self, el: Element) -> None:
        frame = self.frames.pop()
        if frame.name == "t" and frame.word and not (frame.skipped or frame.gone):
            self._add(el.text or "")
        elif el.tag in _TITLES and not self.title:
            self.title = clean_title(el.text)

    def _add(self, text: str) -> None:
        if text:
            self.out.append(text)
            self.budget -= len(text)


def extract_wordml(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                   cancel: Optional[CancelToken] = None, data: Optional[bytes] = None) -> Document:
    """`data`: the file's bytes, when the caller read them (an .xml: office_xml.py)."""
    reader = _Reader(max_chars)
    events = iterparse_xml(io.BytesIO(read_capped(path, max_bytes) if data is None else data), path.name)
    for event, name, el, _ in XmlStream.of_events(events, path.name, cancel=cancel, starts=True):
        if event == "start":
            reader.start(name, el)
            continue
        reader.end(el)
        if reader.budget < 0:
            break  # the registry cuts at the cap and reports it
    return Document(clean_text("".join(reader.out)).strip(), kind="doc", title=reader.title)


def _text_of(name: str, el: Element) -> str:
    """What one Word element adds at its start: a paragraph's line, a run's tab or break (a w:t's text is added
    at its end, when it has been read)."""
    if name == "p" or name in ("br", "cr"):
        return "\n"
    if name == "tab" and not el.attrib:  # a run's tab; a paragraph's tab stops carry w:val and w:pos
        return "\t"
    return ""


def _text_part(part: Element) -> bool:
    """Whether a pkg:part is one read for text (_TEXT_TYPES)."""
    content_type = part.get(_PACKAGE + "contentType")
    if content_type:
        return content_type.rsplit(".", 1)[-1].lower() in _TEXT_TYPES
    return bool(_TEXT_PART.fullmatch(part.get(_PACKAGE + "name") or ""))


def _is_deletion(name: str, el: Element) -> bool:
    """w:del / w:moveFrom (Word 2007), a Word.Deletion annotation (Word 2003)."""
    return name in _DELETED or (name == "annotation" and any(
        local_name(k) == "type" and v == "Word.Deletion" for k, v in el.attrib.items()))
