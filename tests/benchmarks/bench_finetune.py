"""Fine-tune the packaged all-MiniLM-L6-v2 with one Sentence-BERT objective; the dev figure before and after.

    python tests/benchmarks/bench_finetune.py --objective regression [--max-examples N] [--threads 2]
    python tests/benchmarks/bench_finetune.py --objective softmax
    python tests/benchmarks/bench_finetune.py --objective triplet [--heldout 0.2]

regression: STS-B train (scores / 5) → STS-B dev Spearman x100.
softmax:    SICK NLI train (3 labels) → STS-B dev Spearman, and SICK-R relatedness Spearman (note: SICK-R here
            is sts/sick-train.tsv, the SAME sentence pairs as the NLI training set, with relatedness labels).
triplet:    SciFact train claims, split by seed into train / held-out; negatives mined with the packaged model
            from the top 30 unjudged abstracts; nDCG@10 / MRR@10 of exact cosine retrieval over the whole
            corpus (title + abstract, truncated at 256 word pieces) for the HELD-OUT claims.
Paper settings (batch 16, AdamW 2e-5, 10% linear warm-up, 1 epoch); precision auto (bf16 autocast here).
Evaluation in fp32 for STS, auto precision for retrieval. Prints one JSON line per figure.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from searchapp.datasets.beir import BeirCollection, load_beir
from searchapp.evaluation.metrics import evaluate_run
from searchapp.datasets.pairs import read_scored_pairs
from searchapp.evaluation.sts import evaluate_sts
from searchapp.models import BiEncoder
from searchapp.training import TrainingArgs, train_bi_encoder
from searchapp.training import data as D
from searchapp.training.mining import doc_text, mine_hard_negatives
from _common import emit

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
BASE = "all-MiniLM-L6-v2"


def sts(spec: str, file: Path, threads: int) -> float:
    enc = BiEncoder(spec, device="cpu", precision="fp32", threads=threads)
    return round(evaluate_sts(enc, read_scored_pairs(file))["spearman"], 2)


class _Cached:
    """The packaged encoder, with the corpus embeddings computed once for mining and the 'before' figure."""

    def __init__(self, enc, texts, vecs):
        self.enc, self.texts, self.vecs = enc, texts, vecs

    def encode(self, texts, **kw):
        return self.vecs if list(texts) == self.texts else self.enc.encode(texts)


def retrieval(enc, coll: BeirCollection, qids: list[str], doc_vecs=None) -> dict:
    ids = list(coll.corpus)
    if doc_vecs is None:
        doc_vecs = enc.encode([doc_text(*coll.corpus[d]) for d in ids])
    q = enc.encode([coll.queries[x] for x in qids])
    sims = q @ doc_vecs.T
    top = np.argsort(-sims, axis=1)[:, :100]
    run = {qid: [ids[j] for j in row] for qid, row in zip(qids, top, strict=True)}
    m = evaluate_run(run, {x: coll.qrels[x] for x in qids}, ks=(10, 100))
    return {k: round(100 * v, 2) if k != "queries" else v for k, v in m.items()}


def log_progress(p) -> None:
    """Training progress on stderr every 20 steps (these runs take minutes on a shared CPU)."""
    if p.stage == "training" and (p.done % 20 == 0 or p.done == p.total):
        print(f"{time.strftime('%H:%M:%S')} step {p.done}/{p.total} {p.message}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--objective", required=True, choices=["regression", "softmax", "triplet"])
    ap.add_argument("--max-examples", type=int)
    ap.add_argument("--threads", type=int, default=1)  # 2-thread torch collapses when others hold a core
    ap.add_argument("--heldout", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    args = TrainingArgs(threads=a.threads, seed=a.seed)
    stsb_dev = DATA / "sts" / "stsb-dev.tsv"
    sick_r = DATA / "sts" / "sick-train.tsv"
    with tempfile.TemporaryDirectory(prefix="bench-finetune-") as tmp:
        out = Path(tmp) / "model"
        if a.objective in ("regression", "softmax"):
            before = {"stsb_dev": sts(BASE, stsb_dev, a.threads)}
            if a.objective == "softmax":
                before["sick_r"] = sts(BASE, sick_r, a.threads)
            data = (D.regression_data([DATA / "sts" / "stsb-train.tsv"], 5.0) if a.objective == "regression"
                    else D.softmax_data([DATA / "nli" / "sick-train.tsv"]))
            full = len(data)
            data = data.subsample(a.max_examples, a.seed)
            res = train_bi_encoder(BASE, a.objective, data, out, args=args, progress=log_progress)
            after = {"stsb_dev": sts(str(out), stsb_dev, a.threads)}
            if a.objective == "softmax":
                after["sick_r"] = sts(str(out), sick_r, a.threads)
            for key in before:
                emit(bench="finetune", objective=a.objective, metric=f"{key}_spearman", before=before[key],
                     after=after[key], delta=round(after[key] - before[key], 2), train_examples=len(data),
                     of=full, steps=res["stats"]["steps"], train_seconds=round(res["stats"]["seconds"], 1),
                     precision=res["stats"]["precision"], loss_first=round(res["stats"]["loss_first"], 4),
                     loss_last=round(res["stats"]["loss_last"], 4))
            return

        coll = load_beir(DATA / "ir" / "scifact-train")
        qids = sorted(q for q in coll.qrels if q in coll.queries and any(g > 0 for g in coll.qrels[q].values()))
        random.Random(a.seed).shuffle(qids)
        n_held = int(len(qids) * a.heldout)
        held, train_q = sorted(qids[:n_held]), sorted(qids[n_held:])
        base = BiEncoder(BASE, device="cpu", threads=a.threads)
        t0 = time.perf_counter()
        doc_texts = [doc_text(*coll.corpus[d]) for d in coll.corpus]
        doc_vecs = base.encode(doc_texts)
        enc_s = time.perf_counter() - t0
        before = retrieval(base, coll, held, doc_vecs)
        mined = mine_hard_negatives(_Cached(base, doc_texts, doc_vecs), coll, negatives=1, pool=30, seed=a.seed,
                                    query_ids=train_q)
        data = D.TextColumns([[m.query for m in mined], [m.positive for m in mined], [m.negatives[0] for m in mined]],
                             None, kind="triplet", sources=["scifact-train (train split, mined)"])
        full = len(data)
        data = data.subsample(a.max_examples, a.seed)
        res = train_bi_encoder(BASE, "triplet", data, out, args=args, progress=log_progress)
        after = retrieval(BiEncoder(str(out), device="cpu", threads=a.threads), coll, held)
        for key in ("ndcg@10", "mrr@10", "recall@100"):
            emit(bench="finetune", objective="triplet", metric=f"scifact_heldout_{key}", before=before[key],
                 after=after[key], delta=round(after[key] - before[key], 2), heldout_queries=len(held),
                 train_queries=len(train_q), train_examples=len(data), of=full, steps=res["stats"]["steps"],
                 train_seconds=round(res["stats"]["seconds"], 1), precision=res["stats"]["precision"],
                 corpus_encode_seconds=round(enc_s, 1), loss_first=round(res["stats"]["loss_first"], 4),
                 loss_last=round(res["stats"]["loss_last"], 4))


if __name__ == "__main__":
    main()
