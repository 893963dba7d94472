"""Each file's wall-clock budget in a sync (config scan.file_budget_s): a small hostile file must not hold a
sync for minutes or hours (issue 40: a 7 KB PDF, a mail header, a TIFF's frame list).

Two ways it is kept. Where a file is read in the sync's own process, its extraction gets a cancel token that
also fires when the budget is spent (FileBudget): every extractor checks its token between pages, messages,
elements, so it stops there. Where a file is read in the read-ahead worker process (read_ahead.py), the worker
is killed once a file is past its budget, whatever it is doing (C code that never checks a token), and a new one
goes on with the files after it. Either way the file is recorded as failed, "took too long (N s)", and the next
sync tries it again.
"""

from __future__ import annotations

import time
from typing import Optional

from ...base.progress import CancelToken

__all__ = ["FileBudget", "too_long"]


def too_long(seconds: float) -> str:
    """The reason recorded for a file past its budget."""
    return f"took too long ({seconds:g} s)"


class FileBudget(CancelToken):
    """A cancel token for one file's extraction: cancelled by the sync's own token, or once `seconds` passed."""

    def __init__(self, inner: Optional[CancelToken], seconds: float) -> None:
        super().__init__()
        self.inner, self.seconds = inner, float(seconds)
        self.deadline = time.monotonic() + self.seconds

    @property
    def expired(self) -> bool:
        """The budget is spent (and the sync itself was not cancelled: a cancel is no file's failure)."""
        return time.monotonic() >= self.deadline and not (self.inner is not None and self.inner.cancelled)

    @property
    def cancelled(self) -> bool:
        return (self.inner is not None and self.inner.cancelled) or time.monotonic() >= self.deadline

    def check(self) -> None:
        if self.inner is not None:
            began = time.monotonic()
            self.inner.check()  # the sync's token raises its own Cancelled, and may step aside for a search:
            self.deadline += time.monotonic() - began  # that wait is not this file's time
        if time.monotonic() >= self.deadline:
            super().cancel()
        super().check()
