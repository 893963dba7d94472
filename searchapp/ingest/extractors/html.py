"""HTML to visible text with the stdlib parser (tolerant of broken markup; fetches nothing)."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple, Optional

from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text, decode_text, known_codec, read_capped
from .title import clean_title

__all__ = ["SUFFIXES", "extract_html", "html_document", "html_text", "html_to_text"]

SUFFIXES = frozenset({".htm", ".html", ".xhtml"})

# Content that is never rendered as text.
_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object"})
# Elements left out with all they hold (_left_out): a site's navigation (<nav>, role="navigation":
# menus, tables of contents, lists of the site's pages, the same words on every page, ahead of its own text;
# and, in a list, a link to the page in another language, <a hreflang>: Wikipedia's list of 136 languages is one
# each; a link in a sentence is kept), and what the page marks as not shown (the `hidden` attribute, except
# hidden="until-found", which a browser's find reveals, and a tab or accordion panel, role="tabpanel" or
# "region", which a click shows). A left-out element ends at its own end tag or at the end of an element around
# it, as a browser closes an element left open. What a screen reader skips (aria-hidden="true") is left out only
# when its text is short (_DECORATION_CHARS: an icon, a label said again): a closed accordion's answer is kept,
# and so is the visible text of a formula beside its MathML (KaTeX), which is not read.
# <header> and <footer> are kept: a page's title, byline or address is often there.
_NAVIGATION = frozenset({"nav"})
_PANEL_ROLES = frozenset({"tabpanel", "region"})
_LISTS = ("ul", "ol", "menu")
_DECORATION_CHARS = 32  # the text of an aria-hidden element left out: "★", "Toggle the table of contents"
# What has no end tag, or may leave it out (<li>, <p>, <td>, ...): a left-out element of these would hide the
# text up to an end tag that need never come, so their attributes leave nothing out.
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr", "keygen"})
_END_TAG_OPTIONAL = frozenset({"p", "li", "dt", "dd", "rt", "rp", "optgroup", "option", "colgroup", "caption",
                               "thead", "tbody", "tfoot", "tr", "td", "th", "html", "head", "body"})
# Elements that start a new paragraph (blank line) or just a new line.
_PARAGRAPH = frozenset({
    "p", "div", "section", "article", "aside", "header", "footer", "nav", "main", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "ul", "ol", "dl", "figure", "figcaption",
    "form", "fieldset", "details", "summary", "address", "hr", "body",
})
_LINE = frozenset({"br", "li", "tr", "dt", "dd", "caption", "option", "legend"})
_CELL = frozenset({"td", "th"})
# Inline markup a <title> may hold (browsers show it as text): it does not end the title.
_INLINE = frozenset({"a", "abbr", "b", "big", "cite", "code", "em", "font", "i", "mark", "q", "s", "small",
                     "span", "strong", "sub", "sup", "tt", "u"})
_WS = re.compile(r"\s+")
_FEED_CHARS = 1 << 20  # markup parsed between two cancel checks
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def _left_out(tag: str, attrs: list[tuple[str, Optional[str]]], in_list: bool) -> bool:
    """Whether the element is left out with its content: navigation, or marked hidden (see _NAVIGATION)."""
    if tag in _NAVIGATION:
        return True
    if tag in _VOID or tag in _END_TAG_OPTIONAL:
        return False
    found = dict(reversed(attrs))  # the first of an attribute written twice, as a browser reads it
    role = (found.get("role") or "").lower().split()
    if "navigation" in role or (tag == "a" and "hreflang" in found and in_list):
        return True
    if "hidden" not in found:
        return False
    return (found["hidden"] or "").strip().lower() != "until-found" and _PANEL_ROLES.isdisjoint(role)


def _decoration(tag: str, attrs: list[tuple[str, Optional[str]]]) -> bool:
    """aria-hidden="true": left out if its text is short (_TextParser.mark)."""
    return tag not in _VOID and tag not in _END_TAG_OPTIONAL and \
        any(name == "aria-hidden" and (value or "").strip().lower() == "true" for name, value in attrs)


class _Mark(NamedTuple):
    """Where an aria-hidden element began: its text is taken back at its end if short."""
    # the elements started inside it and still open: an end tag of another (its own, or one open before it) ends it.
    # Counted from the mark on, not copied from every open element at it (a copy per mark was quadratic).
    since: Counter[str]
    parts: int  # len(parts)
    last: str  # parts[-1], which emit may strip
    pending: int
    at_line_start: bool


class _TextParser(HTMLParser):
    def __init__(self, leave_out: bool = True) -> None:
        super().__init__(convert_charrefs=True)  # entities are unescaped in handle_data
        self.parts: list[str] = []
        self.pending = 0  # newlines owed before the next text
        self.at_line_start = True
        self.hidden: list[str] = []  # open elements whose content is dropped: the first one and all inside it
        self.open_hidden: Counter[str] = Counter()  # how many of each are in `hidden`: an end tag checked in O(1)
        self.leave_out = leave_out  # leave out navigation and what is marked hidden (_left_out)
        self.left_out = 0  # characters of text they held
        self.open: Counter[str] = Counter()  # elements open outside `hidden` (those whose end tag is left out too)
        self.list_items: list[int] = []  # the <li> open when each open list began (_close_left_open)
        self.mark: Optional[_Mark] = None  # an open aria-hidden element, its text taken back at its end if short
        self.after_math = False  # a <math> just ended, with no text since: what follows may be its visible copy
        self.pre = 0
        self.title: Optional[list[str]] = None  # collecting the first <title>
        self.title_text = ""

    # -- output -----------------------------------------------------------------
    def brk(self, n: int) -> None:
        self.pending = max(self.pending, n)

    def emit(self, text: str, verbatim: bool = False) -> None:
        if not verbatim:
            text = _WS.sub(" ", text)
            if self.at_line_start or self.pending or (self.parts and self.parts[-1].endswith(" ")):
                text = text.lstrip(" ")
        if not text:
            return
        if self.pending and self.parts:
            self.parts[-1] = self.parts[-1].rstrip(" ")
            self.parts.append("\n" * self.pending)
        self.pending = 0
        self.parts.append(text)
        self.at_line_start = text.endswith("\n")

    # -- parser callbacks ---------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if self.title is not None:  # an unclosed <title> ends at the next tag
            if tag in _INLINE:
                return
            self._end_title()
        if self.hidden:
            if tag not in _VOID:  # every element inside, so that a nested <div> does not end a left-out <div>
                self._hide(tag)
            return
        if tag in _HIDDEN or (self.leave_out and _left_out(tag, attrs, any(self.open[t] for t in _LISTS))):
            self._block(tag)  # a left-out <nav> or <div> still parts the text before it from the text after
            self._hide(tag)
            return
        if tag == "title" and self.title is None and not self.title_text:
            self.title = []
        elif tag == "pre":
            self.pre += 1
        self._block(tag)
        if tag in _VOID:
            return
        # HTML lets a <p> or an <li> go unclosed: the next one, or its list's end, closes it. Counted open for
        # good, they made a stray </li> or </p> much later end a left-out <nav> or [hidden] element early.
        if tag == "p":
            self._close_left_open("p", 0)  # a paragraph never holds another
        elif tag == "li":
            self._close_left_open("li", self.list_items[-1] if self.list_items else 0)
        elif tag in _LISTS:
            self.list_items.append(self.open["li"])
        self.open[tag] += 1
        if self.mark is not None:
            self.mark.since[tag] += 1
        elif self.leave_out and not self.after_math and _decoration(tag, attrs):
            last = self.parts[-1] if self.parts else ""
            self.mark = _Mark(Counter(), len(self.parts), last, self.pending, self.at_line_start)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if not self.hidden:  # <br/>, <hr/>; a self-closed <svg/> hides nothing
            self._block(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.hidden:
            if self.open_hidden[tag]:  # close up to the matching element
                while self._unhide() != tag:
                    pass
                if not self.hidden:
                    self._shown(tag)
                return
            if not self.open[tag]:  # a stray end tag
                return
            # The end of an element around the left-out one, which was left open: a browser closes it here.
            root = self.hidden[0]
            while self.hidden:
                self._unhide()
            self._shown(root)
        if self.open[tag]:
            self._closed(tag)
        if tag in _LISTS and self.list_items:
            self._close_left_open("li", self.list_items.pop())
        if tag == "title" and self.title is not None:
            self._end_title()
        elif tag == "pre" and self.pre:
            self.pre -= 1
        if tag != "br" and tag not in _CELL:  # </br> is read as <br> by browsers, but one break is enough
            self._block(tag)

    def handle_data(self, data: str) -> None:
        if self.hidden:
            if self.hidden[0] not in _HIDDEN:  # a <nav> or hidden element's text, not a script's code
                self.left_out += len(data.strip())
            return
        if self.title is not None:
            self.title.append(data)
            return
        if self.after_math and data.strip():
            self.after_math = False
        self.emit(data, verbatim=self.pre > 0)

    def close(self) -> None:
        super().close()
        if self.mark is not None:
            self._end_mark()

    def _close_left_open(self, tag: str, keep: int) -> None:
        """End the `tag` elements open beyond `keep`, as their end tags would (an aria-hidden mark among them)."""
        while self.open[tag] > keep:
            self._closed(tag)

    def _closed(self, tag: str) -> None:
        """One open `tag` element ends (its end tag, or one left open that its list's end closes)."""
        self.open[tag] -= 1
        if self.mark is not None:
            if self.mark.since[tag]:
                self.mark.since[tag] -= 1
            else:
                self._end_mark()  # the aria-hidden element ends, or one open before it

    def _hide(self, tag: str) -> None:
        self.hidden.append(tag)
        self.open_hidden[tag] += 1

    def _unhide(self) -> str:
        tag = self.hidden.pop()
        self.open_hidden[tag] -= 1
        return tag

    def _shown(self, root: str) -> None:
        """A left-out element (`root` the outermost) has ended: the text after it is read."""
        self.after_math = root == "math"
        self._block(root)

    def _end_mark(self) -> None:
        """The aria-hidden element has ended: its text is taken back if short (decoration), else kept."""
        mark, self.mark = self.mark, None
        if mark is None:
            return
        text = "".join(self.parts[mark.parts:]).strip()
        if len(text) > _DECORATION_CHARS:
            return
        self.left_out += len(text)
        del self.parts[mark.parts:]
        if self.parts:
            self.parts[-1] = mark.last
        self.pending, self.at_line_start = mark.pending, mark.at_line_start

    def _end_title(self) -> None:
        self.title_text = _WS.sub(" ", "".join(self.title or ())).strip()
        self.title = None

    def _block(self, tag: str) -> None:
        if tag in _PARAGRAPH:
            self.brk(2)
        elif tag in _LINE:
            self.brk(1)
        elif tag in _CELL and not self.at_line_start:
            self.emit(" ")  # keep adjacent cells from running together

    def text(self) -> str:
        body = "".join(self.parts)
        body = re.sub(r"[ \t]+\n", "\n", body)
        body = re.sub(r"\n{3,}", "\n\n", body).strip()
        if self.title_text and not body.startswith(self.title_text):
            return f"{self.title_text}\n\n{body}" if body else self.title_text
        return body


# An end tag with something after its name (`</script language>`): browsers end the element there; Python's
# parser, inside a <script> or <style>, never saw the end and dropped the rest of the page as script (Tika's
# testHTMLBadScript.html came out empty). Rewritten to the plain end tag before parsing.
_END_TAG_EXTRA = re.compile(r"</([A-Za-z][A-Za-z0-9:-]*)\s[^<>]*>")


def _feed(parser: _TextParser, markup: str, cancel: Optional[CancelToken]) -> _TextParser:
    for i in range(0, len(markup), _FEED_CHARS):  # the parser buffers a tag cut in two
        if cancel is not None:
            cancel.check()
        parser.feed(markup[i:i + _FEED_CHARS])
    parser.close()
    return parser


def _parse(markup: str, cancel: Optional[CancelToken]) -> _TextParser:
    markup = _END_TAG_EXTRA.sub(r"</\1>", markup)
    parser = _feed(_TextParser(), markup, cancel)
    if parser.left_out > len(parser.text()):
        # More text left out than kept: a page saved while a dialog had hidden the rest (aria-hidden on its main
        # element), one whose script shows its text later, a page that is a list of links, or a <nav> never
        # closed. What was left out is then the page's own text: all of it is read, as a browser shows it.
        parser = _feed(_TextParser(leave_out=False), markup, cancel)
    return parser


def html_to_text(markup: str, title: bool = True, cancel: Optional[CancelToken] = None) -> str:
    """Visible text of an HTML/XHTML document: <title> first (unless `title` is false), block
    elements as line breaks, paragraphs as blank lines."""
    parser = _parse(markup, cancel)
    if not title:
        parser.title_text = ""
    return clean_text(parser.text())


def _sniff_charset(data: bytes) -> Optional[str]:
    m = _META_CHARSET.search(data[:4096])
    return m.group(1).decode("ascii") if m else None


def html_document(data: bytes, declared: Optional[str] = None, cancel: Optional[CancelToken] = None) -> Document:
    """The Document of an HTML page's bytes, read in the charset its container `declared` (an MHTML part's
    header) when that is a real one, else in the one its own <meta> names."""
    charset = declared if known_codec(declared) else _sniff_charset(data)
    parser = _parse(decode_text(data, declared=charset), cancel)
    return Document(clean_text(parser.text()), kind="html", title=clean_title(parser.title_text))


def html_text(data: bytes, declared: Optional[str] = None, cancel: Optional[CancelToken] = None) -> str:
    """html_document's text without the page's <title> (a page imported into another document)."""
    charset = declared if known_codec(declared) else _sniff_charset(data)
    return html_to_text(decode_text(data, declared=charset), title=False, cancel=cancel)


def extract_html(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None, data: Optional[bytes] = None) -> Document:
    return html_document(data if data is not None else read_capped(path, max_bytes), cancel=cancel)
