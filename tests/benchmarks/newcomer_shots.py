"""Screenshots of the window as a newcomer meets it, at 1280×800 offscreen (not a test): first start, a folder
dropped, mid-sync, 3,000 files, long paths with near copies, the inspector, Similar, a vanished folder and a failed
file, a cancelled sync, settings.

Run: .venv/bin/python tests/benchmarks/newcomer_shots.py [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from screenshots import Shots, make_files, make_letters

WORDS = ("river budget train garden invoice meeting roof window letter school energy market harvest winter summer "
         "bridge doctor patient contract tenant museum recipe flour orchard battery engine ticket harbour island "
         "glacier forest library science history music painting candle lantern copper silver ledger").split()
LONG = ("Documents/Clients/Acme Holdings International Ltd/2026 Projects/Quarterly board reporting and "
        "compliance review/Final versions sent to the auditors")


def make_many(folder: Path, n: int) -> Path:
    rng = random.Random(7)
    for i in range(n):
        sub = folder / f"batch-{i // 300:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
        (sub / f"note-{i:04d}.txt").write_text(f"Note {i}. {words}.\n", encoding="utf-8")
    return folder


def make_near_copies(home: Path) -> Path:
    deep = home / LONG
    deep.mkdir(parents=True)
    text = ("Board report for the third quarter. Revenue from the harbour terminal grew by eleven percent while the "
            "cost of the new cranes stayed within the approved budget. The auditors asked for the lease contracts of "
            "the two warehouses and for the minutes of the June meeting. Risks: a strike at the port, the exchange "
            "rate and a delayed permit for the eastern quay. Next steps: sign the crane maintenance contract, hire a "
            "second safety officer and publish the sustainability summary before the annual meeting.")
    (deep / "Q3 board report - harbour terminal - final approved version for the auditors.txt").write_text(
        text, encoding="utf-8")
    (deep / "Q3 board report - harbour terminal - final approved version for the auditors (copy 2).txt").write_text(
        text.replace("eleven percent", "twelve percent"), encoding="utf-8")
    (deep / "harbour cranes maintenance.txt").write_text(
        "The crane maintenance contract covers inspections every month at the harbour terminal.", encoding="utf-8")
    return home / "Documents" / "Clients"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/work/patches/win31-shots")
    ap.add_argument("--many", type=int, default=3000)
    args = ap.parse_args()
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["HF_HOME"] = str(tmp / "hf")
        os.environ["HF_HUB_CACHE"] = str(tmp / "hf" / "hub")
        os.environ["SEARCHAPP_HASH_CACHE"] = str(tmp / "weights-sha256.json")
        os.environ["HOME"] = str(tmp / "home")
        from PySide6.QtWidgets import QApplication

        from searchapp.base.config import load_config
        from searchapp.gui import build_main_window
        from searchapp.gui.app import ensure_application

        ensure_application()
        app = QApplication.instance()
        shots = Shots(out, app)
        home = tmp / "home"
        docs = make_files(home)
        clients = make_near_copies(home)
        many = make_many(home / "Archive" / "Notes 2019-2025", args.many)
        gone = make_letters(home / "USB stick" / "Old letters", 20)
        config = load_config(tmp / "data", env={})
        win = build_main_window(config)
        win.url_opener = lambda url: None
        win.resize(1280, 800)
        win.show()
        shots.wait(lambda: win.status is not None)
        shots.save("01-first-start", win)

        busy = [False]
        win.writesIdle.connect(lambda: busy.__setitem__(0, False))

        def write(paths: list[str]) -> None:
            busy[0] = True
            win.add_paths(paths)

        write([str(docs)])
        shots.wait(lambda: not busy[0], 600)
        shots.settle(1.0)
        shots.save("02-folder-dropped", win, status=win.statusBar().currentMessage())

        write([str(many)])

        def under_way() -> bool:
            return win.progress.isVisible() and "left" in win.progress.label.full_text() and \
                "Embedding" in win.progress.label.full_text()

        shots.wait(lambda: under_way() or not busy[0], 900)
        shots.settle(3.0)
        shots.save("03-mid-sync", win, strip=win.progress.label.full_text(), status=win.statusBar().currentMessage())
        shots.wait(lambda: not busy[0], 1800)
        shots.settle(1.0)
        shots.save("04-thousands", win, status=win.statusBar().currentMessage())

        write([str(clients), str(gone)])
        shots.wait(lambda: not busy[0], 600)
        done: list = []
        win.searchFinished.connect(done.append)
        win.search.search_box.setText("harbour terminal board report auditors")
        win.run_search()
        shots.wait(lambda: done)
        seen: list = []
        win.previewShown.connect(seen.append)
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
        shots.wait(lambda: seen)
        shots.save("05-long-paths-near-copy", win, status=win.statusBar().currentMessage())
        win.inspector_toggle.why(win.search.results_model.hit(0))
        shots.save("06-inspector", win)
        win.inspector_toggle.action.setChecked(False)
        done.clear()
        win.discover.show_similar(win.search.results_model.hit(0).path)
        shots.wait(lambda: done)
        shots.save("07-similar", win, status=win.statusBar().currentMessage())

        shutil.rmtree(home / "USB stick")
        (docs / "Scans" / "broken.docx").write_bytes(b"PK\x03\x04 not really a docx" + os.urandom(512))
        busy[0] = True
        win.resync()
        shots.wait(lambda: not busy[0], 600)
        shots.settle(1.0)
        shots.save("08-error-main", win, status=win.statusBar().currentMessage())
        dlg = win.library_panel.show_problems()
        shots.save("09-error-not-indexed", dlg)
        dlg.close()

        letters = make_letters(home / "Letters", 600)
        for i, f in enumerate(sorted(letters.iterdir())):
            f.write_text(f"Letter {i}: " + " ".join(random.Random(i).choice(WORDS) for _ in range(200)))
        write([str(letters)])

        def reading() -> bool:
            m = re.search(r"(\d[\d,]*) of (\d[\d,]*)", win.progress.label.full_text())
            return win.progress.isVisible() and m is not None and m.group(1) != "0"

        shots.wait(lambda: reading() or not busy[0], 600)
        win.progress.cancel_button.click()
        shots.wait(lambda: not busy[0], 600)
        shots.settle(1.0)
        shots.save("10-cancelled", win, strip=win.progress.label.full_text(), status=win.statusBar().currentMessage())

        settings = win.open_settings()
        shots.save("11-settings", settings)
        settings.reject()
        win.close()
        shots.settle(1.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
