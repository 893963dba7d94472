"""The rows the library database hands out and takes in (plain frozen dataclasses, no SQL)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

import numpy as np

__all__ = ["RootRow", "FileRow", "ChunkRow", "NewChunk", "EntryCounts", "RootCounts"]


class EntryCounts(NamedTuple):
    """The library's entries by status (indexed, skipped, failed): the files on disk (an archive or a mailbox
    itself among them) and, apart, the members read out of them (archive entries, messages, attachments)."""

    files: dict[str, int]
    members: dict[str, int]
    # Of the skipped, those waiting for the OCR step (a scan read later, or once an engine is installed): said
    # apart, as the sync's summary and the not-indexed list say them
    files_ocr_pending: int = 0
    members_ocr_pending: int = 0
    # Of the skipped, the empty ones (left out on purpose, as `status` counts them by rule: not "skipped" there)
    files_empty: int = 0
    members_empty: int = 0


class RootCounts(NamedTuple):
    """What one indexed folder holds: its files on disk, the members of its archives and mail, and the passages
    of both."""

    files: int
    members: int
    passages: int


@dataclass(frozen=True)
class RootRow:
    id: int
    path: str
    added_at: float
    last_sync: Optional[float]


@dataclass(frozen=True)
class FileRow:
    id: int
    root_id: int
    path: str
    size: int
    mtime_ns: int
    sha256: Optional[str]
    status: str
    error: Optional[str]
    kind: Optional[str]
    n_chunks: int
    # The file's st_ctime_ns when it was last read or checked (ingest/scan.py's ScannedFile.ctime_ns): None where
    # not known (an archive's member, a row older than decision 0150), 0 (CHECK_AGAIN): read again next sync.
    ctime_ns: Optional[int] = None
    # The version of the reader its text was read with (ingest/extractors/registry.py's reader_version, decision
    # 0152): a sync reads it again when this version's is higher. None: not known (a row older than 0152, an image
    # or an entry that failed), read again where a reader reads it.
    reader: Optional[int] = None
    # 'pending' (waits for OCR: an image, or a PDF's pages), 'done' (some or all of its text came from OCR), None
    ocr: Optional[str] = None


@dataclass(frozen=True)
class ChunkRow:
    id: int
    file_id: int
    path: str
    ordinal: int
    start: int
    end: int
    page: Optional[int]
    text: str
    date_ns: Optional[int] = None  # the file's date: a mail's own date, else its mtime (what after:/before: test)


@dataclass(frozen=True)
class NewChunk:
    """A chunk to write; `vector` is float32 (dim,), already L2-normalized, or None: embedded later."""

    ordinal: int
    start: int
    end: int
    page: Optional[int]
    text: str
    text_hash: str
    vector: Optional[np.ndarray]
    repeats: tuple[tuple[int, int, Optional[int]], ...] = ()  # (start, end, page) of the same text further on
