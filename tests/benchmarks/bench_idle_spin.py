"""torch's OpenMP threads while the app idles, and the embedding rate, with and without OMP_WAIT_POLICY=PASSIVE
(decision 0209). Not a test.

Each round starts one fresh process a setting, by turns ("default": the variable unset; "passive"), so the
variable is read before torch is imported. The process builds a library (the packaged MiniLM, a folder of
--files one-passage notes: its sync embeds them with torch), then encodes --passages other passages with the
library's encoder as a sync does (`background=True`, timed twice, the better kept) and as everything else does,
then idles. The parent reads the process's CPU seconds from /proc/PID/stat before and after --idle seconds of
idling. One JSON line a process.

Run: .venv/bin/python tests/benchmarks/bench_idle_spin.py [--rounds 3] [--idle 20] [--passages 200] [--window]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import cpu_note, emit, process_cpu

WORDS = ("river budget train garden invoice meeting roof window letter school energy market harvest winter summer "
         "bridge doctor patient contract tenant museum recipe flour orchard battery engine ticket harbour island "
         "glacier forest library science history music painting candle lantern copper silver ledger quay crane "
         "permit auditor minutes revenue cost lease warehouse strike exchange officer summary annual").split()


def texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(150)) + f" {seed}-{i}." for i in range(n)]


CHILD = r"""
import json, os, sys, time
from pathlib import Path
tmp, files, passages = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
from bench_idle_spin import texts
from searchapp.base.config import load_config
from searchapp.library.library import Library

folder = tmp / "notes"
folder.mkdir()
for i, t in enumerate(texts(files, 1)):
    (folder / f"note-{i:03d}.txt").write_text(t, encoding="utf-8")
lib = Library(load_config(tmp / "data", env={}))
t0, c0 = time.perf_counter(), time.process_time()
rep = lib.add_folder(folder)
sync_s, sync_cpu = time.perf_counter() - t0, time.process_time() - c0
enc = lib.models.encoder
out = {"sync_s": round(sync_s, 2), "sync_cpu_s": round(sync_cpu, 2), "embedded": rep.chunks_embedded}
for name, background in (("background", True), ("foreground", False)):
    best = None
    for rep_i in range(2):
        batch = texts(passages, 10 + rep_i + (5 if background else 0))
        t0, c0 = time.perf_counter(), time.process_time()
        enc.encode(batch, background=background)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        if best is None or dt < best[0]:
            best = (dt, dc)
    out[f"{name}_passages_per_s"] = round(passages / best[0], 1)
    out[f"{name}_cpu_s_per_100"] = round(100 * best[1] / passages, 2)
import torch
out["torch_threads"] = torch.get_num_threads()
print(json.dumps(out), flush=True)
print("IDLE", flush=True)
time.sleep(float(sys.argv[5]) + 5)
"""


# --window: the real window (offscreen) instead, its folder of --files notes dropped on it and synced, then idle:
# what the app's process spends while a person looks at it, Qt's timers included.
CHILD_WINDOW = r"""
import json, os, sys, time
from pathlib import Path
tmp, files = Path(sys.argv[1]), int(sys.argv[2])
sys.path.insert(0, sys.argv[4])
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from bench_idle_spin import texts
from PySide6.QtWidgets import QApplication
from searchapp.base.config import load_config
from searchapp.gui import build_main_window
from searchapp.gui.app import ensure_application

folder = tmp / "notes"
folder.mkdir()
for i, t in enumerate(texts(files, 1)):
    (folder / f"note-{i:03d}.txt").write_text(t, encoding="utf-8")
ensure_application()
app = QApplication.instance()
win = build_main_window(load_config(tmp / "data", env={}))
win.resize(1280, 800)
win.show()
busy = [True]
win.writesIdle.connect(lambda: busy.__setitem__(0, False))
t0 = time.perf_counter()
win.add_paths([str(folder)])
while busy[0]:
    app.processEvents()
    time.sleep(0.01)
print(json.dumps({"sync_s": round(time.perf_counter() - t0, 2), "torch": "torch" in sys.modules}), flush=True)
print("IDLE", flush=True)
end = time.monotonic() + float(sys.argv[5]) + 5
while time.monotonic() < end:  # the event loop runs, as while a person reads the window
    app.processEvents()
    time.sleep(0.05)
"""


def one(policy: str, args, here: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy == "passive":
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    with tempfile.TemporaryDirectory() as tmp:
        env.update(HF_HOME=f"{tmp}/hf", HF_HUB_CACHE=f"{tmp}/hf/hub", SEARCHAPP_HASH_CACHE=f"{tmp}/h.json",
                   HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        proc = subprocess.Popen([sys.executable, "-c", CHILD_WINDOW if args.window else CHILD, tmp, str(args.files), str(args.passages), here,
                                 str(args.idle)], env=env, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        row = json.loads(proc.stdout.readline())
        assert proc.stdout.readline().strip() == "IDLE"
        time.sleep(1.0)  # the encode's last batch ends: its threads start waiting
        before = process_cpu(proc.pid)
        time.sleep(args.idle)
        idle = process_cpu(proc.pid) - before
        proc.kill()
        proc.wait()
    return {"policy": policy, "window": args.window, **row, "idle_s": args.idle, "idle_cpu_s": round(idle, 3)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle", type=float, default=20.0)
    ap.add_argument("--passages", type=int, default=200)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--window", action="store_true", help="the real window offscreen, idle after its sync")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent)
    emit(bench="idle_spin", **cpu_note())
    for r in range(args.rounds):
        for policy in (("default", "passive") if r % 2 == 0 else ("passive", "default")):
            emit(bench="idle_spin", round=r, **one(policy, args, here), load_avg=[round(x, 2) for x in os.getloadavg()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
