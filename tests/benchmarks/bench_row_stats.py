"""What asking a search's rows whether their files can be opened costs since a drive that stops answering can no
longer hang a search (library/search/availability.py): the stats on a helper thread with a deadline, against the
same stats asked directly, by turns in one run, on files of a real folder (SciFact abstracts written out here;
never test fixtures). One JSON line: microseconds a search (median), the ratio, the machine.

    python tests/benchmarks/bench_row_stats.py [--rows 10] [--rounds 400]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import emit

from searchapp.library.search import availability

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "ir" / "scifact-train" / "corpus.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10, help="rows a search shows (each one stat)")
    ap.add_argument("--rounds", type=int, default=400)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        with CORPUS.open(encoding="utf-8") as corpus:
            for line, _ in zip(corpus, range(args.rows), strict=False):
                doc = json.loads(line)
                path = Path(tmp) / f"abs_{doc['_id']}.txt"
                path.write_text(doc["text"], encoding="utf-8")
                paths.append(str(path))

        def direct() -> dict[str, str]:
            return {p: availability._why(p, os.stat) for p in paths}

        def bounded() -> dict[str, str]:
            return availability.why_unavailable(paths, [tmp])

        assert direct() == bounded()
        times: dict[str, list[float]] = {"direct": [], "bounded": []}
        for r in range(args.rounds):  # by turns, the first of each pair alternating
            for name, fn in ((("direct", direct), ("bounded", bounded)) if r % 2 else
                             (("bounded", bounded), ("direct", direct))):
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
    a, b = (statistics.median(times[n]) * 1e6 for n in ("direct", "bounded"))
    emit({"bench": "row_stats", "rows": args.rows, "direct_us": round(a, 1), "bounded_us": round(b, 1),
          "ratio": round(b / a, 2)}, add_cpu_note=True)


if __name__ == "__main__":
    main()
