"""A one-file folder added while another process embeds a backlog (issue 39 item 3, decision 0105): seconds until
its words are searchable, before (the second writer waited for the whole backlog) and after (the holder hands the
writer lock over between two batches), interleaved in one run.

    git archive <commit before 0105> searchapp | tar -x -C /tmp/old
    python tests/benchmarks/bench_writer_handover.py --old /tmp/old [--files 1500] [--rounds 2]

Each round, for each tree in turn (OLD, NEW, OLD, NEW, ...): a copy of one words-only library of `--files` scifact
texts (built once, before the clock) whose passages all wait for their meaning; `searchapp index` (the holder,
that tree's code, the real packaged MiniLM) starts embedding them; once it has stored its first vectors,
`searchapp index ONE_FILE_DIR` (same tree) is started, and `seconds` runs from its start to its exit, after which a
fresh lexical search must find the file (`found`). Beside it: its `cpu_s` and `peak_rss_mb` (os.wait4), the
passages still waiting when it exited (`backlog_left`: OLD waits for all of them, so 0) and whether the holder
then finished (`holder_exit`; it is stopped with SIGINT once the waiter is done, unless --finish). One JSON line
per run, then a `ratio` line with the medians (old / new), each with the CPU flags and the load average.

Measured 2026-11-29 on a 2-core AMD EPYC (AVX2 only, no AVX-512/bf16), shared with other work (load average 15),
`--files 400 --rounds 1` (923 passages waiting), OLD = 4a40fd1^, NEW = 4a40fd1: OLD 324 s until the one file was
searchable (it waited for the whole backlog; 12.0 CPU s, 564 MB peak: it then loaded MiniLM to embed its one
passage), NEW 100 s (it waited for the holder's current batch of 256 passages, slow at that load; 1.2 CPU s, 77 MB
peak: no model loaded), 3.2x; 412 passages were still waiting for the holder when NEW's file was searchable. OLD
grows with the backlog (hours for a large one), NEW with one batch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_words_first import write_files
from _common import cpu_note

REPO = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 3600.0


def env_for(tree: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": tree + os.pathsep + os.environ.get("PYTHONPATH", ""), "HF_HUB_OFFLINE": "1",
            "SEARCHAPP_NO_WARM": "1", "SEARCHAPP_NO_QUERY_EXPORT": "1",
            # A sync lowers its priority: on a machine others load, a niced holder embeds a few passages a minute
            # and OLD's figure would measure the load; both trees run at normal priority.
            "SEARCHAPP_NO_BACKGROUND_PRIORITY": "1"}


def searchapp(tree: str, data: Path, *argv: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "searchapp", "--data-dir", str(data), *argv], env=env_for(tree),
                            cwd=tree, stdin=subprocess.DEVNULL, **kw)


def counts(data: Path) -> tuple[int, int]:
    """(passages, passages waiting for a vector), read as another reader would."""
    db = sqlite3.connect(f"file:{data / 'library.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        total = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        waiting = db.execute("SELECT count(*) FROM chunks WHERE length(vector) = 0").fetchone()[0]
        return int(total), int(waiting)
    finally:
        db.close()


def one_run(tree: str, label: str, template: Path, one: Path, work: Path, finish: bool) -> dict:
    data = work / f"lib-{label}"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(template, data)
    _total, waiting0 = counts(data)
    holder = searchapp(tree, data, "index", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + HANG_GUARD_S
    while counts(data)[1] >= waiting0:  # until it has stored its first batches: it is embedding the backlog
        if holder.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{label}: the holder ended (exit {holder.returncode}) before embedding")
        time.sleep(0.2)
    t0 = time.perf_counter()
    waiter = searchapp(tree, data, "index", str(one), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(waiter.pid, 0)
    seconds = time.perf_counter() - t0
    waiter.returncode = os.waitstatus_to_exitcode(status)
    err = waiter.stderr.read().decode("utf-8", "replace") if waiter.stderr else ""
    backlog_left = counts(data)[1]
    found = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), "search", "glowing comet",
                            "--mode", "lexical", "--json"], env=env_for(tree), cwd=tree, capture_output=True,
                           text=True, timeout=600)
    hits = json.loads(found.stdout or "{}").get("hits", [])
    if finish:
        holder_exit = holder.wait(HANG_GUARD_S)
    else:
        holder.send_signal(signal.SIGINT)
        holder_exit = holder.wait(600)
    left_after = counts(data)[1]
    shutil.rmtree(data, ignore_errors=True)
    return {"bench": "writer_handover", "tree": label, "seconds": round(seconds, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "exit": waiter.returncode, "found": bool(hits) and Path(hits[0]["path"]).name == "comet.txt",
            "backlog_at_start": waiting0, "backlog_left": backlog_left, "holder_exit": holder_exit,
            "waiting_after_holder": left_after, "said": [line for line in err.splitlines() if "waiting" in line][:1],
            **cpu_note()}


def build_template(work: Path, files: int, tree: str) -> Path:
    """A library of `files` scifact texts, words only (every passage waits for its meaning), made by `tree`."""
    docs, data = work / "docs", work / "template"
    write_files(docs, files)
    done = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), "index", "--words-only",
                           str(docs)], env=env_for(tree), cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="a source tree holding the searchapp/ before decision 0105")
    ap.add_argument("--new", default=str(REPO), help="the tree after (default: this checkout)")
    ap.add_argument("--files", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--finish", action="store_true", help="let each holder finish its backlog (slower)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-handover-"))
    try:
        template = build_template(work, args.files, os.path.abspath(args.new))
        one = work / "one"
        one.mkdir()
        (one / "comet.txt").write_text("A comet with a glowing tail crossed the night sky.\n", encoding="utf-8")
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for _ in range(args.rounds):
            for label, tree in (("old", args.old), ("new", args.new)):
                row = one_run(os.path.abspath(tree), label, template, one, work, args.finish)
                runs[label].append(row)
                print(json.dumps(row), flush=True)
        old = statistics.median(r["seconds"] for r in runs["old"])
        new = statistics.median(r["seconds"] for r in runs["new"])
        print(json.dumps({"bench": "writer_handover", "ratio": "old/new", "old_s": old, "new_s": new,
                          "speedup": round(old / new, 1) if new else None,
                          "old_cpu_s": statistics.median(r["cpu_s"] for r in runs["old"]),
                          "new_cpu_s": statistics.median(r["cpu_s"] for r in runs["new"]), **cpu_note()}), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
