"""The indexing progress strip: stage, counts, time left, what is queued next, and Cancel.

The strip keeps its height when hidden (and whatever it shows): the library's buttons above it never move under
the mouse when it comes or goes."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from ..base.progress import Progress, step_text
from ..base.rate import PAUSED_STAGES, Estimate, RateEstimator, format_rate, left_words
from .elided_label import ElidedLabel
from .plain import tooltip

__all__ = ["ProgressView", "StripRate", "StripLabel", "format_seconds"]

STAGE_NAMES = {"scanning": "Scanning", "extracting": "Reading files", "embedding": "Embedding",
               "searchable": "Searchable by words", "ocr": "Reading scans and images (OCR)",
               "rereading": "Reading scanned PDFs again (this version's reader)",
               "saving": "Saving", "loading": "Loading models"}
# How a stage's counts read, its verb and what it counts: "Reading 120 of 3,000 files" ("Reading files 120 / 3,000"
# left a newcomer to work out what the numbers were). Found so far, where no total is known: "Scanning 1,204 files".
COUNTED = {"scanning": ("Scanning", "files"), "extracting": ("Reading", "files"), "embedding": ("Embedding", "passages"),
           "ocr": ("Reading by OCR", "scans and images"),
           "rereading": ("Reading again", "scanned PDFs (this version's reader)")}


def format_seconds(s: float) -> str:
    s = int(round(s))
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


# the stages whose rate gives a time left: OCR reports files too (library/ocr/step.py), each taking seconds to
# minutes, so its time left matters most
RATE_UNITS = {"extracting": "files", "embedding": "passages", "ocr": "files", "rereading": "files"}


class StripRate:
    """The measured rate and time left of the stage under way (base/rate.py, as the command line and `status`):
    files/s while reading files, passages/s while embedding; another stage starts the count again."""

    def __init__(self) -> None:
        self.estimator = RateEstimator()
        self.stage = ""

    def reset(self) -> None:
        self.estimator.reset()
        self.stage = ""

    def update(self, p: Progress, now: float) -> Optional[Estimate]:
        """The rate and time left of `p`'s stage (a first estimate early on), None until there is evidence enough."""
        if p.stage in PAUSED_STAGES:  # a handover's wait: the pace after it is measured afresh
            self.reset()
        if p.stage not in RATE_UNITS or not p.total:
            return None
        if p.stage != self.stage:
            self.estimator.reset()
            self.stage = p.stage
        self.estimator.update(p.done, now)
        return self.estimator.estimate(p.total, now)


SEP = " — "
QUEUE_WIDTH = 300  # the most "Next: /path" asks for; a longer path is cut in the middle


def counts_text(p: Progress) -> str:
    """"Step 2 of 3 · Reading 120 of 3,000 files": the step first (how many phases are still ahead), then the
    stage's counts (its name alone where there is nothing to count yet)."""
    verb, unit = COUNTED.get(p.stage, (STAGE_NAMES.get(p.stage, p.stage.capitalize()), ""))
    if p.stage == "saving":  # one thing to save: "Saving 0 of 1" counted nothing a person waits for
        counts = verb
    elif p.total:
        counts = f"{verb} {p.done:,} of {p.total:,}" + (f" {unit}" if unit else "")
    else:
        counts = f"{verb} {p.done:,}" + (f" {unit}" if unit else "") if p.done else verb
    return " · ".join(part for part in (step_text(p), counts) if part)


class StripLabel(ElidedLabel):
    """The strip's line: its counts and time left first, always whole ("Step 2 of 3 · Reading 120 of 3,000 files ·
    …"), then what runs (the title, a file's name: cut in the middle when room is short). One label cut in the
    middle lost the counts as soon as a folder was queued beside it ("Indexing home — Searchable by words · …03 —
    5.8 passages/s")."""

    def __init__(self) -> None:
        self._head = self._kept = ""  # (cut first, never cut: the counts, rate and time left)
        super().__init__(mode=Qt.TextElideMode.ElideMiddle)

    def set_full_text(self, text: str) -> None:
        self._head = self._kept = ""
        super().set_full_text(text)

    def set_parts(self, head: str, kept: str) -> None:
        """`kept` first, shown whole whenever it fits at all, then `head`, cut first (in its middle)."""
        self._head, self._kept = head, kept
        ElidedLabel.set_full_text(self, kept + SEP + head if head and kept else head or kept)

    def _elide(self) -> None:
        width, full, fm = self.contentsRect().width(), self.full_text(), self.fontMetrics()
        shown = full
        if width > 0 and fm.horizontalAdvance(full) > width:
            room = width - fm.horizontalAdvance(self._kept + SEP)
            if self._kept and fm.horizontalAdvance(self._kept) <= width:  # the counts whole, what runs if it fits
                fits = self._head and room >= fm.horizontalAdvance("Indexing…")
                shown = self._kept + (SEP + fm.elidedText(self._head, Qt.TextElideMode.ElideMiddle, room) if fits
                                      else "")
            else:  # too narrow even for the counts: they alone, cut in the middle (their start and the time left)
                shown = fm.elidedText(self._kept or full, Qt.TextElideMode.ElideMiddle, width)
        if shown != self.text():
            QLabel.setText(self, shown)


