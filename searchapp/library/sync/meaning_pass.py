"""Phase 2 of a sync (meaning): embed the passages phase 1 committed without a vector, newest-modified files
first, one batch per SQLite transaction followed by its vector-index update.

Resumable by construction: whatever a crash or a cancel interrupts is still without a vector and is simply
picked again by the next run. Identical model inputs are embedded once and the vector goes to every waiting
passage with that input, in any file.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Optional, Sequence

import numpy as np

from ...base.errors import Cancelled
from ...base.finite import require_finite
from ...base.priority import background_adapts
from ...base.progress import CancelToken, Progress, ProgressFn, report
from ...ingest.passage_context import model_input
from ...store import Store
from .encode_failures import encode_each, fail_files
from .file_boundary import file_failure
from .contract import IndexWriter, PassageEncoder
from .wanted import MeaningQueue as _Queue, Wanted

__all__ = ["embed_pending", "store_vectors", "bulk_size", "meaning_progress", "meaning_percent", "meaning_message"]


def meaning_progress(store: Store) -> tuple[int, int]:
    """(passages with a vector, passages): how much of the library dense search can find."""
    total = store.chunk_count()
    return total - store.pending_count(), total


def meaning_percent(embedded: int, total: int) -> int:
    """Rounded down, so 100 means every passage (an empty library counts as complete)."""
    return 100 if total <= 0 else 100 * embedded // total


def meaning_message(embedded: int, total: int) -> str:
    return f"searchable by words · meaning: {meaning_percent(embedded, total)}% of passages"


def _batch_progress(progress: ProgressFn, before: int, todo: int, embedded: int, total: int, p: Progress) -> None:
    """The run's progress while one batch is encoded (`p`: the encoder's, over the batch)."""
    report(progress, "embedding", min(todo, before + p.done), todo, meaning_message(embedded, total))


def bulk_size(encoder: PassageEncoder, batch: int) -> int:
    """Texts per encode call: an encoder that wants more at once (a GPU: one forward of `bulk_batch`) gets it;
    a CPU keeps `batch`, which keeps cancelling and progress fine-grained."""
    return max(1, int(batch), int(getattr(encoder, "bulk_batch", 0) or 0))


def embed_pending(store: Store, encoder: PassageEncoder, index: IndexWriter, progress: Optional[ProgressFn] = None,
                  cancel: Optional[CancelToken] = None, batch: int = 256, limit: Optional[int] = None,
                  between: Optional[Callable[[], bool]] = None, wanted: Optional[Wanted] = None,
                  ready: Optional[Callable[[list[str]], dict[str, np.ndarray]]] = None,
                  later: Sequence[int] = ()) -> int:
    """Embed every waiting passage; returns how many texts went through the bi-encoder. Raises Cancelled between
    batches: a batch whose encoding began is finished and kept first (_BatchBegun). Progress: stage "embedding",
    passages of this run, with the library's meaning percentage as the message. `limit`: stop after about that many
    passages (a sample). `wanted`: files the person is looking at, embedded first (wanted.py); `ready(hashes)`:
    vectors this process made already for some of those model inputs (a search's, search/meaning_now.py), written
    without encoding. `between()`: called before each batch; True when another writer had the library meanwhile
    (sync/handover.py: the lock was handed over and taken back), and then the queue is read again. `later`: files
    (files.id) whose passages this pass leaves waiting: scans the OCR step rewrites next from its cache
    (sync/updates.py)."""
    # This writer's to embed: a shared library's bar read "0/2453", alice-pc's 1,758 waiting passages in it, and
    # stopped at 710 (bob-pc's), then "0/1744" after the OCR step with nothing of its own left
    todo = store.pending_here_count() - (len(store.pending_of_file_ids(later)) if later else 0)
    if todo <= 0:
        return 0
    batch = bulk_size(encoder, batch)
    background = background_adapts()  # on a CPU: the encoder's threads fit what other processes leave
    embedded, total = meaning_progress(store)
    done = 0  # waiting passages filled by this run (a reused vector fills several)
    encoded = 0
    report(progress, "embedding", 0, todo, meaning_message(embedded, total))
    queue = _Queue(store, wanted, later)
    while True:
        if cancel is not None and cancel.cancelled:
            raise Cancelled("cancelled")
        if limit is not None and done >= limit:  # a reused vector may fill more than asked
            return encoded
        if between is not None and between():  # what it added joins the queue in order; what it removed leaves
            queue = _Queue(store, wanted, later)
            embedded, total = meaning_progress(store)
            todo = done + store.pending_here_count()
        rows = queue.take(batch if limit is None else min(batch, limit - done))
        if not rows:
            return encoded
        inputs: dict[str, str] = {}
        for _cid, h, text, title in rows:
            inputs.setdefault(h, model_input(title, text))
        known = store.vectors_by_hash(inputs)  # embedded meanwhile, e.g. a file copied since its batch
        if ready is not None:
            known.update(ready([h for h in inputs if h not in known]))
        new = [h for h in inputs if h not in known]
        if new:
            wait = getattr(encoder, "wait_for_load", None)  # a load started ahead: waited for while no stop comes
            if callable(wait):
                wait(cancel)
            bar = None if progress is None else partial(_batch_progress, progress, done, todo, embedded, total)
            token = None if cancel is None else _BatchBegun(cancel)
            vectors, bad = _encode(store, encoder, index, new, inputs, token, background, bar)
            known.update(vectors)
            encoded += len(new)
        else:
            bad = {}
        # with their twins in other files; the files of `bad` inputs were failed and their passages dropped
        filled = store_vectors(store, index, known, [h for h in inputs if h not in bad])
        done += filled
        embedded += filled
        todo = max(todo, done)  # a sync of another process may have added passages meanwhile
        report(progress, "embedding", done, todo, meaning_message(embedded, total))


class _BatchBegun(CancelToken):
    """The cancel token of one batch's encode: a stop stops it only before its first forward (the model still
    loading, nothing of it encoded); a batch begun is finished, committed, and the pass stops after it. A Ctrl+C
    that said "stopping after the current batch" threw that batch away (seconds of a small CPU's work), which the
    bar had counted already. Each look still steps aside for a search (in_flight.YieldingCancel): the encoders
    look before each forward (BiEncoder.encode, sync_encoder's query path)."""

    def __init__(self, inner: CancelToken) -> None:
        super().__init__()
        self.inner = inner
        self._begun = False

    def cancel(self) -> None:
        self.inner.cancel()

    @property
    def cancelled(self) -> bool:
        stop = self.inner.cancelled and not self._begun  # the inner look is a search's turn: always taken
        self._begun = True
        return stop

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled("cancelled")


def _encode(store: Store, encoder: PassageEncoder, index: IndexWriter, new: list[str], inputs: dict[str, str],
            cancel: Optional[CancelToken], background: bool, progress: Optional[ProgressFn]
            ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """({hash: vector}, {hash: reason} of inputs that break the encoder): one encode of the batch; if it raises
    for anything but a cancel or the model itself, each input alone, and the files of those that still raise are
    recorded failed (encode_failures.py): one file's passages never stop the meaning pass. If every one of
    several inputs raises alone, the encoder is at fault, not the files: the batch's error is raised, every
    passage left waiting."""
    try:
        vecs = encoder.encode([inputs[h] for h in new], cancel=cancel, background=background, progress=progress)
        bad: dict[str, str] = {}
    except Exception as exc:
        if file_failure(exc) is None:
            raise
        vectors, bad = encode_each(encoder, new, inputs, cancel, background)
        if not vectors and len(new) > 1:  # not one input encodes alone: the encoder is broken (a GPU, a driver)
            raise exc
        fail_files(store, index, bad)
        new = [h for h in new if h in vectors]
        vecs = np.stack([vectors[h] for h in new]) if new else np.zeros((0, 1), dtype=np.float32)
    # Refused before the batch's transaction: nothing of it is written, the library stays usable.
    require_finite(vecs, encoder.spec, "while embedding; nothing of this batch was written")
    return dict(zip(new, np.asarray(vecs, dtype=np.float32), strict=True)), bad


def store_vectors(store: Store, index: IndexWriter, vectors: dict[str, np.ndarray], hashes: Sequence[str]) -> int:
    """Give every passage still waiting whose model input hashes to one of `hashes` its vector from `vectors`
    (hash -> (dim,) float32): one transaction, then the vector index. Returns how many passages were filled."""
    targets = store.pending_with_hashes(hashes)  # in any file: twins of the same input share one vector
    if not targets:
        return 0
    ids = list(targets)
    vecs = np.stack([vectors[targets[i]] for i in ids])  # (n, dim)
    with store.atomic():
        store.set_vectors(ids, vecs)
        store.bump_generation()
    index.add(np.asarray(ids, dtype=np.int64), vecs)
    return len(ids)
