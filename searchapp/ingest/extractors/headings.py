"""The title of a Markdown or reStructuredText file: its front matter `title:` or its first heading.

Only the start of the file is looked at (a title is near the top; a 10 MB file costs nothing more).
Other text files have no title of their own: the indexer falls back to the file name.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Optional

from .title import clean_title

__all__ = ["text_title", "markdown_title", "rst_title", "MARKDOWN_SUFFIXES", "RST_SUFFIXES"]

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
RST_SUFFIXES = frozenset({".rst"})
HEAD_CHARS = 1 << 16  # characters of the file looked at
MAX_LINES = 50  # non-empty lines searched for a Markdown heading (after the front matter)
MAX_RST_LINES = 200  # RST files often open with a long comment or a block of substitutions
MAX_FRONT_MATTER = 200  # lines: a front matter block longer than this is not one

# ---------------------------------------------------------------- Markdown

_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:[>|]|[-*+][ \t]|\d{1,9}[.)][ \t]|<|`{3}|~{3})| {4}|\t")
_FRONT_KEY = re.compile(r"title[ \t]*[:=][ \t]*(.*)", re.IGNORECASE)  # YAML "title:", TOML (+++) "title ="
_HTML_HEADING = re.compile(r" {0,3}<h[1-6](?:\s[^>]*)?>(.*?)</h[1-6]\s*>.*", re.IGNORECASE)  # READMEs' <h1 align=center>
# Inline markup: images and links keep their text, emphasis and code lose their markers.
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_CODE = re.compile(r"(`+)(.+?)\1")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ATTRIBUTES = re.compile(r"[ \t]*\{#[^}]*\}[ \t]*$")  # pandoc's "# Heading {#id}"


def _inline_text(s: str) -> str:
    s = _ATTRIBUTES.sub("", s)
    s = _CODE.sub(lambda m: m.group(2).strip(), s)
    s = _IMAGE.sub(r"\1", s)
    s = _LINK.sub(r"\1", s)
    s = _STRONG.sub(r"\2", s)
    s = _EMPHASIS.sub(r"\2", s)
    return _ESCAPE.sub(r"\1", s)


def _unquote_yaml(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r'\\(["\\])', r"\1", value[1:-1])
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return re.sub(r"[ \t]+#.*$", "", value)  # a plain scalar's comment


def _front_matter(lines: list[str]) -> tuple[int, str]:
    """(index of the first line after a leading YAML (or TOML) front matter block, its title), or (0, "")."""
    delimiter = lines[0].rstrip() if lines else ""
    if delimiter not in ("---", "+++"):
        return 0, ""
    for end in range(1, min(len(lines), MAX_FRONT_MATTER + 1)):
        if lines[end].rstrip() in (delimiter, "..." if delimiter == "---" else delimiter):
            break
    else:
        return 0, ""  # never closed: a thematic break, not front matter
    title = ""
    for i in range(1, end):
        m = _FRONT_KEY.fullmatch(lines[i].rstrip())  # top-level key only: no indentation
        if not m:
            continue
        value = m.group(1).strip()
        if value in ("", "|", ">", "|-", ">-", "|+", ">+"):  # a block scalar: its indented lines
            block = []
            for line in lines[i + 1:end]:
                if line.strip() and not line[:1].isspace():
                    break
                block.append(line.strip())
            title = " ".join(block)
        else:
            title = _unquote_yaml(value)
        break
    return end + 1, clean_title(title)


def markdown_title(text: str) -> str:
    lines = text[:HEAD_CHARS].split("\n")
    start, title = _front_matter(lines)
    if title:
        return title
    fence: Optional[str] = None
    seen = 0
    paragraph: list[str] = []  # the lines a setext underline would turn into a heading
    for line in lines[start:]:
        if not line.strip():
            paragraph = []
            continue
        seen += 1
        if seen > MAX_LINES:
            break
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence, paragraph = m.group(1), []
            continue
        if paragraph and _SETEXT.fullmatch(line):
            heading = clean_title(_inline_text(" ".join(p.strip() for p in paragraph)))
            if heading:
                return heading
            paragraph = []
            continue
        m = _ATX.fullmatch(line) or _HTML_HEADING.fullmatch(line)
        if m:
            heading = clean_title(_inline_text(m.group(1) or ""))
            if heading:
                return heading
            paragraph = []
            continue
        paragraph = [] if _NOT_PARAGRAPH.match(line) else paragraph + [line]
    return ""


# ---------------------------------------------------------------- reStructuredText

_ADORNMENT = re.compile(r"([=\-~^\"'#*+])\1*")


def _width(s: str) -> int:
    """Columns `s` takes, as docutils counts them (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def rst_title(text: str) -> str:
    lines = [line.rstrip() for line in text[:HEAD_CHARS].split("\n")]
    seen = 0
    for i in range(len(lines) - 1):
        line = lines[i]
        if not line:
            continue
        seen += 1
        if seen > MAX_RST_LINES:
            break
        under = lines[i + 1]
        if _ADORNMENT.fullmatch(line) or not _ADORNMENT.fullmatch(under) or len(under) < 2:
            continue
        above = lines[i - 1] if i > 0 else ""
        overlined = above == under
        if line.startswith(".. ") or (line[:1].isspace() and not overlined):
            continue  # a comment or directive; indented text is a block quote unless overlined
        if above and not overlined:
            continue  # a title follows a blank line (else docutils reports an error, not a title)
        if len(under) < _width(line.strip()):
            continue
        title = clean_title(line)
        if title:
            return title
    return ""


def text_title(suffix: str, text: str) -> str:
    """The title of a text file with this (lowercase) suffix, or "" (plain text has no title of its own)."""
    if suffix in MARKDOWN_SUFFIXES:
        return markdown_title(text)
    if suffix in RST_SUFFIXES:
        return rst_title(text)
    return ""
