"""A library of up to a million passages: build without the model, size on disk, open time,
RSS after open, query p50/p95 (dense, hybrid, filtered), `similar` and `duplicates` time.

Passages: real sentences (bench_query.sentences); the first --real are one sentence each, every other passage
is "<sentence x> / <sentence y>" drawn from the whole pool. Each passage's vector is derived from its own text:
a fixed random projection (seeded, 65,536 hashed word buckets -> 384 dimensions) of its word counts (lower
case, common words left out, square-root weighted), normalised. Queries (STS-B dev sentences) get their vectors
the same way. So lexical and dense agree about what a passage is about (two passages sharing words are near;
a query is near the passages holding its words) and hybrid figures measure fusing two views of the same text,
without embedding a million passages with MiniLM on a shared CPU. It is not MiniLM's geometry: synonyms are not
near, and recall/quality figures from it say nothing about the model. 100 passages a file, 10 files a folder,
1% of the files PDFs. Rows are written
through the Store in transactions of --batch passages; the HNSW index is then built from the stored vectors by
the Library (IndexKeeper.rebuild_index, as a repair would) and saved. Both steps are timed.

Measurement runs in a fresh interpreter (`--measure DIR`) so RSS is the library's, not the build's: RSS after
imports, after Library(...) + index load ("open"), the index file size (the HNSW graph in memory holds every
vector in float32 plus its links: about the file's size), then query latency with query vectors encoded up
front (retrieval only, no model is loaded; MiniLM's own ~0.3 GB is not in these RSS figures and is said so).

    python tests/benchmarks/bench_million.py                            # the documented figure: a million
                                                                        # passages, ~15 min build, run in background
    python tests/benchmarks/bench_million.py --n 250000                 # a quicker look (not docs/benchmarks.md's figure)
    python tests/benchmarks/bench_million.py --n 1000000 --real 2000 --queries-only --compare-kept  # filtered rows:
        kept allowed vectors (search/scope_vectors.py) against reading them from SQLite each search, interleaved
(--real: passages that are one sentence each, the rest join two; --pool: how many distinct real sentences
passage text is drawn from; --dup-limit: cancel `duplicates` after N s)
One JSON line per result; every line carries the CPU flags, the load average, the passage count and what the
vectors are ("hashed word projection, not MiniLM"), so no figure is read as a million MiniLM passages by mistake.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
from _common import emit as _emit

WORK = Path(os.environ.get("SEARCHAPP_BENCH_DIR", "/tmp/searchapp-bench")) / "million"
DATA = Path(os.environ.get("SEARCHAPP_DATA", "/work/shared/data"))
PER_FILE, FILES_PER_DIR = 100, 10


VECTORS_NOTE = "hashed word projection, not MiniLM (see the module docstring)"
PASSAGES = 0  # the library's passage count, set once it is known: every line says it


def emit(**row) -> None:
    # `row` may name the vectors (the build and open lines give their fingerprint): it wins, never a TypeError
    _emit({"bench": "million", "passages": PASSAGES or None, "vectors": VECTORS_NOTE}, **row, add_cpu_note=True)


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory now (VmRSS) or at its peak so far (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


# The text -> vector map every passage and query goes through (see the docstring).
DIM, BUCKETS, PROJECTION_SEED = 384, 1 << 16, 20261126
FINGERPRINT = f"hashed-words-{BUCKETS}x{DIM}-seed{PROJECTION_SEED}"  # recorded as the library's model
_WORD = re.compile(r"\w+", re.UNICODE)


class TextVectors:
    """Vectors derived from text alone: normalised random projection of square-root word counts."""

    def __init__(self) -> None:
        from searchapp.store.lexical import STOP_WORDS

        self.stop = STOP_WORDS
        self.projection = np.random.default_rng(PROJECTION_SEED).standard_normal((BUCKETS, DIM), dtype=np.float32)
        self.bucket: dict[str, int] = {}

    def _bucket(self, word: str) -> int:
        b = self.bucket.get(word)
        if b is None:
            b = self.bucket[word] = zlib.crc32(word.encode("utf-8")) % BUCKETS
        return b

    def __call__(self, texts: list[str]) -> np.ndarray:
        from scipy.sparse import csr_matrix

        data: list[float] = []
        cols: list[int] = []
        indptr = [0]
        for t in texts:
            counts: dict[int, int] = {}
            for w in _WORD.findall(t.lower()):
                if w not in self.stop:
                    b = self._bucket(w)
                    counts[b] = counts.get(b, 0) + 1
            cols += counts.keys()
            data += counts.values()
            indptr.append(len(cols))
        m = csr_matrix((np.sqrt(np.asarray(data, np.float32)), np.asarray(cols, np.int64), np.asarray(indptr)),
                       shape=(len(texts), BUCKETS))
        out = np.asarray(m @ self.projection, dtype=np.float32)
        norm = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.where(norm > 0, norm, 1.0)
        return out


def file_path(f: int) -> str:
    ext = "pdf" if f % 100 == 0 else "txt"
    return f"/bench/dir{f // FILES_PER_DIR:04d}/file{f:06d}.{ext}"


def text_pool(size: int) -> list[str]:
    """Distinct real sentences for passage text; the embedded sample is its first --real (same order)."""
    import bench_query

    bench_query.DATA = DATA
    return bench_query.sentences(size)


def passages(start: int, stop: int, real: int, pool: list[str], vectors: TextVectors) -> tuple[list[str], np.ndarray]:
    """Passages start..stop-1 and their vectors, each vector from its own text: the first `real` are the
    pool's sentences one each, then pairs of sentences drawn from the whole pool (seeded by `start`: the same
    on every build; a vocabulary as wide as real text, so a query word matches what it would in real text)."""
    out_t: list[str] = []
    if start < real:
        out_t += pool[start:min(stop, real)]
    lo = max(start, real)
    if lo < stop:
        rng = np.random.default_rng(lo)
        x, y = rng.integers(0, len(pool), stop - lo), rng.integers(0, len(pool), stop - lo)
        out_t += [f"{pool[u]} / {pool[w]}" for u, w in zip(x.tolist(), y.tolist(), strict=True)]
    return out_t, vectors(out_t)


def build(n: int, real: int, batch: int, pool_size: int) -> Path:
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.store import NewChunk, Store

    data = WORK / f"lib-{n}-{real}-pool{pool_size}-textvec"  # vectors from the text: never a build of before
    if (data / "vectors.hnsw").exists() and (data / "built.json").exists():
        return data
    pool = text_pool(max(pool_size, real))
    vectors = TextVectors()
    shutil.rmtree(data, ignore_errors=True)
    cfg = load_config(data, env={})
    store = Store(data / "library.sqlite")
    t0 = time.perf_counter()
    root = None
    for s in range(0, n, batch):  # batch is a multiple of PER_FILE: a file never spans two transactions
        t, v = passages(s, min(s + batch, n), real, pool, vectors)
        with store.atomic():
            root = root or store.add_root("/bench")
            for off in range(0, len(t), PER_FILE):
                f = (s + off) // PER_FILE
                body = "\n".join(t[off:off + PER_FILE])
                mtime = int(time.mktime((2020 + f % 5, 1 + f % 12, 1, 12, 0, 0, 0, 0, -1))) * 10**9
                fid = store.upsert_file(root, file_path(f), len(body), mtime, hashlib.sha256(body.encode()).hexdigest(),
                                        "indexed", None, "text", len(t[off:off + PER_FILE]))
                store.insert_chunks(fid, [NewChunk(o, 0, len(x), None, x, hashlib.sha1(x.encode()).hexdigest(), v[off + o])
                                          for o, x in enumerate(t[off:off + PER_FILE])])
            if s + batch >= n:
                m = {"model_fingerprint": FINGERPRINT, "model": cfg.models.bi_encoder,
                     "pooling": cfg.models.pooling, "dim": str(DIM),
                     "chunk_max_tokens": str(cfg.chunking.max_tokens), "chunk_overlap": str(cfg.chunking.overlap)}
                for k, val in m.items():
                    store.set_meta(k, val)
                store.bump_generation()
        if (s // batch) % 5 == 0:
            emit(note="writing", n=n, written=min(s + batch, n), seconds=round(time.perf_counter() - t0, 1))
    store.close()
    write_s = time.perf_counter() - t0
    built = {"n": n, "single_sentence_passages": min(real, n), "text_pool": len(pool), "write_s": round(write_s, 1),
             "vectors": FINGERPRINT}
    t0 = time.perf_counter()
    with Library(cfg, encoder=TextEncoder([])) as lib:
        lib.index()  # missing: rebuilt from the stored vectors (4096 a batch) and saved
    built["hnsw_build_s"] = round(time.perf_counter() - t0, 1)
    hnsw_s = built["hnsw_build_s"]
    (data / "built.json").write_text(json.dumps(built))
    emit(result="build", **built, passages_per_s_write=round(n / write_s), passages_per_s_hnsw=round(n / hnsw_s))
    return data


def query_texts(count: int) -> list[str]:
    """STS-B dev sentences as queries."""
    return [line.split("\t")[1] for line in (DATA / "sts" / "stsb-dev.tsv").read_text().splitlines()[1:count + 1]]


class TextEncoder:
    """Looks like the BiEncoder to the Library, with the passages' text -> vector map (no torch in this process);
    the query vectors are made up front so the latencies are retrieval only."""

    fingerprint, dim = FINGERPRINT, DIM

    def __init__(self, texts: list[str]) -> None:
        self.vectors = TextVectors()
        self.texts = texts
        self._vecs = dict(zip(texts, self.vectors(texts), strict=True)) if texts else {}

    def encode(self, texts, **_):
        return self.vectors(list(texts))

    def encode_query(self, text: str) -> np.ndarray:
        v = self._vecs.get(text)
        return v if v is not None else self.vectors([text])[0]


def timed(fn, items) -> tuple[float, float]:
    fn(items[0])  # warm (first-touch of the pages a query reads)
    ms = []
    for x in items:
        t0 = time.perf_counter()
        fn(x)
        ms.append((time.perf_counter() - t0) * 1000.0)
    ms.sort()
    return round(statistics.median(ms), 2), round(ms[int(0.95 * (len(ms) - 1))], 2)


def timed_pair(fn, items, baseline) -> tuple[tuple[float, float], tuple[float, float]]:
    """(p50, p95) of `fn` as it is and with `baseline()` in force, interleaved query by query (the order
    alternating), so both see the same load."""
    import contextlib

    fn(items[0])
    ms: dict[bool, list[float]] = {False: [], True: []}
    for i, x in enumerate(items):
        for base in ((False, True) if i % 2 == 0 else (True, False)):
            with baseline() if base else contextlib.nullcontext():
                t0 = time.perf_counter()
                fn(x)
                ms[base].append((time.perf_counter() - t0) * 1000.0)
    out = []
    for base in (False, True):
        v = sorted(ms[base])
        out.append((round(statistics.median(v), 2), round(v[int(0.95 * (len(v) - 1))], 2)))
    return out[0], out[1]


def fts5_only():
    """The lexical side as before BM25 was read from the postings: every table through FTS5's MATCH."""
    import contextlib

    from searchapp.store import bm25_postings

    @contextlib.contextmanager
    def patched():
        keep = bm25_postings.ranked
        bm25_postings.ranked = lambda *a, **k: None
        try:
            yield
        finally:
            bm25_postings.ranked = keep
    return patched()


