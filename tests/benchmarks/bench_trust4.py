"""The fourth attacker's round (issue 40), case by case, before and after in the same run: exit code, seconds,
peak RSS of the child, files written outside the data dir, and what it said. Each case builds its hostile input
in a fresh folder and runs the CLI (or, where the CLI has no such command, a few lines of the library's API) in
a child process with the code tree given, HOME and TMPDIR pointed at empty folders of their own ("outside": every
file left there afterwards is counted). A child still running after --timeout seconds (20) is killed: "hung" (the cases that load an OCR
engine or a model on purpose, or measure their own time, get 600 s).

    git archive 0c95c2b searchapp | tar -x -C /tmp/before
    python tests/benchmarks/bench_trust4.py --trees /tmp/before,. [--cases fifo-index,long-query]

One JSON line per case and tree. The model is the packaged all-MiniLM-L6-v2 (as bench_trust3); OCR needs the
`ocr` extra (RapidOCR 3); queries are not exported to ONNX (SEARCHAPP_NO_QUERY_EXPORT=1: seconds per library),
so onnxruntime is loaded by RapidOCR there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTE = "Volcanoes erupt molten rock called lava; the observatory's budget grew every year.\n"
CHILD = """
import atexit, os, resource, runpy, sys
atexit.register(lambda: open(os.environ["TRUST4_RSS_FILE"], "w").write(
    str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))
if sys.argv[1] == "-c":
    code = sys.argv[2]
    sys.argv = sys.argv[2:]
    exec(compile(code, "<case>", "exec"))
else:
    sys.argv = ["searchapp", *sys.argv[1:]]
    runpy.run_module("searchapp", run_name="__main__")
"""


def files_under(folder: Path) -> list[str]:
    return sorted(str(Path(d, f).relative_to(folder)) for d, _, fs in os.walk(folder) for f in fs)


class Case:
    """One case's folders: docs, the data dir, and HOME/TMPDIR ("outside")."""

    def __init__(self, tree: Path, root: Path, timeout: float) -> None:
        self.tree, self.timeout = tree, timeout
        self.docs, self.data, self.outside = root / "docs", root / "data", root / "outside"
        for d in (self.docs, self.outside / "home", self.outside / "tmp"):
            d.mkdir(parents=True)

    def run(self, *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict | None = None,
            timeout: float | None = None) -> dict:
        e = {k: v for k, v in os.environ.items() if not k.startswith(("SEARCHAPP_", "XDG_", "ORT_"))}
        e.update(PYTHONPATH=str(self.tree), SEARCHAPP_DATA_DIR=str(self.data), HF_HUB_OFFLINE="1", NO_COLOR="1",
                 SEARCHAPP_NO_QUERY_EXPORT="1", SEARCHAPP_NO_WARM="1", HOME=str(self.outside / "home"),
                 TMPDIR=str(self.outside / "tmp"))
        e.update(env or {})
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
            e["TRUST4_RSS_FILE"] = rss.name
            t0 = time.perf_counter()
            try:
                p = subprocess.run([sys.executable, "-c", CHILD, *args], env=e, capture_output=True, text=True,
                                   timeout=timeout or self.timeout, cwd=cwd or self.docs.parent, input=stdin,
                                   stdin=None if stdin is not None else subprocess.DEVNULL)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = "hung", "", ""
            seconds = time.perf_counter() - t0
            kib = rss.read().strip()
        return {"rc": rc, "s": round(seconds, 2), "peak_rss_mb": round(int(kib) / 1024) if kib else None,
                "out": out, "err": err}

    def index(self, **kw) -> dict:
        (self.docs / "note.txt").write_text(NOTE, encoding="utf-8")
        return self.run("index", str(self.docs), timeout=600, **kw)

    def report(self, r: dict, **more) -> dict:
        lines = [x for x in (r["err"] + r["out"]).strip().splitlines() if x.strip()]
        return {"rc": r["rc"], "s": r["s"], "peak_rss_mb": r["peak_rss_mb"],
                "outside": files_under(self.outside), "said": lines[-1][:160] if lines else "", **more}


# -- the cases: each returns what to report -------------------------------------------------------------------
def telemetry(c: Case) -> dict:
    """1: a sync that OCRs an image, then a search: nothing may be left in HOME (onnxruntime's telemetry)."""
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("RGB", (640, 140), "white")
    ImageDraw.Draw(im).text((10, 40), "Lighthouse keeper log", fill="black", font=ImageFont.load_default(size=34))
    im.save(c.docs / "scan.png")
    r = c.index(env={"SEARCHAPP_OCR_ENGINE": "rapidocr3"})
    s = c.run("search", "lighthouse keeper", "--json", timeout=600)
    return c.report(r, search_rc=s["rc"], ocr_found="scan.png" in s["out"])


