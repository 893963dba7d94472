"""OCR results by file content (sha256), so a re-sync, a rename or a copy never OCRs the same bytes twice.

A SQLite file of its own beside the library (not a table of library.db): it is a cache, rebuildable by
OCRing again, so it needs no migration and may be deleted at any time. Private like every library file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Optional

from ..base.private import create_private_file
from ..base.types import Document, PageSpan

__all__ = ["OcrCache", "read_cached", "OCR_CACHE_NAME", "MAX_CACHED_CHARS"]

OCR_CACHE_NAME = "ocr_cache.sqlite"
MAX_CACHED_CHARS = 20_000_000  # one file's text; 200 dense pages are ~1 M characters

_SCHEMA = """CREATE TABLE IF NOT EXISTS ocr(
    sha256 TEXT PRIMARY KEY, engine TEXT NOT NULL, text TEXT NOT NULL, pages TEXT NOT NULL, notes TEXT NOT NULL)"""


class OcrCache:
    def __init__(self, data_dir: Path | str, read_only: bool = False) -> None:
        """`read_only`: for readers (the preview), which never create or write the cache; the file must exist."""
        path = Path(data_dir) / OCR_CACHE_NAME
        if read_only:
            self.conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=30)
            return
        create_private_file(path)
        self.conn = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        self.conn.execute(_SCHEMA)
        self.conn.commit()

    def get(self, sha256: str) -> Optional[Document]:
        row = self.conn.execute("SELECT text, pages, notes FROM ocr WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None:
            return None
        try:
            pages = tuple(PageSpan(int(n), int(s), int(e)) for n, s, e in json.loads(row[1]))
            notes = tuple(str(n) for n in json.loads(row[2]))
        except (ValueError, TypeError):
            return None  # a damaged entry is OCR'd again
        return Document(row[0], pages, kind="ocr", notes=notes)

    def put(self, sha256: str, engine: str, doc: Document) -> None:
        if len(doc.text) > MAX_CACHED_CHARS:
            return
        pages = json.dumps([[p.page, p.start, p.end] for p in doc.pages])
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO ocr(sha256, engine, text, pages, notes) VALUES (?, ?, ?, ?, ?)",
                              (sha256, engine, doc.text, pages, json.dumps(list(doc.notes))))

    def close(self) -> None:
        self.conn.close()


def read_cached(data_dir: Path | str, sha256: str) -> Optional[Document]:
    """The cached OCR text of these bytes, read-only (a reader never creates or writes the cache); None when
    there is none."""
    if not (Path(data_dir) / OCR_CACHE_NAME).is_file():
        return None
    cache = OcrCache(data_dir, read_only=True)
    try:
        return cache.get(sha256)
    except sqlite3.Error:  # damaged, or written by a newer version: the preview says it cannot show the text
        return None
    finally:
        cache.close()
