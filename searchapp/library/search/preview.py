"""The whole extracted text of one indexed file, for showing a passage in context (the GUI's preview).

Re-extracts through the same extractor the sync used, so a hit's start/end offsets index this text; an
entry read by OCR is its cached OCR text instead (OCR is far too slow to run for a preview), and a PDF with
pages left for OCR has its cached OCR pages merged in, as the sync merged them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...base.config import Config
from ...base.errors import ExtractionError
from ...base.hashing import file_sha256
from ...base.member_paths import display_path
from ...base.types import Document
from ...ingest.extractors import extract
from ...ingest.ocr import merge_ocr
from ...ingest.ocr.pdf_pages import pages_needing_ocr
from ...store.ocr_cache import read_cached
from ..members.private_copy import readable

__all__ = ["FileText", "file_text"]


@dataclass(frozen=True)
class FileText:
    path: str
    document: Document
    changed: bool  # the file differs from what was indexed: offsets may no longer line up

    @property
    def text(self) -> str:
        return self.document.text


def file_text(path: str | Path, config: Config, expected_passage: Optional[str] = None,
              start: int = 0, end: int = 0, *, ocr: bool = False) -> FileText:
    """Extract `path` again. Raises ExtractionError (or UnsupportedFileError) like a sync would.

    With `expected_passage`, `changed` says whether text[start:end] still is that passage. `ocr`: the entry's
    text came from OCR, so it is the cached OCR text (merged with a PDF's text layer, as the sync merged it),
    never a second OCR run.
    """
    max_bytes = int(config.scan.max_file_mb * 2**20)
    key = os.fspath(path)
    with readable(key, max_bytes) as local:  # a member: read again from its container, as a private copy
        doc = _read(local, max_bytes, config, ocr, display_path(key))
    changed = expected_passage is not None and doc.text[start:end] != expected_passage
    return FileText(key, doc, changed)


def _read(path: Path, max_bytes: int, config: Config, ocr: bool, shown: str) -> Document:
    """`shown`: the entry's name in warnings (a member is read from a private copy: its path is no name)."""
    is_pdf = path.suffix.lower() == ".pdf"
    if not ocr and not is_pdf:
        return extract(path, max_bytes=max_bytes, shown=shown)
    layer = extract(path, max_bytes=max_bytes, shown=shown) if is_pdf else None
    if layer is not None and not pages_needing_ocr(layer, len(layer.pages)):
        return layer  # no page was left for OCR: the sync indexed the text layer as it is
    # A hit on a PDF's own text layer is not labelled OCR, but the sync merged the OCR'd pages before it into
    # the text its offsets count in, so the merge is made whatever the hit's label says.
    text = read_cached(config.data_dir, file_sha256(path))
    if text is None:
        if ocr or layer is None:  # (no layer: not a PDF, so the hit is OCR's)
            raise ExtractionError("its OCR text is not cached any more (the next sync reads it again)")
        return layer
    return merge_ocr(layer, text) if layer is not None else text
