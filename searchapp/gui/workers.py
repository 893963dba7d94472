"""Library calls off the GUI thread: a Job runs `fn(progress, cancel)` on a QThreadPool and reports back by signal.

Writes (add, sync, remove, reindex) go through a one-thread pool, so they queue in order like the
library's single writer lane; reads (search, status, preview) use a small pool of their own and never
wait for a write. Progress is not signalled per event: the job keeps only the newest report and the
window polls it on a timer, so a fast stream of reports can never flood the event loop.
"""

from __future__ import annotations

import itertools
import traceback
from typing import Any, Callable, Optional

from PySide6.QtCore import QObject, QThreadPool, Signal

from ..base.errors import Cancelled
from ..base.progress import CancelToken, Progress

__all__ = ["Job", "JobRunner"]

JobFn = Callable[[Callable[[Progress], None], CancelToken], Any]


_ids = itertools.count(1)


class Job(QObject):
    """One call. Its two signals go to the runner only, which then calls the callbacks in a fixed order.

    The signals carry only the job's id: the outcome stays on the job. Queued signals with `object`
    arguments lost references to None/True/False in PySide6 6.12.0 (measured: -74 on None over 200 jobs; that
    version is excluded in pyproject.toml),
    which crashes a long-running app once the count reaches zero.
    """

    began = Signal(int)
    ended = Signal(int)

    def __init__(self, fn: JobFn, name: str = "", write: bool = False) -> None:
        super().__init__()
        self.fn = fn
        self.name = name
        self.write = write
        self.cancel_token = CancelToken()
        self.progress: Optional[Progress] = None  # written by the worker, read by the GUI timer
        self.running = False
        self.finished = False
        self.callbacks: dict[str, Optional[Callable[..., None]]] = {}  # each outcome's own signature (see submit)
        self.id = next(_ids)
        self.outcome = ""  # "ok" | "error" | "cancelled"
        self.value: Any = None  # the return value, or the exception
        self.traceback = ""

    def report(self, p: Progress) -> None:
        self.progress = p  # one reference swap: atomic under the GIL, no lock or signal needed

    def cancel(self) -> None:
        self.cancel_token.cancel()

    def run(self) -> None:
        """Runs on a worker thread; the signals are queued to the GUI thread, where this object lives."""
        self.running = True
        if not _emit(self, "began"):
            return  # the window is gone: nobody to report to, nothing to run for
        outcome, value, tb = "ok", None, ""
        try:
            if self.cancel_token.cancelled:
                raise Cancelled("cancelled before it started")
            value = self.fn(self.report, self.cancel_token)
        except Cancelled as exc:
            outcome, value = "cancelled", exc
        except BaseException as exc:  # every failure must reach the GUI, never kill a pool thread
            outcome, value, tb = "error", exc, traceback.format_exc()
        finally:
            self.outcome, self.value, self.traceback = outcome, value, tb
            self.running = False
            self.finished = True
        _emit(self, "ended")


def _emit(job: Job, name: str) -> bool:
    """Emit `job`'s signal `name` from a pool thread; False when Qt has already deleted the job (one that ran past
    the window's shutdown wait): raising there reached no handler, and Qt aborted the process (std::terminate)."""
    try:
        getattr(job, name).emit(job.id)
    except RuntimeError:
        return False
    return True


class JobRunner(QObject):
    """Owns the two pools and keeps every live Job referenced until its end has been handled."""

    def __init__(self, parent: Optional[QObject] = None, read_threads: int = 2) -> None:
        super().__init__(parent)
        self.reads = QThreadPool(self)
        self.reads.setMaxThreadCount(read_threads)
        self.writes = QThreadPool(self)
        self.writes.setMaxThreadCount(1)
        for pool in (self.reads, self.writes):
            pool.setExpiryTimeout(-1)  # Library keeps one read connection per thread: keep the threads
        self.jobs: list[Job] = []
        self.closed = False  # shut down: a job submitted now is not started

    def submit(self, fn: JobFn, *, write: bool = False, name: str = "",
               on_success: Optional[Callable[[Any], None]] = None,
               on_error: Optional[Callable[[BaseException, str], None]] = None,
               on_cancel: Optional[Callable[[], None]] = None,
               on_started: Optional[Callable[[], None]] = None,
               on_done: Optional[Callable[[], None]] = None) -> Job:
        job = Job(fn, name, write)
        if self.closed:  # the window is closing: never run, never reported (see shutdown)
            job.outcome, job.finished = "cancelled", True
            return job
        job.callbacks = {"ok": on_success, "error": on_error, "cancelled": on_cancel, "started": on_started,
                         "done": on_done}
        # Both signals go to this runner's slots (one receiver, so they arrive in order) and are
        # connected before the job is queued: a fast job could otherwise end before anyone listens.
        job.began.connect(self._began)
        job.ended.connect(self._ended)
        self.jobs.append(job)
        # start(callable): PySide owns the runnable and keeps `job.run` alive. A Python QRunnable subclass
        # could be garbage-collected before a pool thread picks it up, and the job would never run.
        (self.writes if write else self.reads).start(job.run)
        return job

    def _job(self, job_id: int) -> Optional[Job]:
        return next((j for j in self.jobs if j.id == job_id), None)

    def _began(self, job_id: int) -> None:
        job = self._job(job_id)
        cb = job.callbacks.get("started") if job is not None and not job.finished else None
        if cb:
            cb()

    def _ended(self, job_id: int) -> None:
        job = self._job(job_id)
        if job is None:
            return
        self.jobs.remove(job)  # first, so callbacks see the runner's state after this job
        outcome, value, tb = job.outcome, job.value, job.traceback
        cb = job.callbacks.get(outcome)
        try:
            if cb is not None:
                if outcome == "ok":
                    cb(value)
                elif outcome == "error":
                    cb(value, tb)
                else:
                    cb()
        finally:
            done = job.callbacks.get("done")
            job.callbacks = {}  # break reference cycles through closures
            if done:
                done()

    def write_jobs(self) -> list[Job]:
        return [j for j in self.jobs if j.write]

    def busy_writing(self) -> bool:
        return bool(self.write_jobs())

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Cancel every job, then wait for both pools; True when all threads stopped in time. Nothing is started
        after this: a cancelled job's end (handled on the GUI thread after the wait) asks for fresh counts, and a
        read started then ran while Qt deleted the objects its signals live on (SIGABRT at quit)."""
        self.closed = True
        for j in list(self.jobs):
            j.cancel()
        ok = self.writes.waitForDone(timeout_ms)
        return self.reads.waitForDone(timeout_ms) and ok
