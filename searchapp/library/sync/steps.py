"""The steps of a sync, numbered on its progress reports ("Step 2 of 3"): scanning, reading the files, embedding
their meaning, then OCR where scans wait for it. A person watching "Reading files" could not tell whether it was
nearly done or had the long part still ahead.

Each folder of a sync is scanned and read in turn (steps 1 and 2 again for the next one, named beside them:
"Pictures, 2 of 4"); the meaning of every file is embedded after all are read, and OCR comes last: the meaning of
the text OCR finds is part of the OCR step, never a step back. Whether an OCR step comes is known once the files
are read (`read`: scans wait for it, found now or left by an earlier sync), and asked only then (a look at every
file's row). Until then, where OCR is on, the count is said open ("Step 2 of 3 or 4"), never as a number that
grows: "[2/3] reading files" followed by "[3/4] embedding" read as a new job (a newcomer). Once the files are read
it is exact, and never for a sync without scans does an OCR step come.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from ...base.progress import Progress, ProgressFn

__all__ = ["Steps", "ocr_ahead"]

_READING = {"scanning": 1, "extracting": 2}  # each folder's own


def ocr_ahead(p: Progress, embed: bool = True) -> bool:
    """Whether `p`'s count holds an OCR step still ahead of the step under way (of a sync that embeds, or not:
    `embed`): OCR is the last step, counted only where scans wait for it. "Step 3 of 4" named no step 4, and its
    "about 2 min left" read as the whole sync's, with 193 scans and images still to read by OCR after it (s5)."""
    return bool(p.step) and p.steps == 3 + embed and p.step < p.steps


class Steps:
    """Numbers the reports of one sync; `embed`: whether it embeds (not --words-only); `ocr`: whether an OCR step
    is counted from the start; `ocr_may`: whether one may still come (OCR is on), said until `read`."""

    def __init__(self, embed: bool, ocr: bool, ocr_may: bool = False) -> None:
        self.embed, self.ocr = embed, ocr
        self.open = ocr_may and not ocr  # the count may still grow by the OCR step
        self.step = 0  # the step under way (0 before the first report)

    @property
    def count(self) -> int:
        return 2 + self.embed + self.ocr

    def read(self, ocr: bool) -> None:
        """Every folder is read: whether scans wait for the OCR step now. The count is exact from here."""
        self.ocr, self.open = ocr, False

    def number(self, p: Progress) -> Progress:
        """`p` with its step and the count; a stage of no step of its own (a wait, saving) keeps the step under
        way."""
        step = self._step_of(p.stage)
        if step is not None:
            # after the reading, never back: the meaning of OCR's text is embedded within the OCR step
            self.step = step if p.stage in _READING else max(self.step, step)
        if not self.step:
            return p
        steps = max(self.count, self.step)
        return dataclasses.replace(p, step=self.step, steps=steps, steps_max=steps + 1 if self.open else 0)

    def _step_of(self, stage: str) -> Optional[int]:
        if stage in _READING:
            return _READING[stage]
        if stage in ("searchable", "embedding") and self.embed:
            return 3
        if stage in ("ocr", "rereading"):
            return 3 + self.embed
        return None

    def watching(self, progress: Optional[ProgressFn]) -> Optional[ProgressFn]:
        """`progress` with every report numbered (None stays None)."""
        if progress is None:
            return None
        told: ProgressFn = progress

        def tell(p: Progress) -> None:
            told(self.number(p))

        return tell
