"""Train a cross-encoder from the packaged all-MiniLM-L6-v2 weights; reranking gain over the bi-encoder alone.

    python tests/benchmarks/bench_cross_encoder.py [--negatives 2] [--max-examples N] [--candidates 30]

Training data: pairs/trecqa-train.tsv (0/1) + ir/scifact-train (judged claim/abstract pairs as positives,
`--negatives` mined per positive from the packaged bi-encoder's top 30 unjudged abstracts), BCE, paper
optimizer settings (batch 16, AdamW 2e-5, 10% warm-up, 1 epoch), bf16 autocast on this CPU.
Evaluation (`searchapp eval rerank` arithmetic): nDCG@10 / MRR@10 before (packaged bi-encoder, exact cosine)
and after reranking the same candidates: ir/cranfield (top `--candidates` of the whole corpus, all 225
queries) and pairs/trecqa-dev (each question's own candidate sentences). One JSON line per collection.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from searchapp.evaluation.rerank import evaluate_rerank
from searchapp.models import BiEncoder, CrossEncoder
from searchapp.training import TrainingArgs, cross_encoder_data, train_cross_encoder

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


def log_progress(p) -> None:
    """Training progress on stderr every 20 steps (these runs take minutes on a shared CPU)."""
    if p.stage == "training" and (p.done % 20 == 0 or p.done == p.total):
        print(f"{time.strftime('%H:%M:%S')} step {p.done}/{p.total} {p.message}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--negatives", type=int, default=2)
    ap.add_argument("--max-examples", type=int)
    ap.add_argument("--candidates", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)  # 2-thread torch collapses when others hold a core
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    bi = BiEncoder("all-MiniLM-L6-v2", device="cpu", threads=a.threads)
    t0 = time.perf_counter()
    data = cross_encoder_data([DATA / "pairs" / "trecqa-train.tsv", DATA / "ir" / "scifact-train"], lambda: bi,
                              negatives=a.negatives, pool=30, seed=a.seed)
    mine_s = time.perf_counter() - t0
    full = len(data)
    data = data.subsample(a.max_examples, a.seed)
    with tempfile.TemporaryDirectory(prefix="bench-ce-") as tmp:
        out = Path(tmp) / "reranker"
        res = train_cross_encoder("all-MiniLM-L6-v2", data, out, args=TrainingArgs(threads=a.threads, seed=a.seed),
                                  progress=log_progress)
        st = res["stats"]
        cross = CrossEncoder(str(out), device="cpu", threads=a.threads)
        for name, path in (("cranfield", DATA / "ir" / "cranfield"), ("trecqa-dev", DATA / "pairs" / "trecqa-dev.tsv")):
            t1 = time.perf_counter()
            r = evaluate_rerank(path, bi, cross, depth=a.candidates)
            print(json.dumps({
                "bench": "cross_encoder_rerank", "collection": name, "queries": r["queries"],
                "candidates": r["candidates"],
                "ndcg@10_before": round(100 * r["before"]["ndcg@10"], 2),
                "ndcg@10_after": round(100 * r["after"]["ndcg@10"], 2),
                "mrr@10_before": round(100 * r["before"]["mrr@10"], 2),
                "mrr@10_after": round(100 * r["after"]["mrr@10"], 2),
                "ndcg@10_gain": round(100 * r["gain"]["ndcg@10"], 2), "mrr@10_gain": round(100 * r["gain"]["mrr@10"], 2),
                "rerank_ms_per_query": round(r["rerank_ms_per_query"], 1), "eval_seconds": round(time.perf_counter() - t1, 1),
                "train_pairs": len(data), "of": full, "positives": res["positives"], "train_steps": st["steps"],
                "train_seconds": round(st["seconds"], 1), "mining_seconds": round(mine_s, 1),
                "precision": st["precision"], "loss_first": round(st["loss_first"], 4), "loss_last": round(st["loss_last"], 4),
            }), flush=True)


if __name__ == "__main__":
    main()
