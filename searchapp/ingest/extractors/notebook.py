"""A Jupyter notebook (.ipynb) read as its cells (decision 0178): the Markdown and the code a person wrote, in
order, a blank line between cells, and of the outputs only short text (a printed number, a one-line result).

A notebook is JSON whose outputs are often most of its bytes: plots as base64 PNGs, tables as HTML, logs of
thousands of lines. Read as text, the base64 made it "not prose" and the whole notebook was left out; read with its
outputs, a printed table became hundreds of passages of numbers. nbformat 4 and 3 (cells inside worksheets) both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator, Optional

from ...base.errors import ExtractionError
from ...base.types import Document
from .encoding import clean_text, decode_text, read_capped
from .headings import markdown_title
from .title import clean_title

__all__ = ["SUFFIXES", "extract_notebook", "MAX_OUTPUT"]

SUFFIXES = frozenset({".ipynb"})
MAX_OUTPUT = 1000  # characters of one output kept; a longer one (a table, a log) is left out whole
_CELLS = ("markdown", "code", "raw", "heading")  # "heading": nbformat 3's
_REPR = re.compile(r"<[^<>\n]*>")  # an object's repr, "<Figure size 640x480 with 1 Axes>": no words of anyone's


def extract_notebook(path: Path, max_bytes: int, max_chars: Optional[int] = None, data: Optional[bytes] = None,
                     **_caps: object) -> Document:
    try:
        nb = json.loads(decode_text(data if data is not None else read_capped(path, max_bytes)))
    except (ValueError, RecursionError) as exc:
        raise ExtractionError(f"not a notebook (not JSON: {str(exc)[:100]})") from None
    if not isinstance(nb, dict):
        raise ExtractionError("not a notebook (no cells)")
    parts: list[str] = []
    size, title = 0, ""
    for kind, source, outputs in _cells(nb):
        if kind == "markdown" and not title:
            title = markdown_title(source)
        for part in (source.strip(), *_short_outputs(outputs)):
            if part:
                parts.append(part)
                size += len(part) + 2
        if max_chars is not None and size > max_chars:
            break  # the registry cuts at the cap and says so
    metadata = nb.get("metadata")
    if not title and isinstance(metadata, dict) and isinstance(metadata.get("title"), str):
        title = clean_title(metadata["title"])
    return Document(clean_text("\n\n".join(parts)), kind="notebook", title=title)


def _cells(nb: dict[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """(cell type, its source, its outputs) of each cell read, nbformat 4's or 3's."""
    cells = nb.get("cells")
    if not isinstance(cells, list):
        sheets = nb.get("worksheets")
        cells = [c for ws in sheets if isinstance(ws, dict) for c in _list(ws.get("cells"))] \
            if isinstance(sheets, list) else []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") in _CELLS:
            yield cell["cell_type"], _joined(cell.get("source", cell.get("input"))), cell.get("outputs")


def _short_outputs(outputs: Any) -> Iterator[str]:
    """The text of each output of a code cell that is short text: a stream's, or a result's text/plain (nbformat
    3 keeps it as "text"); images, HTML, errors' tracebacks and anything over MAX_OUTPUT characters are left out."""
    for out in _list(outputs):
        if not isinstance(out, dict):
            continue
        if out.get("output_type") == "stream":
            text = _joined(out.get("text"))
        elif out.get("output_type") in ("execute_result", "display_data", "pyout"):
            found = out.get("data")
            text = _joined(found.get("text/plain") if isinstance(found, dict) else out.get("text"))
        else:
            continue
        text = text.strip()
        if len(text) <= MAX_OUTPUT and not _REPR.fullmatch(text):
            yield text


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _joined(value: Any) -> str:
    """A cell's source or an output's text: a string, or a list of its lines."""
    if isinstance(value, str):
        return value
    return "".join(v for v in value if isinstance(v, str)) if isinstance(value, list) else ""
