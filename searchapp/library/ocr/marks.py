"""Search-time OCR marks: a hit whose text came from OCR says so (JSON "ocr": true, "(OCR)" in the CLI, the
window's preview)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.types import Hit
from ...store import Store
from ...store.ledger import ocr_done_pages

if TYPE_CHECKING:
    from ..search.result import SearchResult

__all__ = ["mark_ocr"]


def mark_ocr(result: SearchResult, store: Store) -> None:
    """Mark the hits read by OCR: an image's every passage, a PDF's passages on the pages OCR read, not those
    from its own text layer."""
    hits = list(result.hits)
    done = ocr_done_pages(store, [h.path for h in hits]) if hits else {}

    def read_by_ocr(h: Hit) -> bool:
        if h.path not in done:
            return False
        pages = done[h.path]
        return pages is None or h.page in pages

    for h in hits:
        h.ocr = read_by_ocr(h)
        for m in h.more:
            m.ocr = read_by_ocr(m)
