"""The words of a recognised text line, each with its own box: RapidOCR 3's word boxes (from the recogniser's
character positions) where they agree with the line's text, else the line's box cut in proportion to the
characters. Used by the OCR engine's text path and by the hOCR benchmark adapter
(tests/benchmarks/bench_ocr_scribe.py), so both measure the same recognition."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .columns import Box

__all__ = ["Line", "split_line", "line_words", "quad_box"]

Line = tuple[Box, list[Box]]  # a line's box and text, and its words' boxes and texts, left to right


def quad_box(points: Any, scale: float = 1.0) -> tuple[float, float, float, float]:
    """The upright rectangle around a box's corner points, times `scale`."""
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    return min(xs) * scale, min(ys) * scale, max(xs) * scale, max(ys) * scale


def split_line(box: tuple[float, float, float, float], text: str) -> list[Box]:
    """The words of `text` laid across `box` in proportion to their characters (a space counts as one):
    every word gets the line's height and a share of its width, in order, none overlapping."""
    x0, y0, x1, y1 = box
    words = text.split()
    if not words:
        return []
    spaced = " ".join(words)
    step = (x1 - x0) / len(spaced)
    out, at = [], 0
    for w in words:
        out.append((x0 + at * step, y0, x0 + (at + len(w)) * step, y1, w))
        at += len(w) + 1
    return out


def line_words(box: tuple[float, float, float, float], text: str,
               found: Optional[Sequence[Any]], scale: float = 1.0) -> list[Box]:
    """The words of one line: RapidOCR's (text, score, corner points) word results when they are the line's
    words in order (its recogniser puts a box on each), else `split_line`."""
    words = text.split()
    usable = isinstance(found, (list, tuple)) and all(isinstance(w, (list, tuple)) and len(w) == 3 for w in found)
    if usable and found and [str(w[0]).strip() for w in found] == words:
        return [(*quad_box(w[2], scale), str(w[0]).strip()) for w in found]
    return split_line(box, text)
