"""One reading direction per page (searchapp/ingest/ocr/orientation.py): RapidOCR's angle classifier turned
single upright lines upside down and lost their words; a page's lines are now turned all together or not at all."""

from __future__ import annotations

import numpy as np
from scan_files import needs_rapidocr, the_apps_engine

from searchapp.ingest.ocr.orientation import one_orientation_per_page, page_is_turned

HEADER = "Case 1:13-cv-01317-TWT-ECS Document 1 Filed 04/22/13 Page 1 of 10"


def test_a_page_is_turned_only_when_most_of_its_text_is_surely_upside_down():
    upright, turned = ("0", 0.99), ("180", 0.99)
    assert not page_is_turned([turned, upright, upright], [900, 500, 500], sure=0.9)  # one line among more
    assert page_is_turned([turned, turned, upright], [500, 500, 900], sure=0.9)
    assert not page_is_turned([turned, turned, upright], [60, 60, 900], sure=0.9)  # two page numbers
    assert not page_is_turned([("180", 0.8), ("180", 0.8), upright], [500, 500, 100], sure=0.9)  # unsure votes
    assert not page_is_turned([turned, upright], [500, 500], sure=0.9)  # a tie keeps the page as it is
    assert not page_is_turned([], [], sure=0.9)


class _Classified:
    def __init__(self, votes):
        self.cls_res, self.img_list = votes, None


class _Ocr:
    """Stands for RapidOCR's step that classifies and turns line images, with votes set by the test (the real
    classifier's scores on drawn lines would make the test depend on the CPU's float path): it turns the lines
    it is sure of, one by one, as RapidOCR does."""

    class text_cls:
        cls_thresh = 0.9

    def __init__(self, votes):
        self.votes = votes

    def cls_and_rotate(self, lines):
        turned = [ln[::-1, ::-1] if v[0] == "180" and v[1] > 0.9 else ln for ln, v in zip(lines, self.votes, strict=True)]
        result = _Classified(self.votes)
        result.img_list = turned
        return turned, result


def _lines(*widths):
    return [np.arange(3 * 10 * w, dtype=np.uint8).reshape(10, w, 3) for w in widths]


def test_lines_are_turned_all_together_or_not_at_all():
    lines = _lines(90, 50, 50)
    ocr = _Ocr([("180", 0.99), ("0", 0.99), ("0", 0.99)])  # RapidOCR alone turns the first line
    one_orientation_per_page(ocr)
    out, _ = ocr.cls_and_rotate(lines)
    assert all(np.array_equal(a, b) for a, b in zip(out, lines, strict=True))

    ocr = _Ocr([("180", 0.99), ("180", 0.95), ("0", 0.7)])  # an upside-down page: its third line too
    one_orientation_per_page(ocr)
    out, result = ocr.cls_and_rotate(lines)
    assert all(np.array_equal(a, b[::-1, ::-1]) for a, b in zip(out, lines, strict=True))
    assert result.img_list is out
    one_orientation_per_page(ocr)  # wrapped once however often it is asked
    assert all(np.array_equal(a, b[::-1, ::-1]) for a, b in zip(ocr.cls_and_rotate(lines)[0], lines, strict=True))


@needs_rapidocr
def test_an_upright_header_line_among_upright_lines_is_read_upright(monkeypatch):
    """The line that cost filing_01 of scribeocr/ocr-benchmark its header: PP-OCR's angle classifier calls it
    upside down (here 0.97 against its threshold of 0.9), and read turned over it gave 'a n a ---: 10'."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=24)
    page = Image.new("RGB", (820, 820), "white")  # the header is ~770 px wide; a page over 736 px is read at its size
    draw = ImageDraw.Draw(page)
    lines = [HEADER] + [f"Case 1:13-cv-0{n}-TWT-ECS Document {n - 1316}" for n in (1318, 1319, 1320)]
    for i, line in enumerate(lines):
        draw.text((24, 40 + 52 * i), line, font=font, fill="black")
    text = the_apps_engine(monkeypatch).recognize(page)
    for word in ("Filed", "04/22/13", "Page", "01317-TWT-ECS", "Document 4"):
        assert word in text, f"{word!r} not in {text!r}"



def test_a_page_on_its_side_has_mostly_tall_lines_and_a_turned_page_reads_last_box_first():
    from searchapp.ingest.ocr.orientation import page_is_sideways, turned_over

    assert not page_is_sideways([(10, 10, 880, 60), (10, 70, 880, 120), (10, 130, 180, 180)])  # upright lines
    assert page_is_sideways([(10, 10, 60, 880), (70, 10, 120, 880), (130, 10, 180, 180)])  # the same, on its side
    assert not page_is_sideways([(10, 10, 60, 880), (10, 900, 1100, 1200)])  # a tall label beside a wide table
    assert not page_is_sideways([])
    # on a 1000 × 2000 page turned over, the bottom line's box becomes the top one
    assert turned_over((100, 1900, 900, 1950), 1000, 2000) == (100, 50, 900, 100)


@needs_rapidocr
def test_a_page_turned_over_or_on_either_side_reads_in_its_own_order(monkeypatch):
    """Drawn lines on a page turned 90°, 180° and 270°: read top line first, as the upright page (a docling test
    page turned 270° came out in reverse line order, and one turned 90° as noise)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=32)
    # Square, the lines ~470 px wide: the detector scales a page's short side up to 736 px, so a square is the
    # fewest pixels it reads (six reads here: a page on its side is read twice)
    page = Image.new("RGB", (560, 560), "white")
    draw = ImageDraw.Draw(page)
    lines = ["First line about harbour lanterns", "Second line about copper kettles",
             "Third line about mountain ferries"]
    for i, line in enumerate(lines):
        draw.text((40, 60 + 90 * i), line, font=font, fill="black")
    engine = the_apps_engine(monkeypatch)
    for angle in (0, 90, 180, 270):
        text = engine.recognize(page.rotate(angle, expand=True))
        at = [text.find(word) for word in ("harbour", "copper", "mountain")]
        assert -1 not in at and at == sorted(at), (angle, text)
