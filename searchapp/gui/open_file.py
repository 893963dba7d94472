"""Open file, off the GUI thread: a file on disk is handed over at once; a member of a container is first read
again from its container and copied alone to a private folder (library/members/private_copy.py), which may
take seconds on a large or hostile archive, so that runs on a worker while the button says it is busy.
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Optional

from PySide6.QtCore import QObject, QUrl, Signal

from ..base.member_paths import split_member
from ..base.stored_names import disk_bytes
from ..base.types import Hit
from ..library.members.private_copy import open_copy
from .workers import JobRunner

__all__ = ["FileOpener", "local_url", "disk_url"]


def disk_url(path: str) -> QUrl:
    """The file URL of `path` (absolute, as the library stores names). A name that is not UTF-8 is written from its
    exact bytes, percent-encoded (QUrl.fromLocalFile made its bytes U+FFFD, a file that is not there): the
    desktop's opener decodes them back to the bytes (decision 0179)."""
    raw = disk_bytes(path)
    if raw is None:
        return QUrl.fromLocalFile(path)
    return QUrl.fromEncoded(b"file://" + urllib.parse.quote_from_bytes(raw, safe="/").encode("ascii"))


def local_url(hit: Hit, local: str) -> QUrl:
    """The URL of `local` (the hit's file, or a member's private copy); PDFs carry #page=N, which viewers that
    understand it open at that page."""
    url = disk_url(local)
    if hit.page and hit.path.lower().endswith(".pdf"):
        url.setFragment(f"page={hit.page}")
    return url


class FileOpener(QObject):
    """`open(hit)` ends in `opened(url)` (hand it to the system) or `failed(message)`; `busy(bool)` around a
    member's copy. One worker thread of its own: an Open never waits behind a search or a sync."""

    opened = Signal(QUrl)
    failed = Signal(str)
    busy = Signal(bool)

    def __init__(self, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.runner = JobRunner(self, read_threads=1)
        self.pending = 0

    def open(self, hit: Hit) -> None:
        if split_member(hit.path)[1] is None:
            self.opened.emit(local_url(hit, os.path.abspath(hit.path)))
            return
        self.pending += 1
        if self.pending == 1:
            self.busy.emit(True)
        self.runner.submit(lambda p, c: open_copy(hit.path), name="open",
                           on_success=lambda copy: self.opened.emit(local_url(hit, str(copy))),
                           on_error=lambda exc, tb: self.failed.emit(f"cannot open it now: {exc}"),
                           on_done=self._done)

    def _done(self) -> None:
        self.pending -= 1
        if self.pending == 0:
            self.busy.emit(False)
