"""The window opens without torch: in a fresh interpreter, the main window over a small existing library shows its
status, answers a lexical search and goes idle with neither `torch` nor `transformers` imported (they cost seconds
and hundreds of MB on a small CPU, and load only when a search by meaning first needs them; issue 45). A search in
the default mode then answers by words at once, the status line saying meaning loads, and again by meaning once
the models are in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import build_tiny_library

REPO = Path(__file__).resolve().parents[2]

# The window in a fresh interpreter; one line of JSON (after "@@") says what it saw.
WINDOW = r"""
import json, sys, time
from PySide6.QtWidgets import QApplication
from searchapp.base.config import load_config
from searchapp.gui import build_main_window

HEAVY = ("torch", "transformers")
win = build_main_window(load_config(sys.argv[1], env={}))
app = QApplication.instance()
results, lines = [], []
win.searchFinished.connect(results.append)
win.searchFinished.connect(lambda r: lines.append(win.statusBar().currentMessage()))  # as it was said

def wait(cond, what):
    deadline = time.monotonic() + 120
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for " + what)
        app.processEvents()
        time.sleep(0.005)

def idle():  # nothing queued or running on the window's workers, nothing opening in the background
    return not win.runner.jobs and not win.session.meaning.pending

win.show()
wait(lambda: win.status is not None, "the status")
win.search.mode_box.set_mode("lexical")
win.search.search_box.setText("ocelot")
win.search.run_search()
wait(lambda: results, "the lexical search")
wait(idle, "the window to go idle")
out = {"lexical": [h.path for h in results[-1].hits], "after_lexical": [m for m in HEAVY if m in sys.modules],
       "models_loading": win.search.models.loading, "hub": "searchapp.models.hub" in sys.modules}

results.clear()
lines.clear()
win.search.mode_box.set_mode(win.config.search.mode)  # hybrid, as configured
win.search.run_search()
wait(lambda: results, "the first answer in the default mode")
first = results[0]
out.update(first_mode=first.mode, first_notices=[n.text for n in first.notices], status_line=lines[-1])
wait(lambda: any(r.mode == "hybrid" for r in results) and idle(), "the answer by meaning")
meaning = [r for r in results if r.mode == "hybrid"][-1]
out.update(meaning_dense=[h.scores.dense is not None for h in meaning.hits][:1], models_ready=win.models_ready,
           after_meaning=[m for m in HEAVY if m in sys.modules])
print("@@" + json.dumps(out), flush=True)
"""


def test_the_window_opens_and_searches_by_words_without_torch(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    texts = {"ocelot.txt": "The ocelot sleeps in the afternoon sun by the river.",
             "bread.txt": "A recipe for sourdough bread with a long cold proof."}
    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = "cross-encoder/not-in-the-cache"\n')  # a new user's: not installed
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "HF_HUB_OFFLINE": "1", "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", WINDOW, str(data)], capture_output=True, text=True, env=env,
                          timeout=300)
    marker = [line for line in proc.stdout.splitlines() if line.startswith("@@")]
    assert marker, proc.stderr[-3000:]
    seen = json.loads(marker[-1][2:])

    assert seen["lexical"] and seen["lexical"][0].endswith("ocelot.txt")
    assert seen["after_lexical"] == [], f"the window imported {seen['after_lexical']} for a lexical search"
    assert not seen["models_loading"]  # nothing started loading for it either
    assert not seen["hub"]  # nor the download client (http.client, ssl): it comes with a download

    # The default mode: words at once, and the person is told meaning is on its way...
    assert seen["first_mode"] == "lexical" and any("meaning loads" in n for n in seen["first_notices"])
    assert "meaning loads" in seen["status_line"]
    # ...then the same search by meaning, by itself.
    assert seen["meaning_dense"] == [True] and seen["models_ready"]
    # Queries are encoded without torch (NumPy over the model's weights); only a reranker or a sync needs it.
    assert seen["after_meaning"] == [], f"a search by meaning without a reranker imported {seen['after_meaning']}"
