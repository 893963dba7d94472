"""Whether an entry was read by an older reader than this version's (decision 0152): its bytes may be the same,
but this version reads its format differently (a fix that finds words the old one missed), so a sync reads it
again. Failed entries are read again anyway; images have no reader (OCR caches by its engine's version); an entry
some of whose text came from OCR is read again by the OCR step, not here (its OCR'd passages would be dropped
until the OCR step put them back from its cache, and embedded again)."""

from __future__ import annotations

import os
from typing import Iterable

from ...ingest.extractors import reader_version
from ...ingest.extractors.embedded import DOCUMENT_SUFFIXES
from ...store import FileRow

__all__ = ["newer_reader", "newer_reader_of_any", "read_by_older", "ocrd_by_older"]


def newer_reader(old: FileRow) -> bool:
    """Whether the sync's words pass reads the entry again for a newer reader (read_by_older applies to it, it
    has not failed, and none of its text came from OCR: the OCR step reads those again, library/ocr/step.py)."""
    return old.status != "failed" and old.ocr != "done" and read_by_older(old)


def read_by_older(old: FileRow) -> bool:
    """Whether this version's reader of the entry's format is newer than the one its row was read with (a row
    from before 0152 knows none: read once more)."""
    now = reader_version(old.path)
    return now is not None and (old.reader is None or old.reader < now)


def newer_reader_of_any(rows: Iterable[FileRow]) -> bool:
    """newer_reader of a container's members: the container is read again for them."""
    return any(newer_reader(r) for r in rows)


def ocrd_by_older(old: FileRow) -> bool:
    """Whether the entry is a document (a scanned PDF) some of whose text came from OCR, read by an older reader:
    the OCR step reads its text again, and the words pass reads only the files it may hold (decision 0203), which
    an older reader may not have looked for (decision 0189: they came only with the file's next change)."""
    return (old.ocr == "done" and old.status != "failed" and read_by_older(old)
            and os.path.splitext(old.path)[1].lower() in DOCUMENT_SUFFIXES)
