"""`search -` answered by a warm process, a tree before against this one, by turns (decision 0118).

    python tests/benchmarks/bench_served_lines.py --library DIR --queries FILE --before-tree DIR [--rounds 4]

Each round, for each tree (the order alternating): `searchapp watch` from that tree serves the library, one
untimed `search - --json` warms it, then a timed one reads the queries file. Reported: wall seconds, the client's
CPU seconds and the serving process's CPU seconds over the timed run (medians), and whether both trees printed the
same rows (timings left out). Every row must say served_by "warm". Build the library first, e.g. 300 scifact files
with `searchapp index` (reranker = "" in its config.toml keeps the cross-encoder out of the figure).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import cpu_note, emit

REPO = Path(__file__).resolve().parents[2]


def _cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_round(tree: Path, library: Path, queries: str, env: dict) -> tuple[tuple[float, float, float], list]:
    srv = subprocess.Popen([sys.executable, "-m", "searchapp", "--data-dir", str(library), "watch", "--poll"],
                           cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in srv.stdout or []:
            if "answered here" in line:
                break
        for _round in ("warm-up", "timed"):
            c0, s0 = resource.getrusage(resource.RUSAGE_CHILDREN), _cpu_of(srv.pid)
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(library), "search", "-", "--json"],
                               cwd=tree, env=env, input=queries, capture_output=True, text=True, check=True)
            wall = time.perf_counter() - t0
            c1, s1 = resource.getrusage(resource.RUSAGE_CHILDREN), _cpu_of(srv.pid)
        rows = [json.loads(x) for x in p.stdout.splitlines()]
        assert rows and all(r["served_by"] == "warm" for r in rows), p.stderr[-500:]
        client = (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)
        return (wall, client, s1 - s0), [{k: v for k, v in r.items() if k != "timings"} for r in rows]
    finally:
        srv.send_signal(signal.SIGINT)
        srv.wait(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True, help="one query a line")
    ap.add_argument("--before-tree", type=Path, required=True, help="a checkout of the code before")
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "SEARCHAPP_NO_QUERY_EXPORT": "1"}
    queries = args.queries.read_text(encoding="utf-8")
    trees = {"before": args.before_tree, "after": REPO}
    got: dict[str, list] = {t: [] for t in trees}
    printed: dict[str, list] = {}
    for r in range(args.rounds):
        for name in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
            figures, printed[name] = one_round(trees[name], args.library, queries, env)
            got[name].append(figures)
    for name, v in got.items():
        emit(bench="served_lines", tree=name, lines=len(queries.splitlines()), rounds=len(v),
             wall_s_median=round(statistics.median(x[0] for x in v), 3),
             client_cpu_s_median=round(statistics.median(x[1] for x in v), 3),
             server_cpu_s_median=round(statistics.median(x[2] for x in v), 3), **cpu_note())
    emit(bench="served_lines", same_output=printed["before"] == printed["after"])


if __name__ == "__main__":
    main()
