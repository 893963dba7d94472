"""A cold open of a big library, words first: how long from a fresh process's start until a search answers by
words, and until it answers in full (hybrid), with the vector index opened in the background
(library/resources/background_load.py) against today's open-then-search, in the same run.

Cases, each in a fresh interpreter timed from its launch (so Python's start-up and the imports are in it):
- `wait`: Library(...), then search(q) — the index opened by the search itself (`searchapp search --wait`, and
  what every search did before).
- `cli`: load_in_background(give_up_after=MEANING_WAIT), then search(q, meaning_wait=MEANING_WAIT) (a direct
  `searchapp search`): the answer's time and kind (words or hybrid), then the process's end (close included).
- `window`: load_in_background(), search(q, meaning_wait=0) (the window's first search), the load's end, and the
  same search again (hybrid). A thread ticking every 5 ms records the longest stall: hnswlib's parse holds the
  interpreter lock, and that is how long the window's Python side cannot move.

Libraries are bench_million.py's (hashed-words vectors; no model is loaded, queries are STS-B dev sentences
mapped the same way), opened read-write from a copy — never the original:

    cp -r /tmp/.../lib-200000-... /tmp/copy && python tests/benchmarks/bench_cold_open.py /tmp/copy --runs 3
The index file is in the page cache after the first run (a cold disk makes the checksum, which runs beside a
search, slower; the parse then reads cached pages). One JSON line per result with the CPU flags and load average.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from _common import cpu_note

CASES = ("wait", "cli", "window")


def child(case: str, data: Path, launched: float) -> None:
    """One case in this fresh interpreter; prints one JSON line of seconds since `launched` (the parent's clock)."""
    ticks = {"max_gap": 0.0}
    stop = threading.Event()

    def ticker() -> None:
        last = time.perf_counter()
        while not stop.wait(0.005):
            now = time.perf_counter()
            ticks["max_gap"] = max(ticks["max_gap"], now - last)
            last = now

    from bench_million import TextEncoder, query_texts

    from searchapp.base.config import load_config
    from searchapp.cli.commands.search import MEANING_WAIT
    from searchapp.library import Library
    from searchapp.library.search.result import LOADING

    q = query_texts(1)[0]
    t0 = time.time()
    enc = TextEncoder([q])  # a 100 MB random projection: the bench's own set-up, left out of every figure
    setup = time.time() - t0
    since = lambda: round(time.time() - launched - setup, 3)  # noqa: E731
    out: dict = {"imported_s": since()}
    lib = Library(load_config(data, env={}), encoder=enc)
    lib.models.encode_query = enc.encode_query  # type: ignore[method-assign]  # the hashed-words map, no model
    out["opened_s"] = since()
    if case == "wait":
        res = lib.search(q, rerank=False)
        out.update(answer_s=since(), answer="words" if res.said(LOADING) else "hybrid")
    elif case == "cli":
        lib.load_in_background(give_up_after=MEANING_WAIT)
        res = lib.search(q, rerank=False, meaning_wait=MEANING_WAIT)
        out.update(answer_s=since(), answer="words" if res.said(LOADING) else "hybrid", meaning_wait=MEANING_WAIT)
    else:
        threading.Thread(target=ticker, daemon=True).start()
        loaded = threading.Event()
        lib.load_in_background(loaded.set)
        res = lib.search(q, rerank=False, meaning_wait=0)
        out.update(answer_s=since(), answer="words" if res.said(LOADING) else "hybrid")
        loaded.wait()
        out["loaded_s"] = since()
        res = lib.search(q, rerank=False, meaning_wait=0)
        out.update(full_s=since(), full="words" if res.said(LOADING) else "hybrid")
        stop.set()
        out["longest_stall_s"] = round(ticks["max_gap"], 3)
    lib.close()
    out["closed_s"] = since()
    out["setup_s"] = setup
    print(json.dumps(out), flush=True)


def run(case: str, data: Path) -> dict:
    launched = time.time()
    proc = subprocess.run([sys.executable, __file__, "--child", case, str(data), repr(launched)],
                          capture_output=True, text=True, check=False)
    ended = round(time.time() - launched, 3)
    if proc.returncode:
        raise SystemExit(f"{case} failed: {proc.stderr[-2000:]}")
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row["process_s"] = round(ended - row.pop("setup_s"), 3)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path, nargs="?", help="a copy of a bench_million library")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", nargs=3, metavar=("CASE", "DATA", "LAUNCHED"), help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), float(args.child[2]))
        return
    built = json.loads((args.data / "built.json").read_text())
    run("wait", args.data)  # the index file into the page cache, for every case alike
    rows: dict[str, list[dict]] = {c: [] for c in CASES}
    for _ in range(args.runs):
        for case in CASES:  # interleaved: a change in the machine's load falls on every case alike
            rows[case].append(run(case, args.data))
    for case in CASES:
        keys = [k for k, v in rows[case][0].items() if isinstance(v, (int, float))]
        med = {k: round(statistics.median(r[k] for r in rows[case]), 3) for k in keys}
        kinds = {k: sorted({r[k] for r in rows[case]}) for k in ("answer", "full") if k in rows[case][0]}
        print(json.dumps({"bench": "cold_open", "case": case, "n": built["n"], "runs": args.runs, "median": med,
                          **kinds, **cpu_note()}), flush=True)


if __name__ == "__main__":
    main()
