"""One writer per data directory: an advisory lock file held while the library changes.

Decision (docs/decisions/0101-a-second-writer-waits-its-turn.md): a writer that finds another process writing
waits for it as its WriterWait says: the library's own default is a few seconds (a searcher saving a repaired
index holds it for a moment) and then a clear error; the command line waits until it is free, saying for whom
(the lock file names the holder's process and command), or refuses at once with --no-wait.

Decision (docs/decisions/0105-a-long-writer-steps-aside-between-batches.md): a waiting writer raises its hand
(turns.py); a holder in its meaning pass hands the lock over between batches (WriterTurn.hand_over) and takes it
back once the waiter is done, so a second writer waits for one batch, not for a whole backlog.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional, Union

from ...base.errors import StoreError, UnsupportedFileError, WriterBusy
from ...base.flock import fcntl, held_text
from ...base.safe_open import open_regular_fd
from .turns import RESUMES, WANTS, hand_raised, hand_text, lower_hand, raise_hand

__all__ = ["writer_lock", "writer_holder", "writer_holder_info", "Holder", "WriterWait", "WriterTurn", "NOTICE_AFTER",
           "REMIND_EVERY", "YIELDS", "BATCH_WAIT", "HAND_GRACE", "IGNORED_QUIET"]

NOTICE_AFTER = 0.5  # a wait shorter than this is a searcher's moment: nobody is told
REMIND_EVERY = 60.0  # a long wait is told again this often, with the time waited
YIELDS = "yields between batches"  # the lock file's third line while its holder hands over between batches
BATCH_WAIT = 120.0  # a short wait (the window's) waits this long for a holder that hands over: a batch or so
# A holder that handed over lets the lock lie free for raised hands this long at most, then takes it back: a live
# waiter polls every 0.2 s; one that is stopped (Ctrl-Z, a debugger, a hung read) keeps its hand raised for ever.
HAND_GRACE = 5.0
IGNORED_QUIET = 30.0  # after a handover nobody took, the holder hands over again only this much later

@dataclass(frozen=True)
class Holder:
    """Another process holding the writer lock: its id and its command line as it wrote it ("" if unknown)."""

    pid: int
    doing: str = ""
    yields: bool = False  # in a meaning pass that hands the lock over between batches (seconds, not hours)

    def __str__(self) -> str:
        if not self.pid:  # a shared library's writer (its lock is the server's): no process id of this computer
            return self.doing or "another process"
        return f"process {self.pid}" + (f" ({self.doing})" if self.doing else "")


@dataclass
class WriterWait:
    """How a writer waits for another process's lock. `seconds`: at most this long, then WriterBusy (None: until it
    is free; 0: not at all). `on_wait(holder, waited)`: told once the wait passes NOTICE_AFTER seconds, then every
    REMIND_EVERY. `cancel` (a CancelToken) ends the wait with Cancelled. `hint`: added to the refusal's message."""

    seconds: Optional[float] = 5.0
    on_wait: Optional[Callable[[Holder, float], None]] = None
    cancel: Optional[object] = None
    hint: str = ""


def _doing() -> str:
    """This process's command line, for a waiting writer to name ("searchapp index /docs")."""
    argv = list(sys.argv) or [""]
    prog = os.path.basename(argv[0])
    if prog == "__main__.py":  # python -m searchapp
        prog = os.path.basename(os.path.dirname(argv[0]))
    if not prog or prog.startswith("-"):
        return ""
    return " ".join([prog, *argv[1:]]).replace("\n", " ")[:200]


def writer_holder(data_dir: Path) -> Optional[int]:
    """The process id of another process holding the writer lock now (a sync under way), else None. A flock
    ends with its process, so a held lock is a live writer, never a crashed one; this process's own lock is
    not another's (None)."""
    holder = writer_holder_info(data_dir)
    return None if holder is None else holder.pid


def writer_holder_info(data_dir: Path, own: bool = False) -> Optional[Holder]:
    """writer_holder, with what the holder runs; `own`: this process too, when it is the one writing."""
    text = held_text(data_dir / "writer.lock", held_shared=False)  # never written: no writer
    if text is None:
        return None
    holder = _holder(text)
    return None if holder.pid == os.getpid() and not own else holder


def _holder(text: str) -> Holder:
    """A lock file's (or writer.resumes') text: pid, command line, and YIELDS while it hands over."""
    lines = text.split("\n")
    try:
        pid = int(lines[0].strip() or 0)
    except ValueError:
        pid = 0
    return Holder(pid, lines[1].strip() if len(lines) > 1 else "", len(lines) > 2 and lines[2].strip() == YIELDS)


