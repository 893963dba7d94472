"""The third attacker's round, case by case, before and after: exit code, seconds, peak RSS of the child, and
what it said or wrote. Each case builds its hostile input in a fresh folder and runs the CLI in a child
process with the code tree given (an export of the commit before the round, and this checkout).

    python tests/benchmarks/bench_trust3.py --trees /tmp/before,. [--cases mail-year-1000,prefix]

(`git archive 8c22ce7 searchapp | tar -x -C /tmp/before` makes the "before" tree.) One JSON line per case and
tree. The heavy cases (spreadsheet, slide, tar.gz and MIME-part bombs, the hostile hub) have their own
benchmarks: bench_hostile.py, bench_container_bomb.py, bench_hub_hostile.py.
"""

from __future__ import annotations

import argparse
import json
import mailbox
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTE = "Volcanoes erupt molten rock called lava; the budget for the observatory grew every year.\n"


def cpu_flags() -> str:
    try:
        return "avx512_bf16" if "avx512_bf16" in Path("/proc/cpuinfo").read_text() else "no avx512_bf16"
    except OSError:
        return "unknown"


def run(tree: Path, data: Path, *args: str, timeout: float = 300) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "SEARCHAPP_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1",
           "NO_COLOR": "1"}
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        env["TRUST3_RSS_FILE"] = rss_file.name  # the child writes its own peak RSS (KiB) there at exit
        t0 = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, "-c", CHILD, *args], env=env, capture_output=True, text=True,
                               timeout=timeout, cwd=tempfile.gettempdir())
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = 124, "", "timeout"
        seconds = time.perf_counter() - t0
        kib = rss_file.read().strip()
    return {"rc": rc, "s": round(seconds, 2), "peak_rss_mb": round(int(kib) / 1024) if kib else None,
            "out": out, "err": err}


CHILD = """
import atexit, os, resource, runpy, sys
atexit.register(lambda: open(os.environ["TRUST3_RSS_FILE"], "w").write(
    str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))
sys.argv = ["searchapp", *sys.argv[1:]]
runpy.run_module("searchapp", run_name="__main__")
"""


def last_line(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1][:160] if lines else ""


def hits(res: dict) -> int:
    try:
        return len(json.loads(res["out"])["hits"])
    except (ValueError, KeyError):
        return -1


# -- cases: each gets (tree, folder, data dir) and returns what to report ------------------------------
def mail_year_1000(tree: Path, d: Path, data: Path) -> dict:
    box = mailbox.mbox(str(d / "old.mbox"))
    box.add(b"From: a@example.org\nSubject: ancient\nDate: Mon, 1 Jan 1000 00:00:00 +0000\n\nA letter from long ago.\n")
    box.add(b"From: b@example.org\nSubject: future\nDate: Fri, 31 Dec 9999 23:59:59 +0000\n\nA letter from far ahead.\n")
    box.close()
    (d / "note.txt").write_text(NOTE)
    first = run(tree, data, "index", str(d))
    (d / "later.txt").write_text("A later note about glaciers and ice.\n")
    second = run(tree, data, "index", str(d))
    found = run(tree, data, "search", "glaciers ice", "--mode", "lexical", "--json")
    return {"rc": first["rc"], "s": first["s"], "peak_rss_mb": first["peak_rss_mb"], "said": last_line(first["err"]),
            "resync_rc": second["rc"], "new_file_found": hits(found) > 0}


def forwarded_mail(tree: Path, d: Path, data: Path) -> dict:
    inner = b"From: c@example.org\nSubject: inner\n\nThe forwarded note mentions a quetzal feather.\n"
    (d / "fwd.eml").write_bytes(
        b"From: a@example.org\nSubject: Fwd\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=XX\n\n"
        b"--XX\nContent-Type: text/plain\n\nSee below.\n--XX\nContent-Type: message/rfc822\n\n" + inner + b"\n--XX--\n")
    r = run(tree, data, "index", str(d))
    found = run(tree, data, "search", "quetzal feather", "--mode", "lexical", "--json")
    return {"rc": r["rc"], "s": r["s"], "peak_rss_mb": r["peak_rss_mb"], "hits": hits(found)}


def _indexed(tree: Path, d: Path, data: Path) -> dict:
    (d / "note.txt").write_text(NOTE)
    (d / "Ärger.txt").write_text("Ärger im Büro über das Budget.\n")
    return run(tree, data, "index", str(d))


