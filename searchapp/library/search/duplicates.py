"""Duplicates and paraphrases across files: exact copies (same sha256) and near duplicates (same meaning).

Near duplicates come from the HNSW graph, never from all pairs: every stored passage vector asks the
vector index for its NEIGHBOURS nearest passages (batched queries; a shared library's pgvector index is asked
by passage id, hundreds a statement, its vectors read on the server). A passage pair of two different
files with cosine >= the threshold makes the two files a candidate; each candidate pair is then scored
exactly from the files' stored vectors:

    similarity(A, B) = min(mean over A's passages of the best cosine in B,
                           mean over B's passages of the best cosine in A)

so both files must largely say what the other says (a short excerpt of a long report is not its
duplicate). Passages of fewer than MIN_NEAR_WORDS words are set aside before the scoring (a header row, "Page 1"). A pair is reported when similarity >= threshold. Since a mean is at most its maximum, a
pair that qualifies always has a passage pair at or above the threshold: the candidate step loses
nothing except what the approximate graph misses or more than NEIGHBOURS closer passages crowd out.

Memory at a million passages: stored vectors are read in batches for the queries and again, a block of files
at a time, for the scoring, never all at once beside the index (1.5 GB at 1M); candidate pairs are one
int64 per file pair, deduplicated as they come; passages and files are int64 arrays. hnswlib's get_items
would spare SQLite but builds a Python float per number (over 10x slower than the SQLite read). Progress is
reported and cancel checked every batch of either pass.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, runtime_checkable

import numpy as np

from ...ann import VectorIndex
from ...base.errors import ConfigError
from ...base.member_paths import display_path
from ...base.natural_order import natural_key
from ...base.progress import CancelToken, ProgressFn, report
from ...ingest.fsnames import one_name_each
from ...store import Store
from ..resources.blas_limit import one_blas_thread
from .few_words import word_count
from .near_groups import NearGroup, near_groups

__all__ = ["DuplicateReport", "NearPair", "PassagePair", "find_duplicates", "DEFAULT_THRESHOLD", "MIN_NEAR_WORDS",
           "ONE_DOCUMENT", "CAUTION"]

# A passage of fewer words than this (few_words.word_count: runs of letters, so `|` and numbers are none) takes no
# part in near duplicates: it is no file's content. Two workbooks with nothing but their default sheet names
# ("Лист1 Лист2 Лист3") were near duplicates at 1.000, and so were two different workbooks sharing a header row
# ("Sheet1 / Name | Date | Amount | Notes", whose separators counted as words); a "Page 1" or a signature raised the
# score of two reports that share it. A file with no passage this long is in no near pair. Exact copies are found by
# their bytes, whatever their length.
MIN_NEAR_WORDS = 8

# Chosen on a planted set (STS-B pairs with gold >= 4.5 and MRPC paraphrases as separate files, among hard
# negative pairs; all-MiniLM-L6-v2): F1 peaks at 0.74 (0.85); 0.80 trades 10 points of recall for precision
# 0.86 on judged pairs. See tests/benchmarks/bench_duplicates.py and docs/cli.md (Duplicates).
DEFAULT_THRESHOLD = 0.80
# Below this, a near pair is as often two documents on one subject as one document twice: on a newcomer's library
# (2-core laptop, 2,561 files), 12 of 26 pairs at 0.80-0.874 were different SciFact papers on one topic, while
# every Word/Excel/PowerPoint version of one file scored 0.976-1.0 (one sheet read differently: 0.821). The pairs
# stay listed (a paraphrase is what near duplicates are for), with a caution a person reads before deleting.
ONE_DOCUMENT = 0.90
CAUTION = ("below {:.2f} two files are often different documents on one subject: compare them before deleting "
           "either").format(ONE_DOCUMENT)
NEIGHBOURS = 10
# HNSW breadth for the neighbour queries: the pairs that matter are very close, which a narrow search finds;
# every stored passage is a query, so this sets the run time. 24 reports the same pairs as 48 on the planted
# set at 0.6 and 0.8 for half the CPU per query; 16 already differs by a pair or two (bench_duplicates.py).
SEARCH_EF = 24
BATCH = 4096  # passages per neighbour query batch (the index lock is held for one batch)
BLOCK_ROWS = 65_536  # passages a block of files holds for scoring (100 MB at 384 dims; two are held at once)
PRODUCT_CELLS = 2_000_000  # largest passage-by-passage similarity block computed at once (8 MB)
PAIRS_SHOWN = 5  # best passage pairs kept per near pair


@runtime_checkable
class StoredNeighbours(Protocol):
    """An index that holds the passages' vectors itself (a shared library's pgvector): asked by passage id, so
    no vector crosses the wire each way and a statement asks hundreds of passages (store/postgres/pg_index.py)."""

    def neighbours(self, ids: np.ndarray, k: int, *, ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]: ...


# The scored near pairs: (similarity, file, file, [(similarity, chunk, chunk) of the passage pairs shown])
_Found = list[tuple[float, int, int, list[tuple[float, int, int]]]]


@dataclass
class PassagePair:
    similarity: float
    a_text: str = ""
    b_text: str = ""
    a_page: Optional[int] = None
    b_page: Optional[int] = None

    def to_json(self) -> dict[str, Any]:
        return {"a_text": self.a_text, "b_text": self.b_text, "similarity": round(self.similarity, 4)}


@dataclass
class NearPair:
    a: str
    b: str
    similarity: float
    pairs: list[PassagePair] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        # As every JSON output names an entry (docs/formats.md): the path as shown (`a.zip › x.docx`), and the
        # library's own name beside it (`a.zip//x.docx`)
        return {"a": display_path(self.a), "b": display_path(self.b), "a_key": self.a, "b_key": self.b,
                "similarity": round(self.similarity, 4), "pairs": [p.to_json() for p in self.pairs]}


@dataclass
class DuplicateReport:
    exact: list[list[str]]  # groups of paths with the same sha256
    near: list[NearPair]  # best first
    threshold: float
    stats: dict[str, float] = field(default_factory=dict)  # timings (ms) and the candidate pairs' count
    # < 100: passages still without a vector, which near duplicates cannot be found by (None: all have one)
    meaning_percent: Optional[int] = None
    # On a shared library (SharedLibrary.duplicates), as a search's rows are marked: path -> the machine that indexed
    # it, when not this one ("desk-a's"), and path -> why it cannot be read here; empty on a desktop library
    whose: dict[str, str] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)

    def paths(self) -> list[str]:
        """Every file the report names, once each, in the order it names them."""
        return list(dict.fromkeys([p for g in self.exact for p in g] + [p for n in self.near for p in (n.a, n.b)]))

    @property
    def near_groups(self) -> list[NearGroup]:
        """The near pairs in groups, the files each links (library/search/near_groups.py), the surest first."""
        return near_groups(self.near, self.exact, self.threshold, ONE_DOCUMENT)

    @property
    def caution(self) -> Optional[str]:
        """What to read before deleting one of a near group that may hold two documents (ONE_DOCUMENT), or None."""
        return CAUTION if any(g.caution for g in self.near_groups) else None

    def to_json(self) -> dict[str, Any]:
        groups = self.near_groups
        return {"exact": [{"paths": [display_path(p) for p in g], "keys": g} for g in self.exact],
                "near": [p.to_json() for p in self.near],
                "near_groups": [g.to_json() for g in groups],
                **({"meaning_percent": self.meaning_percent} if self.meaning_percent is not None else {}),
                **({"whose": self.whose} if self.whose else {}),
                **({"unavailable": self.unavailable} if self.unavailable else {}),
                **({"caution": CAUTION} if any(g.caution for g in groups) else {})}


def _exact_groups(store: Store) -> tuple[list[list[str]], dict[int, str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    sha_of: dict[int, str] = {}
    for fid, path, sha in store.file_hashes():
        groups[sha].append(path)
        sha_of[fid] = sha
    # Two names of one file (a link, a linked folder, a hard link) are no copies: deleting "the copy" deleted it
    copies = (sorted(one_name_each(g), key=natural_key) for g in groups.values() if len(g) > 1)
    return sorted((g for g in copies if len(g) > 1), key=lambda g: (-len(g), natural_key(g[0]))), sha_of


def find_duplicates(store: Store, index: Optional[VectorIndex], dim: Optional[int], *,
                    threshold: float = DEFAULT_THRESHOLD, neighbours: int = NEIGHBOURS,
                    progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> DuplicateReport:
    if not 0.0 < threshold <= 1.0:
        raise ConfigError(f"--threshold must be in (0, 1], got {threshold}")
    t0 = time.perf_counter()
    exact, sha_of = _exact_groups(store)
    out = DuplicateReport(exact, [], threshold)
    if index is None or dim is None:
        return out
    chunk_ids, owner = store.chunk_owners()
    # Passages both stored and in the index (one deleted from SQLite since the index was saved, or still
    # waiting for its vector, is neither a query nor a neighbour).
    keep = np.isin(chunk_ids, index.ids(), assume_unique=True)
    chunk_ids, owner = chunk_ids[keep], owner[keep]
    del keep
    if len(chunk_ids) < 2:
        return out
    files, file_of = np.unique(owner, return_inverse=True)  # dense file numbers: a pair packs in one int64
    file_of = file_of.astype(np.int64)
    del owner

    # 1. Candidate file pairs from each passage's nearest neighbours in the graph.
    cand = _candidates(store, index, dim, chunk_ids, file_of, threshold, neighbours, progress, cancel)
    out.stats["neighbours_ms"] = (time.perf_counter() - t0) * 1000.0
    out.stats["candidate_pairs"] = len(cand)

    # 2. Exact similarity of each candidate pair from the files' stored vectors, read a run of files at a time.
    a_of, b_of = cand >> 32, cand & 0xFFFFFFFF
    del cand
    content: dict[str, int] = {}  # sha256 -> a number; -1: no hash
    sha = np.array([content.setdefault(sha_of[f], len(content)) if f in sha_of else -1 for f in files.tolist()],
                   dtype=np.int64)
    copy = (sha[a_of] >= 0) & (sha[a_of] == sha[b_of])  # an exact copy is listed under `exact`
    a_of, b_of = a_of[~copy], b_of[~copy]
    chunk_ids, file_of, a_of, b_of = _without_short(store, chunk_ids, file_of, a_of, b_of, len(files))
    found: _Found = []
    with one_blas_thread():
        _score_pairs(store, dim, a_of, b_of, chunk_ids, file_of, files, threshold, found, progress, cancel)
    out.stats["total_ms"] = (time.perf_counter() - t0) * 1000.0

    report_near(store, found, out)  # 3. paths and passage texts for what is reported
    return out


def _without_short(store: Store, chunk_ids: np.ndarray, file_of: np.ndarray, a_of: np.ndarray, b_of: np.ndarray,
                   n_files: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The passages and candidate pairs left once the passages of fewer than MIN_NEAR_WORDS words are set aside
    (read, a batch at a time, only for the files of candidate pairs); a pair with a file left without passages goes."""
    if not len(a_of) or MIN_NEAR_WORDS <= 0:
        return chunk_ids, file_of, a_of, b_of
    paired = np.zeros(n_files, dtype=bool)
    paired[a_of] = paired[b_of] = True
    keep = paired[file_of]
    at = np.flatnonzero(keep)
    for start in range(0, len(at), BATCH):
        part = at[start:start + BATCH]
        texts = store.chunks(chunk_ids[part].tolist())
        keep[part] = [c in texts and word_count(texts[c].text, MIN_NEAR_WORDS) >= MIN_NEAR_WORDS
                      for c in chunk_ids[part].tolist()]
    chunk_ids, file_of = chunk_ids[keep], file_of[keep]
    has = np.bincount(file_of, minlength=n_files) > 0
    left = has[a_of] & has[b_of]
    return chunk_ids, file_of, a_of[left], b_of[left]