class WriterTurn:
    """The writer lock while this process holds it: lets a long writer see that another waits (`wanted`), hand the
    lock over and take it back (`hand_over`), and a writer see that the one before it waits to go on (`resumer`)."""

    def __init__(self, fd: int, data_dir: Path) -> None:
        self._fd, self.data_dir = fd, data_dir
        self.held = True  # False while handed over (and after a hand_over that did not get it back)
        self.handovers = 0
        self._yields = False
        # From a hand_over until the holder has read the library again (sync/handover.py): its vector index in
        # memory may be older than the file the other writer left, and must not be saved over it.
        self.stale = False
        self._quiet_until = 0.0  # a raised hand that let a handover pass is not answered again before this

    def say(self, yields: bool) -> None:
        """Write who holds the lock (pid, command line) and whether it hands over between batches."""
        self._yields = yields
        try:
            os.ftruncate(self._fd, 0)
            # for people, and for a writer waiting its turn to name; the flock is what excludes
            os.pwrite(self._fd, _text(yields).encode("utf-8", "replace"), 0)
        except OSError:
            pass  # a full disk must not stop the lock from working

    def wanted(self) -> bool:
        """Whether another writer waits for the lock now (a raised hand on writer.wants)."""
        return fcntl is not None and time.monotonic() >= self._quiet_until and hand_raised(self.data_dir / WANTS)

    def resumer(self) -> Optional[Holder]:
        """The writer that handed the lock over and waits to go on with its meaning pass, if one does."""
        text = hand_text(self.data_dir / RESUMES)
        return None if text is None else _holder(text)

    def hand_over(self, wait: WriterWait) -> None:
        """Let the waiting writers write, then hold the lock again (waiting as `wait` says, after every writer
        waiting now). Raises as writer_lock's wait does (Cancelled, StoreError); then `held` stays False."""
        if fcntl is None:
            return
        hand = raise_hand(self.data_dir / RESUMES, _text(False))  # before letting go: the next writer sees it
        try:
            self.held = False
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            if _acquire(self._fd, self.data_dir, wait, after_waiters=True):
                self._quiet_until = time.monotonic() + IGNORED_QUIET
            self.held = True
            self.handovers += 1
            self.say(self._yields)
        finally:
            lower_hand(hand)


def _text(yields: bool) -> str:
    return f"{os.getpid()}\n{_doing()}\n" + (f"{YIELDS}\n" if yields else "")


@contextlib.contextmanager
def writer_lock(data_dir: Path, wait: Union[float, WriterWait] = 5.0) -> Iterator[WriterTurn]:
    """Hold the library's writer lock. Waits up to `wait` seconds, or as the WriterWait says: another process may
    hold it briefly (a searcher saving a repaired index); a long holder is a real second writer and gets a clear
    error, or is waited for (a holder that hands over between batches, BATCH_WAIT at least)."""
    path = data_dir / "writer.lock"
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = open_regular_fd(path, os.O_RDWR | os.O_CREAT, 0o600)  # private, like everything in the data dir
    except (OSError, UnsupportedFileError) as exc:  # read-only or full disk, or a lock path that is not a file
        why = getattr(exc, "strerror", None) or exc
        raise StoreError(f"cannot write to the library in {data_dir}: {why} ({path}); "
                         "the library is unchanged and can still be searched") from None
    try:
        if fcntl is not None:
            _acquire(fd, data_dir, wait if isinstance(wait, WriterWait) else WriterWait(wait))
        turn = WriterTurn(fd, data_dir)
        turn.say(False)
        yield turn
    finally:
        os.close(fd)  # closing releases the flock


def _acquire(fd: int, data_dir: Path, how: WriterWait, after_waiters: bool = False) -> bool:
    """Take the flock on `fd`, waiting as `how` says, with a hand raised on writer.wants while it waits (unless
    `how` does not wait): a holder in its meaning pass then hands over at its next batch. `after_waiters`: the
    lock is not taken while another writer waits for it (the one this holder just handed it to), unless the lock
    lies free for HAND_GRACE seconds with a hand still raised (a waiter that is not running); no hand. Returns
    whether it was taken past such a hand."""
    start = time.monotonic()
    told = None  # when on_wait was last called
    hand, raised = None, after_waiters or how.seconds == 0
    free_since: Optional[float] = None  # since when the lock has lain free with a hand raised
    try:
        while True:
            if after_waiters and hand_raised(data_dir / WANTS):
                free_since = (free_since or time.monotonic()) if writer_holder_info(data_dir) is None else None
                deferring = free_since is None or time.monotonic() - free_since < HAND_GRACE
            else:  # no hand up (the waiter came and went): taken as any writer takes it
                free_since, deferring = None, False
            if not deferring:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    # the hand is lowered after the flock is taken: a holder never slips in between
                    return free_since is not None
                except BlockingIOError:
                    pass
            if not raised:
                hand, raised = raise_hand(data_dir / WANTS), True
            waited = time.monotonic() - start
            if how.seconds is not None and waited >= how.seconds and not (how.seconds > 0
                                                                    and _batch_wait(data_dir, waited)):
                holder = writer_holder_info(data_dir)
                raise WriterBusy(f"another searchapp process is updating the library in {data_dir}"
                                 + (f" ({holder})" if holder else "") + "; try again when it has finished"
                                 + how.hint) from None
            check = getattr(how.cancel, "check", None)
            if check is not None:
                check()  # Cancelled: the person stopped waiting
            if how.on_wait is not None and waited >= NOTICE_AFTER and (told is None or waited - told >= REMIND_EVERY):
                told = waited
                holder = writer_holder_info(data_dir)
                if holder is not None:
                    how.on_wait(holder, waited)
            time.sleep(0.05 if waited < 1.0 else 0.2)
    finally:
        lower_hand(hand)


def _batch_wait(data_dir: Path, waited: float) -> bool:
    """Whether a short wait goes on: the holder hands over between batches, so the lock comes within one."""
    if waited >= BATCH_WAIT:
        return False
    holder = writer_holder_info(data_dir)
    return holder is not None and holder.yields
