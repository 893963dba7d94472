"""How honest is the time left? Issue 41, item 3: within ±30 % of the truth after the first minute of embedding.

One real sync (`Library.add_folder`, the packaged bi-encoder, its words pass then its meaning pass) of FILES
small files: SciFact abstracts when /work/shared/data is there, else generated sentences. Each "embedding"
report is fed, as it comes, to the estimator the command line, the window's strip and `status` use
(base/rate.RateEstimator), and beside it to the obvious baseline: the whole stage's average rate so far. When the
sync is done the truth is known: for each report, the seconds the stage really had left. One JSON line a
checkpoint (60, 90, 120 … s into the embedding) with both estimates and their error (estimate / truth − 1), then
a summary line: the largest error of each after the first minute (reports in the last 10 s left out: there the
truth is a few seconds and any error is a large ratio), and whether ours is within ±30 %.

    python tests/benchmarks/bench_time_left.py [--files 4000] [--threads 0] [--trace run.jsonl]
    python tests/benchmarks/bench_time_left.py --replay run.jsonl ...   # judge saved runs again, no sync

A saved trace lets another estimator be judged on the very same runs (the estimator takes the caller's clock);
tests/benchmarks/traces/ keeps some (their names say how busy the machine was).

The figure depends on the machine staying as busy as it was: a program started mid-sync slows it, and no
estimate made before can know. Say the load (printed) with the figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from _common import cpu_note, emit

from searchapp.base.config import load_config
from searchapp.base.rate import RateEstimator
from searchapp.library import Library

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "ir" / "scifact-train" / "corpus.jsonl"
if not DATA.is_file():
    DATA = Path("/work/shared/data/ir/scifact-train/corpus.jsonl")
FIRST_MINUTE_S = 60.0
LAST_S = 10.0
GOAL = 0.30


def make_files(folder: Path, n: int) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    texts: list[str] = []
    if DATA.is_file():
        with open(DATA, encoding="utf-8") as fh:
            for line in fh:
                texts.append(json.loads(line)["text"])
                if len(texts) >= n:
                    break
    source = "scifact" if texts else "generated"
    rng = random.Random(0)
    words = "plants water light protein cell energy river castle bread yeast volcano glacier copper".split()
    while len(texts) < n:
        texts.append(" ".join(rng.choice(words) for _ in range(180)) + ".")
    for i, t in enumerate(texts):
        (folder / f"doc{i:05d}.txt").write_text(t, encoding="utf-8")
    return source


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=0, help="models.threads (0: the app's default)")
    ap.add_argument("--trace", type=Path, help="also write each report (s, done, total) to this JSON-lines file")
    ap.add_argument("--replay", type=Path, nargs="+", help="judge traces written by --trace instead of syncing")
    args = ap.parse_args()
    if args.replay:
        for path in args.replay:
            with open(path, encoding="utf-8") as fh:
                trace = [(r["s"], r["done"], r["total"]) for r in map(json.loads, fh)]
            judge(trace, replayed=str(path), **cpu_note())
        return
    trace, notes, source = sync_trace(args.files, args.threads)
    if args.trace:
        with open(args.trace, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps({"s": round(s, 3), "done": d, "total": n}) + "\n" for s, d, n in trace)
    judge(trace, files=args.files, source=source, notes=notes[:3], **cpu_note())


def sync_trace(files: int, threads: int) -> tuple[list[tuple[float, int, int]], list[str], str]:
    """One real sync; its "embedding" reports as (seconds since the first, done, total)."""
    work = Path(tempfile.mkdtemp(prefix="bench-time-left-"))
    source = make_files(work / "docs", files)
    data = work / "library"
    data.mkdir(mode=0o700)
    (data / "config.toml").write_text(f"[models]\nreranker = \"\"\nthreads = {threads}\n", encoding="utf-8")
    config = load_config(data, env={})
    trace: list[tuple[float, int, int]] = []
    first: list[float] = []  # when the first report came

    def progress(p) -> None:
        if p.stage != "embedding" or not p.total:
            return
        now = time.monotonic()
        if not first:
            first.append(now)
        trace.append((now - first[0], p.done, p.total))

    with Library(config) as lib:
        rep = lib.add_folder(work / "docs", progress=progress)
    return trace, rep.notes, source


def judge(trace: list[tuple[float, int, int]], **extra) -> None:
    """Feed the reports, in order, to the app's estimator and to the whole stage's average rate; the truth is
    known afterwards (the last report is the end). One line a checkpoint, then the summary."""
    if not trace or trace[-1][0] < 2 * FIRST_MINUTE_S:
        raise SystemExit(f"the embedding took {trace[-1][0] if trace else 0:.0f} s: too short to judge the time "
                         f"left after its first minute; run with more --files")
    ours = RateEstimator()
    end, first_done = trace[-1][0], trace[0][1]
    worst = {"ours": 0.0, "average": 0.0}
    seen: dict[str, list[float]] = {"ours": [], "average": []}  # every judged report's |error|
    marks = iter(range(int(FIRST_MINUTE_S), int(end), 30))
    mark = next(marks, None)
    for since, done, total in trace:
        ours.update(done, since)
        mine = ours.left(total, since)
        avg = (total - done) * since / (done - first_done) if done > first_done and since > 0 else None
        truth = end - since
        if since < FIRST_MINUTE_S or truth < LAST_S:
            continue
        errors = {k: (v / truth - 1 if v is not None else None) for k, v in (("ours", mine), ("average", avg))}
        for k, e in errors.items():
            worst[k] = max(worst[k], abs(e)) if e is not None else float("inf")
            seen[k].append(abs(e) if e is not None else float("inf"))
        if mark is not None and since >= mark:
            emit(checkpoint_s=round(since), done=done, total=total, truth_left_s=round(truth, 1),
                 ours_left_s=None if mine is None else round(mine, 1), ours_error=_r(errors["ours"]),
                 average_left_s=None if avg is None else round(avg, 1), average_error=_r(errors["average"]))
            mark = next(marks, None)
    emit(bench="time_left", passages=trace[-1][2], embedding_s=round(end, 1),
         passages_per_s=round((trace[-1][1] - first_done) / end, 1),
         ours_worst_error_after_60s=_r(worst["ours"]), average_worst_error_after_60s=_r(worst["average"]),
         ours_median_error_after_60s=_r(statistics.median(seen["ours"] or [0.0])),
         average_median_error_after_60s=_r(statistics.median(seen["average"] or [0.0])),
         goal=f"±{GOAL:.0%}", met=worst["ours"] <= GOAL, **extra)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


if __name__ == "__main__":
    main()
