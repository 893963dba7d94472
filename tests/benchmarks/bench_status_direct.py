"""`searchapp status` without a warm process, whole command, old tree against new in one run.

    python tests/benchmarks/bench_status_direct.py --library DIR --trees OLD NEW [--runs 5]

Each run is `python -c` putting one tree's package first on the path and running the command line's `main`
on `--data-dir DIR status` (SEARCHAPP_NO_WARM=1: no warm process is asked), timed from outside; its peak RSS
comes back from the child itself. Trees take turns run by run. Two cases each:
- "first": integrity.json removed before the run, so SQLite's quick_check runs (what the first `status` of a
  minute pays);
- "again": the run right after one of the same tree (a status typed twice; quick_check's verdict recorded by a
  tree that records one).
The trees are copies of the package (`git archive <commit> searchapp | tar -x -C OLD`). One JSON line per tree
and case, with the CPU flags and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import cpu_note

CHILD = """
import resource, sys
sys.path.insert(0, sys.argv[1])
from searchapp.cli.main import main
code = main(["--data-dir", sys.argv[2], "status"])
print("@@" + str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss), file=sys.stderr)
sys.exit(code)
"""


def run(tree: Path, library: Path) -> tuple[float, int]:
    env = {**os.environ, "SEARCHAPP_NO_WARM": "1"}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(library)], env=env, capture_output=True,
                         text=True, check=True)
    wall = time.perf_counter() - t0
    rss = int(next(line[2:] for line in out.stderr.splitlines() if line.startswith("@@")))
    return wall, rss // 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--trees", type=Path, nargs="+", required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    times: dict[tuple[str, str], list[float]] = {}
    rss: dict[tuple[str, str], int] = {}
    record = args.library / "integrity.json"
    for tree in args.trees:
        run(tree, args.library)  # warm-up: the files in the page cache for every tree alike
    for _ in range(args.runs):
        for tree in args.trees:
            record.unlink(missing_ok=True)
            for case in ("first", "again"):
                wall, peak = run(tree, args.library)
                times.setdefault((str(tree), case), []).append(wall)
                rss[(str(tree), case)] = max(rss.get((str(tree), case), 0), peak)
    for (tree, case), ts in times.items():
        print(json.dumps({"bench": "status_direct", "tree": tree, "case": case,
                          "median_s": round(statistics.median(ts), 3), "min_s": round(min(ts), 3),
                          "runs": len(ts), "peak_rss_mb": rss[(tree, case)], "library": str(args.library),
                          "load_before": [round(x, 2) for x in load_before], **cpu_note()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
