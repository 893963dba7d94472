"""Query-syntax latency at 100k passages: a phrase query, an exclusion query and a field query
(type:pdf) next to the same plain query, same run, per mode; one JSON line each with the ratio to plain.

The library: real sentences (bench_query.sentences) written through the Store like a sync (100 passages a
file, 10 files a folder, 1% PDFs; bench_duplicates.write_library). Vectors: the first --real sentences are
embedded by the packaged MiniLM, the rest are mixtures of two of those (bench_duplicates' trick: real-looking
neighbourhoods without embedding 100k passages on a shared CPU). Query vectors are encoded once up front, so
every figure is retrieval only. Queries: STS-B dev sentences; for each,
    phrase:    "<two adjacent words of the query>" <the rest>
    exclusion: <the query without its longest word> -<that word>
    field:     <the query> type:pdf

    python tests/benchmarks/bench_query_syntax.py [--n 100000] [--queries 100] [--real 5000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from pathlib import Path

import numpy as np

import bench_duplicates
import bench_query
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.base.config import load_config
from searchapp.library import Library
from searchapp.library.query.syntax import parse_query


class CachedQueries:
    """Looks like the BiEncoder to the Library but serves vectors encoded once up front."""

    def __init__(self, enc, texts: list[str]) -> None:
        self.fingerprint, self.dim = enc.fingerprint, enc.dim
        texts = list(dict.fromkeys(texts))
        self._vecs = dict(zip(texts, enc.encode(texts), strict=True))

    def encode(self, texts, **_):
        return np.stack([self._vecs[t] for t in texts])

    def encode_query(self, text: str) -> np.ndarray:
        return self._vecs[text]


def build(n: int, real: int, enc) -> Path:
    data = bench_duplicates.WORK / f"qsyntax-{n}-{real}"
    if (data / "vectors.hnsw").exists():
        return data
    bench_query.DATA = bench_duplicates.DATA
    texts = bench_query.sentences(n)
    assert len(texts) == n, f"only {len(texts)} distinct sentences"
    t0 = time.perf_counter()
    base = enc.encode(texts[:real], batch_size=64)
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, real, n - real), rng.integers(0, real, n - real)
    a = rng.uniform(0.3, 0.7, (n - real, 1)).astype(np.float32)
    mix = a * base[i] + (1 - a) * base[j]
    mix /= np.linalg.norm(mix, axis=1, keepdims=True)
    vecs = np.concatenate([base, mix.astype(np.float32)])
    print(json.dumps({"bench": "query_syntax", "note": "embedded", "real": real, "seconds": round(time.perf_counter() - t0, 1)}),
          flush=True)
    files = [(f"/bench/dir{(f // 100) // 10:03d}/file{f // 100:05d}.{'pdf' if (f // 100) % 100 == 0 else 'txt'}",
              list(range(f, min(f + 100, n)))) for f in range(0, n, 100)]
    bench_duplicates.write_library(data, files, texts, vecs, {"fingerprint": enc.fingerprint, "dim": enc.dim},
                                   mtime_of=lambda k: int(time.mktime((2020 + k % 5, 1 + k % 12, 1, 12, 0, 0, 0, 0, -1))) * 10**9)
    return data


def variants(q: str) -> dict[str, str]:
    words = q.split()
    alpha = [k for k, w in enumerate(words) if re.fullmatch(r"[A-Za-z]+", w)]
    pair = next((k for k in alpha if k + 1 in alpha), None)
    phrase = (f'"{words[pair]} {words[pair + 1]}" ' + " ".join(words[:pair] + words[pair + 2:])) if pair is not None else q
    longest = max(alpha, key=lambda k: len(words[k])) if alpha else None
    excl = (" ".join(words[:longest] + words[longest + 1:]) + f" -{words[longest]}") if longest is not None else q
    return {"plain": q, "phrase": phrase, "exclusion": excl, "field type:pdf": f"{q} type:pdf"}


def timed(fn, queries) -> tuple[float, float, list]:
    fn(queries[0])
    ms, results = [], []
    for q in queries:
        t0 = time.perf_counter()
        results.append(fn(q))
        ms.append((time.perf_counter() - t0) * 1000.0)
    ms.sort()
    return statistics.median(ms), ms[int(0.95 * (len(ms) - 1))], results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--real", type=int, default=5000)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from searchapp.models import BiEncoder

    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    data = build(args.n, args.real, enc)
    queries = [line.split("\t")[1] for line in
               (bench_duplicates.DATA / "sts" / "stsb-dev.tsv").read_text().splitlines()[1: args.queries + 1]]
    cases: dict[str, list[str]] = {}
    for q in queries:
        for name, text in variants(q).items():
            cases.setdefault(name, []).append(text)
    cached = CachedQueries(enc, [parse_query(t).free_text for ts in cases.values() for t in ts])
    cpu = "AVX-512 BF16" if "avx512_bf16" in Path("/proc/cpuinfo").read_text() else "no AVX-512 BF16"
    with Library(load_config(data, env={}), encoder=cached) as lib:
        lib.index()
        for mode in SEARCH_MODES:
            base = None
            for name, texts in cases.items():
                p50, p95, res = timed(lambda q, mode=mode: lib.search(q, k=10, mode=mode, rerank=False), texts)
                base = p50 if name == "plain" else base
                allowed = [r.filter_stats["allowed_passages"] for r in res if r.filter_stats]
                line = {"bench": "query_syntax", "n": args.n, "mode": mode, "query": name, "k": 10,
                        "queries": len(texts), "mean_hits": round(sum(len(r.hits) for r in res) / len(res), 2),
                        "p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
                if name != "plain":
                    line.update(ratio_p50_vs_plain=round(p50 / base, 2),
                                median_allowed_passages=int(statistics.median(allowed)) if allowed else None)
                line.update(cpu_note=f"2 shared cores, {cpu}", load_avg=os.getloadavg()[0])
                print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
