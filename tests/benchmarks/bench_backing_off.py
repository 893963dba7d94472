"""Backing off without crawling (issue 41, item 6): a first sync beside one busy process runs at >= 45 % of its
quiet rate.

The same first sync (`Library.add_folder` of FILES small files into a new library: the packaged bi-encoder,
the words pass then the meaning pass, at the app's background priority and fitted threads) runs quiet and beside
one busy process (`yes > /dev/null` at the normal priority, started before the sync and stopped after it), by
turns, ROUNDS times each, the order swapped every round. The rate is the meaning pass's passages a second (from
its first "embedding" report to its last), and the whole sync's seconds beside it. One JSON line a sync, then
the summary: the median busy rate over the median quiet rate against the goal.

    python tests/benchmarks/bench_backing_off.py [--files 400] [--rounds 3]

Run it on an otherwise quiet machine: another program's load is what the busy runs add on purpose.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _common import cpu_note, emit
from bench_time_left import make_files

from searchapp.base.config import load_config
from searchapp.library import Library

GOAL = 0.45


def one_sync(docs: Path, work: Path, name: str) -> tuple[int, float, float]:
    """(passages embedded, seconds from the first embedding report to the last, the whole sync's seconds)."""
    data = work / name
    data.mkdir(mode=0o700)
    (data / "config.toml").write_text("[models]\nreranker = \"\"\n", encoding="utf-8")
    seen: list[tuple[float, int]] = []

    def progress(p) -> None:
        if p.stage == "embedding" and p.total:
            seen.append((time.monotonic(), p.done))

    start = time.monotonic()
    with Library(load_config(data, env={})) as lib:
        lib.add_folder(docs, progress=progress)
    whole = time.monotonic() - start
    if len(seen) < 2:
        raise SystemExit("no embedding reports: nothing to time (more --files?)")
    return seen[-1][1] - seen[0][1], seen[-1][0] - seen[0][0], whole


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-backing-off-"))
    source = make_files(work / "docs", args.files)
    rates: dict[str, list[float]] = {"quiet": [], "busy": []}
    for r in range(args.rounds):
        for state in (("quiet", "busy") if r % 2 == 0 else ("busy", "quiet")):
            hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) if state == "busy" else None
            try:
                passages, embed_s, whole_s = one_sync(work / "docs", work, f"lib-{r}-{state}")
            finally:
                if hog is not None:
                    hog.kill()
                    hog.wait()
            rates[state].append(passages / embed_s)
            emit(round=r, state=state, passages=passages, embedding_s=round(embed_s, 1),
                 passages_per_s=round(passages / embed_s, 1), whole_sync_s=round(whole_s, 1), **cpu_note())
    quiet, busy = statistics.median(rates["quiet"]), statistics.median(rates["busy"])
    emit(bench="backing_off", files=args.files, source=source, rounds=args.rounds,
         quiet_passages_per_s=round(quiet, 1), busy_passages_per_s=round(busy, 1), ratio=round(busy / quiet, 3),
         goal=f">= {GOAL:.0%}", met=busy / quiet >= GOAL, **cpu_note())


if __name__ == "__main__":
    main()
