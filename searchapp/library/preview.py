"""The whole extracted text of one indexed file, for showing a passage in context (the GUI's preview).

Re-extracts through the same extractor the sync used, so a hit's start/end offsets index this text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..base.config import Config
from ..base.types import Document
from ..ingest.extractors import extract

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
              start: int = 0, end: int = 0) -> FileText:
    """Extract `path` again. Raises ExtractionError (or UnsupportedFileError) like a sync would.

    With `expected_passage`, `changed` says whether text[start:end] still is that passage.
    """
    doc = extract(Path(path), max_bytes=int(config.scan.max_file_mb * 2**20))
    changed = expected_passage is not None and doc.text[start:end] != expected_passage
    return FileText(str(path), doc, changed)
