"""The order a page's recognised text boxes are read in: top to bottom, a block's columns one after another (a gap
of half a text line running top to bottom splits prose columns), a table's cells and a margin of line numbers
row by row. Shared by the OCR engines that return boxes (RapidOCR 3, RapidOCR 1.4.4)."""

from __future__ import annotations

__all__ = ["lines_in_reading_order", "COLUMN_GAP", "COLUMN_MIN_BOXES", "COLUMN_TEXT"]


COLUMN_GAP = 0.5  # a gap at least this many text heights wide, top to bottom of a block, separates columns
COLUMN_MIN_BOXES = 3  # ... when every column holds at least this many boxes (not a caption's two labels)


def _gaps(intervals, lo: float, hi: float) -> list[tuple[float, float]]:
    """The stretches of [lo, hi] that no interval covers, widest first."""
    out, reach = [], lo
    for a, b in sorted(intervals):
        if a > reach:
            out.append((reach, a))
        reach = max(reach, b)
    return sorted(out, key=lambda g: g[0] - g[1])


def lines_in_reading_order(results) -> str:
    """Text boxes ([[4 points], text, score], ...) in reading order, one line of text per line: a block is
    cut into columns where a gap of COLUMN_GAP text heights runs through it top to bottom (read left to
    right, each to its end, when they hold prose: `_prose_columns`), else into two at its widest horizontal
    gap, until a block has no gap left; its boxes are then grouped into lines (recursive XY-cut). Reading
    boxes row by row across columns interleaved the columns of every multi-column page
    (tests/benchmarks/bench_ocr.py, PP-OCRv6 on 29 real pages: CER 0.42 -> 0.32; a gap of 1 height: 0.38)."""
    boxes = []
    for box, text, _score in results:
        if text.strip():
            xs, ys = [p[0] for p in box], [p[1] for p in box]
            boxes.append((min(xs), min(ys), max(xs), max(ys), text.strip()))
    if not boxes:
        return ""
    height = sorted(b[3] - b[1] for b in boxes)[len(boxes) // 2]
    pad = 0.2 * height  # the boxes of neighbouring lines touch or overlap by a few pixels
    lines: list[list] = []
    todo = [boxes]
    while todo:  # depth first, in reading order: a stack of blocks, the next block on top
        block = todo.pop()
        if len(block) > 1:
            x0, x1 = min(b[0] for b in block), max(b[2] for b in block)
            cuts = sorted(g[0] for g in _gaps([(b[0], b[2]) for b in block], x0, x1)
                          if g[1] - g[0] >= COLUMN_GAP * height)
            if cuts:
                columns: list[list] = [[] for _ in range(len(cuts) + 1)]
                for b in block:
                    columns[sum(1 for c in cuts if b[0] >= c)].append(b)
                columns = _prose_columns(columns)
                if len(columns) > 1:
                    todo.extend(reversed(columns))
                    continue
            y0, y1 = min(b[1] for b in block), max(b[3] for b in block)
            rows = _gaps([(b[1] + pad, b[3] - pad) for b in block], y0, y1)
            if rows:
                end = rows[0][1]
                above = [b for b in block if b[1] + pad < end]
                below = [b for b in block if b[1] + pad >= end]
                if above and below:
                    todo.extend((below, above))
                    continue
        lines.extend(_rows(block))
    return "\n".join(" ".join(b[4] for b in line) for line in lines)


COLUMN_TEXT = 12  # characters in a column's median box: fewer is a table's cells or a margin of numbers


def _prose(column: list) -> bool:
    return len(column) >= COLUMN_MIN_BOXES and sorted(len(b[4]) for b in column)[len(column) // 2] >= COLUMN_TEXT


def _prose_columns(columns: list[list]) -> list[list]:
    """Columns of prose stay apart, read one to its end before the next; any other column (a table's short
    cells, a margin of line numbers, a caption's two labels) joins the column to its right (the last, to
    its left), so that its rows are read across."""
    out: list[list] = []
    carry: list = []
    for column in columns:
        carry = carry + column
        if _prose(column):
            out.append(carry)
            carry = []
    if carry:
        if out:
            out[-1] = out[-1] + carry
        else:
            out.append(carry)
    return out


def _rows(block: list) -> list[list]:
    """Boxes with no gap between them top to bottom, as lines: boxes whose vertical extents overlap by half
    the smaller height are one line, read left to right."""
    rows: list[list] = []  # [top, bottom, [boxes]]
    for b in sorted(block, key=lambda b: (b[1], b[0])):
        if rows:
            top, bottom, items = rows[-1]
            if min(bottom, b[3]) - max(top, b[1]) > 0.5 * min(bottom - top, b[3] - b[1]):
                items.append(b)
                rows[-1][0], rows[-1][1] = min(top, b[1]), max(bottom, b[3])
                continue
        rows.append([b[1], b[3], [b]])
    return [sorted(items) for _, _, items in rows]
