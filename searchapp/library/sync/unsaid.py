"""What a sync that stopped before its end left unsaid, kept in the library's meta table so that the next sync
(or `status`) says it: "the last sync stopped after 1,204 of 3,000 files; 3 could not be read: …".

A sync says the files it left out in its summary, once (a skip or a failure recorded already is not listed again,
decision 0145). A sync stopped by Ctrl+C, a closed window or a `kill` never reached its summary: its failures were
recorded, so the next sync, failing the same way, said "2 failed" and never why. Now every sync leaves a mark in
meta as it begins (when it began, how far it has come) and takes it away once it has finished, its summary said.
A mark found at the start of a sync is one that stopped: what it left out is every entry recorded not indexed
since it began (store/ledger.py: left_out_since; the store is the record, so a `kill` loses none of it), and the
next finished sync says those with its own summary. A sync stopped again keeps the first mark's start: nothing
left out by either is lost.

A shared library (PostgreSQL) keeps one mark per machine (`unsaid:MACHINE`): each machine syncs its own folders, and
what its stopped sync left out is its own entries' (files.machine), never those another machine wrote meanwhile.

Only the rows say what was left out: no write per file. The mark is written as the sync begins, then with how far
it has come at most every WRITE_EVERY_S while it reports, and once more when it stops in-process (then `exact`:
a sync killed is said to have stopped after "about" so many files).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
from typing import Callable, Optional

from ...base.errors import StoreError
from ...base.progress import Progress, ProgressFn
from ...base.plural import counted
from ...store import Store
from ...store.ledger import left_out_since
from .contract import StoppedSync, SyncReport

__all__ = ["UNSAID_META", "StopMark", "mark_key", "stopped_sync", "stopped_head", "stopped_note", "unsaid_counts"]

# JSON {"began", "stage", "done", "total", "folder", "exact"} while a sync runs, or after it stopped
UNSAID_META = "unsaid"
LISTED = 200  # entries a StoppedSync lists (the rest counted): the command line shows 10, the window a count
# How long a `kill` may leave the mark behind how far the sync came (one small meta write each: WAL, no fsync)
WRITE_EVERY_S = 1.0
# The stages a mark keeps: the steps a person knows (the others, a wait or a model loading, keep the one before)
_KEPT_STAGES = frozenset({"scanning", "extracting", "searchable", "embedding", "ocr", "rereading", "saving"})


def mark_key(owner: Optional[str] = None) -> str:
    """The meta key of the mark: the library's, or (`owner`) a shared library's machine's."""
    return UNSAID_META if owner is None else f"{UNSAID_META}:{owner}"


def _read(store: Store, owner: Optional[str] = None) -> Optional[tuple[float, StoppedSync]]:
    """(when it began, how far it came) of the mark, or None: none, or one this version cannot read (a damaged
    value says nothing rather than fail)."""
    raw = store.get_meta(mark_key(owner))
    if not raw:
        return None
    try:
        mark = json.loads(raw)
        total = mark.get("total")
        return float(mark["began"]), StoppedSync(
            stage=str(mark.get("stage") or ""), done=int(mark.get("done") or 0),
            total=int(total) if total is not None else None, folder=str(mark.get("folder") or ""),
            exact=mark.get("exact") is True)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def stopped_sync(store: Store, mark: Optional[tuple[float, StoppedSync]] = None, until: Optional[float] = None,
                 owner: Optional[str] = None) -> Optional[StoppedSync]:
    """The sync that left its mark (`mark`, read from `store` when None) and what was left out since it began (and
    before `until`, when given); None when no mark is there. Read-only: `status` asks it while no sync runs (a
    running sync's mark is its own). `owner`: a shared library's machine, its mark and its entries."""
    mark = _read(store, owner) if mark is None else mark
    if mark is None:
        return None
    began, stopped = mark
    rows, failed, n = left_out_since(store, began, until, LISTED, owner)
    return dataclasses.replace(stopped, problems=[(row.path, state, row.error or "") for state, row in rows],
                               left_out=n, failed=failed)


