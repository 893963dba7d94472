"""OCR results by file content (sha256), so a re-sync, a rename or a copy never OCRs the same bytes twice.

A SQLite file of its own beside the library (not a table of library.db): it is a cache, rebuildable by
OCRing again, so it needs no migration and may be deleted at any time. Private like every library file.
An entry is checked as it is read (the file can be edited by anyone who can write the data dir): one that
could not have been written here (a page number past SQLite's integers, a span outside the text, notes that
are not strings) is deleted and the file OCR'd again, instead of failing every sync that reads it. A cache
file SQLite cannot read is a StoreError that names it (delete it: only OCR time is lost), never taken for
damage to the library.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Iterable, Any, Iterator, Optional

from ..base.errors import StoreError
from ..base.private import create_private_file
from ..base.types import Document, PageSpan

__all__ = ["OcrCache", "read_cached", "OCR_CACHE_NAME", "MAX_CACHED_CHARS"]

OCR_CACHE_NAME = "ocr_cache.sqlite"
MAX_CACHED_CHARS = 20_000_000  # one file's text; 200 dense pages are ~1 M characters
MAX_PAGE = 2**31 - 1  # far past any real document, and a page number SQLite can store
MAX_NOTES, MAX_NOTE_CHARS = 100, 2000

_SCHEMA = """CREATE TABLE IF NOT EXISTS ocr(
    sha256 TEXT PRIMARY KEY, engine TEXT NOT NULL, text TEXT NOT NULL, pages TEXT NOT NULL, notes TEXT NOT NULL)"""


class OcrCache:
    def __init__(self, data_dir: Path | str, read_only: bool = False) -> None:
        """`read_only`: for readers (the preview), which never create or write the cache; the file must exist."""
        path = self.path = Path(data_dir) / OCR_CACHE_NAME
        self.read_only = read_only
        if read_only:
            self.conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=30)
            return
        create_private_file(path)
        self.conn = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        with self._named():
            self.conn.execute(_SCHEMA)
            self.conn.commit()

    @contextlib.contextmanager
    def _named(self) -> Iterator[None]:
        """SQLite's errors here as a StoreError naming this file: the CLI would take a bare one for the library's."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the OCR cache {self.path} cannot be used ({exc}). It is only a cache: delete it "
                             f"(rm '{self.path}') and sync again; the library is not affected") from exc

    def get(self, sha256: str) -> Optional[Document]:
        """The cached text of these bytes; None when there is none, or when the entry is not one this cache
        writes (then it is deleted: the file is OCR'd again and cached anew)."""
        with self._named():
            row = self.conn.execute("SELECT text, pages, notes FROM ocr WHERE sha256 = ?", (sha256,)).fetchone()
            if row is None:
                return None
            doc = _entry(*row)
            if doc is None and not self.read_only:
                with self.conn:
                    self.conn.execute("DELETE FROM ocr WHERE sha256 = ?", (sha256,))
        return doc

    def cached(self, hashes: Iterable[str]) -> set[str]:
        """Those of `hashes` with an entry (a text or a failure): read by the OCR step without the engine."""
        with self._named():
            return {h for h in dict.fromkeys(hashes) if self.conn.execute(
                "SELECT 1 FROM ocr WHERE sha256 = ?", (h,)).fetchone() is not None}

    def put(self, sha256: str, engine: str, doc: Document) -> None:
        if len(doc.text) > MAX_CACHED_CHARS:
            return
        # sqlite-utils' table API (decision 0126): a row from a dict, replacing the one with its key. Imported
        # here, where OCR has just taken seconds, not when a sync opens the cache.
        import sqlite_utils

        row = {"sha256": sha256, "engine": engine, "text": doc.text,
               "pages": json.dumps([[p.page, p.start, p.end] for p in doc.pages]), "notes": json.dumps(list(doc.notes))}
        with self._named():
            sqlite_utils.Database(self.conn, execute_plugins=False).table("ocr").insert(row, replace=True)

    def close(self) -> None:
        self.conn.close()


def _is_int(value: object) -> bool:
    return type(value) is int  # not a bool, not a float such as 1e30


def _entry(text: object, pages_json: Any, notes_json: Any) -> Optional[Document]:
    """The Document of a stored entry, or None when it is not one `put` could have written."""
    try:
        spans, notes = json.loads(pages_json), json.loads(notes_json)
    except (ValueError, TypeError, RecursionError):
        return None
    if not isinstance(text, str) or len(text) > MAX_CACHED_CHARS or not isinstance(spans, list):
        return None
    if not isinstance(notes, list) or len(notes) > MAX_NOTES or not all(
            isinstance(n, str) and len(n) <= MAX_NOTE_CHARS for n in notes):
        return None
    pages: list[PageSpan] = []
    end = 0  # spans are in text order and never overlap (paged.join_pages writes them so)
    for span in spans:
        if not (isinstance(span, list) and len(span) == 3 and all(_is_int(v) for v in span)):
            return None
        page, start, stop = span
        if not (1 <= page <= MAX_PAGE and end <= start <= stop <= len(text)):
            return None
        pages.append(PageSpan(page, start, stop))
        end = stop
    return Document(text, tuple(pages), kind="ocr", notes=tuple(notes))


def read_cached(data_dir: Path | str, sha256: str) -> Optional[Document]:
    """The cached OCR text of these bytes, read-only (a reader never creates or writes the cache); None when
    there is none."""
    if not (Path(data_dir) / OCR_CACHE_NAME).is_file():
        return None
    cache = OcrCache(data_dir, read_only=True)
    try:
        return cache.get(sha256)
    except (sqlite3.Error, StoreError):  # damaged, or newer: the preview says it cannot show the text
        return None
    finally:
        cache.close()
