"""A gzip bomb inside a .tar.gz: seconds and peak memory of a sync and of an Open, before and after.

The archive holds `before.txt`, `bomb.bin` (--gib GiB of zeros, ~1 MB compressed per GiB) and `after.txt`; it is
built from concatenated gzip members, so making it costs nothing. Each run is a child process with the code
tree given first on sys.path (e.g. a `git archive` of the commit before the change for "before", this
checkout for "after"); the parent polls its peak RSS (VmHWM). One JSON line per run.

    python tests/benchmarks/bench_container_bomb.py --gib 4 --trees /tmp/before,. --timeout 300

sync: Library.add_folder over the archive's folder with the real MiniLM (model load reported apart as
load_s); open: the private copy Open makes of `after.txt` (the member past the bomb).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

_CHUNK = 64 * 2**20


def _header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = size, 1_700_000_000
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _entry(name: str, data: bytes) -> bytes:
    return _header(name, len(data)) + data + b"\0" * (-len(data) % 512)


def make_bomb(path: Path, gib: float) -> None:
    size = int(gib * 2**30) // _CHUNK * _CHUNK
    zeros = gzip.compress(b"\0" * _CHUNK, compresslevel=9)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(_entry("before.txt", b"Pelicans nest on the quiet northern shore.\n")
                               + _header("bomb.bin", size)))
        for _ in range(size // _CHUNK):
            fh.write(zeros)
        fh.write(gzip.compress(_entry("after.txt", b"The lighthouse keeper logs every passing ship.\n")
                               + b"\0" * 1024))


def child(what: str, folder: str, data: str) -> None:
    archive = Path(folder) / "bomb.tar.gz"
    t0 = time.perf_counter()
    out: dict = {}
    try:
        if what == "open":
            from searchapp.library.members.private_copy import open_copy

            copy = open_copy(str(archive) + os.sep * 2 + "after.txt")
            out["ok"] = copy.read_bytes().startswith(b"The lighthouse")
        else:
            from searchapp.base.config import load_config
            from searchapp.library import Library
            from searchapp.models import BiEncoder

            enc = BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32", threads=1)
            out["load_s"] = round(time.perf_counter() - t0, 2)
            Path(data).mkdir(exist_ok=True)
            t0 = time.perf_counter()
            with Library(load_config(Path(data), env={}), encoder=enc) as lib:
                rep = lib.add_folder(Path(folder))
            out["added"] = rep.added
            out["problems"] = [why[:90] for _, why in rep.problems]
    except Exception as exc:  # a refusal is a result too
        out["error"] = str(exc)[:160]
    out["seconds"] = round(time.perf_counter() - t0, 2)
    print("RESULT " + json.dumps(out), flush=True)


def _run(tree: str, what: str, folder: Path, timeout: float) -> dict:
    data = tempfile.mkdtemp(prefix="bench-bomb-data-")
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, __file__, "--child", what, str(folder), data], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak, t0 = 0, time.monotonic()
    while proc.poll() is None and time.monotonic() - t0 < timeout:
        try:
            for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) // 1024)
        except OSError:
            pass
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    stdout = proc.communicate()[0]
    res = next((json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("RESULT ")),
               {"error": "killed at the timeout" if time.monotonic() - t0 >= timeout else "no result"})
    res.update(tree=tree, what=what, peak_rss_mb=peak, wall_s=round(time.monotonic() - t0, 2))
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=4.0)
    ap.add_argument("--trees", default=".")
    ap.add_argument("--what", default="sync,open")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--child", nargs=3)
    args = ap.parse_args()
    if args.child:
        sys.path.insert(0, os.environ["PYTHONPATH"])  # the tree under test (--trees), ahead of any installed searchapp
        child(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="bench-bomb-") as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        make_bomb(folder / "bomb.tar.gz", args.gib)
        size_mb = (folder / "bomb.tar.gz").stat().st_size / 2**20
        for what in args.what.split(","):
            for tree in args.trees.split(","):
                res = _run(tree, what, folder, args.timeout)
                res.update(gib=args.gib, archive_mb=round(size_mb, 1), load=os.getloadavg()[0])
                print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
