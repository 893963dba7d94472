"""One reading direction per page: the text lines of a page are turned over all together or not at all, and a
page read turned over, or lying on its side, is read in its own order.

RapidOCR's angle classifier (PP-OCR's mobile 0/180 model) decides for each line on its own whether it is
upside down, and turns the lines it doubts. On upright printed pages it turns some lines that are not: a
lone header line ("Case 1:13-cv-01317-TWT-ECS Document 1 Filed 04/22/13 Page 1 of 10"), light text on a dark
slide, a line with quotes and a hyphen; each is then read upside down as a few letters of noise ("a n a
---: 10"), and its words are lost. On the 29 pages of scribeocr/ocr-benchmark that cost 1.3 % of the words (187 of 14,470)
(decision 0114). A scan or a photo is upside down as a whole, so the lines vote: every line is turned when
lines holding most of the page's text (by width) are sure they are upside down, else none is.

A page turned over is read bottom line first: its boxes are turned with it (`turned_over`) before the reading
order is made. A page lying on its side (a landscape scan, a phone photo held sideways) shows its lines as tall
boxes (`page_is_sideways`): it is read again turned a quarter, and the vote then decides whether that quarter
left it upright or upside down (a docling test page turned 270° came out with its lines in reverse order).
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["page_is_turned", "one_orientation_per_page", "page_is_sideways", "turned_over", "TURNED_ATTR"]

TURNED = "180"  # the classifier's label of an upside-down line
TURNED_ATTR = "searchapp_page_turned"  # set on the OCR object by each page's vote: the last page read was turned
SIDEWAYS = 2.0  # a line box this many times taller than wide is a line of a page lying on its side


def page_is_turned(votes: Sequence[tuple[str, float]], widths: Sequence[float], sure: float) -> bool:
    """Whether a page is upside down: its lines voting `TURNED` with a score above `sure` hold more than half
    of the width of all its lines (a wide line holds more text than a page number, and counts for more)."""
    total = sum(widths)
    turned = sum(w for (label, score), w in zip(votes, widths, strict=True) if TURNED in label and score > sure)
    return total > 0 and turned > total / 2


def page_is_sideways(boxes: Sequence[tuple[float, float, float, float]]) -> bool:
    """Whether the lines found (x0, y0, x1, y1 boxes) are mostly tall ones: by area, more than half of the text
    stands on its side."""
    areas = [(x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes]
    tall = sum(a for a, (x0, y0, x1, y1) in zip(areas, boxes, strict=True) if (y1 - y0) > SIDEWAYS * (x1 - x0))
    return sum(areas) > 0 and tall > sum(areas) / 2


def turned_over(box: tuple[float, float, float, float], width: float, height: float) -> tuple[float, float, float, float]:
    """A box of a page `width` × `height` as it lies on that page turned over (180°): the last line first."""
    x0, y0, x1, y1 = box
    return width - x1, height - y1, width - x0, height - y0


def one_orientation_per_page(ocr: Any) -> None:
    """Make RapidOCR 3's `ocr` turn a page's line images all together or not at all (`page_is_turned`),
    instead of each line on the classifier's own word. Wraps that one instance's step that classifies and
    turns the lines (`cls_and_rotate`); a RapidOCR without it keeps its own behaviour."""
    classify = getattr(ocr, "cls_and_rotate", None)
    if classify is None or getattr(classify, "searchapp_one_orientation", False):
        return
    import cv2

    def per_page(lines: list[Any]) -> tuple[list[Any], Any]:
        _turned, result = classify(lines)
        votes = list(result.cls_res or ())
        if len(votes) != len(lines):  # not the result this wrap knows: RapidOCR's own decision stands
            return _turned, result
        sure = float(getattr(ocr.text_cls, "cls_thresh", 0.9))
        turned = page_is_turned(votes, [float(line.shape[1]) for line in lines], sure)
        setattr(ocr, TURNED_ATTR, turned)  # the engine reads the page's order from it (RapidOcr3Engine.recognize)
        if turned:
            result.img_list = [cv2.rotate(line, cv2.ROTATE_180) for line in lines]
        else:
            result.img_list = list(lines)
        return result.img_list, result

    per_page.searchapp_one_orientation = True  # type: ignore[attr-defined]
    ocr.cls_and_rotate = per_page