def report_near(store: Store, found: _Found, out: DuplicateReport) -> None:
    """Add the scored near pairs `found` ([(similarity, file, file, [(similarity, chunk, chunk)])]) to `out.near`,
    best first, each pair's files in natural path order (orig(2) before orig(10)) with their passage texts; a file
    or passage deleted meanwhile is left out."""
    paths = store.file_paths()
    texts = store.chunks([c for f in found for _, a, b in f[3] for c in (a, b)])
    found.sort(key=lambda f: (-f[0], natural_key(paths.get(f[1], "")), natural_key(paths.get(f[2], ""))))
    for sim, one, other, pairs in found:
        if one not in paths or other not in paths:
            continue
        a, b = (one, other) if natural_key(paths[one]) <= natural_key(paths[other]) else (other, one)
        flip = a != one
        near = NearPair(paths[a], paths[b], min(sim, 1.0))
        for psim, ca, cb in pairs:
            ra, rb = texts.get(ca), texts.get(cb)
            if ra is None or rb is None:
                continue
            if flip:
                ra, rb = rb, ra
            near.pairs.append(PassagePair(min(psim, 1.0), ra.text, rb.text, ra.page, rb.page))
        near.pairs.sort(key=lambda p: -p.similarity)
        out.near.append(near)


def _read_vectors(store: Store, ids: np.ndarray, dim: int) -> np.ndarray:
    """Stored vectors of `ids`, row for row (SQLite returns them in any order); a row whose vector is gone or
    not finite since the index was read stays zero: it matches nothing."""
    out = np.zeros((len(ids), dim), dtype=np.float32)
    by_id = np.argsort(ids, kind="stable")
    for start in range(0, len(ids), BATCH):  # the rows' bytes are held twice while read: a batch at a time
        got, vecs = store.vectors(ids[start:start + BATCH].tolist(), dim)
        if len(got):
            out[by_id[np.searchsorted(ids[by_id], got)]] = vecs
    return out