def not_kept():
    """A filtered search as before its allowed vectors were kept between searches (search/scope_vectors.py):
    every search reads them from SQLite."""
    import contextlib

    from searchapp.library.search import filter_scope, scope_vectors

    @contextlib.contextmanager
    def patched():
        keep = filter_scope.scope_vectors
        filter_scope.scope_vectors = lambda store: scope_vectors.ScopeVectors()  # nothing kept from the last search
        try:
            yield
        finally:
            filter_scope.scope_vectors = keep
    return patched()


def measure(data: Path, queries: int, dup_limit: float, compare: bool = False, queries_only: bool = False,
            compare_kept: bool = False) -> None:
    """In a fresh interpreter: open, RSS, queries, similar, duplicates."""
    from searchapp.base.config import load_config
    from searchapp.base.progress import CancelToken
    from searchapp.base.errors import Cancelled
    from searchapp.library import Library, SearchFilters

    built = json.loads((data / "built.json").read_text())
    n = built["n"]
    cached = TextEncoder(query_texts(queries))
    sizes = {p.name: p.stat().st_size for p in data.iterdir() if p.is_file()}
    rss0 = rss_mb()
    t0 = time.perf_counter()
    lib = Library(load_config(data, env={}), encoder=cached)
    lib.models._onnx_query = False  # queries come from `cached` (the text -> vector map), never an ONNX export
    index = lib.index()
    open_s = time.perf_counter() - t0
    rss1 = rss_mb()
    emit(result="open", n=n, single_sentence_passages=built.get("single_sentence_passages"),
         text_pool=built.get("text_pool"), vectors=built.get("vectors"), write_s=built["write_s"],
         hnsw_build_s=built["hnsw_build_s"], open_s=round(open_s, 3), index_action=lib.index_notice() or "loaded",
         rss_before_open_mb=rss0, rss_after_open_mb=rss1, rss_open_delta_mb=round(rss1 - rss0, 1),
         sqlite_mb=round(sum(v for k, v in sizes.items() if k.startswith("library.sqlite")) / 2**20, 1),
         hnsw_file_mb=round(sizes.get("vectors.hnsw", 0) / 2**20, 1),
         disk_total_mb=round(sum(sizes.values()) / 2**20, 1), index_params=index.params(),
         note="RSS without the query model (add ~0.3 GB for MiniLM + torch in the app)")
    qs = cached.texts
    t0 = time.perf_counter()
    lib.search(qs[0], k=10, mode="hybrid", rerank=False)
    emit(result="first_query", n=n, mode="hybrid", ms=round((time.perf_counter() - t0) * 1000, 1))
    dirs = n // PER_FILE // FILES_PER_DIR
    cases = {"none": None,
             "one folder (0.1%)" if dirs >= 1000 else "one folder": SearchFilters.build(folders=[f"/bench/dir{dirs // 2:04d}"]),
             "type pdf (1%)": SearchFilters.build(types=["pdf"])}
    for mode in ("dense", "hybrid"):
        for name, f in cases.items():
            run = lambda q, mode=mode, f=f: lib.search(q, k=10, mode=mode, rerank=False, filters=f)  # noqa: E731
            if compare and mode == "hybrid":  # BM25 from the postings against FTS5's MATCH, same queries, same load
                (p50, p95), (b50, b95) = timed_pair(run, qs, fts5_only)
                emit(result="query", n=n, mode=mode, filter=name, k=10, queries=len(qs), p50_ms=p50, p95_ms=p95,
                     lexical="postings", fts5_p50_ms=b50, fts5_p95_ms=b95)
                continue
            if compare_kept and f is not None:  # kept allowed vectors against reading them each search, interleaved
                (p50, p95), (b50, b95) = timed_pair(run, qs, not_kept)
                emit(result="query", n=n, mode=mode, filter=name, k=10, queries=len(qs), p50_ms=p50, p95_ms=p95,
                     allowed_vectors="kept", read_each_search_p50_ms=b50, read_each_search_p95_ms=b95)
                continue
            p50, p95 = timed(run, qs)
            emit(result="query", n=n, mode=mode, filter=name, k=10, queries=len(qs), p50_ms=p50, p95_ms=p95)
    emit(result="rss_after_queries", n=n, rss_mb=rss_mb())
    if queries_only:
        lib.close()
        return
    # Do the two sides agree about topics? The share of dense top-10 passages holding a word of the query.
    stop = cached.vectors.stop
    shares = []
    for q in qs:
        words = {w for w in _WORD.findall(q.lower()) if w not in stop}
        hits = lib.search(q, k=10, mode="dense", rerank=False, group="passage").hits
        shares.append(sum(bool(words & set(_WORD.findall(h.text.lower()))) for h in hits) / max(1, len(hits)))
    emit(result="dense_top10_sharing_a_query_word", n=n, queries=len(qs), mean=round(statistics.mean(shares), 3))
    files = [file_path(f) for f in range(0, n // PER_FILE, max(1, n // PER_FILE // 20))][:20]
    p50, p95 = timed(lambda p: lib.similar(p, k=10), files)
    emit(result="similar", n=n, files=len(files), p50_ms=p50, p95_ms=p95)
    if dup_limit > 0:
        cancel = CancelToken()
        import threading

        timer = threading.Timer(dup_limit, cancel.cancel)
        timer.start()
        t0 = time.perf_counter()
        said = [0.0]

        def progress(p) -> None:  # a line a minute of the progress a person would see
            if time.perf_counter() - said[0] >= 60:
                said[0] = time.perf_counter()
                emit(result="duplicates_progress", n=n, stage=p.stage, done=p.done, total=p.total,
                     seconds=round(said[0] - t0, 1), rss_mb=rss_mb())
        try:
            rep = lib.duplicates(progress=progress, cancel=cancel)
            emit(result="duplicates", n=n, seconds=round(time.perf_counter() - t0, 1), near_pairs=len(rep.near),
                 exact_groups=len(rep.exact), rss_mb=rss_mb(), peak_rss_mb=rss_mb("VmHWM"),
                 cpu_s=round(time.process_time(), 1))
        except Cancelled:
            emit(result="duplicates", n=n, seconds=None, cancelled_after_s=dup_limit, rss_mb=rss_mb(),
                 peak_rss_mb=rss_mb("VmHWM"))
        finally:
            timer.cancel()
    lib.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000, help="passages (the documented figure is the million)")
    ap.add_argument("--real", type=int, default=2000, help="passages of one real sentence; the rest join two")
    ap.add_argument("--pool", type=int, default=200000, help="distinct real sentences passage text is drawn from")
    ap.add_argument("--batch", type=int, default=50000, help="passages per write transaction")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--dup-limit", type=float, default=600, help="cancel `duplicates` after this many seconds (0: skip)")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--compare-fts5", action="store_true",
                    help="hybrid rows also time the lexical side through FTS5's MATCH, query by query interleaved")
    ap.add_argument("--compare-kept", action="store_true",
                    help="filtered rows also time reading the allowed vectors from SQLite each search, interleaved")
    ap.add_argument("--queries-only", action="store_true", help="stop after the query latencies")
    ap.add_argument("--measure", default="", help=argparse.SUPPRESS)  # internal: the fresh measuring process
    ap.add_argument("--measure-queries", type=int, default=50, help=argparse.SUPPRESS)
    args = ap.parse_args()
    global PASSAGES
    PASSAGES = args.n
    if args.measure:
        measure(Path(args.measure), args.measure_queries, args.dup_limit, args.compare_fts5, args.queries_only,
                args.compare_kept)
        return
    assert args.batch % PER_FILE == 0
    data = build(args.n, args.real, args.batch, args.pool)
    if args.build_only:
        return
    subprocess.run([sys.executable, __file__, "--measure", str(data), "--n", str(args.n),
                    "--measure-queries", str(args.queries),
                    "--dup-limit", str(args.dup_limit)] + ["--compare-fts5"] * args.compare_fts5
                   + ["--compare-kept"] * args.compare_kept
                   + ["--queries-only"] * args.queries_only, check=True)


if __name__ == "__main__":
    main()
