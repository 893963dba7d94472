"""OCR for images and for PDF pages without a text layer (the optional `ocr` extra).

Importing this package is cheap: Pillow, pypdfium2, onnxruntime and OpenCV are imported only when a page
is read or an engine is built. The names below load their module on first use, so `status` asking
engine.ocr_unavailable_reason does not import document.py and, through it, every extractor (issue 45).
"""

from __future__ import annotations

from ...base.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .document import MAX_PAGES, OCR_NOTE, merge_ocr, ocr_document, ocr_suffixes, recognised_pages
    from .engine import OcrEngine, available_engine, engine_name, ocr_unavailable_reason

__all__ = ["MAX_PAGES", "OCR_NOTE", "OcrEngine", "available_engine", "engine_name", "merge_ocr", "ocr_document",
           "ocr_suffixes", "ocr_unavailable_reason", "recognised_pages"]

_HOME = {**dict.fromkeys(("MAX_PAGES", "OCR_NOTE", "merge_ocr", "ocr_document", "ocr_suffixes", "recognised_pages"),
                         "document"),
         **dict.fromkeys(("OcrEngine", "available_engine", "engine_name", "ocr_unavailable_reason"), "engine")}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())
