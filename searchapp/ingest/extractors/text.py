"""Plain text, markup read as text, and source code (XML included: it is never parsed)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ...base.types import Document
from .encoding import decode_text, read_capped
from .headings import text_title

__all__ = ["SUFFIXES", "extract_text"]

SUFFIXES = frozenset(
    "." + s
    for s in (
        "txt text md markdown rst csv tsv log org adoc asciidoc "
        "py pyi js mjs cjs ts tsx jsx java c h cc cpp cxx hpp hh cs go rs rb php "
        "sh bash zsh fish ps1 swift kt kts scala sql r m jl lua pl pm tex bib "
        "json yaml yml toml ini cfg conf xml css scss less vue dart hs ex exs erl clj"
    ).split()
)


def extract_text(path: Path, max_bytes: int, data: Optional[bytes] = None, **_caps: object) -> Document:
    text = decode_text(data if data is not None else read_capped(path, max_bytes))
    return Document(text, kind="text", title=text_title(path.suffix.lower(), text))