def prefix_lexical(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    r = run(tree, data, "search", "budg*", "--mode", "lexical", "--json")
    return {"rc": r["rc"], "s": r["s"], "hits": hits(r)}


def searches_damaged(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    (data / "searches.sqlite").write_bytes(b"not a database " * 300)
    r = run(tree, data, "search", "volcano lava")
    h = run(tree, data, "history", "list")
    return {"rc": r["rc"], "s": r["s"], "said": last_line(r["err"]),
            "history_rc": h["rc"], "history_said": last_line(h["err"]),
            "blames_library": "library.sqlite" in r["err"] + h["err"]}


def page_overflow(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    out = {}
    for q in ("lava page:99999999999999999999999", "lava page:²"):
        r = run(tree, data, "search", q, "--json")
        out[q] = {"rc": r["rc"], "traceback": "Traceback" in r["err"]}
    return out


def huge_query(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    out = {}
    for name, q in (("600 ORs", " OR ".join(f"w{i}" for i in range(600))),
                    ("1100 phrases", " ".join(f'"w{i} v{i}"' for i in range(1100))),
                    ("10000 exclusions", "lava " + " ".join(f"-x{i}" for i in range(10000)))):
        r = run(tree, data, "search", q, "--json")
        out[name] = {"rc": r["rc"], "s": r["s"], "said": last_line(r["err"])[:100]}
    return out


def name_casefold(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    r = run(tree, data, "search", "name:ärger budget", "--mode", "lexical", "--json")
    return {"rc": r["rc"], "hits": hits(r)}


def operator_only(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    r = run(tree, data, "search", "-draft", "--json")
    return {"rc": r["rc"], "said": last_line(r["err"])[:120]}


def explain_advice(tree: Path, d: Path, data: Path) -> dict:
    _indexed(tree, d, data)
    (d / "new.txt").write_text("not yet synced\n")
    r = run(tree, data, "explain", str(d / "new.txt"))
    return {"rc": r["rc"], "recommends_sync": "searchapp sync" in r["out"] + r["err"]}


def refused_member_name(tree: Path, d: Path, data: Path) -> dict:
    with zipfile.ZipFile(d / "evil.zip", "w") as z:
        z.writestr("../../../../tmp/evil.txt", "escape attempt")
        z.writestr("ok.txt", "a harmless member about lava")
    r = run(tree, data, "index", str(d))
    st = run(tree, data, "status", "--json")
    try:
        keys = [f["path"] for f in json.loads(st["out"]).get("failed", [])]
    except ValueError:
        keys = []
    return {"rc": r["rc"], "stored_keys": [k.split("evil.zip")[-1] for k in keys],  # the reason may quote it
            "dotdot_in_a_key": any("../" in k for k in keys)}


def foreign_data_dir(tree: Path, d: Path, data: Path) -> dict:
    if os.geteuid() != 0:
        return {"skipped": "needs root to chown the data dir to another user"}
    _indexed(tree, d, data)
    cache = data / "ocr_cache.sqlite"
    sqlite3.connect(cache).close()
    os.chown(cache, 65534, 65534)
    os.chmod(cache, 0o666)
    r = run(tree, data, "search", "lava")
    return {"rc": r["rc"], "said": last_line(r["err"])[:140]}


CASES = {"mail-year-1000": mail_year_1000, "forwarded-mail": forwarded_mail, "prefix-lexical": prefix_lexical,
         "searches-damaged": searches_damaged, "page-overflow": page_overflow, "huge-query": huge_query,
         "name-casefold": name_casefold, "operator-only": operator_only, "explain-advice": explain_advice,
         "refused-member-name": refused_member_name, "foreign-data-dir": foreign_data_dir}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", default=f"{REPO}", help="comma-separated code trees (before,after)")
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args()
    for case in args.cases.split(","):
        for tree in args.trees.split(","):
            with tempfile.TemporaryDirectory(prefix="trust3-") as tmp:
                d, data = Path(tmp) / "docs", Path(tmp) / "data"
                d.mkdir()
                res = CASES[case](Path(tree).resolve(), d, data)
                print(json.dumps({"bench": "trust3", "case": case, "tree": tree, **res, "cpu": cpu_flags(),
                                  "load": round(os.getloadavg()[0], 1)}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
