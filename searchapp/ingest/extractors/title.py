"""A file's own title as plain text, or "" when what the file claims is no title at all.

Shared by every extractor: metadata titles (PDF info, DOCX core.xml, ODT meta.xml, EPUB OPF) are often
junk left by the tool that made the file ("Microsoft Word - report.doc", "untitled", "x.pdf"), and a
junk title given to every passage as context would mislead search more than no title.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Optional
from xml.etree.ElementTree import Element

from .encoding import clean_text

__all__ = ["clean_title", "dc_title", "MAX_TITLE"]

MAX_TITLE = 200  # characters; a title is a name, not a paragraph
_LOOK_AT = 8 * MAX_TITLE  # a hostile 10 MB "title" is cut before any regex runs over it

# C0/C1 controls, zero-width no-break space (BOM) and bidi overrides (they can make a title read backwards).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ufeff\u202a-\u202e\u2066-\u2069]")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_TAG = re.compile(r"</?[A-Za-z!?][^<>]{0,500}>")
_WS = re.compile(r"\s+")
_NO_WORD = re.compile(r"[^\W_]")  # a title has at least one letter or digit
# What authoring tools write when the author gave no title.
_JUNK = re.compile(
    r"(?:untitled|no title|title|document\d*|doc\d*|new document|untitled document|"
    r"powerpoint presentation|presentation\d*|slide \d+|none|null|unknown|anonymous|\(anonymous\)|"
    r"untitled[-_ ]?\d+|microsoft (?:word|excel|powerpoint) - .*|.*\w\.(?:pdf|ps|eps|dvi|tex|docx?|dotx?|odt|ott|"
    r"rtf|wpd|txt|pages|indd|qxd|xlsx?|pptx?|html?|epub|mobi))",
    re.IGNORECASE,
)
_PATH = re.compile(r"(?:[A-Za-z]:[\\/]|\\\\|/[^/\s]+/)")  # C:\..., \\server\..., /home/...: a file name
_DC = "{http://purl.org/dc/elements/1.1/}"


def clean_title(raw: Optional[str]) -> str:
    """`raw` as one line of plain text (no markup, no control characters, whitespace collapsed, at most
    MAX_TITLE characters, cut at a word), or "" when it is empty or junk."""
    if not isinstance(raw, str):
        return ""
    s = clean_text(raw[:_LOOK_AT])  # as the text is: a PDF's "Eﬃcient" title found by "efficient"
    s = _ENTITY.sub(lambda m: unescape(m.group(0)), s)  # "&amp;" -> "&", then any markup it revealed goes too
    s = _TAG.sub(" ", s)
    s = _CONTROL.sub(lambda m: " " if m.group(0) in "\t\n\r\x0b\x0c" else "", s)
    s = _WS.sub(" ", s).strip()
    if not _NO_WORD.search(s) or _JUNK.fullmatch(s) or _PATH.match(s):
        return ""
    if len(s) > MAX_TITLE:
        cut = s.rfind(" ", MAX_TITLE // 2, MAX_TITLE + 1)
        s = s[:cut if cut > 0 else MAX_TITLE].rstrip(" ,;:-\u2013\u2014")
    return s


def dc_title(root: Optional[Element]) -> str:
    """The first usable Dublin Core <dc:title> under `root` (core.xml, meta.xml, an EPUB's OPF), else ""."""
    if root is None:
        return ""
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag.lower() == _DC + "title":
            title = clean_title("".join(el.itertext()))
            if title:
                return title
    return ""
