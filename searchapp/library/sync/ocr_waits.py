"""The text pass's side of OCR: which files wait for the OCR step (library/ocr/step.py), and how they wait.

No OCR happens here: an image, or a PDF with pages lacking a text layer, is recorded with files.ocr =
'pending' (a PDF's text layer is indexed at once as usual) and the OCR step reads it after the text of
every file is indexed, so one slow scan never holds back the rest of a folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from ...base.config import Config
from ...base.types import Document
from ...ingest.extractors import reader_version
from ...ingest.ocr.images import image_suffixes
from ...ingest.ocr.pdf_pages import pages_needing_ocr
from ...store import RootRow, Store
from ...store.ledger import pending_ocr_files, set_entry_date, set_ocr_state
from ...store.ocr_cache import OCR_CACHE_NAME, OcrCache
from .batches import rewrite_entry

if TYPE_CHECKING:
    from ...ingest.scan import ScannedFile
    from ...store import FileRow
    from .contract import IndexWriter, SyncReport

__all__ = ["read_from_cache", "NO_TEXT", "OCR_FILES_PER_SYNC", "OCR_OFF", "PENDING", "WAITING", "image_ocr_off",
           "ocr_turned_on", "waits_for_ocr", "pdf_waits_for_ocr", "record_waiting"]

WAITING = "waiting for OCR"  # files.error of an entry whose only text will come from OCR
NO_TEXT = "no text found"  # files.error of a document read to no text (a scan read while OCR was off, ...)
PENDING = "pending"  # files.ocr of an entry whose pages wait for the OCR step
# files.ocr of a PDF with pages of no text layer, read while [scan] ocr was off: read again once it is on. A scan
# indexed with OCR off kept "no text found" (or its text layer alone) after OCR was turned on, for ever: the sync
# called it unchanged, and only images, never opened before, went to the OCR step.
OCR_OFF = "off"


def image_ocr_off(path: str | os.PathLike[str], config: Config) -> Optional[str]:
    """Why an image is not read while [scan] ocr is off (said of an archive's or a mail's image, which is an entry
    where an image file is not opened at all), else None. Said "unsupported type ".png"" before, as if no setting
    could read it."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if config.scan.ocr or suffix not in image_suffixes():
        return None
    return f'image "{suffix}": read only by OCR, which is off ([scan] ocr = false)'


def waits_for_ocr(path: str | os.PathLike[str], config: Config) -> bool:
    """An image file, read only by OCR (when scan.ocr is on)."""
    return bool(config.scan.ocr) and os.path.splitext(os.fspath(path))[1].lower() in image_suffixes()


def pdf_waits_for_ocr(doc: Document, config: Config) -> Optional[str]:
    """PENDING for a PDF with pages whose text layer has (almost) no letters, OCR_OFF for one while [scan] ocr is
    off, else None."""
    if doc.kind != "pdf" or not doc.pages or not pages_needing_ocr(doc, len(doc.pages)):
        return None
    return PENDING if config.scan.ocr else OCR_OFF


def ocr_turned_on(old: FileRow, config: Config) -> bool:
    """Whether an entry read while [scan] ocr was off waits for OCR now that it is on: a PDF marked OCR_OFF, one
    read to no text before that mark existed (a no-text PDF read with OCR on is 'done' or pending, never unmarked),
    or an image in an archive or a mail left out for it."""
    if not config.scan.ocr:
        return False
    if old.status == "skipped" and os.path.splitext(old.path)[1].lower() in image_suffixes():
        # an archive's or a mail's image (an image file is not opened while OCR is off: new to this sync); one
        # read before image_ocr_off said why was "unsupported type"
        return (old.error or "").startswith(("image ", "unsupported type"))
    return old.ocr == OCR_OFF or (old.ocr is None and old.error == NO_TEXT and old.kind == "pdf")


def record_waiting(store: Store, root: RootRow, old: Optional[FileRow], path: str, f: ScannedFile, sha: str, kind: str,
                   index: IndexWriter, rep: SyncReport,
                   date_ns: Optional[int] = None) -> None:
    """Record an entry with no text yet and files.ocr = 'pending' (its old passages, if any, are dropped);
    `date_ns`: the entry's own date (an image attached to a dated message), kept when OCR gives it text."""
    rep.skipped += 1  # counted like a skip until OCR gives it text: scanned = added + updated + ... holds
    rep.ocr_pending += 1  # and said as waiting (SyncReport.said)
    rep.waiting.append(path)  # the OCR step of this sync moves it to added when it does

    def write() -> None:
        file_id = store.upsert_file(root.id, path, f.size, f.mtime_ns, sha, "skipped", WAITING, kind, 0,
                                    ctime_ns=f.ctime_ns, reader=reader_version(path))
        set_ocr_state(store, file_id, "pending")
        if date_ns is not None:
            set_entry_date(store, file_id, date_ns)

    rep.chunks_removed += rewrite_entry(store, index, old.id if old is not None else None, write)


OCR_FILES_PER_SYNC = 10_000  # the OCR step's MAX_FILES_PER_SYNC (library/ocr/step.py, which imports this package)


def read_from_cache(store: Store, config: Config, data_dir: Path | str,
                    root_ids: Optional[Sequence[int]] = None) -> list[int]:
    """The files (files.id) waiting for OCR whose bytes the OCR cache has read already (`root_ids`: as
    pending_ocr_files'): the meaning pass before the OCR step leaves their passages waiting. That step rewrites
    them from the cache in moments, and a text layer's page its OCR text replaces would be embedded for nothing:
    `moved` of a newcomer's folder of PDFs embedded 2 such passages, the model loaded for them, where it promised
    none. The pass after the OCR step embeds whatever still waits."""
    if not config.scan.ocr:
        return []
    rows = [r for r in pending_ocr_files(store, OCR_FILES_PER_SYNC, root_ids) if r.sha256]
    if not rows or not (Path(data_dir) / OCR_CACHE_NAME).is_file():  # nothing read by OCR here yet
        return []
    cache = OcrCache(data_dir, read_only=True)
    try:
        hit = cache.cached(r.sha256 for r in rows if r.sha256)
    finally:
        cache.close()
    return [r.id for r in rows if r.sha256 in hit]
