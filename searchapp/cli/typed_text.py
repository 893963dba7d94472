"""Text a person typed, read where it enters the command line: a query or a saved search's name from the
arguments, and the lines of `search -`.

A terminal set to Latin-1 or cp1252 under a UTF-8 locale (an old PuTTY session, a Samba admin's console) sends
"résumé" as the bytes `r\\xe9sum\\xe9`, which are not UTF-8; Python hands such an argument over with each of those
bytes as a lone surrogate, which SQLite (the history), JSON and a UTF-8 terminal refuse, and which no indexed word
matches. Each such byte is read as Windows-1252 (base/stored_names.py: cp1252_guess), the rest of the text as it
is: decision 0179 says why that code page. A path is never read so: its bytes name a file (base/stored_names.py).
"""

from __future__ import annotations

from typing import BinaryIO, Iterable, Iterator, TextIO, Union

from ..base.stored_names import cp1252_guess

__all__ = ["typed_text", "typed_lines"]


def typed_text(text: str) -> str:
    """An argument as the words it was typed as (argparse's `type` of a query or a name)."""
    return cp1252_guess(text)


def typed_lines(source: Union[TextIO, Iterable[str]]) -> Iterator[str]:
    """The lines of `source` (standard input: read as bytes, where a line that is not UTF-8 made Python's strict
    reading of it raise mid-run) as typed text."""
    raw: BinaryIO | None = getattr(source, "buffer", None)
    lines: Iterable[str] = (b.decode("utf-8", "surrogateescape") for b in raw) if raw is not None else source
    for line in lines:
        yield typed_text(line)
