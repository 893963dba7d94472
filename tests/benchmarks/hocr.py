"""A small hOCR writer for the OCR benchmark adapter (bench_ocr_scribe.py): one page, its lines and their words,
each with its box, in the form scribe.js's importer and compareOCR read (ocr_page > ocr_line > ocrx_word,
`bbox x0 y0 x1 y1` in the image's pixels, `x_wconf` 0-100)."""

from __future__ import annotations

from html import escape
from typing import Sequence

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml" '
        'xml:lang="en" lang="en">\n<head><title></title><meta http-equiv="Content-Type" content="text/html;'
        'charset=utf-8"/><meta name="ocr-system" content="searchapp"/>'
        '<meta name="ocr-capabilities" content="ocr_page ocr_line ocrx_word"/></head>\n<body>\n')


def _bbox(box: Sequence[float]) -> str:
    return "bbox " + " ".join(str(round(v)) for v in box[:4])


def write_hocr(width: int, height: int, lines: Sequence[tuple[Sequence, Sequence[Sequence]]],
               confidence: int = 95) -> str:
    """hOCR of one page `width` x `height`: `lines` are (line box (x0, y0, x1, y1, text), words [(x0, y0, x1, y1,
    text), ...]); a line without words is left out. Texts are escaped."""
    out = [HEAD, f"<div class='ocr_page' id='page_1' title='{_bbox((0, 0, width, height))}'>\n"]
    for n, (line, words) in enumerate((ln for ln in lines if ln[1]), 1):
        out.append(f"<span class='ocr_line' id='line_1_{n}' title=\"{_bbox(line)}; baseline 0 0\">")
        for k, w in enumerate(words, 1):
            out.append(f"<span class='ocrx_word' id='word_1_{n}_{k}' title='{_bbox(w)}; x_wconf {confidence}'>"
                       f"{escape(str(w[4]), quote=False)}</span> ")
        out.append("</span>\n")
    out.append("</div>\n</body>\n</html>\n")
    return "".join(out)