def _fifo(c: Case, name: str) -> None:
    c.index()
    (c.data / name).unlink(missing_ok=True)
    os.mkfifo(c.data / name)


def fifo_index(c: Case) -> dict:
    """3: a FIFO at vectors.hnsw: search (after its word hits), status and index hung for ever."""
    _fifo(c, "vectors.hnsw")
    out = {cmd[0]: c.report(c.run(*cmd)) for cmd in (["search", "volcano lava", "--wait"], ["status"],
                                                       ["index", str(c.docs)])}
    return {"rc": {k: v["rc"] for k, v in out.items()}, "s": {k: v["s"] for k, v in out.items()},
            "said": {k: v["said"] for k, v in out.items()}, "outside": files_under(c.outside)}


def fifo_lock(c: Case) -> dict:
    """3: a FIFO at searching.lock: an index waited on it for ever."""
    _fifo(c, "searching.lock")
    return c.report(c.run("index", str(c.docs)))


def similar_relative(c: Case) -> dict:
    """4: `similar docs/note.txt` answered by a warm process started in another folder, which holds a
    docs/note.txt of its own: which file was the answer about?"""
    other = c.docs.parent / "elsewhere"
    (other / "docs").mkdir(parents=True)
    (other / "docs" / "note.txt").write_text("The sourdough starter needs flour and water daily.\n")
    c.index()
    c.run("index", str(other / "docs"), timeout=600)
    e = {k: v for k, v in os.environ.items() if not k.startswith(("SEARCHAPP_", "XDG_", "ORT_"))}
    e.update(PYTHONPATH=str(c.tree), SEARCHAPP_DATA_DIR=str(c.data), HF_HUB_OFFLINE="1",
             HOME=str(c.outside / "home"), TMPDIR=str(c.outside / "tmp"))
    server = subprocess.Popen([sys.executable, "-m", "searchapp", "watch"], cwd=other, env=e,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (c.data / "warm.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        served = c.run("similar", "docs/note.txt", "--json", env={"SEARCHAPP_NO_WARM": ""})
        direct = c.run("similar", "docs/note.txt", "--json")
    finally:
        server.terminate()
        server.wait(30)

    def source(r: dict) -> str:
        try:
            return json.loads(r["out"])["query"]
        except (ValueError, KeyError):
            return ""
    return {**c.report(served), "served_about": source(served), "direct_about": source(direct),
            "served_is_direct": source(served) == source(direct) != ""}


def integrity_brackets(c: Case) -> dict:
    """5: integrity.json of 2 KB of `[`: every status ended in a RecursionError traceback."""
    c.index()
    (c.data / "integrity.json").write_text("[" * 2048)
    os.chmod(c.data / "integrity.json", 0o600)
    r = c.run("status")
    return c.report(r, traceback="Traceback" in r["err"])


UNDO = """
import os, sys
from pathlib import Path
from searchapp.base.config import load_config
from searchapp.library import Library
lib = Library(load_config(os.environ["SEARCHAPP_DATA_DIR"]))
lib.store.conn.execute("PRAGMA temp.cache_size = 10")  # spilled to its file as a big folder's copy is
lib.remove_folder(sys.argv[1], undoable=True)
temp = []
for fd in os.listdir("/proc/self/fd"):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        continue
    if "etilqs_" in target:
        temp.append(target)
print("\\n".join(temp))
"""


def undo_temp(c: Case) -> dict:
    """6: Undo's copy of a removed folder: where SQLite's temporary file lies (TMPDIR here is "outside")."""
    for i in range(40):
        (c.docs / f"n{i}.txt").write_text(f"Private note {i}: " + "the keeper's ledger " * 80 + "\n")
    c.index()
    r = c.run("-c", UNDO, str(c.docs), timeout=600)
    temp = [t for t in r["out"].splitlines() if t]
    return {**c.report(r), "temp_files": temp,
            "temp_outside_data_dir": [t for t in temp if not t.startswith(str(c.data))]}


def long_query(c: Case) -> dict:
    """7: one line of 100,000 words through `search -`."""
    c.index()
    line = " ".join(f"w{i}" for i in range(100_000)) + "\n"
    r = c.run("search", "-", "--mode", "lexical", stdin=line)
    return c.report(r, line_mb=round(len(line) / 1e6, 2))


def history_symlink(c: Case) -> dict:
    """8: a searches.sqlite that is a link to one elsewhere: listed by `history list`, refused by `search`."""
    c.index()
    elsewhere = c.docs.parent / "elsewhere"
    elsewhere.mkdir()
    c.run("search", "planted query")
    shutil.move(str(c.data / "searches.sqlite"), elsewhere / "searches.sqlite")
    os.symlink(elsewhere / "searches.sqlite", c.data / "searches.sqlite")
    h = c.run("history", "list")
    s = c.run("search", "volcano")
    return {**c.report(h), "listed": "planted" in h["out"], "search_rc": s["rc"]}


PRECOUNT = """
import sys, time
from searchapp.base.config import ScanConfig
from searchapp.library.sync.folder_count import count_files
t0 = time.perf_counter()
got = count_files(sys.argv[1], ScanConfig())
print(f"{time.perf_counter() - t0:.2f} s, complete={got.complete}, subfolders={len(got.subfolders)}")
"""


def precount_wide(c: Case) -> dict:
    """8: the big-folder pre-count (0.5 s cap) over one folder of 100,000 subfolders."""
    wide = c.docs / "wide"
    wide.mkdir()
    for i in range(100_000):
        os.mkdir(wide / f"d{i}")
    return c.report(c.run("-c", PRECOUNT, str(wide), timeout=600))  # its own time limit is what is measured


BLANK = """
from PIL import Image
from searchapp.ingest.ocr.engine import RapidOcr3Engine
e = RapidOcr3Engine()
for _ in range(5):
    e.recognize(Image.new("RGB", (400, 300), "white"))
"""


def ocr_blank(c: Case) -> dict:
    """8: five blank pages through RapidOCR 3: lines on stderr (ANSI-coloured warnings before)."""
    r = c.run("-c", BLANK, timeout=600)  # building the engine alone takes seconds
    return {**c.report(r), "stderr_lines": len(r["err"].splitlines()), "ansi": "\x1b[" in r["err"]}


def _tests_on_path() -> None:
    """The tests' own hostile-file builders (tests/pdf_files.py), as the suite makes them."""
    if str(REPO / "tests") not in sys.path:
        sys.path.insert(0, str(REPO / "tests"))


def words_only(c: Case, hostile: str) -> dict:
    """`index --words-only` of the docs folder (a note beside the hostile file), then whether the note is found
    by words: one hostile file must neither stall nor stop its folder's sync."""
    (c.docs / "note.txt").write_text(NOTE, encoding="utf-8")
    r = c.run("index", "--words-only", str(c.docs), timeout=600)
    s = c.run("search", "volcano lava", "--mode", "lexical", "--json")
    status = c.run("status")
    listed = [x.strip() for x in status["out"].splitlines() if hostile in x]
    return {**c.report(r), "note_found": "note.txt" in s["out"], "hostile_listed": listed[:2]}


def pdf_shared_stream(c: Case) -> dict:
    """40.2: a 10-page PDF whose pages share one content stream of 80,000 empty text operations (pypdf parsed it
    again for every page: 95 s)."""
    _tests_on_path()
    from pdf_files import shared_stream_pdf

    shared_stream_pdf(c.docs / "shared.pdf", pages=10, empty_ops=80_000)
    return words_only(c, "shared.pdf")


def mail_headers(c: Case) -> dict:
    """40.2: a mail whose To: holds 40,000 addresses and whose Subject is 40,000 encoded words (34 s and 100 s in
    the stdlib's header parser before the 2,000-character cap was applied)."""
    to = ", ".join(f"user{i}@example.org" for i in range(40_000))
    subject = " ".join("=?utf-8?q?w?=" for _ in range(40_000))
    (c.docs / "wide.eml").write_text(f"From: a@example.org\nTo: {to}\nSubject: {subject}\n\nThe body.\n",
                                     encoding="utf-8")
    return words_only(c, "wide.eml")


def lone_surrogate(c: Case) -> dict:
    """39.1: a PDF whose text layer decodes to a lone surrogate (docling's skipped_1page.pdf, Tika's
    testPDFVarious.pdf): the words pass raised UnicodeEncodeError and every sync of the folder stopped there."""
    _tests_on_path()
    from pdf_files import lone_surrogate_pdf

    lone_surrogate_pdf(c.docs / "lone.pdf", "Harbour logistics ledger")
    return words_only(c, "lone.pdf")


CASES = {"telemetry": telemetry, "fifo-index": fifo_index, "fifo-lock": fifo_lock,
         "similar-relative": similar_relative, "integrity-brackets": integrity_brackets, "undo-temp": undo_temp,
         "long-query": long_query, "history-symlink": history_symlink, "precount-wide": precount_wide,
         "ocr-blank": ocr_blank, "pdf-shared-stream": pdf_shared_stream, "mail-headers": mail_headers,
         "lone-surrogate": lone_surrogate}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", default=f"{REPO}", help="comma-separated code trees (before,after)")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a child is killed as hung")
    args = ap.parse_args()
    for case in args.cases.split(","):
        for tree in args.trees.split(","):
            with tempfile.TemporaryDirectory(prefix="trust4-") as tmp:
                res = CASES[case](Case(Path(tree).resolve(), Path(tmp), args.timeout))
                print(json.dumps({"bench": "trust4", "case": case, "tree": tree, **res,
                                  "load": round(os.getloadavg()[0], 1)}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
