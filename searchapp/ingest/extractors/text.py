"""Plain text, markup read as text, and source code (an .xml too, unless it is Office's XML: office_xml.py; it is
never parsed here)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ...base.errors import GeneratedFileError
from ...base.types import Document
from ..generated import minified_text
from .encoding import decode_text, read_capped
from .headings import text_title

__all__ = ["SUFFIXES", "extract_text", "is_code"]

SUFFIXES = frozenset(
    "." + s
    for s in (
        "txt text md markdown rst csv tsv log org adoc asciidoc "
        "py pyi js mjs cjs ts tsx jsx java c h cc cpp cxx hpp hh cs go rs rb php "
        "sh bash zsh fish ps1 swift kt kts scala sql r m jl lua pl pm tex bib "
        "yaml yml toml ini cfg conf css scss less vue dart hs ex exs erl clj"
    ).split()
)


# The text suffixes that are prose, read as sentences; the others are code, data and logs, whose lines and
# indentation carry their meaning (the window shows those in a fixed-width font).
_PROSE = frozenset(".txt .text .md .markdown .rst .org .adoc .asciidoc".split())
# Read by readers of their own but shown as code too: .json by json_data.py ("key: value" lines), .xml by
# office_xml.py (as text, unless it is Office's)
_CODE_ELSEWHERE = frozenset({".json", ".xml"})


def is_code(path: str) -> bool:
    """Whether `path` (a file or a member's key) is source code, data or a log read as text: not prose."""
    suffix = os.path.splitext(path)[1].lower()
    return (suffix in SUFFIXES and suffix not in _PROSE) or suffix in _CODE_ELSEWHERE


def extract_text(path: Path, max_bytes: int, data: Optional[bytes] = None, **_caps: object) -> Document:
    text = decode_text(data if data is not None else read_capped(path, max_bytes))
    minified = minified_text(path.suffix.lower(), text)
    if minified is not None:  # a bundle named like code: left out, with why (decision 0178)
        raise GeneratedFileError(minified)
    return Document(text, kind="text", title=text_title(path.suffix.lower(), text))
