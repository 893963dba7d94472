"""Where a block of recognised text boxes splits into columns read one after another: at a gutter (a gap
running top to bottom) with running text on at least one side. Gaps between a table's columns (figures,
names, labels) do not split: the table's rows are read across."""

from __future__ import annotations

from typing import Iterable, Optional

__all__ = ["Box", "gaps", "gutters", "split_at", "is_sentence", "is_running_text", "columns",
           "COLUMN_GAP", "COLUMN_MIN_BOXES", "MARK_CHARS", "SENTENCE_CHARS", "RUNNING_SHARE"]

Box = tuple[float, float, float, float, str]  # x0, y0, x1, y1, text

COLUMN_GAP = 0.4  # a gutter is at least this many text heights wide (0.5 missed a 15 px gutter of 32 px text)
COLUMN_MIN_BOXES = 3  # a column of running text holds at least this many boxes (not a caption's two labels)
MARK_CHARS = 2  # one box this short (a page number, a bullet) sitting in a gutter does not close it
SENTENCE_CHARS = 25  # a line of running text holds at least this many characters ...
SENTENCE_LOWER = 0.5  # ... and at least this share of its words begin in lower case (names and labels are Title Case)
RUNNING_SHARE = 0.5  # a column is running text when at least this share of its characters is in such lines


def gaps(intervals: Iterable[tuple[float, float]], lo: float, hi: float) -> list[tuple[float, float]]:
    """The stretches of [lo, hi] between the intervals that none covers, widest first."""
    out, reach = [], lo
    for a, b in sorted(intervals):
        if a > reach:
            out.append((reach, a))
        reach = max(reach, b)
    return sorted(out, key=lambda g: g[0] - g[1])


def gutters(block: list[Box], height: float) -> list[tuple[float, float]]:
    """The gaps running through `block` top to bottom at least COLUMN_GAP text heights wide, left to right;
    one box of at most MARK_CHARS characters inside a gap does not close it (a page number between columns)."""
    x0, x1 = min(b[0] for b in block), max(b[2] for b in block)
    wide = COLUMN_GAP * height
    found = [g for g in gaps([(b[0], b[2]) for b in block], x0, x1) if g[1] - g[0] >= wide]
    solid = [b for b in block if len(b[4]) > MARK_CHARS]
    if solid and len(solid) < len(block):
        for g in gaps([(b[0], b[2]) for b in solid], x0, x1):
            crossing = sum(1 for b in block if b[0] < g[1] and b[2] > g[0])
            if g[1] - g[0] >= wide and crossing <= 1 and not any(f[0] < g[1] and f[1] > g[0] for f in found):
                found.append(g)
    return sorted(found)


def split_at(block: list[Box], cuts: list[tuple[float, float]]) -> list[list[Box]]:
    """`block`'s boxes by the gap their middle falls after, left to right: len(cuts) + 1 lists."""
    out: list[list[Box]] = [[] for _ in range(len(cuts) + 1)]
    for b in block:
        middle = (b[0] + b[2]) / 2
        out[sum(1 for g in cuts if middle >= (g[0] + g[1]) / 2)].append(b)
    return out


def is_sentence(text: str) -> bool:
    """A line of running text: long, most of its words in lower case (not a name, a label or a figure)."""
    words = [w for w in text.split() if w[:1].isalpha()]
    return (len(text) >= SENTENCE_CHARS and bool(words)
            and sum(w[0].islower() for w in words) >= SENTENCE_LOWER * len(words))


def is_running_text(column: list[Box]) -> bool:
    """A column of prose: most of its characters are in lines of running text (a chart's labels beside a
    paragraph do not change that; a table's names, labels and figures are not)."""
    if len(column) < COLUMN_MIN_BOXES:
        return False
    return sum(len(b[4]) for b in column if is_sentence(b[4])) >= RUNNING_SHARE * sum(len(b[4]) for b in column)


def columns(block: list[Box], height: float) -> Optional[tuple[list[list[Box]], float]]:
    """The columns of `block` to read one after another and the narrowest gutter between them, or None when
    it has none: a gutter splits only where running text is on at least one side of it; the columns of a
    table (no running text either side) are kept together so that its rows are read across."""
    cuts = gutters(block, height)
    if not cuts:
        return None
    out: list[list[Box]] = []
    widths: list[float] = []
    gutter, before = float("inf"), False  # the narrowest gap since the last column; was that one prose
    for i, part in enumerate(split_at(block, cuts)):
        if i:
            gutter = min(gutter, cuts[i - 1][1] - cuts[i - 1][0])
        if not part:
            continue
        prose = is_running_text(part)
        if out and not (before or prose):
            out[-1].extend(part)
        else:
            if out:
                widths.append(gutter)
            out.append(list(part))
        gutter, before = float("inf"), prose
    return (out, min(widths)) if len(out) > 1 else None
