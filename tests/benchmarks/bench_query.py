"""Query latency of the real Library at 10k and 100k passages, per mode, with and without reranking.

Passages are real sentences from ../shared/data embedded by the packaged MiniLM (cached under
~/.cache/searchapp-bench), written through the Store like a sync would. Peers in the same run: the exact
(NumPy) backend for the dense stage, sentence-transformers' CrossEncoder.predict for the rerank stage.
Prints one JSON line per result.

    python tests/benchmarks/bench_query.py [--sizes 10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import numpy as np

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.base.config import load_config
from searchapp.library import Library
from searchapp.store import NewChunk, Store

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
CACHE = Path.home() / ".cache" / "searchapp-bench"


def sentences(limit: int) -> list[str]:
    """Distinct real sentences: STS/NLI/pairs files, then abstracts split into sentences."""
    import re

    seen: dict[str, None] = {}
    for tsv in sorted(DATA.glob("*/*.tsv")):
        for line in tsv.read_text(encoding="utf-8").splitlines():
            for s in line.split("\t")[1:]:
                if len(s) > 20:
                    seen.setdefault(s.strip(), None)
    abstracts = [json.loads(line)["text"] for corpus in sorted(DATA.glob("ir/*/corpus.jsonl"))
                 for line in corpus.read_text(encoding="utf-8").splitlines()]
    split = [[s.strip() for s in re.split(r"(?<=[.!?])\s+", a) if len(s) > 20] for a in abstracts]
    for sents in split:
        for s in sents:
            seen.setdefault(s, None)
    # Past ~85k distinct sentences, adjacent sentence pairs of the same abstract: real text, distinct vectors.
    for sents in split:
        if len(seen) >= limit:
            break
        for a, b in pairwise(sents):
            seen.setdefault(f"{a} {b}", None)
    return list(seen)[:limit]


def embedded(n: int, encoder) -> tuple[list[str], np.ndarray]:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"query-bench-{n}-{encoder.fingerprint[:12]}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        return [str(t) for t in z["texts"]], z["vectors"]
    texts = sentences(n)
    t0 = time.perf_counter()
    vecs = encoder.encode(texts, batch_size=64)
    print(json.dumps({"bench": "query", "note": "embedded corpus", "n": len(texts), "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
    np.savez(path, texts=np.array(texts), vectors=vecs)
    return texts, vecs


def fill_store(data_dir: Path, texts: list[str], vecs: np.ndarray, encoder, cfg) -> None:
    """Write passages the way a sync does (100 per file), without re-running the encoder."""
    import hashlib

    store = Store(data_dir / "library.sqlite")
    with store.atomic():
        root = store.add_root("/bench")
        for f in range(0, len(texts), 100):
            fid = store.upsert_file(root, f"/bench/file{f // 100:06d}.txt", 1, 1, None, "indexed", None, "text", 0)
            store.insert_chunks(fid, [NewChunk(i - f, 0, len(texts[i]), None, texts[i], hashlib.sha1(texts[i].encode()).hexdigest(), vecs[i])
                                      for i in range(f, min(f + 100, len(texts)))])
        meta = {"model_fingerprint": encoder.fingerprint, "model": cfg.models.bi_encoder, "pooling": cfg.models.pooling,
                "dim": str(encoder.dim), "chunk_max_tokens": str(cfg.chunking.max_tokens), "chunk_overlap": str(cfg.chunking.overlap)}
        for k, v in meta.items():
            store.set_meta(k, v)
        store.bump_generation()
    store.close()


def timed(fn, queries: list[str]) -> tuple[float, float]:
    fn(queries[0])  # warm-up
    ms = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q)
        ms.append((time.perf_counter() - t0) * 1000.0)
    ms.sort()
    return statistics.median(ms), ms[int(0.95 * (len(ms) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rerank-queries", type=int, default=20)
    args = ap.parse_args()
    import torch

    from searchapp.models import BiEncoder, CrossEncoder

    torch.set_num_threads(1)  # perf-notes: the query path stays on one thread so indexing cannot starve it
    encoder = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    sizes = [int(s) for s in args.sizes.split(",")]
    texts, vecs = embedded(max(sizes), encoder)
    queries = [line.split("\t")[1] for line in (DATA / "sts" / "stsb-dev.tsv").read_text().splitlines()[: args.queries]]

    # A cross-encoder of ms-marco-MiniLM-L-6-v2's size and shape: the packaged MiniLM body with a fresh head.
    tmp_models = Path(tempfile.mkdtemp(prefix="bench-ce-"))
    from transformers import AutoTokenizer, BertForSequenceClassification

    ce_dir = tmp_models / "ce"
    BertForSequenceClassification.from_pretrained(str(encoder.resolved.path), num_labels=1, use_safetensors=True).save_pretrained(ce_dir, safe_serialization=True)
    AutoTokenizer.from_pretrained(str(encoder.resolved.path)).save_pretrained(ce_dir)
    cross = CrossEncoder(str(ce_dir), device="cpu")

    for n in sizes:
        if n > len(texts):
            print(json.dumps({"bench": "query", "n": n, "skipped": f"only {len(texts)} sentences available"}))
            continue
        with tempfile.TemporaryDirectory(prefix="bench-lib-") as tmp:
            cfg = load_config(Path(tmp) / "lib", env={})
            fill_store(cfg.data_dir, texts[:n], vecs[:n], encoder, cfg)
            t0 = time.perf_counter()
            hnsw = Library(cfg, encoder=encoder, reranker=cross)
            hnsw.index()
            build_s = time.perf_counter() - t0
            exact = Library(cfg.replace(index={"backend": "exact"}), encoder=encoder)
            exact.index()
            # Recall@10 of the HNSW dense stage against exact search, on the same queries.
            qv = encoder.encode(queries)
            hi, _ = hnsw.index().search(qv, 10)
            ei, _ = exact.index().search(qv, 10)
            recall = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(hi.tolist(), ei.tolist(), strict=True)]))
            print(json.dumps({"bench": "query", "n": n, "hnsw_build_s": round(build_s, 2), "recall_at_10": round(recall, 4),
                              "ef_search": cfg.index.ef_search, "candidates": cfg.search.candidates}), flush=True)
            results = {}
            for mode in SEARCH_MODES:
                for name, lib in (("hnsw", hnsw), ("exact", exact)):
                    if mode == "lexical" and name == "exact":
                        continue
                    p50, p95 = timed(lambda q, lib=lib, mode=mode: lib.search(q, mode=mode, rerank=False), queries)
                    results[(mode, name)] = p50
                    line = {"bench": "query", "n": n, "mode": mode, "backend": name, "rerank": False,
                            "p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
                    print(json.dumps(line), flush=True)
                if (mode, "exact") in results:
                    print(json.dumps({"bench": "query", "n": n, "mode": mode, "speedup_hnsw_vs_exact":
                                      round(results[(mode, "exact")] / results[(mode, "hnsw")], 2)}), flush=True)
            rq = queries[: args.rerank_queries]
            for mode in ("dense", "hybrid"):
                p50, p95 = timed(lambda q, hnsw=hnsw, mode=mode: hnsw.search(q, mode=mode, rerank=True), rq)
                print(json.dumps({"bench": "query", "n": n, "mode": mode, "backend": "hnsw", "rerank": True,
                                  "rerank_depth": cfg.search.candidates, "p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}), flush=True)
            hnsw.close()
            exact.close()
    # The rerank stage alone against sentence-transformers' CrossEncoder on the same 50 pairs.
    from sentence_transformers import CrossEncoder as STCrossEncoder

    st = STCrossEncoder(str(ce_dir), device="cpu", max_length=256)
    pairs_q = queries[: args.rerank_queries]
    passages = texts[:50]
    ours, _ = timed(lambda q: cross.score(q, passages), pairs_q)
    theirs, _ = timed(lambda q: st.predict([(q, p) for p in passages], batch_size=16), pairs_q)
    print(json.dumps({"bench": "rerank50", "impl": "searchapp", "p50_ms": round(ours, 1), "peer": "sentence-transformers",
                      "peer_p50_ms": round(theirs, 1), "speedup_vs_peer": round(theirs / ours, 2)}), flush=True)
    shutil.rmtree(tmp_models, ignore_errors=True)


if __name__ == "__main__":
    main()
