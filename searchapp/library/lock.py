"""One writer per data directory: an advisory lock file held while the library changes.

Decision (docs/decisions/0101-a-second-writer-waits-its-turn.md): a writer that finds another process writing
waits for it as its WriterWait says: the library's own default is a few seconds (a searcher saving a repaired
index holds it for a moment) and then a clear error; the command line waits until it is free, saying for whom
(the lock file names the holder's process and command), or refuses at once with --no-wait.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional, Union

from ..base.errors import StoreError, UnsupportedFileError
from ..base.safe_open import open_regular_fd

__all__ = ["writer_lock", "writer_holder", "writer_holder_info", "Holder", "WriterWait", "NOTICE_AFTER", "REMIND_EVERY"]

NOTICE_AFTER = 0.5  # a wait shorter than this is a searcher's moment: nobody is told
REMIND_EVERY = 60.0  # a long wait is told again this often, with the time waited

try:
    import fcntl
except ImportError:  # Windows: msvcrt locking would go here; single-process use is still safe
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Holder:
    """Another process holding the writer lock: its id and its command line as it wrote it ("" if unknown)."""

    pid: int
    doing: str = ""

    def __str__(self) -> str:
        return f"process {self.pid}" + (f" ({self.doing})" if self.doing else "")


@dataclass
class WriterWait:
    """How a writer waits for another process's lock. `seconds`: at most this long, then StoreError (None: until it
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


def writer_holder_info(data_dir: Path) -> Optional[Holder]:
    """writer_holder, with what the holder runs."""
    if fcntl is None:
        return None
    path = data_dir / "writer.lock"
    try:
        fd = open_regular_fd(path)  # a FIFO put there would block a plain open() forever
    except (OSError, UnsupportedFileError):
        return None  # never written (or not a lock file): no writer
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None  # nobody holds it
        except BlockingIOError:
            pass
        try:
            lines = os.pread(fd, 512, 0).decode("utf-8", "replace").split("\n")
            pid, doing = int(lines[0].strip() or 0), (lines[1].strip() if len(lines) > 1 else "")
        except (OSError, ValueError):
            pid, doing = 0, ""
        return None if pid == os.getpid() else Holder(pid, doing)
    finally:
        os.close(fd)


@contextlib.contextmanager
def writer_lock(data_dir: Path, wait: Union[float, WriterWait] = 5.0) -> Iterator[None]:
    """Hold the library's writer lock. Waits up to `wait` seconds, or as the WriterWait says: another process may
    hold it briefly (a searcher saving a repaired index); a long holder is a real second writer and gets a clear
    error, or is waited for."""
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
        try:
            os.ftruncate(fd, 0)
            # for people, and for a writer waiting its turn to name; the flock is what excludes
            os.write(fd, f"{os.getpid()}\n{_doing()}\n".encode("utf-8", "replace"))
        except OSError:
            pass  # a full disk must not stop the lock from working
        yield
    finally:
        os.close(fd)  # closing releases the flock


def _acquire(fd: int, data_dir: Path, how: WriterWait) -> None:
    """Take the flock on `fd`, waiting as `how` says."""
    start = time.monotonic()
    told = None  # when on_wait was last called
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        waited = time.monotonic() - start
        if how.seconds is not None and waited >= how.seconds:
            holder = writer_holder_info(data_dir)
            raise StoreError(f"another searchapp process is updating the library in {data_dir}"
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
