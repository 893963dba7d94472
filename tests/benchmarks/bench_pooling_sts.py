"""STS-B dev Spearman of the packaged all-MiniLM-L6-v2 with each pooling, and SBERT-WK's cost against mean.

    python tests/benchmarks/bench_pooling_sts.py [--threads 1] [--precision fp32] [--repeats 2]

Quality: `searchapp eval sts` arithmetic (evaluation.sts) on ../shared/data/sts/stsb-dev.tsv (1,500 pairs),
fp32 unless told. Cost: texts/s of encoding the same ~3,000 dev sentences with mean and with wk pooling,
interleaved repeats in this one run, best time kept (the machine is shared); the ratio is what to quote.
Prints one JSON line per pooling and one for the cost ratio. Published for mean pooling on STS-B *test*: 82.03.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from searchapp.datasets.pairs import read_scored_pairs
from searchapp.evaluation.sts import evaluate_sts
from searchapp.models import BiEncoder

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--precision", default="fp32")
    ap.add_argument("--speed-precision", default="auto", help="precision of the cost measurement (app default)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--file", default=str(DATA / "sts" / "stsb-dev.tsv"))
    ap.add_argument("--wk-variants", action="store_true",
                    help="also SBERT-WK from other first layers (1, 2) and with window 1, registered for this run")
    a = ap.parse_args()
    pairs = read_scored_pairs(Path(a.file))
    poolings = ["mean", "cls", "max", "wk"]
    if a.wk_variants:
        from searchapp.models.pooling import register_pooling
        from searchapp.models.sbert_wk import wk_pool

        for name, kw in (("wk_layers1..6", {"layer_start": 1}), ("wk_layers2..6", {"layer_start": 2}),
                         ("wk_window1", {"m": 1})):
            register_pooling(name, lambda e, m, hs, kw=kw: wk_pool(hs, m, **kw), needs_hidden_states=True)
            poolings.append(name)
    for pooling in poolings:
        enc = BiEncoder("all-MiniLM-L6-v2", pooling=pooling, device="cpu", precision=a.precision, threads=a.threads)
        res = evaluate_sts(enc, pairs)
        print(json.dumps({"bench": "pooling_sts", "set": Path(a.file).name, "pooling": pooling,
                          "precision": a.precision, "spearman": round(res["spearman"], 2),
                          "pearson": round(res["pearson"], 2), "pairs": res["pairs"]}), flush=True)

    texts = sorted({p.text1 for p in pairs} | {p.text2 for p in pairs})
    encs = {p: BiEncoder("all-MiniLM-L6-v2", pooling=p, device="cpu", precision=a.speed_precision, threads=a.threads)
            for p in ("mean", "wk")}
    best = {p: float("inf") for p in encs}
    for _ in range(a.repeats):
        for p, enc in encs.items():
            t0 = time.perf_counter()
            enc.encode(texts)
            best[p] = min(best[p], time.perf_counter() - t0)
    rate = {p: len(texts) / best[p] for p in best}
    print(json.dumps({"bench": "pooling_cost", "texts": len(texts), "precision": a.speed_precision,
                      "threads": a.threads, "mean_texts_per_s": round(rate["mean"], 1),
                      "wk_texts_per_s": round(rate["wk"], 1),
                      "wk_speed_vs_mean": round(rate["wk"] / rate["mean"], 3)}), flush=True)


if __name__ == "__main__":
    main()
