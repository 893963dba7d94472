"""A branch switched and switched back in a developer's tree (decision 0187): passages embedded, and seconds, at
each of three syncs of the same folder, with the folder a git working tree (its deleted passages' vectors go on
the shelf) and without (a deleted file's meaning goes with it: what every folder had before 0187).

    python tests/benchmarks/bench_branch_switch.py [--files 50] [--switched 20]

The folder: `--files` SciFact abstracts (title + text), one per file. Sync 1 indexes it; then `--switched` of its
files get another abstract each (the other branch) and half of those are deleted instead, sync 2; then all are
put back as they were, sync 3. One JSON line a way (`git`, `plain`): `embedded` and `seconds` of each sync and
`shelved` after each; the packaged MiniLM on the CPU, in-process, the CPU's flags and load with it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from searchapp.base.config import load_config
from searchapp.library import Library
from _common import emit
from bench_words_first import CORPUS


def texts(n: int) -> list[str]:
    out = []
    with CORPUS.open(encoding="utf-8") as lines:
        for line in lines:
            if len(out) >= n:
                break
            doc = json.loads(line)
            out.append(f"{doc.get('title', '')}\n\n{doc['text']}\n")
    return out


def timed_sync(lib: Library, folder: Path, first: bool) -> tuple[int, float]:
    start = time.perf_counter()
    rep = lib.add_folder(folder) if first else lib.sync()
    return rep.chunks_embedded, round(time.perf_counter() - start, 2)


def one_way(tmp: Path, way: str, files: int, switched: int, corpus: list[str]) -> dict:
    folder = tmp / way / "tree"
    folder.mkdir(parents=True)
    if way == "git":
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
    paths = [folder / f"{i:03d}.txt" for i in range(files)]
    for path, text in zip(paths, corpus, strict=False):
        path.write_text(text, encoding="utf-8")
    config = load_config(tmp / way / "data", env={}, overrides={"models": {"reranker": ""}})
    lib = Library(config)
    row: dict = {"way": way, "files": files, "switched": switched, "embedded": [], "seconds": [], "shelved": []}
    try:
        for step in range(3):
            if step == 1:  # the other branch: files with other text, half of them not there at all
                for i, path in enumerate(paths[:switched]):
                    if i % 2:
                        path.unlink()
                    else:
                        path.write_text(corpus[files + i], encoding="utf-8")
            elif step == 2:  # back
                for path, text in zip(paths[:switched], corpus, strict=False):
                    path.write_text(text, encoding="utf-8")
            embedded, seconds = timed_sync(lib, folder, step == 0)
            row["embedded"].append(embedded)
            row["seconds"].append(seconds)
            row["shelved"].append(lib.store.shelved_count())
    finally:
        lib.close()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--switched", type=int, default=20)
    args = ap.parse_args()
    corpus = texts(args.files + args.switched)
    with tempfile.TemporaryDirectory() as name:
        for way in ("plain", "git"):
            emit(one_way(Path(name), way, args.files, args.switched, corpus), add_cpu_note=True)


if __name__ == "__main__":
    main()
