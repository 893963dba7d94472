"""The indexing progress strip: stage, counts, time left, what is queued next, and Cancel.

The strip keeps its height when hidden (and whatever it shows): the library's buttons above it never move under
the mouse when it comes or goes."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from ..base.member_paths import display_name
from ..base.progress import Progress, step_text
from ..base.rate import PAUSED_STAGES, Estimate, RateEstimator, format_rate, left_words
from ..library.report.not_indexed import STATE_WORDS, PAGES_WAITING, pages_waiting_in
from ..library.report.status import LibraryStatus
from ..library.sync.steps import ocr_ahead
from .elided_label import ElidedLabel
from .plain import tooltip

__all__ = ["ProgressView", "StripRate", "StripLabel", "format_seconds", "scans_waiting"]

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
AHEAD = " · "  # before the step still ahead, as between the counts' own parts
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
    …"), then the step still ahead where one is named ("then step 4: OCR of 193 scans and images", or a shorter
    way to say it, whole or not at all: "OCR of 19…" read as 19), then what runs (the title, a file's name: cut in
    the middle when room is short). One label cut in the middle lost the counts as soon as a folder was queued
    beside it ("Indexing home — Searchable by words · …03 — 5.8 passages/s")."""

    def __init__(self) -> None:
        self._head = self._kept = ""  # (cut first, never cut: the counts, rate and time left)
        self._ahead: tuple[str, ...] = ()  # the step still ahead, said whole: the longest way that fits
        super().__init__(mode=Qt.TextElideMode.ElideMiddle)

    def set_full_text(self, text: str, mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> None:
        """`text` alone, cut in its middle (`mode`: elsewhere) when room is short."""
        self._head = self._kept = ""
        self._ahead = ()
        self._mode = mode
        super().set_full_text(text)

    def set_parts(self, head: str, kept: str, ahead: tuple[str, ...] = ()) -> None:
        """`kept` first, shown whole whenever it fits at all, then the first of `ahead` (ways to say the step
        still ahead, longest first, after " · ") that fits whole, then `head`, cut first (in its middle)."""
        self._head, self._kept, self._ahead = head, kept, ahead if kept else ()
        kept = kept + AHEAD + self._ahead[0] if self._ahead else kept
        ElidedLabel.set_full_text(self, kept + SEP + head if head and kept else head or kept)

    def kept_width(self) -> int:
        """What the counts, rate and time left and the step ahead need (0: none shown): what a label beside this one
        leaves it."""
        kept = self._kept + AHEAD + self._ahead[0] if self._ahead else self._kept
        return self.fontMetrics().horizontalAdvance(kept) + 8 if kept else 0

    def _elide(self) -> None:
        width, full, fm = self.contentsRect().width(), self.full_text(), self.fontMetrics()
        shown = full
        if width > 0 and fm.horizontalAdvance(full) > width:
            if self._kept and fm.horizontalAdvance(self._kept) <= width:  # the counts whole, then what fits
                shown = self._kept
                room = width - fm.horizontalAdvance(shown)
                ahead = next((AHEAD + a for a in self._ahead if fm.horizontalAdvance(AHEAD + a) <= room), "")
                shown, room = shown + ahead, room - fm.horizontalAdvance(ahead) - fm.horizontalAdvance(SEP)
                if self._head and room >= fm.horizontalAdvance("Indexing…"):
                    shown += SEP + fm.elidedText(self._head, Qt.TextElideMode.ElideMiddle, room)
            else:  # too narrow even for the counts: they alone, cut in the middle (their start and the time left)
                shown = fm.elidedText(self._kept or full, self._mode if not self._kept else
                                      Qt.TextElideMode.ElideMiddle, width)
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
        self.scans = (0, "")  # the scans and images waiting for OCR, and the name of the one (scans_waiting)
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

    def show_scans_waiting(self, scans: tuple[int, str]) -> None:
        """What the library's status says waits for OCR (scans_waiting): the OCR step still ahead is named by it."""
        self.scans = scans

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._share()

    def _share(self) -> None:
        """"Next: …" beside the line takes what the counts and the step ahead leave it (at 900 px it kept its width
        and the counts were cut: "Step 2 of 3 · Reading …es/s, about 1 min left"); under a few words' width it
        hides (the Cancel button's tooltip says what runs next)."""
        if not self.queued.full_text():
            return
        room = self.label.width() + (self.queued.width() if self.queued.isVisible() else 0)
        left = room - self.label.kept_width()
        self.queued.setMaximumWidth(max(0, min(QUEUE_WIDTH, left)))
        self.queued.setVisible(left >= self.fontMetrics().horizontalAdvance("Next: /a/b…") + 12)

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
        self._share()

    def show_outcome(self, text: str) -> None:
        """The strip stays with `text` (what a cancelled job kept) until OK or the next job; cut at its end, what
        was kept and left out first (cut in its middle, "53 not indexed (46 of them waiting for OCR)" lost its
        count: "53 n…dexed says why"); whole on hover. The one place it is said (write_jobs.py: _on_cancelled)."""
        self.label.set_full_text(text, Qt.TextElideMode.ElideRight)
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
        self.label.set_parts(SEP.join(h for h in head if h), " · ".join(k for k in kept if k), self._ocr_ahead(p))
        self._share()

    def _ocr_ahead(self, p: Progress) -> tuple[str, ...]:
        """The OCR step still ahead, named: "then step 4: OCR of scan.pdf", or shorter where room is short (none
        when no step is ahead). The step's time left beside the counts is its own: the scans' OCR comes after it."""
        if not ocr_ahead(p):
            return ()
        n, name = self.scans
        what = name if n == 1 and name else f"{n:,} scans and images" if n else "the scans and images waiting"
        return f"then step {p.steps}: OCR of {what}", f"then step {p.steps}: OCR", "then OCR"


def scans_waiting(st: LibraryStatus) -> tuple[int, str]:
    """(how many entries the OCR step reads: scans and images waiting, and indexed PDFs whose pages wait; the
    name of the one, when there is one) from the library's status."""
    n = st.files_ocr_pending + st.members_ocr_pending + pages_waiting_in(st.not_indexed, st.member_groups)
    words = {STATE_WORDS["ocr_pending"], STATE_WORDS[PAGES_WAITING]}
    rows = [path for path, state, _ in st.not_indexed if state in words]
    return n, (display_name(rows[0]) if n == 1 and len(rows) == 1 else "")
