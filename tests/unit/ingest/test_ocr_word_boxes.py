"""A recognised line's words, each with its box (searchapp/ingest/ocr/word_boxes.py), and the hOCR the benchmark
adapter writes from them (tests/benchmarks/hocr.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from benchmarks.hocr import write_hocr

from searchapp.ingest.ocr.word_boxes import line_words, quad_box, split_line


def test_split_line_cuts_the_box_in_proportion_to_the_characters():
    words = split_line((100.0, 10.0, 210.0, 30.0), "ab cdefg h")  # 10 characters, 11 px each
    assert [w[4] for w in words] == ["ab", "cdefg", "h"]
    assert [(round(w[0]), round(w[2])) for w in words] == [(100, 122), (133, 188), (199, 210)]
    assert all(w[1] == 10.0 and w[3] == 30.0 for w in words)


def test_split_line_separates_words_and_ignores_extra_spaces():
    words = split_line((0.0, 0.0, 90.0, 9.0), "  one   two  ")
    assert [w[4] for w in words] == ["one", "two"]
    assert words[0][2] < words[1][0]  # a gap between them: the evaluator sees two words, not one
    assert split_line((0.0, 0.0, 9.0, 9.0), "   ") == []


def test_line_words_takes_the_recognisers_boxes_when_they_are_the_lines_words():
    found = [("Total:", 0.9, [[10, 5], [40, 5], [40, 15], [10, 15]]),
             ("12.50", 0.8, [[50, 5], [70, 5], [70, 15], [50, 15]])]
    words = line_words((10.0, 5.0, 70.0, 15.0), "Total: 12.50", found, scale=2.0)
    assert words == [(20.0, 10.0, 80.0, 30.0, "Total:"), (100.0, 10.0, 140.0, 30.0, "12.50")]


def test_line_words_cuts_the_line_when_the_recogniser_disagrees_or_gave_nothing_usable():
    box = (0.0, 0.0, 110.0, 10.0)
    other = [("Totl", 0.9, [[0, 0], [50, 0], [50, 10], [0, 10]])]
    assert line_words(box, "Total 12.50", other) == split_line(box, "Total 12.50")
    assert line_words(box, "Total 12.50", None) == split_line(box, "Total 12.50")
    assert line_words(box, "Total 12.50", object()) == split_line(box, "Total 12.50")  # a WordInfo, not boxes


def test_quad_box_is_the_upright_rectangle_around_the_points_scaled():
    assert quad_box([[3, 9], [10, 7], [11, 12], [2, 14]], 2.0) == (4.0, 14.0, 22.0, 28.0)


def test_write_hocr_gives_pages_lines_and_words_with_boxes_and_escaped_text():
    lines = [((10, 20, 90, 40, "a<b & c"), [(10, 20, 50, 40, "a<b"), (55.4, 20, 60.6, 40, "&"), (70, 20, 90, 40, "c")]),
             ((0, 50, 10, 60, "empty"), [])]
    root = ET.fromstring(write_hocr(800, 600, lines))
    ns = {"h": "http://www.w3.org/1999/xhtml"}
    page = root.find(".//h:div[@class='ocr_page']", ns)
    assert page is not None and page.get("title") == "bbox 0 0 800 600"
    spans = root.findall(".//h:span[@class='ocr_line']", ns)
    assert len(spans) == 1 and spans[0].get("title", "").startswith("bbox 10 20 90 40;")
    words = spans[0].findall("h:span[@class='ocrx_word']", ns)
    assert [w.text for w in words] == ["a<b", "&", "c"]
    assert [w.get("title", "").split(";")[0] for w in words] == ["bbox 10 20 50 40", "bbox 55 20 61 40", "bbox 70 20 90 40"]
    assert all("x_wconf 95" in w.get("title", "") for w in words)
