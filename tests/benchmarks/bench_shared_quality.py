"""Shown quality on a shared library against the desktop's (issue 44, item 2: within 0.5 nDCG@10).

Every IR collection in ../shared/data/ir (Cranfield, SciFact-train: their test judgements), written as notes
(evaluation/ir.write_corpus), indexed twice by the product with the same bi-encoder object: into a desktop library
(SQLite, hnswlib) and into a shared library (PostgreSQL + pgvector, the test server of tests/pg_server.py on a
private socket). Each question is asked of both with the default search and with each mode, no reranker (none
ships), and the shown top 10 (`search --json`) is read as a ranking of files. One JSON line per (collection, mode):
nDCG@10 x 100 on each engine, their difference (goal: |difference| <= 0.5), and how often the two top 10s list the
same files in the same order.

    python tests/benchmarks/bench_shared_quality.py [--collections cranfield,scifact-train] [--max-queries N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench_partial_meaning import MODES, shown_run  # noqa: E402
from bench_quality import bench_config, load_collection, ndcg10  # noqa: E402
from _common import cpu_note  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collections", default="cranfield,scifact-train")
    ap.add_argument("--max-queries", type=int, default=0)
    args = ap.parse_args()
    from pg_server import PgServer

    from searchapp.evaluation.ir import write_corpus
    from searchapp.library import Library
    from searchapp.library.shared import SharedLibrary
    from searchapp.models import BiEncoder

    work = Path(tempfile.mkdtemp(prefix="bench-shared-quality-"))
    server = PgServer().start()
    encoder = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    try:
        for name in args.collections.split(","):
            coll = load_collection(name)
            doc_of = write_corpus(coll, work / name)
            qids = [q for q in coll.queries if q in coll.qrels][: args.max_queries or None]
            queries = {q: coll.queries[q] for q in qids}
            libs, build = {}, {}
            for engine in ("sqlite", "postgresql"):
                config = bench_config(work / f"lib-{engine}-{name}")
                t0 = time.perf_counter()
                lib = (Library(config, encoder=encoder) if engine == "sqlite" else
                       SharedLibrary(config, server.address(server.new_database()), create=True, encoder=encoder))
                lib.add_folder(work / name)
                libs[engine], build[engine] = lib, round(time.perf_counter() - t0, 1)
            for mode in MODES:
                runs = {engine: shown_run(lib, queries, doc_of, mode) for engine, lib in libs.items()}
                scores = {engine: ndcg10(run, coll.qrels) for engine, run in runs.items()}
                same = sum(runs["sqlite"][q] == runs["postgresql"][q] for q in qids) / max(1, len(qids))
                print(json.dumps({"bench": "shared_quality", "collection": name, "mode": mode, "queries": len(qids),
                                  "ndcg@10_sqlite": scores["sqlite"], "ndcg@10_postgresql": scores["postgresql"],
                                  "difference": round(scores["postgresql"] - scores["sqlite"], 2), "goal": 0.5,
                                  "same_top10_share": round(same, 3), "build_s": build, "cpu": cpu_note()}),
                      flush=True)
            for lib in libs.values():
                lib.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
