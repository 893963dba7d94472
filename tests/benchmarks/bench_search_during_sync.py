"""Query latency while indexing: idle p95 vs p95 during a sync, in one process (the GUI case) and beside a
`searchapp index` process (the CLI case).

    python tests/benchmarks/bench_search_during_sync.py [--base 40] [--docs 80] [--src /work/main]

SciFact abstracts as files: `--base` are indexed first (so there is something to find), then `--docs` more
are synced while SciFact queries (hybrid, no rerank) run back to back. `--src` measures another tree (e.g.
`main`) for a before/after in the same run. One JSON line per setting:
    {"bench": "search_during_sync", "setting": "in_process", "idle_p95_ms": .., "during_p95_ms": ..,
     "ratio": during/idle, ...}
Goals (2-core CPU): ratio <= 3 and during p95 <= 300 ms in both settings; at a load average of 4+ from
other work, ratio <= 2 (a sync waits while a search runs: library/resources/in_flight.py). `sync_s`: how long the sync
took while queries ran back to back (the price of stepping aside); `sync_pauses`: its waits (in process).

On a machine shared with other work, compare equal windows: `--window 20` runs the queries 20 s idle, then 20 s
beside a sync of the --docs (their words indexed before, unmeasured), which is then cancelled (in process) or
killed (the other process); `embedded` counts the passages it embedded meanwhile. Without it, the idle p95 of a
few seconds is set against a sync-long one that catches more of the other work's bursts, and a sync that
steps aside for searches (so lasts longer) looks worse for it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[2]
DATA = next((d for d in (REPO.parent / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            REPO.parent / "shared" / "data")


def p(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")


def timed_queries(lib, queries: list[str], until=None, minimum: int = 0) -> list[float]:
    """Latencies (ms) of queries run back to back: all of them, or while `until()` is false (at least `minimum`)."""
    out: list[float] = []
    i = 0
    while True:
        if until is None and i >= len(queries):
            break
        if until is not None and until() and i >= minimum:
            break
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        lib.search(q, mode="hybrid", rerank=False, k=10)
        out.append((time.perf_counter() - t0) * 1000)
        i += 1
    return out


def cpu_flag() -> str:
    try:
        return "yes" if "avx512_bf16" in Path("/proc/cpuinfo").read_text() else "no"
    except OSError:
        return "unknown"


def deadline(seconds: float):
    end = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= end


def cancelled_ok(fn, **kw) -> None:
    from searchapp.base.errors import Cancelled

    try:
        fn(**kw)
    except Cancelled:
        pass


def row(setting: str, idle: list[float], during: list[float], src: str, sync_s: float, pauses) -> dict:
    return {"bench": "search_during_sync", "setting": setting, "src": src, "avx512_bf16": cpu_flag(),
            "load_avg_1m": round(os.getloadavg()[0], 1), "sync_s": round(sync_s, 1), "sync_pauses": pauses,
            "idle_p50_ms": round(p(idle, 0.5), 1), "idle_p95_ms": round(p(idle, 0.95), 1),
            "during_p50_ms": round(p(during, 0.5), 1), "during_p95_ms": round(p(during, 0.95), 1),
            "ratio": round(p(during, 0.95) / p(idle, 0.95), 2), "queries_idle": len(idle), "queries_during": len(during)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(DATA / "ir" / "scifact-train"))
    ap.add_argument("--base", type=int, default=40)
    ap.add_argument("--docs", type=int, default=80, help="documents synced per measured sync")
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--idle-rounds", type=int, default=3, help="times the queries run idle (more samples for p95)")
    ap.add_argument("--window", type=float, default=0.0,
                    help="seconds of queries idle, then as many during a sync of the words-only --docs (cancelled "
                         "at the end); 0: until the sync of --docs ends")
    ap.add_argument("--src", default=str(REPO))
    ap.add_argument("--settings", default="in_process,cross_process")
    args = ap.parse_args()
    src = str(Path(args.src).resolve())
    sys.path.insert(0, src)  # --src's searchapp (another tree: a `git archive`), ahead of the editable install
    from searchapp.base.config import load_config
    from searchapp.datasets.beir import BeirCollection, load_beir
    from searchapp.evaluation.ir import write_corpus
    from searchapp.base.progress import CancelToken
    from searchapp.library import Library

    corpus_dir = Path(args.corpus)
    coll = load_beir(corpus_dir, split="test" if (corpus_dir / "qrels" / "test.tsv").exists() else "train")
    docs = list(coll.corpus.items())
    queries = list(coll.queries.values())[: args.queries]
    settings = args.settings.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-search-sync-") as tmp:
        tmp = Path(tmp)
        parts = [docs[: args.base]] + [docs[args.base + i * args.docs: args.base + (i + 1) * args.docs]
                                       for i in range(len(settings))]
        folders = []
        for i, part in enumerate(parts):
            folder = tmp / f"part{i}"
            write_corpus(BeirCollection(corpus=dict(part), queries={}, qrels={}), folder)
            folders.append(folder)
        cfg = load_config(tmp / "lib", env={})
        lib = Library(cfg)
        # On a thread, as the GUI does: a sync lowers its own thread's priority, and the queries below must
        # run at the priority a search thread has.
        first = threading.Thread(target=lib.add_folder, args=(folders[0],))
        first.start()
        first.join()
        timed_queries(lib, queries[:3])  # warm-up: model, index, SQLite pages
        if args.window:  # words first, unmeasured: the window then covers the meaning pass
            for folder in folders[1:]:
                words = threading.Thread(target=lambda f=folder: lib.add_folder(f, embed=False))
                words.start()
                words.join()
        for n, setting in enumerate(settings, start=1):
            if args.window:
                idle = timed_queries(lib, queries, until=deadline(args.window), minimum=len(queries))
            else:
                idle = timed_queries(lib, queries * args.idle_rounds)
            # the sync's pauses for a search (older trees: _searches, or none)
            searches = getattr(lib, "_in_flight", None) or getattr(lib, "_searches", None)
            waits0 = searches.waits if searches is not None else None
            embedded0 = lib.meaning()[0]
            t0 = time.perf_counter()
            if setting == "in_process":
                token = CancelToken()
                seen: list[int] = [0]  # passages through the encoder so far (its progress, not the commits)

                def progress(pr, seen=seen) -> None:
                    if pr.stage == "embedding":
                        seen[0] = max(seen[0], pr.done)

                target = ((lambda token=token, progress=progress: cancelled_ok(lib.sync, cancel=token,
                                                                               progress=progress)) if args.window else
                          (lambda f=folders[n]: lib.add_folder(f)))
                worker = threading.Thread(target=target)
                worker.start()
                time.sleep(1.0)  # let the sync reach the encoder
                until = deadline(args.window) if args.window else (lambda worker=worker: not worker.is_alive())
                during = timed_queries(lib, queries, until=until, minimum=len(queries))
                token.cancel()
                worker.join()
                pauses = None if waits0 is None else searches.waits - waits0
            else:
                call = "l.sync()" if args.window else "l.add_folder(%r)" % str(folders[n])
                script = ("import sys; sys.path.insert(0, %r)\n"
                          "from searchapp.base.config import load_config\nfrom searchapp.library import Library\n"
                          "with Library(load_config(%r, env={})) as l: %s\n") % (src, str(cfg.data_dir), call)
                proc = subprocess.Popen([sys.executable, "-c", script])
                time.sleep(8.0)  # model load; then the sync is encoding
                until = deadline(args.window) if args.window else (lambda proc=proc: proc.poll() is not None)
                during = timed_queries(lib, queries, until=until, minimum=len(queries))
                if args.window:
                    proc.terminate()  # a sync killed mid-way: what it committed stays (crash safety)
                proc.wait()
                pauses = None  # the other process counts its own
            sync_s = time.perf_counter() - t0
            out = row(setting, idle, during, src, sync_s, pauses)
            out["embedded"] = lib.meaning()[0] - embedded0  # the sync's committed progress meanwhile
            if setting == "in_process" and args.window:
                out["encoded"] = seen[0]
            print(json.dumps(out), flush=True)
        lib.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
