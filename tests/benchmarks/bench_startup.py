"""Start-up cost of one CLI call: the same command from a checkout of the code before (git BEFORE_REF,
default: the merge base with main) and from this tree, each on a library it built from the same files, alternating, in fresh processes.

Cases: `index --words-only` of one small file into a new data dir (issue 45's goal: <= 1 s, <= 200 MB), the same
with meaning (`index`: the bi-encoder loaded, one passage embedded, the query path exported), `status`,
lexical search, hybrid search (no reranker, then the configured default when one is installed), an unchanged
`index`; and the window (`searchapp gui`, offscreen): its first start on a new data dir,
and its start over the library built here. A window case times what a person waits for: from the process start
(`python -m searchapp gui`, a fresh process) to the first usable frame, i.e. the window shown and a query typed
into its search box at once (the default mode) answered in its results list; beside it the time to the window
shown, the longest the event loop stood still (a frozen window), and, at that moment and SETTLE seconds after the
start, the process's CPU seconds, peak RSS and whether torch is imported (the load a window takes on at start
whether or not meaning is needed). One JSON line per case: median wall seconds and peak RSS before/after and
the before/after ratio (> 1: faster now), and the CPU seconds (user + system) of the process, which a
busy shared machine distorts less than wall time. The library is built once (not timed) from FILES small text files
(scifact passages when /work/shared/data is there, else generated sentences); `--build words` builds it with
`index --words-only` (seconds, no model: the hybrid cases then search words alone), `--build full` embeds too.

    python tests/benchmarks/bench_startup.py [--files 1000] [--repeats 3] [--before-ref REF] [--before-tree DIR]
                                             [--only cli|window] [--settle 12] [--build full|words]
                                             [--cases "index --words-only (1 file)" status ...]

Note the CPU: figures on a shared 2-core machine are noisy; compare only the ratio within one run.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from _common import cpu_note

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent.parent / "shared" / "data" / "ir" / "scifact-train"
if not DATA.is_dir():
    DATA = Path("/work/shared/data/ir/scifact-train")

# The window case's process: `searchapp gui` as a person starts it (python -m searchapp's entry point, main), with
# a probe on the window it builds. As soon as the window is exposed the probe types QUERY into the search box and
# presses Enter (the mode as configured); the first answer shown is the first usable frame. Times are seconds since
# T0, the parent's clock just before it started this process. Ends with os._exit: the figures are the start's, not
# the shutdown's.
_WINDOW = r"""
import json, os, resource, sys, time
T0, QUERY, SETTLE = float(sys.argv[1]), sys.argv[2], float(sys.argv[3])
import searchapp.gui.app as app_mod
from PySide6.QtCore import QElapsedTimer, QTimer

def now():
    return round(time.time() - T0, 3)

def usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu_s": round(r.ru_utime + r.ru_stime, 2), "peak_mb": round(r.ru_maxrss / 1024),
            "torch": "torch" in sys.modules, "transformers": "transformers" in sys.modules}

report = {}
build = app_mod.build_main_window

def probed(*a, **kw):
    win = build(*a, **kw)
    clock, last, timers = QElapsedTimer(), [0], []
    report["stall_ms"] = 0

    def tick():  # a 10 ms timer: the longest gap between its ticks is how long the window stood frozen
        t = clock.elapsed()
        report["stall_ms"] = max(report["stall_ms"], t - last[0])
        last[0] = t

    def answered(result):
        if "usable_s" not in report:
            report.update(usable_s=now(), hits=len(result.hits), at_usable=usage())

    def status(st):
        report.setdefault("status_s", now())

    def poll():
        if "shown_s" not in report and win.windowHandle() is not None and win.windowHandle().isExposed():
            report["shown_s"] = now()
            clock.start()
            ticker.start()
            win.search.search_box.setText(QUERY)
            win.search.run_search()
        if ("usable_s" in report and now() >= SETTLE) or now() > 180:
            report.update(settled_s=now(), at_settle=usage(), models_ready=bool(getattr(win, "models_ready", None)))
            print("@@" + json.dumps(report), flush=True)
            os._exit(0)

    win.searchFinished.connect(answered)
    win.statusRefreshed.connect(status)
    ticker = QTimer(win, interval=10)
    ticker.timeout.connect(tick)
    poller = QTimer(win, interval=5)
    poller.timeout.connect(poll)
    poller.start()
    return win

app_mod.build_main_window = probed
try:
    from searchapp.cli.entry import main
