"""The peer for bench_duplicates.py: `find_duplicates` as it was before it read vectors from the index in
batches (a full float32 copy of every stored vector from SQLite, candidate pairs in a Python set). Kept
verbatim but for imports and the store's chunk_owners now returning arrays; the report step (paths and
texts of the pairs found, unchanged since) is the current module's report_near."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Optional

import numpy as np

from searchapp.ann import VectorIndex
from searchapp.base.errors import ConfigError
from searchapp.base.progress import CancelToken, ProgressFn, report
from searchapp.store import Store
from searchapp.library.resources.blas_limit import one_blas_thread
from searchapp.library.search.duplicates import DuplicateReport, report_near

__all__ = ["find_duplicates"]

# Chosen on a planted set (STS-B pairs with gold >= 4.5 and MRPC paraphrases as separate files, among hard
# negative pairs; all-MiniLM-L6-v2): F1 peaks at 0.74 (0.85); 0.80 trades 10 points of recall for precision
# 0.86 on judged pairs. See tests/benchmarks/bench_duplicates.py and docs/cli.md (Duplicates).
DEFAULT_THRESHOLD = 0.80
NEIGHBOURS = 10
# HNSW breadth for the neighbour queries: the pairs that matter are very close, which a narrow search finds;
# every stored passage is a query, so this sets the run time (see bench_duplicates.py).
SEARCH_EF = 48
BATCH = 4096
PAIRS_SHOWN = 5  # best passage pairs kept per near pair


def _exact_groups(store: Store) -> tuple[list[list[str]], dict[int, str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    sha_of: dict[int, str] = {}
    for fid, path, sha in store.file_hashes():
        groups[sha].append(path)
        sha_of[fid] = sha
    return sorted((g for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), g[0])), sha_of


def find_duplicates(store: Store, index: Optional[VectorIndex], dim: Optional[int], *,
                    threshold: float = DEFAULT_THRESHOLD, neighbours: int = NEIGHBOURS,
                    progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> DuplicateReport:
    if not 0.0 < threshold <= 1.0:
        raise ConfigError(f"--threshold must be in (0, 1], got {threshold}")
    t0 = time.perf_counter()
    exact, sha_of = _exact_groups(store)
    out = DuplicateReport(exact, [], threshold)
    owned_ids, owners = store.chunk_owners()
    rows = list(zip(owned_ids.tolist(), owners.tolist(), strict=True))
    if index is None or dim is None or len(rows) < 2:
        return out
    chunk_ids = np.array([r[0] for r in rows], dtype=np.int64)
    file_of = np.array([r[1] for r in rows], dtype=np.int64)
    vectors = np.zeros((len(rows), dim), dtype=np.float32)
    depth = min(neighbours + 1, len(index))  # +1: a passage is its own nearest neighbour
    ef = max(SEARCH_EF, depth)  # per call: the shared index's default stays what searches use

    # 1. Candidate file pairs from each passage's nearest neighbours in the graph.
    cand: set[tuple[int, int]] = set()
    for start in range(0, len(chunk_ids), BATCH):
        if cancel is not None:
            cancel.check()
        ids, vecs = store.vectors(chunk_ids[start:start + BATCH].tolist(), dim)
        if not len(ids):
            continue
        mine = np.searchsorted(chunk_ids, ids)  # rows come back in any order
        vectors[mine] = vecs
        labels, sims = index.search(vecs, depth, ef=ef)
        pos = np.searchsorted(chunk_ids, labels).clip(0, len(chunk_ids) - 1)
        known = chunk_ids[pos] == labels  # a label deleted from SQLite since the index was saved
        fa = np.repeat(file_of[mine], labels.shape[1]).reshape(labels.shape)
        fb = file_of[pos]
        hit = known & (sims >= threshold) & (fa != fb)
        for x, y in zip(fa[hit].tolist(), fb[hit].tolist(), strict=True):
            cand.add((x, y) if x < y else (y, x))
        report(progress, "finding duplicates", min(start + BATCH, len(chunk_ids)), len(chunk_ids))
    out.stats["neighbours_ms"] = (time.perf_counter() - t0) * 1000.0
    out.stats["candidate_pairs"] = len(cand)

    # 2. Exact similarity of each candidate pair from the files' stored vectors.
    order = np.argsort(file_of, kind="stable")
    files_sorted = file_of[order]
    rows_of = lambda f: order[np.searchsorted(files_sorted, f):np.searchsorted(files_sorted, f, side="right")]  # noqa: E731
    found: list[tuple[float, int, int, list[tuple[float, int, int]]]] = []
    with one_blas_thread():
        _score_pairs(sorted(cand), vectors, rows_of, chunk_ids, sha_of, threshold, found, cancel)
    out.stats["total_ms"] = (time.perf_counter() - t0) * 1000.0

    report_near(store, found, out)  # 3. paths and passage texts (unchanged since: the current module's)
    return out


def _score_pairs(cand, vectors, rows_of, chunk_ids, sha_of, threshold, found, cancel) -> None:
    """similarity(A, B) of each candidate pair from the stored vectors; qualifying pairs go to `found`.
    Pairs come sorted by A: one product of A's passages against all of its partners' passages at once."""
    groups: dict[int, list[int]] = defaultdict(list)
    for fa, fb in cand:
        if not (fa in sha_of and sha_of.get(fa) == sha_of.get(fb)):  # an exact copy: listed under `exact`
            groups[fa].append(fb)
    for n, (fa, partners) in enumerate(groups.items()):
        if cancel is not None and n % 256 == 0:
            cancel.check()
        ra = rows_of(fa)
        rbs = [rows_of(fb) for fb in partners]
        s_all = vectors[ra] @ vectors[np.concatenate(rbs)].T
        start = 0
        for fb, rb in zip(partners, rbs, strict=True):
            s = s_all[:, start:start + len(rb)]
            start += len(rb)
            best_b, best_a = s.max(axis=1), s.max(axis=0)
            sim = float(min(best_b.mean(), best_a.mean()))
            if sim < threshold:
                continue
            arg_b = s.argmax(axis=1)
            top = np.argsort(-best_b, kind="stable")[:PAIRS_SHOWN]
            found.append((sim, fa, fb, [(float(best_b[i]), int(chunk_ids[ra[i]]), int(chunk_ids[rb[arg_b[i]]]))
                                        for i in top]))
