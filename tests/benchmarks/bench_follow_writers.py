"""What a reader pays when another process commits: the next search first brings its vector index up to date
(IndexKeeper.follow_writers: the stored ids with a vector against the index's), and `status` checks the two
agree. Timed on an existing library (bench_million.py's million), old and new trees by turns in one run.

    python tests/benchmarks/bench_follow_writers.py --library /tmp/.../lib-1000000-... --trees OLD NEW

TREE: a copy of the searchapp package (`git archive <commit> searchapp | tar -x -C OLD`). Each tree runs in a
fresh process: it opens the library, reads its index, then `--rounds` times: another connection bumps the
store's generation (what any commit does), and the index is brought up to date (`follow_ms`); then `status()`
with the index open (`status_s`; its SQLite quick_check is timed on its own, as `quick_check_s`), and after one
more commit a second status, as the window's next refresh asks it 2 s later (`status_again_s`). Only the
`generation` meta value is written, and it is put back at the end (no passage, vector or index file changes).
One JSON line per tree and round, with the CPU flags and load.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path
from _common import cpu_note

WORKER = r"""
import json, os, sqlite3, sys, time
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
os.environ["HF_HUB_OFFLINE"] = "1"
from searchapp.base.config import load_config
from searchapp.library import Library
data, rounds = sys.argv[2], int(sys.argv[3])
lib = Library(load_config(data, env={}))
t0 = time.perf_counter(); lib._fresh(); open_s = time.perf_counter() - t0
follow = []
for _ in range(rounds):
    c = sqlite3.connect(os.path.join(data, "library.sqlite"))
    c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"); c.commit(); c.close()
    t0 = time.perf_counter(); lib._fresh(); follow.append((time.perf_counter() - t0) * 1000)
t0 = time.perf_counter(); st = lib.status(); status_s = time.perf_counter() - t0
c = sqlite3.connect(os.path.join(data, "library.sqlite"))
c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"); c.commit(); c.close()
t0 = time.perf_counter(); lib.status(); again_s = time.perf_counter() - t0  # the window's next refresh, 2 s on
t0 = time.perf_counter(); lib.reader().integrity_ok(); check_s = time.perf_counter() - t0
print(json.dumps({"tree": sys.argv[1], "open_s": round(open_s, 2), "follow_ms": [round(x, 1) for x in follow],
                  "status_s": round(status_s, 2), "status_again_s": round(again_s, 2), "quick_check_s": round(check_s, 2), "consistent": st.consistent,
                  "vectors": st.vectors}))
lib.close()
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--trees", nargs="+", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2, help="fresh processes per tree, by turns")
    args = ap.parse_args()
    db = args.library / "library.sqlite"
    with sqlite3.connect(db) as c:
        generation = c.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]
    results: dict[str, list[dict]] = {t: [] for t in args.trees}
    try:
        for _ in range(args.repeat):
            for tree in args.trees:
                p = subprocess.run([sys.executable, "-c", WORKER, tree, str(args.library), str(args.rounds)],
                                   capture_output=True, text=True, timeout=1800)
                if p.returncode != 0:
                    raise SystemExit(f"{tree}: {p.stderr[-3000:]}")
                row = json.loads(p.stdout.strip().splitlines()[-1])
                results[tree].append(row)
                print(json.dumps({"bench": "follow_writers", **row, **cpu_note()}), flush=True)
    finally:
        with sqlite3.connect(db) as c:
            c.execute("UPDATE meta SET value = ? WHERE key = 'generation'", (generation,))
    first, last = args.trees[0], args.trees[-1]

    def med(tree: str, key: str) -> float:
        vals = [v for r in results[tree] for v in (r[key] if isinstance(r[key], list) else [r[key]])]
        return round(statistics.median(vals), 3)

    print(json.dumps({"bench": "follow_writers", "result": "summary", "old": first, "new": last,
                      "follow_ms": [med(first, "follow_ms"), med(last, "follow_ms")],
                      "follow_ratio": round(med(first, "follow_ms") / med(last, "follow_ms"), 1),
                      "status_s": [med(first, "status_s"), med(last, "status_s")],
                      "status_ratio": round(med(first, "status_s") / med(last, "status_s"), 1),
                      "status_again_s": [med(first, "status_again_s"), med(last, "status_again_s")], **cpu_note()}))


if __name__ == "__main__":
    main()
