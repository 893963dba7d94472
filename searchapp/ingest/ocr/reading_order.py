"""The order a page's recognised text boxes are read in (a recursive XY-cut): top to bottom, the columns of
running text one after another (columns.py), a table's rows across. Shared by the OCR engines that return
boxes (RapidOCR 3, RapidOCR 1.4.4)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .columns import Box, columns, gaps

__all__ = ["lines_in_reading_order", "rows_of", "SECTION_GAP"]

SECTION_GAP = 1.5  # a gap across a block this many times wider than its column gutter is cut first
ROW_PAD = 0.2  # text heights: the boxes of neighbouring lines touch or overlap by a few pixels


def lines_in_reading_order(results: Iterable[tuple[Sequence[Sequence[float]], str, float]]) -> str:
    """Text boxes ([[4 points], text, score], ...) in reading order, one line of text per line. A block is
    cut into its columns (columns.columns: a gutter with running text on one side), unless a gap across it
    is SECTION_GAP times wider than that gutter (stacked sections: a header band over two columns, a text
    over a table), else into two at its widest gap across, until no cut is left; its boxes are then
    grouped into lines. On 29 real pages (tests/benchmarks/bench_ocr.py, PP-OCRv6) this took the CER from
    0.32 to 0.20: rows read across a page's columns gave 0.42."""
    boxes: list[Box] = []
    for box, text, _score in results:
        if text.strip():
            xs, ys = [p[0] for p in box], [p[1] for p in box]
            boxes.append((min(xs), min(ys), max(xs), max(ys), text.strip()))
    if not boxes:
        return ""
    height = sorted(b[3] - b[1] for b in boxes)[len(boxes) // 2]
    pad = ROW_PAD * height
    lines: list[list[Box]] = []
    todo = [boxes]
    while todo:  # depth first, in reading order: a stack of blocks, the next block on top
        block = todo.pop()
        if len(block) > 1:
            y0, y1 = min(b[1] for b in block), max(b[3] for b in block)
            across = gaps([(b[1] + pad, b[3] - pad) for b in block], y0, y1)  # widest first
            split = columns(block, height)
            widest = across[0][1] - across[0][0] - 2 * pad if across else 0.0
            if split and widest <= SECTION_GAP * split[1]:
                todo.extend(reversed(split[0]))
                continue
            if across:
                end = across[0][1]
                above = [b for b in block if b[1] + pad < end]
                below = [b for b in block if b[1] + pad >= end]
                if above and below:
                    todo.extend((below, above))
                    continue
        lines.extend(rows_of(block))
    return "\n".join(" ".join(b[4] for b in line) for line in lines)


def rows_of(block: list[Box]) -> list[list[Box]]:
    """Boxes with no gap between them top to bottom, as lines: boxes whose vertical extents overlap by half
    the smaller height are one line, read left to right."""
    rows: list[list[Any]] = []  # [top, bottom, [boxes]], its extent widened in place
    for b in sorted(block, key=lambda b: (b[1], b[0])):
        if rows:
            top, bottom, items = rows[-1]
            if min(bottom, b[3]) - max(top, b[1]) > 0.5 * min(bottom - top, b[3] - b[1]):
                items.append(b)
                rows[-1][0], rows[-1][1] = min(top, b[1]), max(bottom, b[3])
                continue
        rows.append([b[1], b[3], [b]])
    return [sorted(items) for _, _, items in rows]
