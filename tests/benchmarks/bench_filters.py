"""Filtered search latency at 100k passages: a 1%-selective filter (one folder of 100, or the 1% of files
that are PDFs), a 25% filter (vector index widened) and no filter (the peer), same queries, same run.

Uses bench_duplicates' library (MiniLM passages, 100 a file, 10 files a folder, 1% PDFs). Query
vectors are encoded once up front and served from a cache, so every figure is retrieval only.

    python tests/benchmarks/bench_filters.py [--n 100000] [--queries 100]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import bench_duplicates
from searchapp.base.config import load_config
from searchapp.library import Library, SearchFilters


class CachedQueries:
    """Looks like the BiEncoder to the Library (fingerprint, dim, encode) but serves precomputed vectors."""

    def __init__(self, enc, queries: list[str]) -> None:
        self.fingerprint, self.dim = enc.fingerprint, enc.dim
        self._vecs = dict(zip(queries, enc.encode(queries), strict=True))

    def encode(self, texts, **_):
        return np.stack([self._vecs[t] for t in texts])


def timed(fn, queries) -> tuple[float, float, object]:
    res = fn(queries[0])
    ms = []
    for q in queries:
        t0 = time.perf_counter()
        res = fn(q)
        ms.append((time.perf_counter() - t0) * 1000.0)
    ms.sort()
    return statistics.median(ms), ms[int(0.95 * (len(ms) - 1))], res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from searchapp.models import BiEncoder

    data, real, _ = bench_duplicates.bench_library(args.n)
    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    queries = [line.split("\t")[1] for line in
               (bench_duplicates.DATA / "sts" / "stsb-dev.tsv").read_text().splitlines()[1: args.queries + 1]]
    cached = CachedQueries(enc, queries)
    n_dirs = args.n // 1000
    cases = {
        "none": None,
        "in one folder (1%)": SearchFilters.build(folders=[f"/bench/dir{n_dirs // 2:03d}"]),
        "type pdf (1%)": SearchFilters.build(types=["pdf"]),
        "in 25 folders (25%)": SearchFilters.build(folders=[f"/bench/dir{i:03d}" for i in range(0, n_dirs, 4)]),
    }
    with Library(load_config(data, env={}), encoder=cached) as lib:
        lib.index()
        for mode in ("dense", "hybrid"):
            base = None
            for name, f in cases.items():
                p50, p95, res = timed(lambda q, mode=mode, f=f: lib.search(q, k=10, mode=mode, rerank=False, filters=f), queries)
                base = p50 if f is None else base
                line = {"bench": "filters", "n": args.n, "real_vectors": real, "mode": mode, "filter": name, "k": 10,
                        "hits": len(res.hits), "p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
                if f is not None:
                    st = res.filter_stats
                    line.update(allowed_passages=st["allowed_passages"], strategy=st.get("dense_strategy"),
                                examined=st.get("dense_examined"), ratio_vs_unfiltered=round(p50 / base, 2))
                line["cpu_note"] = "2 shared cores, no AVX-512 BF16"
                print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
