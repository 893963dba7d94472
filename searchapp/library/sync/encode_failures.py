"""The embed step's side of the per-file boundary (file_boundary.py): an encode of a batch that raises is done
again input by input, and the files whose passages break the encoder alone are recorded failed (their passages
dropped, so nothing waits for a vector that cannot come; the next sync reads them again). The others of the
batch get their vectors as usual."""

from __future__ import annotations

import logging
from typing import Optional, Sequence

import numpy as np

from ...base.progress import CancelToken
from ...store import Store
from ...store.ledger import files_by_id
from .file_boundary import file_failure, one_line
from .contract import IndexWriter, PassageEncoder

__all__ = ["encode_each", "fail_files"]

log = logging.getLogger(__name__)


def encode_each(encoder: PassageEncoder, hashes: Sequence[str], inputs: dict[str, str],
                cancel: Optional[CancelToken], background: bool) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """({hash: vector} of the inputs that encode alone, {hash: reason} of those that raise alone)."""
    vectors: dict[str, np.ndarray] = {}
    bad: dict[str, str] = {}
    for h in hashes:
        try:
            vec = encoder.encode([inputs[h]], cancel=cancel, background=background)
        except Exception as exc:
            reason = file_failure(exc)
            if reason is None:  # a cancel, a model that cannot load: not this input's doing
                raise
            bad[h] = reason
            continue
        vectors[h] = np.asarray(vec, dtype=np.float32)[0]
    return vectors, bad


def fail_files(store: Store, index: IndexWriter, bad: dict[str, str]) -> list[tuple[str, str]]:
    """Record every file with a waiting passage whose model input is in `bad` (hash -> reason) as failed, its
    passages dropped, in one transaction; returns (path, reason) of each."""
    targets = store.pending_with_hashes(bad)  # chunk id -> hash
    if not targets:
        return []
    reasons: dict[int, str] = {}
    for cid, fid in store.chunk_files(list(targets)).items():
        reasons.setdefault(fid, one_line(f"cannot embed: {bad[targets[cid]]}"))
    rows = files_by_id(store, reasons)
    out: list[tuple[str, str]] = []
    removed: list[int] = []
    with store.atomic():
        for fid, reason in reasons.items():
            row = rows.get(fid)
            if row is None:
                continue
            removed += store.delete_chunks_of_file(fid)
            store.upsert_file(row.root_id, row.path, row.size, row.mtime_ns, None, "failed", reason, row.kind, 0,
                              ctime_ns=row.ctime_ns)
            out.append((row.path, reason))
        store.bump_generation()
    if removed:
        index.remove(removed)
    for path, reason in out:
        log.warning("%s: %s", path, reason)
    return out
