"""Text from files on a terminal: control characters shown escaped, query words optionally marked.

A file name or passage may carry terminal control sequences (an OSC sequence sets the window title,
ESC[2J clears the screen) or line breaks that split one result line into two. Everything the CLI prints
that came from a file (names, snippets, reasons) goes through `printable`; JSON output stays exact.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Iterable, Mapping, Optional, TextIO

from .stored_names import cp1252_guess

__all__ = ["printable", "use_color", "color_wanted", "render_marked", "BOLD", "RESET", "CONTROL_CHARS"]

# C0 controls, DEL, C1 controls, and the bidi overrides/isolates that reorder what a line seems to say.
CONTROL_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}
BOLD, RESET = "\x1b[1;33m", "\x1b[0m"


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _toml_escape(ch: str) -> str:
    return f"\\u{ord(ch):04x}"


def printable(text: object, *, toml: bool = False) -> str:
    """`text` with every control character visibly escaped (ESC -> \\e, newline -> \\n, ...): safe on one line.

    The one escaping function of every human (non-JSON) output. `toml=True` writes \\uXXXX instead, the
    escape TOML strings understand (for `searchapp config`, whose output is pasted into a config file). Bytes
    that were not UTF-8 (a path typed in a Latin-1 terminal) are read as Windows-1252: a UTF-8 terminal refuses
    the surrogates Python keeps them as (decision 0179)."""
    return CONTROL_CHARS.sub(lambda m: (_toml_escape if toml else _escape)(m.group(0)), cp1252_guess(str(text)))


def use_color(stream: TextIO = sys.stdout, *, no_color: bool = False) -> bool:
    """Marks only on an interactive terminal, never with --no-color or NO_COLOR set (no-color.org)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return color_wanted(tty, no_color=no_color, env=os.environ)


def color_wanted(tty: bool, *, no_color: bool, env: Mapping[str, str]) -> bool:
    """use_color's rule for an output that is (`tty`) or is not a terminal, in the environment `env` (a warm
    process renders a thin client's command with the client's: cli/warm_run.py)."""
    return tty and not (no_color or env.get("NO_COLOR") or env.get("TERM") == "dumb")


def render_marked(text: str, spans: Iterable[tuple[int, int]], *, color: bool, width: Optional[int] = 100,
                  indent: str = "") -> str:
    """`text` made printable, wrapped to `width`, with `spans` (offsets into `text`) in bold when `color`."""
    spans = sorted(spans)
    # Escape piece by piece so the span offsets can be carried over to the escaped text.
    out: list[str] = []
    marks: list[tuple[int, int]] = []
    pos = length = 0
    for start, end in spans:
        if start < pos:
            continue
        before, inside = printable(text[pos:start]), printable(text[start:end])
        out += [before, inside]
        length += len(before)
        marks.append((length, length + len(inside)))
        length += len(inside)
        pos = end
    out.append(printable(text[pos:]))
    flat = "".join(out)
    if width is None:
        lines = [(0, len(flat))]
    else:
        lines = _wrap_offsets(flat, width - len(indent))
    rendered = []
    for a, b in lines:
        piece = []
        cur = a
        for s, e in marks:
            s, e = max(s, a), min(e, b)
            if s >= e:
                continue
            piece.append(flat[cur:s])
            piece.append((BOLD + flat[s:e] + RESET) if color else flat[s:e])
            cur = e
        piece.append(flat[cur:b])
        rendered.append(indent + "".join(piece))
    return "\n".join(rendered)


def _wrap_offsets(text: str, width: int) -> list[tuple[int, int]]:
    """Greedy word wrap that returns [start, end) offsets into `text` (so marks can be placed after wrapping)."""
    width = max(width, 20)
    lines: list[tuple[int, int]] = []
    line_start: Optional[int] = None
    line_end = 0
    for m in re.finditer(r"\S+", text):
        if line_start is None:
            line_start, line_end = m.start(), m.end()
        elif m.end() - line_start <= width:
            line_end = m.end()
        else:
            lines.append((line_start, line_end))
            line_start, line_end = m.start(), m.end()
    if line_start is not None:
        lines.append((line_start, line_end))
    return lines or [(0, 0)]

