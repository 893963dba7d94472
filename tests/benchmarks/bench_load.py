"""Search latency while a sync runs, compared with an idle library (same process, same Library, real MiniLM).

Half of a BEIR corpus is indexed first; then queries are timed idle, and again while a background thread
indexes the other half. Prints one JSON line per (mode, state) and one line with the during/idle ratios.

    python tests/benchmarks/bench_load.py [--corpus ../shared/data/ir/scifact-train] [--docs 600] [--queries 60] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.base.config import load_config
from searchapp.datasets.beir import load_beir
from searchapp.evaluation.ir import write_corpus
from searchapp.library import Library

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
MODES = SEARCH_MODES


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def timed(lib: Library, queries: list[str], mode: str, stop: threading.Event | None = None) -> list[float]:
    out = []
    for q in queries:
        if stop is not None and stop.is_set():
            break
        t0 = time.perf_counter()
        lib.search(q, mode=mode, k=10, rerank=False)
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(DATA / "ir" / "scifact-train"))
    ap.add_argument("--docs", type=int, default=600, help="documents in all; half indexed before timing")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--threads", type=int, default=0, help="models.threads (0: torch's default)")
    args = ap.parse_args()
    split = "test" if (Path(args.corpus) / "qrels" / "test.tsv").exists() else "train"
    coll = load_beir(Path(args.corpus), split=split)
    docs = list(coll.corpus.items())[: args.docs]
    queries = [q for q in list(coll.queries.values())][: args.queries]
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        coll.corpus = dict(docs[: len(docs) // 2])
        write_corpus(coll, Path(tmp) / "first")
        coll.corpus = dict(docs[len(docs) // 2:])
        write_corpus(coll, Path(tmp) / "second")
        lib = Library(load_config(Path(tmp) / "lib", env={}, overrides={"models": {"reranker": "", "threads": args.threads}}))
        lib.add_folder(Path(tmp) / "first")
        for mode in MODES:
            timed(lib, queries[:5], mode)  # warm-up: model, index and page cache
        idle = {mode: timed(lib, queries, mode) for mode in MODES}

        stop = threading.Event()
        sync_seconds = {}

        def sync() -> None:
            t0 = time.perf_counter()
            try:
                lib.add_folder(Path(tmp) / "second")
            finally:
                sync_seconds["s"] = time.perf_counter() - t0
                stop.set()

        worker = threading.Thread(target=sync)
        worker.start()
        busy: dict[str, list[float]] = {m: [] for m in MODES}
        while not stop.is_set():  # round-robin over modes until the sync ends
            for mode in MODES:
                busy[mode] += timed(lib, queries[len(busy[mode]) % len(queries):][:5], mode, stop)
        worker.join()
        lib.close()

    ratios = {}
    for mode in MODES:
        for state, values in (("idle", idle[mode]), ("during_sync", busy[mode])):
            if values:
                print(json.dumps({"bench": "load", "mode": mode, "state": state, "threads": args.threads, "queries": len(values),
                                  "p50_ms": round(statistics.median(values), 2), "p95_ms": round(pct(values, 0.95), 2),
                                  "max_ms": round(max(values), 2)}), flush=True)
        if busy[mode]:
            ratios[mode] = round(statistics.median(busy[mode]) / statistics.median(idle[mode]), 2)
    print(json.dumps({"bench": "load", "result": "p50 during sync / p50 idle", "ratios": ratios, "threads": args.threads,
                      "sync_seconds": round(sync_seconds.get("s", 0.0), 1), "docs_synced": len(docs) - len(docs) // 2}),
          flush=True)


if __name__ == "__main__":
    main()
