"""Phase 1's reading on the machine's second core: one worker process hashes, extracts and chunks the next
files while the sync's own process writes the ones before them to SQLite (words_pass.py).

A worker thread was measured slower (the GIL); a process is not. The worker runs the very same code with the same
caps (file_sha256*, extract with max_bytes / max_chars, passages_of with the same config and tokenizer), so what
it hands back is exactly what the sync would have computed itself. Everything the sync writes stays in its own
process and in file order: a worker that dies, fails to start or gives anything but a clean result only means
the sync reads that file (and, once the worker is gone, the rest) itself: nothing is lost or written twice.
A file the worker fails on fails for the sync too (Read.failed), and one it reads past its budget (config
scan.file_budget_s) is a failure, "took too long": the worker is killed, whatever it was doing, and a new one goes
on with the files after it (file_budget.py).

It is started with 'spawn' (never fork: the app has torch and Qt threads) and only where it pays:
- MIN_FILES: measured on the 2-core dev machine (AMD EPYC, load ~1: one other busy process), the worker is
  ready ~0.1-0.4 s after the sync starts (spawn, its imports, the tokenizer; the sync reads files itself
  meanwhile) and its start-up takes CPU from the sync: 200 files 0.18 -> 0.25 s, 600 files 0.43 -> 0.48 s,
  2,000 files 1.15 -> 0.94 s, 10,000 files ~5.6 -> ~4 s (bench_words_first.py --trees, medians of 5). So a sync
  that reads fewer than 1,000 files stays in-process.
- one core (os.sched_getaffinity), or a second core that another program keeps busy (idle time in /proc/stat
  while the sync scanned the folder, else the load average): the processes would only take turns, and it was
  measured slower: with one other process at 100% (load ~2.3), 10,000 files 5.1 s in-process vs 6.4 s with the
  worker, 1,000 files 0.58 vs 0.99 s.
The sync's own share of the reading (the files in front while the worker starts, those at the far end while it
waits for it) goes through the same code with a tokenizer of the worker's spec (ReadAhead.encoder), and the two
hand each other the words they tokenized with each group (read_ahead_worker.read_group): each distinct word is
tokenized once between them, not once each (SciFact's 10,000 files: 177,000 -> 101,000 words tokenized).
Read-ahead is bounded (AHEAD groups of GROUP files): while the sync steps aside for a search, the worker finishes
at most what it holds and then waits too; a cancel ends it at once (the worker is killed, not waited for).
"""

from __future__ import annotations

import os
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ...base.cpu_share import proc_stat_seconds, usable_cores
from .read_ahead_worker import Read

if TYPE_CHECKING:
    from ...base.config import Config
    from ...base.progress import CancelToken
    from ...models.chunking_tokenizer import ChunkingTokenizer

__all__ = ["ReadAhead", "Read", "MIN_FILES", "GROUP", "AHEAD", "usable_cores", "chunking_spec", "cpu_sample",
           "second_core_free"]

MIN_FILES = 1000  # files to read below which the sync stays in-process (see above)
GROUP = 64  # files per task sent to the worker: one pickled round trip per batch-sized group
AHEAD = 2  # groups in flight: enough to keep the worker busy, little to finish when the sync pauses
OWN_GROUP = 16  # files the sync reads at a time from the far end while it waits for the worker
POLL_S = 0.05  # how often a wait for the worker looks at the cancel token
_LOCK_WAIT_S = 1.0  # the worker holds the shared "now reading" lock for two stores: longer means it died holding it


def cpu_sample() -> Optional[tuple[float, float]]:
    """(seconds every core was idle so far, the monotonic clock), from /proc/stat; None where there is none."""
    seconds = proc_stat_seconds()
    return None if seconds is None else (seconds[1], time.monotonic())


def second_core_free(since: Optional[tuple[float, float]]) -> bool:
    """Whether a core stayed idle beside this sync since `since` (cpu_sample() before its scan); with no sample or
    too short a scan to tell (< 0.04 s: /proc/stat counts in 10 ms steps; 10,000 files scan in ~0.1 s), whether
    the load average leaves one (a lagging figure that counts this sync and its last runs, so only a fallback)."""
    now = cpu_sample()
    if since is not None and now is not None and now[1] - since[1] >= 0.04:
        return (now[0] - since[0]) / (now[1] - since[1]) >= 0.5  # cores idle on average
    try:
        return os.getloadavg()[0] < usable_cores() - 0.5  # this sync counts for about 1
    except OSError:
        return True


def chunking_spec(encoder: object) -> Optional[tuple[str, int, bool]]:
    """What a worker needs to chunk as `encoder` does, or None when the encoder cannot say (then no worker)."""
    spec = getattr(encoder, "chunking_spec", None)
    got: Optional[tuple[str, int, bool]] = spec() if callable(spec) else None  # what ChunkingTokenizer's says
    return got


