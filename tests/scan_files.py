"""Scans the OCR tests write: text drawn onto an image with PIL, and a PDF whose second page is only such an
image (no text layer), as a scanner makes it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

OCR_ENGINE = "rapidocr3"  # the engine the `ocr` extra installs: RapidOCR 3 (the `rapidocr` wheel), PP-OCRv6
needs_rapidocr = pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None,
                                    reason="the ocr extra is not installed")


def the_apps_engine(monkeypatch):
    """The RapidOCR 3 engine the app builds (available_engine: once per process, ~0.4-2 CPU s with its imports),
    for tests about what it reads rather than about how it is built."""
    from searchapp.ingest.ocr.engine import ENGINE_ENV, available_engine

    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    engine = available_engine()
    assert engine is not None and engine.name == OCR_ENGINE
    return engine


def text_image(lines: list[str], size=(480, 480)):
    """A white RGB image with `lines` drawn in black, one every 70 px. Square by default: RapidOCR's detector
    scales an image's short side up to 736 px, so a 640x200 strip costs it 3x the pixels (and CPU) of a square."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=34)  # Pillow >= 10.1: a scalable TrueType font
    im = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(im)
    for i, line in enumerate(lines):
        draw.text((24, 30 + 70 * i), line, font=font, fill="black")
    return im


def scan_pdf(path: Path) -> Path:
    """Page 1: a real text layer about quarterly invoices; page 2: only a picture of "Lighthouse keeper log /
    November storm warning"."""
    from fpdf import FPDF

    png = path.with_name(path.stem + "-page.png")
    text_image(["Lighthouse keeper log", "November storm warning"]).save(png)
    pdf = FPDF(unit="mm", format=(160, 60))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=14)
    pdf.cell(0, 10, "This page has a text layer about quarterly invoices and payments.")
    pdf.add_page(format=(60, 60))  # square, as text_image: the detector scales the short side up to 736 px
    pdf.image(str(png), x=0, y=0, w=60, h=60)
    pdf.output(str(path))
    png.unlink()
    return path