def _candidates(store: Store, index: VectorIndex, dim: int, chunk_ids: np.ndarray, file_of: np.ndarray,
                threshold: float, neighbours: int, progress: Optional[ProgressFn],
                cancel: Optional[CancelToken]) -> np.ndarray:
    """Sorted distinct file pairs (a << 32 | b, a < b, dense file numbers) holding a passage pair at or above
    the threshold among each passage's nearest neighbours."""
    depth = min(neighbours + 1, len(index))  # +1: a passage is its own nearest neighbour
    ef = max(SEARCH_EF, depth)  # per call: the shared index's default stays what searches use
    n = len(chunk_ids)
    parts: list[np.ndarray] = []
    held = 0
    for start in range(0, n, BATCH):
        if cancel is not None:
            cancel.check()
        ids = chunk_ids[start:start + BATCH]
        if isinstance(index, StoredNeighbours):
            labels, sims = index.neighbours(ids, depth, ef=ef)
        else:
            labels, sims = index.search(_read_vectors(store, ids, dim), depth, ef=ef)
        pos = np.searchsorted(chunk_ids, labels).clip(0, n - 1)
        known = chunk_ids[pos] == labels  # a label deleted from SQLite since the index was saved
        fa = np.broadcast_to(file_of[start:start + len(ids), None], labels.shape)
        fb = file_of[pos]
        hit = known & (sims >= threshold) & (fa != fb)
        x, y = fa[hit], fb[hit]
        keys = np.unique(np.minimum(x, y) << 32 | np.maximum(x, y))
        if len(keys):
            parts.append(keys)
            held += len(keys)
        if held > n:  # the same pairs over and over (boilerplate in every file): fold them as they pile up
            parts = [np.unique(np.concatenate(parts))]
            held = len(parts[0])
        report(progress, "finding duplicates", min(start + BATCH, n), n)
    return np.unique(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)