class ReadAhead:
    """Files handed to one worker process in order; `get(i)` gives the i-th file's Read, or None where the sync
    must read it itself (the worker failed on it, died, or never started).

    Until the worker has started (spawn and imports, ~0.2-0.3 s) the sync reads the files in front itself, a few
    at a time (_read_front); then the worker takes files from the front and, while the sync waits for it, the sync
    reads files from the far end of the list: the two sides meet wherever the machine's load puts them, and the
    sync still writes every file in order."""

    def __init__(self, paths: Sequence[str], old_shas: Sequence[Optional[str]], config: Config,
                 spec: tuple[str, int, bool], cancel: Optional[CancelToken] = None) -> None:
        self.paths, self.old_shas, self.config = list(paths), list(old_shas), config
        self.cancel = cancel
        # The sync's side of the reading (_read_front, _read_own): a tokenizer of the worker's spec (encoder)
        self._encoder: Optional[ChunkingTokenizer] = None
        # (first file, end, its future), in order
        self._queue: deque[tuple[int, int, Future[tuple[list[Optional[Read]], dict[str, bytes]]]]] = deque()
        self._done: tuple[int, int, list[Optional[Read]]] = (0, 0, [])
        self._next = 0  # the next file to hand to the worker
        self._end = len(self.paths)  # files from here on are read by the sync itself
        self._own: dict[int, Optional[Read]] = {}
        self.stats = {"worker": 0, "own": 0}
        self._pool: Optional[ProcessPoolExecutor] = None
        self._ready: Optional[Future[bool]] = None
        self.spec = spec
        self.budget = float(config.scan.file_budget_s)
        self._now: Any = None  # shared with the worker: the file it reads and since when (read_ahead_worker.init)
        self.restarts = 0  # workers killed past a file's budget
        self._start()

    def _start(self) -> None:
        """Start a worker process (at the start, and after one was killed)."""
        try:
            import multiprocessing

            from . import read_ahead_worker

            context = multiprocessing.get_context("spawn")
            self._now = context.Array("d", 2)
            self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=read_ahead_worker.init,
                                             initargs=(self._now,))
            # The tokenizer (~0.7 MB) goes as the first task, not as the start's arguments: those are written
            # to the new process before it runs, so this thread would wait for its start-up and imports.
            self._ready = self._pool.submit(read_ahead_worker.start, self.config, self.spec)
        except Exception:  # no worker: the sync reads everything itself
            self.close()

    def _overdue(self) -> Optional[int]:
        """The number of the file the worker has been reading for longer than the budget, or None."""
        if self._now is None:
            return None
        lock = self._now.get_lock()
        # A worker killed while it held the lock (writing what it reads now) never lets go: waiting for it would
        # hang the sync. Its pool is broken then, and `get` finds that out and reads the rest itself.
        if not lock.acquire(timeout=_LOCK_WAIT_S):
            return None
        try:
            index, since = int(self._now[0]), float(self._now[1])
        finally:
            lock.release()
        return index if since and time.monotonic() - since > self.budget else None

    def _restart(self, index: int) -> None:
        """Kill the worker, stuck on file `index` past its budget (C code that never returns, say): that file
        fails as "took too long"; the others it held are read by the sync itself, and a new worker goes on with
        the files after them."""
        from .file_budget import too_long

        self._own[index] = Read("", failed=too_long(self.budget))
        self.close()
        self.restarts += 1
        self._next = max(self._next, index + 1)
        self._done = (0, 0, [])
        self._start()

    @property
    def encoder(self) -> ChunkingTokenizer:
        """The tokenizer the sync reads its own files with: the worker's (ChunkingTokenizer(*spec): the same
        passages), not the sync's encoder, so the two hand each other the words they tokenize (read_group)
        and each distinct word is tokenized once between them. Made at its first use (~0.02 s)."""
        if self._encoder is None:
            from ...models.chunking_tokenizer import ChunkingTokenizer

            self._encoder = ChunkingTokenizer(*self.spec)
            self._encoder.share_pieces()
        return self._encoder

    @property
    def alive(self) -> bool:
        return self._pool is not None

    def worker_pids(self) -> list[int]:
        procs = getattr(self._pool, "_processes", None) or {}
        return list(procs)

    def _submit(self) -> None:
        lo, hi = self._next, min(self._next + GROUP, self._end)
        if lo >= hi or self._pool is None:
            return
        from . import read_ahead_worker

        try:
            fut = self._pool.submit(read_ahead_worker.read_group, self.paths[lo:hi], self.old_shas[lo:hi], lo,
                                    self.encoder.learned_pieces())
        except Exception:  # a worker that died since its last result: its pool refuses new tasks (BrokenProcessPool)
            self.close()  # and the sync reads the rest itself; raised from `get`, it failed the file asked for
            return
        self._queue.append((lo, hi, fut))
        self._next = hi

    def _read_own(self) -> None:
        """Read the last few files not handed to the worker, here (the same code the worker runs, a small group
        at a time: their word pieces put together in one pass, read_ahead_worker.read_files)."""
        from .read_ahead_worker import read_files

        lo = max(self._next, self._end - OWN_GROUP)
        got = read_files(self.paths[lo:self._end], self.old_shas[lo:self._end], self.config, self.encoder,
                         self.cancel)
        self._own.update(zip(range(lo, self._end), got, strict=True))
        self.stats["own"] += self._end - lo
        self._end = lo

    def _read_front(self, i: int) -> None:
        """Read the i-th file and the few after it here, while the worker starts (spawn and imports, ~0.2-0.3 s;
        more on a busy machine): the words they hold go to the worker with its first group, so it does not
        tokenize the commonest words of the folder again."""
        from .read_ahead_worker import read_files

        hi, end = i + 1, min(i + OWN_GROUP, self._end)
        while hi < end and hi not in self._own:  # not past a file already settled (one that took too long)
            hi += 1
        got = read_files(self.paths[i:hi], self.old_shas[i:hi], self.config, self.encoder, self.cancel)
        self._own.update(zip(range(i, hi), got, strict=True))
        self.stats["own"] += hi - i
        self._next = max(self._next, hi)

    def wait_started(self, timeout: float) -> None:
        """Block until the worker is ready (tests: so that it surely reads some of a small corpus)."""
        if self._ready is not None:
            wait([self._ready], timeout=timeout)

    def _started(self, i: int) -> bool:
        """Whether the worker is ready; the first time it is, hand it the files after the i-th."""
        if self._ready is None:
            return True
        if not self._ready.done():
            return False
        try:
            self._ready.result()
        except Exception:
            self.close()
            return False
        self._ready = None
        self._next = max(self._next, i + 1)
        for _ in range(AHEAD):
            self._submit()
        return True

    def get(self, i: int) -> Optional[Read]:
        if i in self._own:
            return self._own.pop(i)
        if self._pool is None:
            return None  # no worker: the sync reads this one itself
        if not self._started(i):  # not ready yet: the next few files are read here, with the words kept for it
            self._read_front(i)
            return self._own.pop(i, None)
        lo, hi, results = self._done
        if not lo <= i < hi:
            if not self._queue or not self._queue[0][0] <= i < self._queue[0][1]:
                return None  # never handed to the worker (it died or did not start)
            lo, hi, fut = self._queue.popleft()
            try:
                while not fut.done():
                    if self.cancel is not None and self.cancel.cancelled:
                        return None  # the sync's own check right after this stops it
                    if self._worker_died():
                        raise BrokenProcessPool("the read-ahead worker died")  # read in-process from here
                    stuck = self._overdue()
                    if stuck is not None:
                        self._restart(stuck)
                        return self._own.pop(i, None)  # files before the stuck one: the sync reads them
                    if self._end > self._next:
                        self._read_own()
                    else:
                        wait([fut], timeout=POLL_S)
                results, learned = fut.result()
                self.encoder.remember_pieces(learned)
            except Exception:  # a dead or broken worker: the rest is read in-process
                self.close()
                return None
            self._done = (lo, hi, results)
            self.stats["worker"] += hi - lo
            if self.cancel is None or not self.cancel.cancelled:  # after a stop only what is in hand is written
                self._submit()
        out = results[i - lo]
        return out if isinstance(out, Read) else None

    def ready(self, i: int) -> bool:
        """Whether the i-th file's Read is in hand: read here, or in a group the worker has handed back or finished.
        A stop keeps it (words_pass.py: the loop writes the files in hand up to the first that is not), as
        ReadInGroups's: 1,000 PDFs stopped dropped up to two groups the worker had read (64 files each, a minute or
        more of reading) and the next sync read them again. What the worker is still reading is not waited for."""
        if i in self._own:
            return self._own[i] is not None
        lo, hi, results = self._done
        if lo <= i < hi:
            return isinstance(results[i - lo], Read)
        if not self._queue or not self._queue[0][0] <= i < self._queue[0][1] or not self._queue[0][2].done():
            return False
        first, _, fut = self._queue[0]
        return fut.exception() is None and isinstance(fut.result()[0][i - first], Read)

    def _worker_died(self) -> bool:
        """Whether the worker process has ended though its pool did not say so: killed while it sent a result, it
        leaves half a message in the pipe, and the pool's own thread waits for the rest for ever (the sync waited
        with it)."""
        procs = list((getattr(self._pool, "_processes", None) or {}).values())
        return any(p.exitcode is not None for p in procs)

    def close(self) -> None:
        """Stop the worker now, without waiting for what it is reading (a cancel must be prompt)."""
        pool, self._pool = self._pool, None
        self._queue.clear()
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        results = getattr(pool, "_result_queue", None)
        try:
            pool.shutdown(wait=False, cancel_futures=True)
        except Exception:
            pass
        for p in procs:
            try:
                p.kill()
            except Exception:
                pass
        deadline = time.monotonic() + 1.0
        for p in procs:
            try:
                p.join(max(0.0, deadline - time.monotonic()))
            except Exception:
                pass
        try:  # this end closed too, the pool's thread waiting on half a message meets the pipe's end and stops
            results._writer.close()  # type: ignore[union-attr]
        except Exception:
            pass

    def __enter__(self) -> "ReadAhead":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
