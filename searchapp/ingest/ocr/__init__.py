"""OCR for images and for PDF pages without a text layer (the optional `ocr` extra).

Importing this package is cheap: Pillow, pypdfium2, onnxruntime and OpenCV are imported only when a page
is read or an engine is built.
"""

from .document import MAX_PAGES, OCR_NOTE, merge_ocr, ocr_document, ocr_suffixes, recognised_pages
from .engine import OcrEngine, available_engine, engine_name, ocr_unavailable_reason

__all__ = ["MAX_PAGES", "OCR_NOTE", "OcrEngine", "available_engine", "engine_name", "merge_ocr", "ocr_document",
           "ocr_suffixes", "ocr_unavailable_reason", "recognised_pages"]