def _score_pairs(store: Store, dim: int, a_of: np.ndarray, b_of: np.ndarray, chunk_ids: np.ndarray, file_of: np.ndarray,
                 files: np.ndarray, threshold: float, found: _Found, progress: Optional[ProgressFn],
                 cancel: Optional[CancelToken]) -> None:
    """similarity(A, B) of each candidate pair (a < b) from the stored vectors; qualifying pairs go to `found`
    with their file ids. The files in pairs are cut into blocks of about BLOCK_ROWS passages, in file order;
    pairs are taken block pair by block pair, so each block is read once per block it pairs with (candidate
    pairs link files at random: reading each pair's files, or a run of A files' partners, read the library
    many times over), and at most two blocks are held."""
    if not len(a_of):  # no candidate left (none at all, or only exact copies): nothing to score
        return
    order = np.argsort(file_of, kind="stable")  # passages by file, each file's in chunk-id order
    first = np.searchsorted(file_of[order], np.arange(len(files) + 1))  # file f: order[first[f]:first[f+1]]
    size = np.diff(first)
    used = np.unique(np.concatenate([a_of, b_of]))
    offset = np.cumsum(size[used]) - size[used]  # the used files' passages one after the other
    block = np.zeros(len(files), dtype=np.int64)
    block[used] = offset // BLOCK_ROWS  # by the file's first passage: a block ends with a whole file
    local = np.zeros(len(files), dtype=np.int64)  # a file's first row in its block's vectors
    local[used] = offset - offset[np.searchsorted(block[used], block[used])]
    bi, bj = block[a_of], block[b_of]  # bi <= bj: blocks follow file order and a < b
    by = np.lexsort((b_of, a_of, bj, bi))
    a_of, b_of, bi, bj = a_of[by], b_of[by], bi[by], bj[by]
    cuts = np.flatnonzero(np.r_[True, (bi[1:] != bi[:-1]) | (bj[1:] != bj[:-1]), True])
    held: dict[int, np.ndarray] = {}
    for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        if cancel is not None:
            cancel.check()
        i, j = int(bi[lo]), int(bj[lo])
        for k in list(held):
            if k != i:
                del held[k]  # a block that no later pair of this row of blocks needs
        for k in (i, j):
            if k not in held:
                mine = used[block[used] == k]
                held[k] = _read_vectors(store, chunk_ids[np.concatenate([order[first[f]:first[f + 1]]
                                                                         for f in mine.tolist()])], dim)
        va, vb = held[i], held[j]
        starts = np.flatnonzero(np.r_[True, a_of[lo + 1:hi] != a_of[lo:hi - 1]]) + lo
        for n, (p, q) in enumerate(zip(starts.tolist(), [*starts[1:].tolist(), hi], strict=True)):
            if n and n % 256 == 0:
                if cancel is not None:
                    cancel.check()
                report(progress, "scoring duplicate pairs", p, len(a_of))
            _score_group(int(a_of[p]), b_of[p:q].tolist(), va, vb, order, first, local, size, chunk_ids, files,
                         threshold, found)
        if j != i:
            del held[j]
        report(progress, "scoring duplicate pairs", hi, len(a_of))


