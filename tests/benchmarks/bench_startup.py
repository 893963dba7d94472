"""Start-up cost of one CLI call: the same command from a checkout of the code before (git BEFORE_REF,
default: the merge base with main) and from this tree, each on a library it built from the same files, alternating, in fresh processes.

Cases: `status`, lexical search, hybrid search (no reranker, then the configured default when one is
installed), an unchanged `index`. One JSON line per case: median wall seconds and peak RSS before/after and
the before/after ratio (> 1: faster now), and the CPU seconds (user + system) of the process, which a
busy shared machine distorts less than wall time. The library is built once (not timed) from FILES small text files
(scifact passages when /work/shared/data is there, else generated sentences).

    python tests/benchmarks/bench_startup.py [--files 1000] [--repeats 3] [--before-ref REF] [--before-tree DIR]

Note the CPU: figures on a shared 2-core machine are noisy; compare only the ratio within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent.parent / "shared" / "data" / "ir" / "scifact-train"
if not DATA.is_dir():
    DATA = Path("/work/shared/data/ir/scifact-train")


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before-ref", help="git ref of the 'before' code (default: merge base with main)")
    ap.add_argument("--before-tree", help="an existing checkout of the 'before' code")
    ap.add_argument("--work", help="folder for the corpus and library (default: a temporary one)")
    args = ap.parse_args()

    old = before_tree(args.before_ref, args.before_tree)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-startup-"))
    docs = work / "docs"
    if not docs.is_dir():
        make_files(docs, args.files)
    # Each tree builds its own library: the schema moves on between versions, and an old tree cannot open a
    # newer library (it would measure an error exit, not a search).
    libs = {"before": work / "lib-before", "after": work / "lib-after"}
    for label, tree in (("before", old), ("after", REPO)):
        if (libs[label] / "library.sqlite").exists():
            continue
        t0 = time.perf_counter()
        wall, _, code, _ = run(tree, ["--data-dir", str(libs[label]), "index", str(docs)])
        if code != 0:
            raise SystemExit(f"building the {label} library failed (exit {code})")
        print(json.dumps({"setup": f"index ({label})", "files": args.files,
                          "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
    cases = {
        "status": ["status"],
        "search lexical": ["search", "orthodontist consultation", "--mode", "lexical"],
        "search hybrid (no rerank)": ["search", "when is the orthodontist consultation", "--no-rerank"],
        "search hybrid (default)": ["search", "when is the orthodontist consultation"],
        "index unchanged": ["index"],
    }
    cpu = platform.processor() or platform.machine()
    flags = Path("/proc/cpuinfo").read_text(errors="replace") if Path("/proc/cpuinfo").exists() else ""
    for name, argv in cases.items():
        for label, tree in (("before", old), ("after", REPO)):  # warm-up: compiled modules, OS file cache
            run(tree, ["--data-dir", str(libs[label]), *argv])
        times: dict[str, list[float]] = {"before": [], "after": []}
        rss: dict[str, list[float]] = {"before": [], "after": []}
        cpu_s: dict[str, list[float]] = {"before": [], "after": []}
        codes = {}
        for _ in range(args.repeats):
            for label, tree in (("before", old), ("after", REPO)):
                wall, mb, code, used = run(tree, ["--data-dir", str(libs[label]), *argv])
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
            "exit": codes, "repeats": args.repeats, "cores": os.cpu_count(), "cpu": cpu,
            "avx512_bf16": "avx512_bf16" in flags, "load_avg": round(os.getloadavg()[0], 1),
        }), flush=True)


if __name__ == "__main__":
    main()
