"""The indexing progress strip: stage, counts, time left, what is queued next, and Cancel.

The strip keeps its height when hidden (and whatever it shows): the library's buttons above it never move under
the mouse when it comes or goes."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QSizePolicy, QWidget

from ..base.progress import Progress
from ..base.rate import PAUSED_STAGES, RateEstimator, format_left, format_rate
from .elided_label import ElidedLabel
from .plain import tooltip

__all__ = ["ProgressView", "StripRate", "format_seconds"]

STAGE_NAMES = {"scanning": "Scanning", "extracting": "Reading files", "embedding": "Embedding",
               "searchable": "Searchable by words", "ocr": "Reading scans and images (OCR)",
               "saving": "Saving", "loading": "Loading models"}


def format_seconds(s: float) -> str:
    s = int(round(s))
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


RATE_UNITS = {"extracting": "files", "embedding": "passages"}  # the stages whose rate gives a time left


class StripRate:
    """The measured rate and time left of the stage under way (base/rate.py, as the command line and `status`):
    files/s while reading files, passages/s while embedding; another stage starts the count again."""

    def __init__(self) -> None:
        self.estimator = RateEstimator()
        self.stage = ""

    def reset(self) -> None:
        self.estimator.reset()
        self.stage = ""

    def update(self, p: Progress, now: float) -> tuple[Optional[float], Optional[float]]:
        """(units/s, seconds left) of `p`'s stage, each None until there is evidence enough."""
        if p.stage in PAUSED_STAGES:  # a handover's wait: the pace after it is measured afresh
            self.reset()
        if p.stage not in RATE_UNITS or not p.total:
            return None, None
        if p.stage != self.stage:
            self.estimator.reset()
            self.stage = p.stage
        self.estimator.update(p.done, now)
        return self.estimator.rate(), self.estimator.left(p.total, now)


class ProgressView(QWidget):
    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        # Shows file names, counts and the time left: cut in the middle (the title and the time left stay) rather
        # than make the window wider than a small screen (its ~860 px widened the window mid-sync); whole in
        # the tooltip.
        self.label = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.label.setObjectName("progressLabel")
        self.bar = QProgressBar()
        self.bar.setObjectName("progressBar")
        self.bar.setMinimumWidth(240)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelButton")
        self.dismiss_button = QPushButton("OK")  # after a cancel: the strip keeps saying what was kept
        self.dismiss_button.setObjectName("progressDismiss")
        self.dismiss_button.clicked.connect(self.hide)
        self.dismiss_button.hide()
        # Writes asked for during this one (a drop, Add Folder, Re-sync): they run next, in order, and say so.
        self.queued = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)  # a path keeps its start and its name
        self.queued.setObjectName("progressQueued")
        self.queued.setMaximumWidth(420)
        self.queued.hide()
        self.eta = StripRate()
        self.eta_seconds: Optional[float] = None
        self.rate: Optional[float] = None  # units/s of the stage shown (RATE_UNITS), once measured
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.queued, 1)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel_button)
        lay.addWidget(self.dismiss_button)
        # One height whatever it shows, kept while hidden: nothing above it moves when it comes or goes.
        self.setFixedHeight(max(w.sizeHint().height() for w in (self.label, self.bar, self.cancel_button,
                                                                 self.dismiss_button)) + 4)
        policy = self.sizePolicy()
        policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)

    def start(self, title: str) -> None:
        self.eta.reset()
        self.eta_seconds = self.rate = None
        self.label.set_full_text(title)
        self.bar.setRange(0, 0)  # busy until the first report says how much there is
        self.bar.show()
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()
        self.dismiss_button.hide()
        self.show()

    def show_queued(self, waiting: list[str]) -> None:
        """`waiting`: what runs after the write under way, in order ("Next: /path, then 2 more")."""
        self.cancel_button.setToolTip("Stop this one now; what is queued after it still runs. Everything indexed so "
                                      "far is kept" if waiting else "Stop now; everything indexed so far is kept")
        if not waiting:
            self.queued.set_full_text("")
            self.queued.hide()
            return
        more = len(waiting) - 1
        self.queued.set_full_text(f"Next: {waiting[0]}" + (f", then {more} more" if more else ""))
        self.queued.setToolTip(tooltip("Queued, run in this order after the current one:\n" + "\n".join(waiting)))
        self.queued.show()

    def show_outcome(self, text: str) -> None:
        """The strip stays with `text` (what a cancelled job kept) until OK or the next job."""
        self.label.set_full_text(text)
        self.bar.hide()
        self.cancel_button.hide()
        self.dismiss_button.show()
        self.show()

    def show_progress(self, title: str, p: Optional[Progress], now: float) -> None:
        if p is None:
            return
        stage = STAGE_NAMES.get(p.stage, p.stage.capitalize())
        self.rate, self.eta_seconds = self.eta.update(p, now)
        if p.total:
            self.bar.setRange(0, p.total)
            self.bar.setValue(min(p.done, p.total))
            counts = f"{p.done:,} / {p.total:,}"
        else:
            self.bar.setRange(0, 0)
            counts = f"{p.done:,}" if p.done else ""
        parts = [title, stage + (f" {counts}" if counts else "")]
        if p.stage == "embedding" and p.message:  # phase 2: "Searchable by words · meaning: 37% of passages"
            # One percentage on the strip, the bar's (this run's passages): the library-wide "meaning: N%" beside
            # it counted other passages, moved in steps, and read as a contradiction ("10%" by a bar at 18%).
            said = " · ".join(part for part in p.message.split(" · ") if not part.startswith("meaning: "))
            parts = [title, said[:1].upper() + said[1:], stage + (f" {counts}" if counts else "")]
        elif p.message:
            parts.append(p.message)
        if self.rate is not None:  # "8.1 passages/s, about 12 min left": measured, not a constant
            pace = f"{format_rate(self.rate)[:-2]} {RATE_UNITS[p.stage]}/s"
            parts.append(pace + ("" if self.eta_seconds is None else f", about {format_left(self.eta_seconds)} left"))
        self.label.set_full_text(" — ".join(parts))
