"""Progress reports and cooperative cancellation for long jobs (checked between batches)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Optional

from .errors import Cancelled

__all__ = ["Progress", "ProgressFn", "CancelToken", "report", "step_text", "LOADING_NOTE"]

# Said beside the embedding progress while the sync's first batch waits for the model to load (a newcomer's bar sat
# at "0/48" for 5 s with no word of why): library/sync/meaning_rate.aside_note says it, the CLI's bar shows it.
LOADING_NOTE = "loading the model first"


@dataclass(frozen=True)
class Progress:
    stage: str  # "scanning", "extracting", "embedding", "saving", ...
    done: int
    total: Optional[int] = None
    message: str = ""
    # Which folder a scanning or reading report is about, where one sync reads several ("Pictures, 2 of 4"):
    # `index A B C D` drew four scanning bars that read alike. Empty when the sync reads one folder.
    folder: str = ""
    # Which step of the sync this is, of how many ("Step 2 of 3": scanning, reading, embedding, OCR where scans
    # wait): a person reading "Reading files" could not tell how many phases were still ahead. 0 where no step is
    # known (a report outside a sync). library/sync/steps.py numbers them.
    step: int = 0
    steps: int = 0
    # More than `steps` where the count is not known yet: up to this many ("Step 2 of 3 or 4": scans may wait for
    # OCR, known once every file is read). A count said as 3 that became 4 mid-sync read as a new job (a newcomer).
    steps_max: int = 0
    # The file being read when it has taken a while ("big-scan.pdf, 40 s"): a 400-page scan read for minutes
    # looked like a hang. Empty otherwise. library/sync/slow_read.py says it.
    slow: str = ""


ProgressFn = Callable[[Progress], None]


def step_text(p: Progress, short: bool = False) -> str:
    """"Step 2 of 3", as the window's strip and the command line's bar both say it ("" where no step is known),
    "Step 2 of 3 or 4" while the count is open; `short`: "[2/3]" and "[2/3-4]", for a terminal too narrow for the
    rest of the bar beside the long one."""
    if not p.step:
        return ""
    if p.steps_max > p.steps:
        return f"[{p.step}/{p.steps}-{p.steps_max}]" if short else f"Step {p.step} of {p.steps} or {p.steps_max}"
    return f"[{p.step}/{p.steps}]" if short else f"Step {p.step} of {p.steps}"


class CancelToken:
    """Set from any thread; long jobs call `check()` between batches."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled("cancelled")


def report(progress: Optional[ProgressFn], stage: str, done: int, total: Optional[int] = None, message: str = "") -> None:
    if progress is not None:
        progress(Progress(stage, done, total, message))