class QueueLabel(ElidedLabel):
    """"Next: /path": as wide as its text up to QUEUE_WIDTH, narrower (cut in the middle, a path keeps its start
    and its name) before the strip's counts give way."""

    def __init__(self) -> None:
        super().__init__(mode=Qt.TextElideMode.ElideMiddle)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:
        # the whole text's width (the shown one is cut: it would never grow back), capped
        m = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self.full_text()) + 2 * self.margin() + m.left() + m.right() + 4
        return QSize(min(width, QUEUE_WIDTH), super().sizeHint().height())


class ProgressView(QWidget):
    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        # Shows file names, counts and the time left: the names are cut (the counts and the time left stay) rather
        # than make the window wider than a small screen (its ~860 px widened the window mid-sync); whole in
        # the tooltip.
        self.label = StripLabel()
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
        self.queued = QueueLabel()
        self.queued.setObjectName("progressQueued")
        self.queued.setContentsMargins(12, 0, 0, 0)  # apart from the time left before it
        self.queued.hide()
        self.eta = StripRate()
        self.eta_seconds: Optional[float] = None
        self.rate: Optional[float] = None  # units/s of the stage shown (RATE_UNITS), once measured
        self.estimate: Optional[Estimate] = None  # its rate and time left, and whether a first estimate
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.queued)  # its own width; the line beside it takes the rest
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
        self.eta_seconds = self.rate = self.estimate = None
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
        self.estimate = est = self.eta.update(p, now)
        self.rate, self.eta_seconds = (None, None) if est is None else (est.rate, est.left)
        # The bar measures the step under way, not the whole sync, and says so ("Step 3 of 3: 4%"): a bare "16%"
        # then "4%" at the next step read as the sync going backwards (a newcomer, n7). A whole-sync bar would
        # need each step's share of the time, which no report knows: reading 3,000 notes takes seconds where
        # their embedding takes minutes on a CPU, and one scan's OCR minutes more; weights guessed from counts
        # would stall or leap where the guess is wrong, and the counts and the time left beside the bar are the
        # step's own. So the bar starts over with each step, visibly: its own words name the step.
        step = step_text(p)
        self.bar.setFormat(f"{step}: %p%" if step else "%p%")
        if p.total:
            self.bar.setRange(0, p.total)
            self.bar.setValue(min(p.done, p.total))
        else:
            self.bar.setRange(0, 0)
        counts = counts_text(p)
        # The counts first (the step, then how far it is: kept whole), then what runs, cut when room is short:
        # "Step 2 of 3 · Reading 49 of 94 files · 3.1 files/s, about 1 min left — Re-syncing — report.pdf".
        head = [title]
        if p.stage == "embedding" and p.message:  # phase 2: "Searchable by words · meaning: 37% of passages"
            # One percentage on the strip, the bar's (this run's passages): the library-wide "meaning: N%" beside
            # it counted other passages, moved in steps, and read as a contradiction ("10%" by a bar at 18%).
            said = " · ".join(part for part in p.message.split(" · ") if not part.startswith("meaning: "))
            head.append(said[:1].upper() + said[1:])
        elif p.message and not p.slow:  # a file read for long is named in the counts' place of the time left
            head.append(p.message)
        if p.stage not in COUNTED and p.message and not p.total:  # a wait: what it waits for, after it
            stage = STAGE_NAMES.get(p.stage, p.stage.capitalize())
            self.label.set_parts(SEP.join(h for h in (title, stage, *head[1:]) if h), "")
            return
        kept = [counts]
        if p.slow:  # "reading big-scan.pdf, 40 s…": one file's seconds, not a pace (it would only fall)
            kept.append(p.slow)
        elif est is not None:  # "8.1 passages/s, about 12 min left": measured, not a constant
            kept.append(f"{format_rate(est.rate)[:-2]} {RATE_UNITS[p.stage]}/s, {left_words(est)}")
        self.label.set_parts(SEP.join(h for h in head if h), " · ".join(k for k in kept if k))
