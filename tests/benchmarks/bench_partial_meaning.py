"""Search while meaning is unfinished: one collection embedded, another searchable by words only.

A new library spends its first minutes to hours in this state (words first, then meaning). Built from
../shared/data: SciFact-sub (the first 100 judged SciFact-train claims, their abstracts and 250 others) is fully
embedded; Cranfield (1,400 abstracts) is added with `embed=False`, so its files have words and no vectors.
Two question sets are asked of that one library, each scored as a person sees it (the default top 10 of
`search`, read as a ranking of files, nDCG@10 x 100):
- "words-only side": Cranfield's questions, whose answers have no vectors yet;
- "embedded side":   SciFact's claims, whose answers have vectors (the fix must not cost them much).
Then Cranfield is embedded too and both sets are asked again ("all embedded").

The baseline is lexical search in the same run and library: hybrid must not fall below it while meaning is
unfinished (goal: hybrid >= lexical - 1 on the words-only side). One JSON line per (state, question set, mode).
The libraries are cached under /tmp/searchapp-bench-partial (a second run only searches):

    python tests/benchmarks/bench_partial_meaning.py [--max-queries N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_quality import bench_config, load_collection, ndcg10  # noqa: E402

from searchapp.evaluation.ir import write_corpus  # noqa: E402

CACHE = Path(os.environ.get("SEARCHAPP_BENCH_CACHE", "/tmp/searchapp-bench-partial"))
MODES = ("lexical", "hybrid", "dense")


def cpu_note() -> str:
    flags = Path("/proc/cpuinfo").read_text()
    return ("avx512_bf16" if "avx512_bf16" in flags else "no avx512_bf16") + (", amx" if "amx_bf16" in flags else "")


def shown_run(lib, queries: dict[str, str], doc_of: dict[str, str], mode: str) -> dict[str, list[str]]:
    run = {}
    for qid, text in queries.items():
        hits = lib.search(text, mode=mode, rerank=False).to_json()["hits"]
        run[qid] = [d for d in (doc_of.get(h["path"]) for h in hits) if d is not None]
    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-queries", type=int, default=0)
    ap.add_argument("--fresh", action="store_true", help="rebuild the libraries")
    args = ap.parse_args()
    from searchapp.library import Library
    from searchapp.models import BiEncoder

    if args.fresh:
        shutil.rmtree(CACHE, ignore_errors=True)
    embedded, words = load_collection("scifact-sub"), load_collection("cranfield")
    doc_of: dict[str, str] = {}
    for name, coll in (("scifact-sub", embedded), ("cranfield", words)):
        folder = CACHE / name
        marker = CACHE / f"{name}.json"
        if not marker.exists():
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(json.dumps(write_corpus(coll, folder)))
        doc_of.update({p: f"{name}:{d}" for p, d in json.loads(marker.read_text()).items()})
    sets = {"words-only side": ("cranfield", words), "embedded side": ("scifact-sub", embedded)}
    qsets = {}
    for label, (name, coll) in sets.items():
        qids = [q for q in coll.queries if q in coll.qrels]
        if args.max_queries:
            qids = qids[: args.max_queries]
        qsets[label] = ({q: coll.queries[q] for q in qids},
                        {q: {f"{name}:{d}": g for d, g in coll.qrels[q].items()} for q in qids})

    encoder = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    partial, full = CACHE / "library-partial", CACHE / "library-full"
    for state, lib_dir in (("meaning unfinished", partial), ("all embedded", full)):
        t0 = time.perf_counter()
        built_marker = lib_dir / "bench-built"
        with Library(bench_config(lib_dir), encoder=encoder) as lib:
            if not built_marker.exists():  # built once: a later sync would embed the words-only side too
                lib.add_folder(CACHE / "scifact-sub")
                lib.add_folder(CACHE / "cranfield", embed=(state == "all embedded"))
                built_marker.write_text("")
            with_vectors, passages = lib.meaning()
            built = round(time.perf_counter() - t0, 1)
            for label, (queries, qrels) in qsets.items():
                for mode in MODES:
                    score = ndcg10(shown_run(lib, queries, doc_of, mode), qrels)
                    print(json.dumps({"bench": "partial_meaning", "state": state, "questions": label, "mode": mode,
                                      "ndcg@10_shown": score, "queries": len(queries),
                                      "passages_with_vectors": with_vectors, "passages": passages,
                                      "build_s": built, "cpu": cpu_note()}), flush=True)


if __name__ == "__main__":
    main()
