"""Writes to the library (add a folder, re-sync, remove, re-index) as jobs on the window's write queue,
with the progress strip, Cancel, and the status-line summary of what a sync did.

A write asked for while another runs (a folder dropped mid-sync, Add Folder, Re-sync) waits its turn: the strip
says what comes next ("Next: /path") and the status line that it was queued, so nothing is taken in silently.
While a write runs, `countsDue` asks every COUNTS_S for the library's counts: the pane lists a new folder and
its files as they are committed, not only when the sync ends.

Each write says what it may change (a cancelled or failed one may have changed part of it); when the last
queued write ends, their Changes go out together and every part refreshes what it shows.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Optional

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QMessageBox

from ..base.errors import HeldElsewhere
from ..base.plural import counted, entry_counts
from ..base.progress import Progress
from ..library.report.status import scanned_counts
from ..library.shared import SharedLibrary
from ..library.resources.lock import writer_holder_info
from ..library.sync.handover import WAITING
from .big_folder import BigFolderCheck
from .changes import Changes
from .library_session import LibrarySession
from .progress_view import ProgressView
from .window_tools import WindowTools
from .undo_remove import UNDO_SECONDS, UndoRemove
from .workers import Job, JobFn

if TYPE_CHECKING:
    from ..library import SyncReport
    from ..library.sync.moved import Moved

__all__ = ["WriteJobs", "POLL_MS", "COUNTS_S", "cancel_summary", "not_indexed_count"]

POLL_MS = 100  # how often the newest progress report is shown
COUNTS_S = 2.0  # how often the library's counts are read again while a write runs (one read at a time)
FIRST_COUNTS_S = 0.5  # the first time, soon after a write starts: a folder just added is listed at once


def cancel_summary(rep: Optional[SyncReport]) -> str:
    """What a cancelled sync kept, from its SyncReport (None: it stopped before it did anything to say)."""
    if rep is None:
        return "Cancelled; everything indexed so far is kept. Re-sync (F5) goes on where it stopped."
    # files and items in archives and mail apart, as the pane beside it counts them ("937 + 376")
    text = f"Cancelled; {entry_counts(rep.added + rep.updated, rep.members_written, grouped=True)} done"
    if rep.chunks_pending:
        text += (f" ({rep.chunks_pending:,} passage{'' if rep.chunks_pending == 1 else 's'} still to embed: "
                 "found by their words meanwhile)")
    # Counted as a finished sync's summary counts them and the Not indexed button beside it does: the listed
    # problems alone said "6 not indexed" beside "Not indexed: 51 + 1" (the 46 others waited for OCR; a newcomer)
    bad, waiting = not_indexed_count(rep), rep.ocr_pending - rep.moved_waiting
    if bad:  # else said by no one: its summary never comes (Not indexed lists them, with the reasons)
        text += (f"; {bad:,} not indexed" + (f" ({waiting:,} of them waiting for OCR)" if waiting else "")
                 + ": Not indexed says why")
    # "the rest on the next sync" read as files left over when every file was read and only meaning was
    return text + ". Re-sync (F5) goes on where it stopped."


def not_indexed_count(rep: SyncReport) -> int:
    """The entries `rep`'s sync met and left not indexed, as the Not indexed button counts them (failed, skipped,
    waiting for OCR, read without words), not those left out on purpose (a secret, an empty file)."""
    return rep.skipped + rep.failed - rep.quiet


def _stopped_before(rep: SyncReport) -> str:
    """What an earlier sync, stopped (Cancel, the window closed, a crash), left out and never said: "; the last sync
    stopped after 1,204 of 3,000 files: 3 files could not be read (Not indexed lists them)"."""
    from ..library.sync.unsaid import unsaid_counts, stopped_head

    before = rep.stopped_before
    if before is None:
        return ""
    return f"; {stopped_head(before)}: {unsaid_counts(before)} (Not indexed lists them)"


