"""GUI benchmarks (one JSON line per result; not run in CI):

- time to window: a fresh interpreter, from the first line to the main window exposed (goal < 2 s), beside
  the time until the models a first search by meaning loads are in (the peer: what a window that waited would
  cost; the window loads none at start; tests/benchmarks/bench_startup.py times the first usable frame);
- event-loop stall while indexing a real corpus (scifact-train, 300 documents written as files; goal
  < 100 ms), beside the same indexing through Library.add_folder without a window (the peer: GUI overhead).

Run: .venv/bin/python tests/benchmarks/bench_gui.py [--docs 300]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from _common import emit

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "ir" / "scifact-train" / "corpus.jsonl"

_CHILD = r"""
import os, sys, time
t0 = time.perf_counter()
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from searchapp.base.config import load_config
from searchapp.gui import build_main_window
from PySide6.QtWidgets import QApplication
win = build_main_window(load_config(sys.argv[1], env={}))
win.show()
app = QApplication.instance()
while not (win.windowHandle() and win.windowHandle().isExposed()):
    app.processEvents()
t_window = time.perf_counter() - t0
win.search.models.need(win.search.rerank_box.isChecked())  # as the first search by meaning does (none at start)
while not win.models_ready:
    app.processEvents()
    time.sleep(0.005)
t_models = time.perf_counter() - t0
print(f"{t_window:.4f} {t_models:.4f}", flush=True)
win.close()
"""


def bench_time_to_window(runs: int = 3) -> None:
    windows, models = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([sys.executable, "-c", _CHILD, d], capture_output=True, text=True, timeout=300,
                                 env={**os.environ, "SEARCHAPP_MODELS__RERANKER": ""}, cwd=ROOT)
            if out.returncode != 0:
                raise SystemExit(out.stderr)
            w, m = map(float, out.stdout.split()[-2:])
            windows.append(w)
            models.append(m)
    emit(bench="gui_time_to_window", runs=runs, median_s=round(statistics.median(windows), 3),
         max_s=round(max(windows), 3), goal_s=2.0, ok=statistics.median(windows) < 2.0)
    emit(bench="gui_time_to_models_loaded", runs=runs, median_s=round(statistics.median(models), 3),
         note="peer: a window that loaded models before showing would appear this late")


def write_corpus(folder: Path, n: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(CORPUS, encoding="utf-8") as fh:
        for line in fh:
            if written >= n:
                break
            doc = json.loads(line)
            (folder / f"{doc['_id']}.txt").write_text(f"{doc.get('title', '')}\n\n{doc['text']}", encoding="utf-8")
            written += 1
    return written


def bench_indexing_stall(n_docs: int) -> None:
    from PySide6.QtCore import QElapsedTimer, QMimeData, QPointF, Qt, QTimer, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    from searchapp.base.config import load_config
    from searchapp.gui import build_main_window
    from searchapp.library import Library

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        n = write_corpus(tmp / "docs", n_docs)
        # Peer: the same corpus indexed directly, no window (one shared, already loaded encoder for both).
        cfg_peer = load_config(tmp / "peer", env={}, overrides={"models": {"reranker": ""}})
        with Library(cfg_peer) as peer:
            enc = peer.models.encoder
            enc.encode(["warm up"])
            t = time.perf_counter()
            rep = peer.add_folder(tmp / "docs")
            direct_s = time.perf_counter() - t
        emit(bench="index_direct", docs=n, chunks=rep.chunks_added, seconds=round(direct_s, 2),
             docs_per_s=round(n / direct_s, 1))

        cfg = load_config(tmp / "gui", env={}, overrides={"models": {"reranker": ""}})
        lib = Library(cfg, encoder=enc)
        win = build_main_window(cfg, lib)
        app = QApplication.instance()
        win.show()
        deadline = time.monotonic() + 60
        while (not win.models_ready or win.status is None) and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.005)

        gaps: list[float] = []
        clock = QElapsedTimer()
        last = [0]

        def tick():  # a 1 ms timer: any gap beyond that is time the event loop could not run
            now = clock.elapsed()
            gaps.append(now - last[0])
            last[0] = now

        ticker = QTimer(interval=1)
        ticker.timeout.connect(tick)
        done = [False]
        win.writesIdle.connect(lambda: done.__setitem__(0, True))
        md = QMimeData()
        md.setUrls([QUrl.fromLocalFile(str(tmp / "docs"))])
        t = time.perf_counter()
        clock.start()
        ticker.start()
        # A real drag-enter then drop, as from a file manager (Qt ignores a drop that had no enter).
        pos = win.rect().center()
        app.sendEvent(win, QDragEnterEvent(pos, Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                                           Qt.KeyboardModifier.NoModifier))
        drop = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                          Qt.KeyboardModifier.NoModifier)
        app.sendEvent(win, drop)
        if not drop.isAccepted():
            raise SystemExit("the window did not accept the drop")
        while not done[0]:
            app.processEvents()
            time.sleep(0.0005)
        gui_s = time.perf_counter() - t
        ticker.stop()
        gaps.sort()
        chunks = win.status.chunks
        emit(bench="gui_index_event_loop_stall", docs=n, chunks=chunks, max_stall_ms=gaps[-1] if gaps else None,
             p99_stall_ms=gaps[int(0.99 * (len(gaps) - 1))] if gaps else None, ticks=len(gaps), goal_ms=100,
             ok=bool(gaps) and gaps[-1] < 100)
        emit(bench="index_through_gui", docs=n, seconds=round(gui_s, 2), docs_per_s=round(n / gui_s, 1),
             vs_direct=round(gui_s / direct_s, 2))
        win.close()
        lib.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=300)
    args = ap.parse_args()
    bench_time_to_window()
    if not CORPUS.is_file():
        emit(bench="gui_index_event_loop_stall", skipped=f"{CORPUS} not found")
        return 0
    from searchapp.gui.app import ensure_application

    ensure_application()
    bench_indexing_stall(args.docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