except ImportError:  # a tree from before decision 0121 (the "before" side of a comparison): the same entry point
    from searchapp.cli.fast import main
sys.exit(main(sys.argv[4:]))
"""


def make_files(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    texts: list[str] = []
    corpus = DATA / "corpus.jsonl"
    if corpus.is_file():
        with open(corpus, encoding="utf-8") as fh:
            for line in fh:
                texts.append(json.loads(line)["text"][:600])
                if len(texts) >= n:
                    break
    rng = random.Random(0)
    words = "plants water light orthodontist consultation volcano bread yeast castle moat cell energy".split()
    while len(texts) < n:
        texts.append(" ".join(rng.choice(words) for _ in range(60)) + ".")
    for i, t in enumerate(texts[:n]):
        (folder / f"doc{i:05d}.txt").write_text(t, encoding="utf-8")


def before_tree(ref: str | None, given: str | None) -> Path:
    if given:
        return Path(given)
    ref = ref or subprocess.run(["git", "-C", str(REPO), "merge-base", "HEAD", "main"], capture_output=True,
                                text=True, check=True).stdout.strip()
    tree = Path(tempfile.gettempdir()) / f"searchapp-before-{ref[:12]}"
    if not tree.is_dir():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), ref], check=True,
                       capture_output=True)
    return tree


def run(tree: Path, argv: list[str]) -> tuple[float, float, int, float]:
    """(wall seconds, peak RSS MB, exit code, CPU seconds) of `python -m searchapp ARGV` importing `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: compiled modules are cached
    t0 = time.perf_counter()
    # cwd = the tree: `python -m` puts the working directory first on sys.path.
    proc = subprocess.Popen([sys.executable, "-m", "searchapp", *argv], env=env, cwd=str(tree),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024.0, proc.returncode, usage.ru_utime + usage.ru_stime


def run_window(tree: Path, data: Path, query: str, settle: float) -> dict:
    """The window case's figures (see _WINDOW) for `searchapp --data-dir DATA gui` importing `tree`, offscreen."""
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "QT_QPA_PLATFORM": "offscreen"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-c", _WINDOW, repr(t0), query, str(settle), "--data-dir", str(data),
                           "gui"], env=env, cwd=str(tree), capture_output=True, text=True, timeout=300)
    marker = [line for line in proc.stdout.splitlines() if line.startswith("@@")]
    if not marker:
        raise SystemExit(f"the window did not report (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(marker[-1][2:])


def window_cases(old: Path, new: Path, libs: dict[str, Path], work: Path, args) -> None:
    """The window's first start (a new data dir each time) and its start over the library built here, before
    and after by turns; medians of `repeats` runs after one warm-up each."""
    cases = {"window first start (no library)": None, "window start (existing library)": libs}
    for name, lib in cases.items():
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for i in range(args.repeats + 1):
            for label, tree in (("before", old), ("after", new)):
                data = lib[label] if lib else work / f"new-{label}-{i}"
                got = run_window(tree, data, args.query, args.settle)
                if i:  # the first turn warms the OS file cache and the compiled modules
                    runs[label].append(got)
        line = {"case": name, "files": args.files if lib else 0, "query": args.query}
        for label in ("before", "after"):
            med = functools.partial(_median, runs[label])
            line[label] = {
                "usable_s": med("usable_s"), "shown_s": med("shown_s"), "stall_ms": med("stall_ms"),
                "cpu_s_at_usable": med("at_usable", "cpu_s"), "peak_mb_at_usable": med("at_usable", "peak_mb"),
                "torch_at_usable": any(r["at_usable"]["torch"] for r in runs[label]),
                f"cpu_s_at_{args.settle:g}s": med("at_settle", "cpu_s"),
                f"peak_mb_at_{args.settle:g}s": med("at_settle", "peak_mb"),
                f"torch_at_{args.settle:g}s": any(r["at_settle"]["torch"] for r in runs[label]),
                "hits": runs[label][-1].get("hits"),
            }
        line["usable_ratio"] = round(line["before"]["usable_s"] / max(line["after"]["usable_s"], 1e-3), 2)
        line.update(goal_usable_s=2.0, repeats=args.repeats, **cpu_note())
        print(json.dumps(line), flush=True)


def _median(runs: list[dict], *keys: str) -> float:
    """The median over `runs` of the figure at `keys` (nested: "at_usable", "cpu_s")."""
    values = []
    for r in runs:
        for k in keys:
            r = r[k]
        values.append(float(r))  # type: ignore[arg-type]
    return round(statistics.median(values), 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before-ref", help="git ref of the 'before' code (default: merge base with main)")
    ap.add_argument("--before-tree", help="an existing checkout of the 'before' code")
    ap.add_argument("--after-tree", help="the 'after' code (default: this checkout; e.g. `git archive HEAD searchapp`"
                                         " unpacked, when others edit this working tree)")
    ap.add_argument("--work", help="folder for the corpus and library (default: a temporary one)")
    ap.add_argument("--only", choices=("cli", "window"), help="only the command-line cases, or only the window's")
    ap.add_argument("--query", default="protein expression in cells", help="what the window case types")
    ap.add_argument("--settle", type=float, default=12.0,
                    help="seconds after the start at which the window case reads CPU, RSS and torch again")
    ap.add_argument("--build", choices=("full", "words"), default="full",
                    help="build the libraries with `index` (embedding) or `index --words-only` (no model)")
    ap.add_argument("--cases", nargs="*", help="only these command-line cases (their names as printed)")
    args = ap.parse_args()

    old = before_tree(args.before_ref, args.before_tree)
    new = Path(args.after_tree) if args.after_tree else REPO
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-startup-"))
    docs = work / "docs"
    if not docs.is_dir():
        make_files(docs, args.files)
    # Each tree builds its own library: the schema moves on between versions, and an old tree cannot open a
    # newer library (it would measure an error exit, not a search).
    libs = {"before": work / "lib-before", "after": work / "lib-after"}
    for label, tree in (("before", old), ("after", new)):
        if (libs[label] / "library.sqlite").exists():
            continue
        t0 = time.perf_counter()
        build = ["index", "--words-only"] if args.build == "words" else ["index"]
        wall, _, code, _ = run(tree, ["--data-dir", str(libs[label]), *build, str(docs)])
        if code != 0:
            raise SystemExit(f"building the {label} library failed (exit {code})")
        print(json.dumps({"setup": f"index ({label})", "files": args.files,
                          "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
    if args.only != "cli":
        window_cases(old, new, libs, work, args)
    if args.only == "window":
        return
    one = work / "one"  # one small text file: `index --words-only` of it into a new data dir, each run
    if not one.is_dir():
        make_files(one, 1)
    fresh = iter(range(1 << 30))
    cases = {
        "index --words-only (1 file)": ["index", "--words-only", str(one)],
        "index (1 file)": ["index", str(one)],  # with meaning: loads the bi-encoder, embeds, exports the query path
        "status": ["status"],
        "search lexical": ["search", "orthodontist consultation", "--mode", "lexical"],
        "search hybrid (no rerank)": ["search", "when is the orthodontist consultation", "--no-rerank"],
        "search hybrid (default)": ["search", "when is the orthodontist consultation"],
        "index unchanged": ["index"],
    }
    if args.cases:
        cases = {k: v for k, v in cases.items() if k in args.cases}

    def data_dir(name: str, label: str) -> str:
        if name.endswith("(1 file)"):  # a new library each run: the command a person first types
            return str(work / f"words-{label}-{next(fresh)}")
        return str(libs[label])

    for name, argv in cases.items():
        for label, tree in (("before", old), ("after", new)):  # warm-up: compiled modules, OS file cache
            run(tree, ["--data-dir", data_dir(name, label), *argv])
        times: dict[str, list[float]] = {"before": [], "after": []}
        rss: dict[str, list[float]] = {"before": [], "after": []}
        cpu_s: dict[str, list[float]] = {"before": [], "after": []}
        codes = {}
        for _ in range(args.repeats):
            for label, tree in (("before", old), ("after", new)):
                wall, mb, code, used = run(tree, ["--data-dir", data_dir(name, label), *argv])
                times[label].append(wall)
                cpu_s[label].append(used)
                rss[label].append(mb)
                codes[label] = code
        b, a = statistics.median(times["before"]), statistics.median(times["after"])
        print(json.dumps({
            "case": name, "files": args.files, "before_s": round(b, 3), "after_s": round(a, 3),
            "ratio": round(b / a, 2), "before_cpu_s": round(statistics.median(cpu_s["before"]), 3),
            "after_cpu_s": round(statistics.median(cpu_s["after"]), 3),
            "cpu_ratio": round(statistics.median(cpu_s["before"]) / statistics.median(cpu_s["after"]), 2), "before_peak_mb": round(max(rss["before"])), "after_peak_mb": round(max(rss["after"])),
            "exit": codes, "repeats": args.repeats, **cpu_note(),
        }), flush=True)


if __name__ == "__main__":
    main()