class WriteJobs(QObject):
    idle = Signal()  # the last queued write ended (its Changes were just announced)
    syncStarted = Signal()  # a write that reads folders (add, re-sync, re-index) began
    addsWaiting = Signal(list)  # the folders added but not started yet (a quit or a crash must not lose them)
    countsDue = Signal()  # a write is running: the library's counts may have moved since they were read
    holdEnded = Signal()  # the person asked for a write after a Cancel: the window's own writes may run again

    def __init__(self, tools: WindowTools, session: LibrarySession, progress: ProgressView) -> None:
        super().__init__(tools.parent)
        self.tools, self.session, self.progress = tools, session, progress
        self.pending = Changes()  # what the writes ended since the queue was last empty changed
        self.outcome = ""  # what a cancelled write kept, said in the strip once the queue is empty
        self.summary_line = ""  # the last sync's summary, as sync_done said it in the status line
        self.own: set[int] = set()  # ids of the window's own writes (folder_watch.py), not asked for by the person
        self.poll = QTimer(self, interval=POLL_MS)
        self.poll.timeout.connect(self._poll_progress)
        progress.cancel_button.clicked.connect(self.cancel)
        self.big_folders = BigFolderCheck(tools, session)  # a big folder: its size, time, what to leave out
        self.undo = UndoRemove(tools, session, self.submit)  # the last Remove, for a minute
        self.targets: dict[int, str] = {}  # job id -> what the queue calls it (a folder's path, "Re-sync all")
        self.scopes: dict[int, Optional[tuple[str, ...]]] = {}  # job id -> the folders it syncs (None: all of them)
        self.adds: dict[int, str] = {}  # job id -> the folder an Add queued
        self.stopped: dict[int, str] = {}  # job id -> what its Cancel says, when not a sync's usual words
        self.ended: dict[int, Callable[[], None]] = {}  # job id -> what to call once it has ended, however
        self._counts_at = 0.0  # when the counts were last asked for during this write
        # After the person's Cancel, the window's own writes (folder_watch.py: updates, catch-ups) wait until the
        # person asks for a write again: a catch-up queued behind a cancelled Add read the folder and embedded its
        # 795 passages anyway (a newcomer). `hold_note`: what the Cancel's line adds about them (watching or not).
        self.on_hold = False
        self._holding_for: Optional[int] = None  # the job whose Cancel began the hold, until it ends cancelled
        self.hold_note: Callable[[], str] = lambda: ""

    def submit(self, title: str, fn: JobFn, changes: Changes, on_success: Optional[Callable[[Any], None]] = None,
               target: str = "", scope: Optional[tuple[str, ...]] = (), stopped: str = "",
               ended: Optional[Callable[[], None]] = None, own: bool = False,
               on_error: Optional[Callable[[BaseException, str], None]] = None) -> Job:
        """Queue a write called `title` in the strip; `target`: what the queue shows while it waits (`title`);
        `scope`: the folders it syncs (None: every one), "syncing…" in the library pane while it runs; `stopped`:
        what a Cancel of it says (default: what the sync kept, cancel_summary); `ended`: called once it has ended,
        done, failed or cancelled; `own`: the window's own write, not the person's (which ends a hold); `on_error`:
        what a failure shows (default: the error dialog)."""
        ends_hold = not own and self.on_hold
        self.on_hold = self.on_hold and not ends_hold
        self._holding_for = None if ends_hold else self._holding_for
        runner = self.tools.runner
        ahead = runner.write_jobs()
        job: Job = runner.submit(fn, write=True, name=title, on_success=on_success,
                                 on_error=on_error or self.tools.report_error,
                            on_cancel=lambda: self._on_cancelled(job), on_started=self._started,
                            on_done=lambda: self._done(job.id, changes))
        self.targets[job.id] = target or title
        self.scopes[job.id] = scope
        if own:
            self.own.add(job.id)
        if stopped:
            self.stopped[job.id] = stopped
        if ended is not None:
            self.ended[job.id] = ended
        if ahead:  # it waits its turn: said, and shown in the strip
            before = ahead[-1].name
            self.tools.say(f"Queued: {target or title} — runs after {before[:1].lower() + before[1:]}", 8000)
            self._show_queue()
        if ends_hold:  # what waited goes in behind this write, not before it (a Remove after a Cancel came second)
            self.holdEnded.emit()
        return job

    def end_hold(self) -> None:
        """Another library opened: a Cancel in the old one holds nothing here."""
        self.on_hold, self._holding_for = False, None

    def waiting(self) -> list[str]:
        """What the queued writes (not started yet) are called, in the order they run."""
        return [self.targets.get(j.id, j.name) for j in self.tools.runner.write_jobs()
                if not j.running and not j.finished]

    def _show_queue(self) -> None:
        self.progress.show_queued(self.waiting())

    def _already_queued(self, target: str) -> bool:
        if target not in self.waiting():
            return False
        self.tools.say(f"Already queued: {target}", 8000)
        return True

    def add_paths(self, paths: list[str]) -> None:
        for p in paths:
            if not self.big_folders.ask_first(p, partial(self._add, p)):
                self._add(p)

    def _add(self, path: str, also: bool = False) -> None:
        """Index `path`; `also`: on a shared library, though another machine indexes the very files already."""
        lib = self.session.library  # after a choice to leave subfolders out: the library reopened under it
        target = os.path.abspath(os.path.expanduser(path))
        if self._already_queued(target):
            return
        name = os.path.basename(os.path.normpath(path)) or path
        add: JobFn = (lambda prog, c: lib.add_folders([path], prog, c, also=True)) if isinstance(lib, SharedLibrary) \
            and also else (lambda prog, c: lib.add_folder(path, prog, c))
        job = self.submit(f"Indexing {name}", add, Changes(roots=True, files=True), self.sync_done, target, (target,),
                          on_error=partial(self._add_failed, path))
        self.adds[job.id] = target
        self._adds_changed()

    def _add_failed(self, path: str, exc: BaseException, tb: str) -> None:
        """An Add that failed: said in the error dialog, but for a folder another machine indexes already (the very
        files, decision 0173), which is asked about: the command line's `index --also`, here one button."""
        if not isinstance(exc, HeldElsewhere):
            self.tools.report_error(exc, tb)
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Indexed by another machine",
                          f"{exc.why}.\n\nIndex it as this machine's too? Each of its files is then in the library "
                          "twice.", QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                          self.tools.parent)
        box.setObjectName("heldElsewherePrompt")
        box.setTextFormat(Qt.TextFormat.PlainText)  # folder and machine names are the person's, not markup
        box.button(QMessageBox.StandardButton.Yes).setText("Index here too")
        box.button(QMessageBox.StandardButton.Yes).clicked.connect(partial(self._add, path, True))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.open()
        self.tools.dialog_shown(box)

    def resync(self, roots: Optional[list[str]] = None, title: str = "Re-syncing", target: str = "") -> bool:
        """A sync of `roots` (every folder: None) queued as `title`, `target` in the queue; False when one is
        queued already."""
        lib = self.session.library
        target = target or "Re-sync of " + (", ".join(roots) if roots else "every folder")
        if self._already_queued(target):
            return False
        self.submit(title, lambda prog, c: lib.sync(roots, prog, c), Changes(files=True), self.sync_done,
                    target, tuple(os.path.abspath(r) for r in roots) if roots else None)
        return True

    def read_again(self, roots: list[str]) -> None:
        """The folders an older version's readers read (decision 0152), synced so that this version reads their
        files again: a person who upgraded and only opens the window gets the new readings too."""
        if self.resync(roots, "Reading files again", "Reading again with this version's readers: " + ", ".join(roots)):
            self.tools.say(f"This version reads some formats better: reading the files of {len(roots)} folder"
                           f"{'s' if len(roots) != 1 else ''} again (unchanged passages keep their meaning)", 10000)

    def remove_root(self, path: str) -> None:
        lib, say = self.session.library, self.tools.say

        def removed(n: int) -> None:
            say(f"Removed {path} ({n} file{'' if n == 1 else 's'})", UNDO_SECONDS * 1000)
            self.undo.offer(path)

        self.submit(f"Removing {os.path.basename(path)}", lambda prog, c: lib.remove_folder(path, undoable=True),
                    Changes(roots=True, files=True), removed, f"Remove {path}")

    def moved_root(self, old: str, new: str) -> None:
        """The missing folder `old` is at `new` now: `new` indexed reusing `old`'s meaning, then `old` removed with
        the minute of Undo a Remove has (library/sync/moved.py). A Cancel leaves `old` as it was."""
        from ..library.sync.moved import follow_move

        lib, say = self.session.library, self.tools.say
        new = os.path.abspath(os.path.expanduser(new))

        def done(moved: Moved) -> None:
            saved = moved.saved_note()  # the saved searches whose in: followed (decision 0196)
            say(f"{old} is now {moved.new}: {moved.summary()}" + "".join(f"; {n}" for n in [saved, *moved.notes] if n),
                UNDO_SECONDS * 1000)
            self.undo.offer(old, moved.undo())  # Undo puts the library back as before the move

        self.submit(f"Moving {os.path.basename(old.rstrip(os.sep))} to {new}",
                    lambda prog, c: follow_move(lib, old, new, prog, c, undo_file=False),
                    Changes(roots=True, files=True), done, f"Moved: {old} → {new}", (new,),
                    stopped=f"Cancelled; {old} is still in the library, nothing lost. Moved… again goes on where "
                            "this stopped.")

    def reindex(self) -> None:
        lib = self.session.library
        self.submit("Re-indexing", lambda prog, c: lib.reindex(prog, c), Changes(files=True), self.sync_done,
                    "Re-index of everything", None)

    def confirm_reindex(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Re-index",
                          "Rebuild every passage and vector with the current model and chunking settings? "
                          "Search keeps working on what is indexed as the rebuild proceeds.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.tools.parent)
        box.setObjectName("reindexPrompt")
        box.button(QMessageBox.StandardButton.Yes).clicked.connect(self.reindex)
        box.open()
        self.tools.dialog_shown(box)
        return box

    def sync_done(self, rep: SyncReport, lead: str = "") -> None:
        """What a sync did, in the status line; `lead`: what started it, when not the person (folder_watch.py).
        Until the next thing said (a search, the next sync's summary), never on a timer: a sync takes minutes and a
        person who looked away missed a summary gone after 15 s."""
        self.summary_line = self.summary(rep, lead)
        self.tools.say(self.summary_line, 0)

    @staticmethod
    def summary(rep: SyncReport, lead: str = "") -> str:
        """A sync's summary line, as sync_done says it."""
        bad = not_indexed_count(rep)  # a secret, a lockfile, an empty file: left out on purpose, not counted
        embedded = rep.chunks_embedded
        return (
            lead + f"{scanned_counts(rep.scanned, rep.members, grouped=True)} scanned: {rep.said('added', 'updated', 'removed')}"
            # thousands grouped as everywhere in the window: "3,000 files scanned … 3725 passages embedded" (n7)
            + (f", {bad:,} not indexed" if bad else "")
            + (f", {len(rep.left_out):,} left out on purpose (secrets, lockfiles…)" if rep.left_out else "")
            + f"; {counted(embedded, 'passage', grouped=True)} embedded"
            + (f", {rep.chunks_pending:,} still to embed (searchable by words)" if rep.chunks_pending else "")
            + (f"; {len(rep.missing_roots)} folder(s) missing, kept as they were" if rep.missing_roots else "")
            # every note, as `index` prints them: why files wait for OCR, the folders skip_dirs left out on a first
            # sync, a folder dropped inside an indexed one ("0 added" alone read as if it had been ignored)
            + "".join(f"; {n}" for n in rep.notes)
            + (f"; {rep.reread_note()}" if rep.reread else "")
            + _stopped_before(rep))

    def waiting_adds(self) -> list[str]:
        """The folders added that have not started yet, in the order they run."""
        queued = {j.id for j in self.tools.runner.write_jobs() if not j.running and not j.finished}
        return [path for job_id, path in self.adds.items() if job_id in queued]

    def _adds_changed(self) -> None:
        self.addsWaiting.emit(self.waiting_adds())

    def _started(self) -> None:
        self._adds_changed()
        job = self.active_write()
        if job is not None and job.id not in self.own and self.summary_line and self.tools.line() == self.summary_line:
            # The last sync's summary stood under the next one's strip ("25 files scanned: 23 added…" beside
            # "Embedding 288 of 3,000 passages": read as this sync's): it goes when the person's next write starts,
            # and the library's counts behind it show again. Not for the window's own update, which may find nothing
            # and say nothing: the summary would be gone for no news.
            self.tools.say("", 0)
        if job is not None and self.scopes.get(job.id, ()) != ():  # () : a remove, an undo, no folder read
            self.syncStarted.emit()
        self.progress.start(job.name if job else "Working")
        self._show_queue()
        self._counts_at = time.monotonic() - COUNTS_S + FIRST_COUNTS_S
        self.poll.start()

    def syncing(self, path: str) -> bool:
        """Whether the write running now syncs the folder `path` (an added folder, a re-sync, a re-index)."""
        job = self.active_write()
        if job is None:
            return False
        scope = self.scopes.get(job.id, ())
        return scope is None or path in scope

    def _done(self, job_id: int, changes: Changes) -> None:
        if job_id == self._holding_for:  # it finished all the same: nothing was stopped, nothing is held
            self.on_hold, self._holding_for = False, None
            self.holdEnded.emit()
        if self.adds.pop(job_id, None) is not None:
            self._adds_changed()
        self.targets.pop(job_id, None)
        self.scopes.pop(job_id, None)
        self.own.discard(job_id)
        self.stopped.pop(job_id, None)
        ended = self.ended.pop(job_id, None)
        if ended is not None:
            ended()
        self.pending |= changes
        if self.tools.runner.busy_writing():
            self._show_queue()
            return
        self.poll.stop()
        self._show_queue()  # empty now
        if self.outcome:
            self.progress.show_outcome(self.outcome)
        else:
            self.progress.hide()
        self.outcome = ""
        changes, self.pending = self.pending, Changes()
        self.tools.changed(changes)  # the status, the results, the saved searches show what is indexed now
        self.idle.emit()

    def active_write(self) -> Optional[Job]:
        """The write job running now, or None."""
        return next((j for j in self.tools.runner.write_jobs() if j.running), None)

    def _poll_progress(self) -> None:
        job = self.active_write()
        if job is None:
            return
        now = time.monotonic()
        self.progress.show_progress(job.name, job.progress, now)
        if now - self._counts_at >= COUNTS_S:
            self._counts_at = now
            self.countsDue.emit()
            if job.progress is None:  # nothing reported yet: it may wait for another process's writer lock
                self._say_wait(job.name, now)

    def _say_wait(self, title: str, now: float) -> None:
        """A write that waits its turn behind another process (a terminal's `index`) says for whom: a Re-sync
        showed a bare "Re-syncing" for 20 s beside a terminal's embedding (a newcomer)."""
        holder = writer_holder_info(self.session.library.data_dir)
        if holder is not None:
            when = "which lets this in between its batches" if holder.yields else "this goes on when it has finished"
            self.progress.show_progress(title, Progress(WAITING, 0, 0, f"for {holder}; {when}"), now)

    def cancel(self) -> None:
        """Cancel stops the write running now. The ones queued behind it (a folder dropped meanwhile) still run:
        cancelling them too dropped a folder the person had added, which no Re-sync would ever look at."""
        job = self.active_write()
        if job is None:
            return
        self.progress.cancel_button.setEnabled(False)
        self.progress.label.set_full_text("Stopping…")  # within seconds, keeping every finished file
        # From now (a write queued behind it may start before this thread hears of the cancel); let go if the write
        # ends all the same (_done: a Cancel that came as it finished)
        self.on_hold, self._holding_for = True, job.id
        job.cancel()

    def _on_cancelled(self, job: Job) -> None:
        # Cancelling is the user's own wish: no dialog, just say what state things are in.
        if job.id == self._holding_for:
            self._holding_for = None  # it did stop: the hold stands until the person's next write
        self.outcome = self.stopped.get(job.id) or cancel_summary(getattr(job.value, "report", None))
        self.outcome += self.hold_note() if self.on_hold else ""
        # Said once: the strip keeps it until OK (whole on hover). The same sentence in the status line under it
        # for 15 s said nothing more (a newcomer read it twice). Only while a queued write takes the strip first
        # (this job is off the runner's list already) is the status line the one place that says the Cancel worked.
        if self.tools.runner.busy_writing():
            self.tools.say(self.outcome, 15000)