class StopMark:
    """One sync's mark (Updates.run_sync, shared_sync.sync_work with its machine as `owner`): `begin`, `watching`
    its progress, then `stopped` or `finished`."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time, every_s: float = WRITE_EVERY_S,
                 owner: Optional[str] = None) -> None:
        # wall time: `began` is compared with files.indexed_at, written with time.time()
        self.store, self.clock, self.every_s, self.owner = store, clock, every_s, owner
        self.earlier: Optional[tuple[float, StoppedSync]] = None  # the mark of a sync that stopped before this one
        self.began = 0.0  # when the earliest sync whose mark is kept began (this one's, or one that stopped)
        self.started = 0.0  # when this one began
        self.reached = Progress("", 0)
        self.written = float("-inf")
        self.thread = threading.get_ident()  # the store's connection is this thread's: only it writes

    def begin(self) -> None:
        self.earlier = _read(self.store, self.owner)
        self.started = self.clock()
        self.began = self.earlier[0] if self.earlier is not None else self.started
        self.thread = threading.get_ident()
        self._write()

    def watching(self, progress: Optional[ProgressFn]) -> ProgressFn:
        """`progress`, with each report of a step remembered in the mark (written when the step changes, and at
        most every `every_s` within one; never from another thread, whose report is kept for the next write)."""

        def watch(p: Progress) -> None:
            if p.stage in _KEPT_STAGES:
                moved = p.stage != self.reached.stage or p.folder != self.reached.folder
                self.reached = p
                if threading.get_ident() == self.thread and (moved or self.clock() - self.written >= self.every_s):
                    with contextlib.suppress(StoreError):  # a disk full fails the sync's own next write: not here
                        self._write()
            if progress is not None:
                progress(p)

        return watch

    def stopped(self) -> None:
        """The sync stops in-process (a cancel, an error): how far it came, exactly. Never raises: the stop's own
        error is the one to see."""
        with contextlib.suppress(Exception):
            self._write(exact=True)

    def finished(self, total: SyncReport) -> None:
        """The sync ended and `total` is what its summary says. Where an earlier sync had stopped, what that one
        left out and no summary said goes with it (SyncReport.stopped_before): the entries recorded left out
        since it began and before this one did (what this one recorded again, it lists itself; an entry failing
        the same way again is not recorded again, so it stays among the earlier ones). Then the mark goes."""
        if self.earlier is not None:
            before = stopped_sync(self.store, self.earlier, until=self.started, owner=self.owner)
            if before is not None and before.left_out:
                total.stopped_before = before
        with self.store.atomic():
            self.store.set_meta(mark_key(self.owner), "")

    def _write(self, exact: bool = False) -> None:
        p = self.reached
        # A reading report names the file it begins to read (words_pass.py): the ones before it are done
        done = max(0, p.done - 1) if p.stage == "extracting" else p.done
        mark = {"began": self.began, "stage": p.stage, "done": done, "total": p.total, "folder": p.folder,
                "exact": exact}
        with self.store.atomic():
            self.store.set_meta(mark_key(self.owner), json.dumps(mark))
        self.written = self.clock()


def stopped_head(s: StoppedSync) -> str:
    """How far a stopped sync came, as one clause: "the last sync stopped after 1,204 of 3,000 files"."""
    where = f" (in {s.folder})" if s.folder else ""
    if s.stage == "extracting" and s.total:
        about = "" if s.exact else "about "  # killed: the mark may be a second behind
        return f"the last sync stopped after {about}{s.done:,} of {counted(s.total, 'file', grouped=True)}{where}"
    if s.stage == "scanning":
        return f"the last sync stopped while looking for files{where}"
    if s.stage in ("searchable", "embedding"):
        return "the last sync stopped after reading every file, while embedding their meaning"
    if s.stage in ("ocr", "rereading"):
        return "the last sync stopped while reading scans and images (OCR)"
    if s.stage == "saving":
        return "the last sync stopped while saving"
    return "the last sync stopped before it read any file"


def unsaid_counts(s: StoppedSync) -> str:
    """"3 files could not be read, 1 not indexed": its failures, then the rest it skipped (no text, a format not read)."""
    rest = s.left_out - s.failed
    return ", ".join([f"{counted(s.failed, 'file', grouped=True)} could not be read"] * bool(s.failed)
                     + [f"{counted(rest, 'file', grouped=True)} not indexed"] * bool(rest))


NAMED = 3  # entries a note names (`status` lists every one below it)


def stopped_note(s: StoppedSync) -> str:
    """`status`'s note on a sync that stopped: how far it came, how to go on, and what it left out, some named."""
    from ...base.member_paths import display_path

    note = f"{stopped_head(s)}; `searchapp index` goes on from there"
    if not s.left_out:
        return note
    named = ", ".join(f"{display_path(path)} ({reason})" for path, _, reason in s.problems[:NAMED])
    more = f" and {s.left_out - NAMED:,} more" if s.left_out > NAMED else ""
    return f"{note}; since it began, {unsaid_counts(s)}: {named}{more}"
