"""Phase 2 (meaning) beside phase 1 (words), where the bi-encoder has hardware of its own (a GPU).

A sync commits words first and embeds after (meaning_pass.py), so a large folder is searchable by words long
before it is embedded. On a CPU the two passes would share the same cores, and words first is the faster way
to a useful library. On a GPU the words pass (reading, chunking, SQLite) leaves the GPU idle and the meaning
pass leaves most cores idle: run one after the other, a whole sync of 6,000 files took the sum of both (5.8 s +
6.6 s on an H100, 2026-11-26).

Here the passages each words batch leaves waiting are handed, as soon as that batch has committed, to one
worker thread that encodes them while the words pass goes on. All writes stay on the sync's own thread: a
finished encode is written at the next words batch (one transaction, then the vector index), for every
passage then still waiting with that model input. Nothing changes in what a crash, a cancel or an error leaves:
a passage without a vector still waits, and the meaning pass after the words (embed_pending) embeds whatever
this did not — including what it declined because the encoder was behind: the words pass never waits for it.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional

import numpy as np

from ...base.errors import Cancelled
from ...base.finite import require_finite
from ...base.priority import background_adapts
from ...base.progress import CancelToken
from ...store import Store
from .file_boundary import file_failure
from .meaning_pass import bulk_size, store_vectors
from .contract import IndexWriter, PassageEncoder

__all__ = ["MeaningBeside", "beside_words"]

# Encodes queued or running at once; past it, a batch's passages are left to the meaning pass after the words.
_IN_FLIGHT = 4
# Set to "1" or "0" to run the meaning pass beside the words pass or after it whatever the device (tests, and a
# person whose GPU is shared with other work).
ENV = "SEARCHAPP_MEANING_BESIDE_WORDS"


def beside_words(encoder: PassageEncoder) -> bool:
    """Whether a sync embeds beside its words pass: by default where the encoder wants bulk batches (CUDA)."""
    forced = os.environ.get(ENV, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    return int(getattr(encoder, "bulk_batch", 0) or 0) > 0


class _Stop(CancelToken):
    """The worker's token: set by `close`, or by the sync's own token."""

    def __init__(self, inner: Optional[CancelToken]) -> None:
        super().__init__()
        self.inner = inner

    @property
    def cancelled(self) -> bool:
        return self._event.is_set() or (self.inner is not None and self.inner.cancelled)

    def check(self) -> None:
        if self.inner is not None:
            self.inner.check()  # the sync's token may step aside while a search runs, as the meaning pass does
        super().check()


class MeaningBeside:
    """Encodes the passages each words batch leaves waiting on one worker thread; writes them on the caller's.
    Use from the sync's thread only; `close` (always, e.g. in a finally) stops the worker."""

    def __init__(self, store: Store, encoder: PassageEncoder, index: IndexWriter,
                 cancel: Optional[CancelToken], batch: int) -> None:
        self.store, self.encoder, self.index = store, encoder, index
        self.batch = max(1, int(batch))
        self.encoded = 0  # texts that went through the bi-encoder here
        self._stop = _Stop(cancel)
        self._enabled: Optional[bool] = None  # decided at the first offer: the encoder is loaded by then
        self._pool: Optional[ThreadPoolExecutor] = None
        self._collecting: dict[str, str] = {}  # hash -> model input, not yet handed to the worker
        # (hashes, their vectors to come), oldest first
        self._jobs: deque[tuple[list[str], Future[np.ndarray]]] = deque()
        self._held: set[str] = set()  # hashes collected or encoding, not yet written

    def offer(self, inputs: dict[str, str]) -> None:
        """After a words batch committed: `inputs` (hash -> model input) of the passages it left waiting. Also
        writes whatever the worker has finished."""
        if not inputs:
            return
        if self._enabled is None:
            self._enabled = beside_words(self.encoder)
            self.batch = bulk_size(self.encoder, self.batch)  # as in the meaning pass
        if not self._enabled:
            return
        for h, text in inputs.items():
            if h not in self._held:  # held: its vector is on the way and will fill this passage too
                self._collecting[h] = text
                self._held.add(h)
        # Only now: written first, a held input would be let go and then taken again as new.
        self.write_done()
        if len(self._collecting) >= self.batch:
            self._submit()

    def write_done(self, wait: bool = False) -> None:
        """Write the finished encodes, oldest first (`wait`: every one, waiting for the worker). A failed encode
        raises here as in the meaning pass; a cancelled one is dropped (its passages wait)."""
        while self._jobs and (wait or self._jobs[0][1].done()):
            hashes, fut = self._jobs.popleft()
            try:
                vecs = fut.result()
            except Cancelled:  # the sync's cancel: its own next check stops it, with what it did so far
                self._held.difference_update(hashes)
                continue
            except Exception as exc:
                if file_failure(exc) is None:
                    raise
                # One file's passages broke the encoder: they wait, and the meaning pass after the words
                # encodes this batch again input by input and fails only that file (meaning_pass._encode).
                self._held.difference_update(hashes)
                continue
            # Refused before any transaction: nothing of this batch is written, the library stays usable.
            require_finite(vecs, self.encoder.spec, "while embedding; nothing of this batch was written")
            self.encoded += len(hashes)
            store_vectors(self.store, self.index, dict(zip(hashes, np.asarray(vecs, dtype=np.float32), strict=True)),
                          hashes)
            self._held.difference_update(hashes)

    def finish(self) -> None:
        """After the words pass: encode and write what was collected, and wait for the worker."""
        if self._collecting:
            self._submit(force=True)
        self.write_done(wait=True)

    def close(self, keep_done: bool = False) -> None:
        """Stop the worker: queued encodes are dropped, the running one ends at its next batch. `keep_done` (on a
        cancel, which keeps what is done): encodes that finished are written first. Whatever is not written
        waits for the meaning pass."""
        self._stop.cancel()
        for _, fut in self._jobs:
            fut.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if keep_done:
            self._jobs = deque(job for job in self._jobs if not job[1].cancelled() and job[1].exception() is None)
            self.write_done(wait=True)
        self._jobs.clear()

    def _submit(self, force: bool = False) -> None:
        items, self._collecting = self._collecting, {}
        if len(self._jobs) >= _IN_FLIGHT and not force:
            self._held.difference_update(items)  # the encoder is behind: these wait for the meaning pass
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="searchapp-meaning")
        hashes = list(items)
        texts = [items[h] for h in hashes]
        self._jobs.append((hashes, self._pool.submit(self.encoder.encode, texts, cancel=self._stop,
                                                     background=background_adapts())))
