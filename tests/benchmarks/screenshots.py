"""Screenshots of the main window's main states at 1280×800, offscreen, for a person to look at (not a test).

Builds a small library from generated files (text, Markdown, HTML, PDF, DOCX, ODT, EPUB in nested folders with
dates spread over two years, plus two files that cannot be indexed) with the packaged all-MiniLM-L6-v2, opens
the real window and saves one PNG per state: first start, indexing, results, inspector open, similar files,
Not indexed, settings, query syntax (F1) and a query with chips. One JSON line per shot (its path, size, and
for the results list how many rows are fully visible).

Run: .venv/bin/python tests/benchmarks/screenshots.py [--out /tmp/searchapp-shots] [--size 1280x800] [--readme]
(--readme also writes resources/screenshot.png from the results shot, in 128 colours, for the README and docs/desktop.md.)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from _common import emit

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # for corpus (make_files): tests/ is not a package

QUERY = "how do plants turn sunlight into energy"
DAY = 86400

# (folder under the home, file name, text, age in days): one topic each, so every query has a right answer.
NOTES = [
    ("Documents/Teaching/Biology 101/Week 3", "photosynthesis-notes.md",
     "# Light reactions\n\nChlorophyll absorbs red and blue light. The energy splits water, releases oxygen and "
     "charges ATP and NADPH, which the Calvin cycle uses to fix carbon dioxide into sugar.", 12),
    ("Documents/Teaching/Biology 101/Week 3", "leaf-anatomy.txt",
     "Leaf anatomy. The palisade layer under the upper epidermis is packed with chloroplasts; stomata on the "
     "underside let carbon dioxide in and water vapour out.", 13),
    ("Documents/Garden", "tomato-diary.txt",
     "Tomato diary. The seedlings on the south window grow toward the sun; the ones under the shelf are pale and "
     "leggy. More light, more sugar, stronger stems.", 40),
    ("Documents/Garden", "compost.md",
     "# Compost\n\nLayer green kitchen scraps with brown leaves and cardboard, keep it as damp as a wrung-out "
     "sponge and turn it every two weeks.", 200),
    ("Documents/Energy/Home solar project", "inverter-quote.txt",
     "Quote for the rooftop solar array: twelve 400 W panels, a hybrid inverter and a 10 kWh battery. Panels "
     "turn sunlight into electricity at about 21 percent efficiency.", 95),
    ("Documents/Energy/Home solar project", "shading-study.md",
     "# Shading study\n\nThe chimney shades two panels after 3 pm in winter. Microinverters keep the rest of "
     "the string producing.", 96),
    ("Documents/Travel/2025 Iceland", "itinerary.txt",
     "Iceland itinerary. Day 1 Reykjavik, day 2 the Golden Circle, day 3 the glacier lagoon; the midnight sun "
     "means long days of driving light.", 400),
    ("Documents/Recipes", "granola.txt",
     "Granola. Oats, honey, sunflower seeds and dried apricots baked low and slow until golden.", 300),
    ("Documents/Work/Reports/2026/Q3", "energy-audit-summary.txt",
     "Energy audit summary. The office uses most of its energy for lighting and cooling; daylight sensors and "
     "LED panels would cut the bill by a third.", 60),
    ("Documents/Work/Reports/2026/Q3", "team-offsite.md",
     "# Team offsite\n\nAgenda: roadmap review, hiring plan, a walk along the coast.", 61),
    ("Documents/Work/Invoices", "invoice-schmidt-2026-03.txt",  # its name's words are in no passage (named.py)
     "Rechnung Nr. 2026-031: Dachreparatur, fällig am 15. April.", 240),
    ("Documents/Reading/Science", "algae-biofuel.txt",
     "Algae biofuel. Microalgae convert sunlight and carbon dioxide into oils far faster than land crops; the "
     "hard part is harvesting them cheaply.", 150),
    ("Documents/Reading/Science", "deep-sea-vents.txt",
     "Deep-sea vents. Where no sunlight reaches, bacteria make food from hydrogen sulfide: chemosynthesis "
     "instead of photosynthesis.", 151),
]


def make_files(home: Path) -> Path:
    """The folder to index; returns it. Dates spread so the Date column shows today, this year and older."""
    import corpus

    docs = home / "Documents"
    mixed = corpus.make_mixed_corpus(docs / "Archive" / "Mixed formats")
    now = time.time()
    for folder, name, text, age in NOTES:
        f = home / folder / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text + "\n", encoding="utf-8")
        os.utime(f, (now - age * DAY, now - age * DAY))
    for i, f in enumerate(sorted(p for p in mixed.rglob("*") if p.is_file())):
        os.utime(f, (now - (500 + 30 * i) * DAY,) * 2)
    (docs / "Scans").mkdir()
    (docs / "Scans" / "contract-signed.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(2048))  # damaged
    (docs / "Scans" / "empty-notes.txt").write_text("", encoding="utf-8")
    today = home / "Documents/Teaching/Biology 101/Week 3/photosynthesis-notes.md"
    os.utime(today, (now - 3600, now - 3600))
    return docs


def make_letters(folder: Path, n: int) -> Path:
    """`n` short letters: enough files that indexing takes a few seconds."""
    folder.mkdir(parents=True)
    subjects = ["the roof repair", "the school trip", "a parking permit", "the water bill", "a library fine"]
    for i in range(n):
        (folder / f"letter-{i:03d}.txt").write_text(
            f"Dear neighbour, about {subjects[i % len(subjects)]}: " + "we will write again next week. " * 40,
            encoding="utf-8")
    return folder


class Shots:
    def __init__(self, out: Path, app) -> None:
        self.out, self.app = out, app
        out.mkdir(parents=True, exist_ok=True)

    def wait(self, cond, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                raise SystemExit("timed out waiting for the window")
            self.app.processEvents()
            time.sleep(0.01)

    def settle(self, s: float = 0.3) -> None:
        end = time.monotonic() + s
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.01)

    def save(self, name: str, widget, **extra) -> Path:
        self.settle()
        path = self.out / f"{name}.png"
        img = widget.grab().toImage()
        img.save(str(path))
        emit(shot=name, path=str(path), width=img.width(), height=img.height(), bytes=path.stat().st_size, **extra)
        return path


def readme_copy(src: Path, dst: Path) -> None:
    """The shot in 128 colours (a window's flat colours survive; about 85 KB instead of 240 KB)."""
    try:
        from PIL import Image
    except ImportError:
        shutil.copy(src, dst)
        return
    img = Image.open(src).convert("RGB")
    img.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(dst, optimize=True)
    emit(shot="readme", path=str(dst), bytes=dst.stat().st_size)


def visible_rows(win) -> int:
    view = win.search.results_view
    h = view.verticalHeader().defaultSectionSize()
    return min(view.model().rowCount(), view.viewport().height() // max(1, h))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/searchapp-shots")
    ap.add_argument("--readme", action="store_true", help="also copy the results shot to resources/screenshot.png")
    ap.add_argument("--size", default="1280x800", help="the window's size, WIDTHxHEIGHT")
    args = ap.parse_args()
    out = Path(args.out)
    size = tuple(int(v) for v in args.size.lower().split("x"))

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["HF_HOME"] = str(tmp / "hf")  # nothing found or written in the real caches
        os.environ["HF_HUB_CACHE"] = str(tmp / "hf" / "hub")
        os.environ["SEARCHAPP_HASH_CACHE"] = str(tmp / "weights-sha256.json")
        os.environ["HOME"] = str(tmp / "home")  # folders read as a person's: ~/Documents/…
        from PySide6.QtWidgets import QApplication

        from searchapp.base.config import load_config
        from searchapp.gui import build_main_window
        from searchapp.gui.app import ensure_application

        ensure_application()
        app = QApplication.instance()
        shots = Shots(out, app)
        docs = make_files(tmp / "home")
        config = load_config(tmp / "data", env={})
        win = build_main_window(config)
        win.url_opener = lambda url: None
        win.resize(*size)
        win.show()
        shots.wait(lambda: win.status is not None)  # no model loads at start (gui/model_load.py)
        shots.save("1-first-start", win)

        busy = [False]
        win.writesIdle.connect(lambda: busy.__setitem__(0, False))
        busy[0] = True
        win.add_paths([str(docs)])
        shots.wait(lambda: not busy[0], 600)

        win.search.search_box.setText(QUERY)
        done = []
        win.searchFinished.connect(done.append)
        win.run_search()
        shots.wait(lambda: done)
        seen = []
        win.previewShown.connect(seen.append)
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
        shots.wait(lambda: seen)
        win.statusBar().showMessage(f"{win.search.results_model.rowCount()} results")
        results = shots.save("3-results", win, visible_rows=visible_rows(win),
                             horizontal_scrollbar=win.search.results_view.horizontalScrollBar().isVisible())

        win.search.results_view.setCurrentIndex(win.search.results_model.index(2, 0))
        win.inspector_toggle.why(win.search.results_model.hit(2))  # the result's "Why this rank?"
        shots.save("4-inspector", win, visible_rows=visible_rows(win))
        win.inspector_toggle.action.setChecked(False)

        first = win.search.results_model.hit(0)
        done.clear()
        win.discover.show_similar(first.path)
        shots.wait(lambda: done)
        shots.save("5-similar", win, visible_rows=visible_rows(win))

        dlg = win.library_panel.show_problems()
        shots.save("6-not-indexed", dlg)
        dlg.close()

        settings = win.open_settings()
        shots.save("7-settings", settings)
        settings.reject()

        help_dialog = win.memory.show_help()
        shots.save("8-query-syntax", help_dialog)
        help_dialog.close()

        done.clear()
        win.search.search_box.setText("sunlight OR -granola type:txt,md after:2025-01 mood:sunny")
        win.run_search()
        shots.wait(lambda: done)
        shots.save("9-query-chips", win)

        # A file's name typed (no passage holds it: the files named so first, decision 0160), then a query nothing
        # is close to (every row a weak match, decision 0161).
        for name, query in (("12-named", "invoice schmidt"), ("13-weak", "vitamin deficiency in premature infants")):
            done.clear()
            win.search.search_box.setText(query)
            win.run_search()
            shots.wait(lambda: done)
            shots.save(name, win, status=win.statusBar().currentMessage())

        # Indexing, taken last so its files stay out of the other shots: a folder big enough to catch mid-way.
        letters = make_letters(tmp / "home" / "Documents" / "Letters", 400)
        win.search.clear()
        busy[0] = True
        win.add_paths([str(letters)])

        def under_way() -> bool:  # some files read, so the shot shows the counts moving
            m = re.search(r"(\d+) / (\d+)", win.progress.label.full_text())
            return win.progress.isVisible() and m is not None and 0 < int(m.group(1)) < int(m.group(2))

        shots.wait(lambda: under_way() or not busy[0])
        shots.save("2-indexing", win)
        win.progress.cancel_button.click()
        shots.wait(lambda: not busy[0], 600)

        if args.readme:
            readme_copy(results, ROOT / "resources" / "screenshot.png")
        win.close()
        shots.settle(1.0)

        # Opened again with the vector index held on its thread (as a big library's takes seconds to open): a
        # search meanwhile shows its word matches and says so, then runs again once the index is open.
        import threading

        from searchapp.library.resources.background_load import BackgroundLoad

        gate = threading.Event()
        BackgroundLoad.hold = gate.wait
        win = build_main_window(config)
        win.url_opener = lambda url: None
        win.resize(*size)
        win.show()
        win.search.models.need(win.search.rerank_box.isChecked())  # as the first search by meaning does
        shots.wait(lambda: win.models_ready)
        done.clear()
        win.searchFinished.connect(done.append)
        win.search.search_box.setText(QUERY)
        win.run_search()
        shots.wait(lambda: done)
        shots.save("10-meaning-loading", win, status=win.statusBar().currentMessage())
        done.clear()
        gate.set()
        shots.wait(lambda: done)
        shots.save("11-meaning-loaded", win, status=win.statusBar().currentMessage())
        BackgroundLoad.hold = None
        win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
