"""The window embeds as fast as the command line (issue 41, item 2), and how good its time left is (item 3).

The same folder (SciFact-train abstracts written as notes, real all-MiniLM-L6-v2) has its words indexed once,
without meaning (`searchapp index --words-only`); each turn copies that library and embeds its meaning:
  - "cli":    `searchapp index` in a process of its own, as a person runs it in a terminal;
  - "window": the real window, offscreen, on a real Qt event loop: Re-sync (F5) once its models are loaded,
              until the window says its writes are idle.
By turns in one run (cli, window, cli, window, ...), so the machine's other work weighs on both alike.

The rate is read from outside, the same way for both: a thread polls the library's SQLite file for the
passages that have a vector; passages/s is what was embedded between the first and the last commit of a
vector batch over the time between them (model loading and process start are left out: they are not the
rate). Beside it: the CPU seconds of the embedding process (the CLI's children rusage; the window's own
process), the window's GUI-thread CPU seconds, and peak RSS.

The time left: in each window turn the strip's prediction at 60 s into embedding (`--eta-at`) is set against
when embedding actually ended (`eta_error`: predicted / actual - 1; goal within ±0.3). It needs more than a
minute of embedding: `--docs 700` or so on a 2-core CPU.

    python tests/benchmarks/bench_window_rate.py [--docs 250] [--turns 2] [--eta-at 60]
        [--ways cli,window,cli+busy,window+busy]

A way ending in "+busy" runs beside one `yes > /dev/null` (issue 41, item 6: a sync beside one busy process
keeps at least 45 % of its quiet rate). One JSON line per turn, and summary lines of medians:
{"bench": "window_vs_cli_rate", "ratio": window/cli passages/s, "goal": 0.9} and
{"bench": "busy_vs_quiet_rate", "ratio": cli+busy/cli, "goal": 0.45} (and the window's, when both ran).
Vectors are committed COMMIT passages at a time in both ways (the default 256 would leave the poller two or
three steps to time on a few hundred passages).

Measured 2026-11-29 (AVX2-only 2-core AMD EPYC, shared with other work; decision 0108): 200 docs (470 passages,
256-passage commits), load 10.4-10.9: CLI 2.74, window 3.15 passages/s, ratio 1.15; 100 docs (238 passages,
32-passage commits), load 11.9-12.7: 0.43 and 0.43, ratio 1.00 (the GUI thread: 4.3 CPU-s in 832 s). Both runs
were starved by the load (the CLI's sync got 43 CPU-s in 978 s): no time left was shown 60 s into embedding,
as the estimator wants three reports spanning 10 s first, so `eta_error` needs a quieter machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from _common import cpu_note, emit

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "ir" / "scifact-train" / "corpus.jsonl"

_ENV = {**os.environ, "SEARCHAPP_MODELS__RERANKER": ""}


def write_corpus(folder: Path, n: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(CORPUS, encoding="utf-8") as fh:
        for line in fh:
            if written >= n:
                break
            doc = json.loads(line)
            (folder / f"{doc['_id']}.md").write_text(f"# {doc.get('title', '')}\n\n{doc['text']}", encoding="utf-8")
            written += 1
    return written


# `searchapp index` itself, with vectors committed COMMIT passages at a time (words_pass.BATCH_CHUNKS, read at each
# sync), so the poller sees the rate in steps finer than the default 256; the window's sync gets the same.
_CLI = ("import sys, runpy; import searchapp.library.sync.words_pass as w; w.BATCH_CHUNKS = int(sys.argv.pop(1)); "
        "sys.argv[0] = 'searchapp'; runpy.run_module('searchapp', run_name='__main__')")
COMMIT = 32


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _CLI, str(COMMIT), "--data-dir", str(data_dir), *args],
                          capture_output=True, text=True, env=_ENV, cwd=ROOT, timeout=3600, check=True)


class Embedded:
    """Polls the library for passages with a vector; `moments`: (monotonic time, count) at each change."""

    def __init__(self, data_dir: Path) -> None:
        from searchapp.library.resources.data_dir import DB_NAME

        self.db = data_dir / DB_NAME
        self.moments: list[tuple[float, int]] = []
        self.total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Embedded":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import sqlite3

        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30)
        try:
            self.total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
            last = -1
            while True:
                n = self.total - int(conn.execute("SELECT count(*) FROM chunks WHERE length(vector) = 0").fetchone()[0])
                if n != last:
                    self.moments.append((time.monotonic(), n))
                    last = n
                if self._stop.wait(0.1):
                    break
        finally:
            conn.close()

    def rate(self) -> dict:
        """Passages/s between the first and the last commit of vectors."""
        changes = [(t, n) for t, n in self.moments if n > 0]
        if len(changes) < 2:
            return {"passages_per_s": None, "commits": len(changes)}
        (t0, n0), (t1, n1) = changes[0], changes[-1]
        return {"passages_per_s": round((n1 - n0) / (t1 - t0), 2), "passages": n1, "commits": len(changes),
                "span_s": round(t1 - t0, 1)}


def run_cli(template: Path, work: Path) -> dict:
    data = work / "cli"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(template, data)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with Embedded(data) as emb:
        t = time.monotonic()
        cli(data, "index")
        wall = time.monotonic() - t
        time.sleep(0.2)  # the poller's last look
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {**emb.rate(), "wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
            "peak_rss_mb": round(after.ru_maxrss / 1024)}


def run_window(template: Path, work: Path, eta_at: float) -> dict:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    import searchapp.library.sync.words_pass as words_pass
    from searchapp.base.config import load_config
    from searchapp.gui import build_main_window

    words_pass.BATCH_CHUNKS = COMMIT

    data = work / "window"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(template, data)
    cfg = load_config(data, env={}, overrides={"models": {"reranker": ""}})
    win = build_main_window(cfg)
    app = QApplication.instance()
    win.show()
    loop = QEventLoop()
    ready = QTimer(interval=50)
    # The window loads no model at start (decision 0107): its sync loads the bi-encoder, as the CLI's does.
    ready.timeout.connect(lambda: loop.quit() if win.status is not None else None)
    ready.start()
    loop.exec()
    ready.stop()

    eta: dict = {}
    seen_embedding: list[float] = []

    def look() -> None:  # what the strip predicts, `eta_at` seconds into embedding
        job = win.writes.active_write()
        p = job.progress if job is not None else None
        if p is not None and p.stage == "embedding" and not seen_embedding:
            seen_embedding.append(time.monotonic())
        if seen_embedding and not eta and time.monotonic() - seen_embedding[0] >= eta_at:
            eta.update(at=time.monotonic(), left=win.progress.eta_seconds, text=win.progress.label.full_text())

    watch = QTimer(interval=200)
    watch.timeout.connect(look)
    win.writesIdle.connect(loop.quit)
    own0, gui0 = os.times(), time.thread_time()
    with Embedded(data) as emb:
        t = time.monotonic()
        watch.start()
        win.resync(None)
        loop.exec()
        wall = time.monotonic() - t
        watch.stop()
        time.sleep(0.2)
    own1, gui1 = os.times(), time.thread_time()
    out = {**emb.rate(), "wall_s": round(wall, 1),
           "cpu_s": round(own1.user + own1.system - own0.user - own0.system, 1),
           "gui_thread_cpu_s": round(gui1 - gui0, 2),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    if eta:
        ended = emb.moments[-1][0] if emb.moments else time.monotonic()
        actual = ended - eta["at"]
        out["eta"] = {"at_s": eta_at, "predicted_s": None if eta["left"] is None else round(eta["left"], 1),
                      "actual_s": round(actual, 1), "strip": eta["text"]}
        if eta["left"] is not None and actual > 0:
            out["eta"]["eta_error"] = round(eta["left"] / actual - 1, 3)
    win.close()
    win.deleteLater()
    app.processEvents()
    return out


def busy_loops(n: int) -> list[subprocess.Popen]:
    """`yes > /dev/null`, n times."""
    return [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=250)
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--ways", default="cli,window",
                    help="by turns, in this order: cli, window, and either with +busy (one `yes > /dev/null` beside it)")
    ap.add_argument("--eta-at", type=float, default=60.0)
    args = ap.parse_args()
    if not CORPUS.is_file():
        emit(bench="window_vs_cli_rate", skipped=f"{CORPUS} not found")
        return 0
    from searchapp.gui.app import ensure_application

    ensure_application()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        n = write_corpus(work / "docs", args.docs)
        template = work / "template"
        cli(template, "index", "--words-only", str(work / "docs"))
        ways = [w.strip() for w in args.ways.split(",") if w.strip()]
        rates: dict[str, list[float]] = {w: [] for w in ways}
        for turn in range(args.turns):
            for way in ways:
                loops = busy_loops(1 if way.endswith("+busy") else 0)
                try:
                    got = (run_cli(template, work) if way.startswith("cli")
                           else run_window(template, work, args.eta_at))
                finally:
                    for p in loops:
                        p.kill()
                        p.wait()
                emit(bench="embed_rate", way=way, turn=turn, docs=n, commit=COMMIT, **got, **cpu_note())
                if got.get("passages_per_s"):
                    rates[way].append(got["passages_per_s"])
        med = {w: statistics.median(r) for w, r in rates.items() if r}
        for quiet, other, bench, goal in (("cli", "window", "window_vs_cli_rate", 0.9),
                                          ("cli+busy", "window+busy", "window_vs_cli_rate_busy", 0.9),
                                          ("cli", "cli+busy", "busy_vs_quiet_rate", 0.45),
                                          ("window", "window+busy", "busy_vs_quiet_rate_window", 0.45)):
            if quiet in med and other in med:
                ratio = med[other] / med[quiet]
                emit(bench=bench, docs=n, base=quiet, base_per_s=med[quiet], other=other, other_per_s=med[other],
                     ratio=round(ratio, 3), goal=goal, ok=ratio >= goal, **cpu_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())
