"""Rerank-50 on this CPU: searchapp's fused forward vs transformers' vs sentence-transformers, in one run.

    python tests/benchmarks/bench_rerank_cpu.py [--queries 12] [--candidates 50] [--rounds 3] [--threads 2]

No cross-encoder ships, so the reranker timed is MiniLM-L6's body (the packaged bi-encoder's weights, the
shape of the ms-marco MiniLM-L6 rerankers) under a seeded head: the arithmetic of a real rerank; its scores
mean nothing, so fidelity is read against transformers' fp32 forward of the same model. Each query's 50
candidates are chunk-sized scifact passages. Paths, every round in a rotated order: sentence-transformers'
CrossEncoder (fp32, its defaults: the peer), searchapp "auto" fused (models/lean_bert on cpu_linear) and
through transformers' module tree (the default before 2026-11-26 late), searchapp fp32 fused. A path's
figure is the p50 / p95 of all its calls; ratios are to the peer's p50 in the same run. One JSON line a path,
with the CPU's bf16 flags and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from bench_encode import DATA, load_passages
from _common import cpu_note

from searchapp.base.config import PACKAGED_BI_ENCODER
from searchapp.models import BiEncoder, CrossEncoder

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
Score = Callable[[str, Sequence[str]], np.ndarray]


def minilm_reranker(folder: Path) -> Path:
    from transformers import BertForSequenceClassification

    src = BiEncoder(PACKAGED_BI_ENCODER, device="cpu", precision="fp32").resolved.path
    torch.manual_seed(0)
    model = BertForSequenceClassification.from_pretrained(str(src), num_labels=1)
    with torch.no_grad():
        model.classifier.weight.mul_(100)  # logits of a few units, as a trained head gives
    model.save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copyfile(src / name, folder / name)
    return folder


def queries(n: int) -> list[str]:
    out = []
    with open(DATA / "ir" / "scifact-train" / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            out.append(json.loads(line)["text"])
            if len(out) == n:
                break
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=12)
    p.add_argument("--candidates", type=int, default=50)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    load_before = cpu_note()["load_avg"]
    folder = minilm_reranker(Path(tempfile.mkdtemp(prefix="rerank-cpu-")) / "minilm-reranker")
    from sentence_transformers import CrossEncoder as StCrossEncoder

    st = StCrossEncoder(str(folder), device="cpu", activation_fn=torch.nn.Identity())  # logits, as searchapp's

    def searchapp(precision: str, fused: bool) -> Score:
        ce = CrossEncoder(str(folder), device="cpu", precision=precision, threads=args.threads)
        if not fused:
            ce._fused = None
        elif ce.path != "fused":
            raise SystemExit(f"no fused forward here ({ce.path})")
        return ce.score

    paths: dict[str, Score] = {
        "sentence-transformers-fp32": lambda q, ps: np.asarray(st.predict([(q, x) for x in ps], batch_size=16,
                                                                          show_progress_bar=False)),
        "searchapp-auto": searchapp("auto", True),
        "searchapp-auto-transformers": searchapp("auto", False),
        "searchapp-fp32": searchapp("fp32", True),
        "searchapp-fp32-transformers": searchapp("fp32", False),
    }
    pool = load_passages(args.candidates * 2, BiEncoder(PACKAGED_BI_ENCODER, device="cpu", precision="fp32"))
    qs = queries(args.queries)
    cands = [[pool[(i * 7 + j) % len(pool)] for j in range(args.candidates)] for i in range(len(qs))]
    names = list(paths)
    for name in names:
        paths[name](qs[0], cands[0][:8])  # warm-up: first-call allocations and kernel selection
    times: dict[str, list[float]] = {n: [] for n in names}
    scores: dict[str, list[np.ndarray]] = {n: [] for n in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[: r % len(names)]
        for q, cs in zip(qs, cands, strict=True):
            for name in order:
                t0 = time.perf_counter()
                s = paths[name](q, cs)
                times[name].append((time.perf_counter() - t0) * 1000)
                if r == 0:
                    scores[name].append(np.asarray(s, dtype=np.float32).reshape(-1))
    ref = scores["searchapp-fp32-transformers"]
    base = statistics.median(times["sentence-transformers-fp32"])
    info = cpu_note()
    for name in names:
        ts = sorted(times[name])
        diff = max(float(np.max(np.abs(a - b))) for a, b in zip(scores[name], ref, strict=True))
        top10 = statistics.mean(len(set(np.argsort(-a)[:10]) & set(np.argsort(-b)[:10])) / 10
                                for a, b in zip(scores[name], ref, strict=True))
        print(json.dumps({
            "bench": "rerank_cpu", "impl": name, "p50_ms": round(statistics.median(ts), 1),
            "p95_ms": round(ts[min(len(ts) - 1, int(0.95 * len(ts)))], 1),
            "speedup_vs_sentence_transformers_p50": round(base / statistics.median(ts), 3),
            "max_logit_diff_vs_fp32": round(diff, 4), "top10_agreement_vs_fp32": round(top10, 3),
            "calls": len(ts), "candidates": args.candidates, "threads": args.threads,
            "cpu": info["cpu"], "cpu_flags": info["cpu_flags"], "cores": info["cores"],
            "load_avg_before": load_before, "load_avg_after": info["load_avg"],
        }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
