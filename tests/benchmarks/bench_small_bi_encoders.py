"""How fast the bi-encoders the app offers run on this CPU: passages/s and one query's latency, by turns in one run.

    python tests/benchmarks/bench_small_bi_encoders.py [--passages 64] [--rounds 3] [--threads 2] [--pulled]

Speed depends on a model's shape (layers, width, heads, vocabulary), not on its weights' values, so by default
each offered model is measured as a BERT of its config.json's shape with random weights, built here offline
(`shape` in each line says so); with --pulled, the real models in the Hugging Face cache (fetched once with
`searchapp models pull ID`) are measured instead where present. Shapes (from each model's config.json):
  all-MiniLM-L6-v2 (the default)        6 x 384, 12 heads, 1536 inner, vocab 30522, 22.7 M parameters
  snowflake-arctic-embed-xs              6 x 384 (the same shape), 22.6 M
  bge-small-en-v1.5, arctic-embed-s,     12 x 384, 12 heads, 1536 inner, vocab 30522, 33.4 M
    e5-small-v2
  multilingual-e5-small                  12 x 384, vocab 250037, 117.7 M (the extra is the embedding table)
  all-mpnet-base-v2                      12 x 768, 12 heads, 3072 inner (MPNet: measured as a BERT of its size)
Chunk-sized scifact passages (~200 word pieces), batch 32, `precision = "auto"`; the tokenizer is the packaged
MiniLM's for every shape (multilingual-e5's SentencePiece cuts English a little finer: not counted). Each round
runs every model once, the order rotated; a model's figure is its best round, the ratio is to the default's best
round in the same run. One JSON line per model with the CPU, the load average before and after, CPU seconds
and peak RSS.

2026-11-29, 2-core AVX2-only AMD EPYC (no AVX-512/bf16), shared: load 11.9 before, 12.4 after; --passages 32
--rounds 2 --queries 10, precision auto = fp32, every model on the fused path; by shape, random weights (no
network there). CPU s for 32 passages (best round) / passages per CPU-second / wall passages/s / query ms median:
  all-MiniLM-L6-v2 (real weights)     3.51 / 9.1 / 2.7 / 97
  arctic-embed-xs shape (6 x 384)     3.62 / 8.8 / 2.1 / 152
  bge-small / arctic-s / e5-small     6.70 / 4.8 / 1.2 / 188
  multilingual-e5-small shape         6.77 / 4.7 / 1.2 / 221
  all-mpnet-base-v2 size (12 x 768)   25.7 / 1.2 / 0.3 / 1015
Wall figures at load 12 on 2 cores are a fifth of a quiet machine's; the CPU-second ratios are what to compare:
1.0x, 1.9x, 1.9x and 7.3x the default's CPU time per passage. Peak RSS of the process (all five loaded) 2.56 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for tiny_models (not a package)

from bench_encode import load_passages
from bench_passage_paths import cpu_model
from bench_query_paths import load_queries
from _common import cpu_note

from searchapp.base.config import PACKAGED_BI_ENCODER
from searchapp.models import BiEncoder
from searchapp.models.resolve import packaged_model_path

# id -> (layers, hidden, heads, inner, vocab)
SHAPES = {
    PACKAGED_BI_ENCODER: (6, 384, 12, 1536, 30522),
    "Snowflake/snowflake-arctic-embed-xs": (6, 384, 12, 1536, 30522),
    "BAAI/bge-small-en-v1.5": (12, 384, 12, 1536, 30522),
    "intfloat/multilingual-e5-small": (12, 384, 12, 1536, 250037),
    "sentence-transformers/all-mpnet-base-v2": (12, 768, 12, 3072, 30527),
}
SAME_SHAPE = {"Snowflake/snowflake-arctic-embed-s": "BAAI/bge-small-en-v1.5",
              "intfloat/e5-small-v2": "BAAI/bge-small-en-v1.5"}


def build_shape(folder: Path, shape: tuple[int, int, int, int, int]) -> Path:
    import torch
    from transformers import BertConfig, BertModel

    from tiny_models import TOKENIZER_FILES

    layers, hidden, heads, inner, vocab = shape
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                     intermediate_size=inner, max_position_embeddings=514)
    BertModel(cfg, add_pooling_layer=False).save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copy(packaged_model_path() / name, folder / name)
    return folder


def cached(repo_id: str) -> Path | None:
    from searchapp.models.resolve import ModelNotFoundError, resolve_model

    try:
        return resolve_model(repo_id, kind="bi-encoder").path
    except (ModelNotFoundError, Exception):  # not pulled: measured by shape
        return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", type=int, default=64)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--pulled", action="store_true", help="measure the real models where they are in the cache")
    args = ap.parse_args()
    before = cpu_note()
    tmp = Path(tempfile.mkdtemp(prefix="bench-small-bi-"))
    encoders: dict[str, tuple[BiEncoder, str]] = {}
    try:
        for repo_id, shape in SHAPES.items():
            real = packaged_model_path() if repo_id == PACKAGED_BI_ENCODER else (cached(repo_id) if args.pulled else None)
            path = real or build_shape(tmp / repo_id.replace("/", "--"), shape)
            enc = BiEncoder(str(path), device="cpu", precision="auto", threads=args.threads)
            encoders[repo_id] = (enc, "real weights" if real else "random weights of its config's shape")
            print(f"loaded {repo_id} ({enc.path}, {enc.dtype})", file=sys.stderr, flush=True)
        passages = load_passages(args.passages, encoders[PACKAGED_BI_ENCODER][0])
        queries = load_queries(args.queries)
        names = list(encoders)
        walls: dict[str, list[float]] = {n: [] for n in names}
        cpus: dict[str, list[float]] = {n: [] for n in names}
        lat: dict[str, list[float]] = {n: [] for n in names}
        for n in names:  # warm-up: first calls pack weights and allocate
            encoders[n][0].encode(passages[:8])
            encoders[n][0].encode_query(queries[0])
        for r in range(args.rounds):
            order = names[r % len(names):] + names[: r % len(names)]
            for n in order:
                print(f"round {r + 1}: {n}", file=sys.stderr, flush=True)
                enc = encoders[n][0]
                c0, t0 = time.process_time(), time.perf_counter()
                enc.encode(passages)
                walls[n].append(time.perf_counter() - t0)
                cpus[n].append(time.process_time() - c0)
                for q in queries:
                    t0 = time.perf_counter()
                    enc.encode_query(q)
                    lat[n].append(time.perf_counter() - t0)
        base = min(walls[PACKAGED_BI_ENCODER])
        after = cpu_note()
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for n in names:
            enc, how = encoders[n]
            best = min(walls[n])
            print(json.dumps({
                "bench": "small_bi_encoders", "model": n, "measured_as": how, "path": enc.path,
                "dtype": str(enc.dtype), "threads": args.threads, "passages": len(passages),
                "passages_per_s": round(len(passages) / best, 1),
                "passages_per_s_median": round(len(passages) / statistics.median(walls[n]), 1),
                "vs_default": round(base / best, 2), "cpu_s_best_round": round(min(cpus[n]), 2),
                "query_ms_median": round(1000 * statistics.median(lat[n]), 1),
                "cpu": cpu_model(), "machine_before": before, "machine_after": after,
                "peak_rss_mb_process": round(rss_mb), "same_shape_as": [k for k, v in SAME_SHAPE.items() if v == n]}))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
