"""The window's job runner at quit. "Quit and resume next time" during a sync aborted the process in 5 of 10 runs
(SIGABRT, "Signal source has been deleted"): the cancelled sync's end, handled after the runner's wait, asked for
fresh counts, and those reads ran on pool threads while Qt deleted the objects their signals live on."""

from __future__ import annotations

import threading

import shiboken6


def test_nothing_is_started_after_shutdown(qapp):
    from searchapp.gui.workers import JobRunner

    runner = JobRunner()
    ran = threading.Event()
    before = runner.submit(lambda p, c: 1, name="before")
    assert runner.shutdown(10_000)
    called = []
    late = runner.submit(lambda p, c: ran.set(), name="status read", on_success=called.append,
                         on_done=lambda: called.append("done"))
    assert runner.reads.waitForDone(10_000) and runner.writes.waitForDone(10_000)
    qapp.processEvents()
    assert not ran.is_set() and called == [] and late.outcome == "cancelled" and late.finished
    assert late not in runner.jobs and before.finished


def test_a_job_whose_qt_object_is_gone_ends_quietly(qapp):
    """A job still running past the shutdown wait: its end has nobody to tell, and must not raise on a pool
    thread (Qt turns that into std::terminate)."""
    from searchapp.gui.workers import Job

    ran = threading.Event()
    job = Job(lambda p, c: ran.set(), "late")
    shiboken6.delete(job)  # what the window's teardown does to it
    job.run()  # on this thread: the same code a pool thread runs
    assert not ran.is_set()  # nobody to report to: not run at all