def _score_group(fa: int, partners: list[int], vecs_a: np.ndarray, vecs_b: np.ndarray, order: np.ndarray,
                 first: np.ndarray, local: np.ndarray, size: np.ndarray, chunk_ids: np.ndarray, files: np.ndarray,
                 threshold: float, found: _Found) -> None:
    """File A against its partners: A's passages by the partners' passages in products of at most PRODUCT_CELLS,
    so two long files (a book and its other edition) never need their whole product at once."""
    na = int(size[fa])
    va = vecs_a[local[fa]:local[fa] + na]
    cols = max(1, PRODUCT_CELLS // na)  # partners' passages per product
    i = 0
    while i < len(partners):
        j, held = i, 0
        while j < len(partners) and (j == i or held + int(size[partners[j]]) <= cols):
            held += int(size[partners[j]])
            j += 1
        batch = partners[i:j]
        i = j
        widths = size[batch]
        starts = np.cumsum(widths) - widths
        vb = np.concatenate([vecs_b[local[b]:local[b] + size[b]] for b in batch])
        best_b = np.empty((na, len(batch)), dtype=np.float32)  # best cosine in each partner, per passage of A
        best_a = np.full(len(vb), -np.inf, dtype=np.float32)  # best cosine in A, per partner passage
        step = max(1, PRODUCT_CELLS // len(vb))
        for r in range(0, na, step):
            s = va[r:r + step] @ vb.T
            best_b[r:r + step] = np.maximum.reduceat(s, starts, axis=1)
            np.maximum(best_a, s.max(axis=0), out=best_a)
        sims = np.minimum(best_b.mean(axis=0, dtype=np.float64),
                          np.add.reduceat(best_a.astype(np.float64), starts) / widths)
        for k in np.flatnonzero(sims >= threshold).tolist():
            b = batch[k]
            top = np.argsort(-best_b[:, k], kind="stable")[:PAIRS_SHOWN]
            arg = (va[top] @ vb[starts[k]:starts[k] + widths[k]].T).argmax(axis=1)
            ra, rb = order[first[fa]:first[fa + 1]], order[first[b]:first[b + 1]]
            found.append((float(sims[k]), int(files[fa]), int(files[b]),
                          [(float(best_b[t, k]), int(chunk_ids[ra[t]]), int(chunk_ids[rb[x]]))
                           for t, x in zip(top.tolist(), arg.tolist(), strict=True)]))
