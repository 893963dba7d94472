"""Words first, meaning in the background (issue 20.1): seconds until a folder of small text files is
searchable by words (phase 1 alone), phase 2's passages/s on a sample, and the old one-phase time until
everything is searchable (every passage embedded as the sync goes), extrapolated from those passages/s.

    python tests/benchmarks/bench_words_first.py [--files 10000] [--sample 256]

Files: scifact-train corpus texts (title + abstract), one per file, reused with a numbered line when more
files are asked for than the corpus has (so no two files are the same text). The real packaged MiniLM
tokenizer chunks them. Prints one JSON line per result, with the CPU's bf16 flag and the load average.
Goal: 10,000 files searchable by words in <= 60 s on the 2-core dev machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from searchapp.base.config import load_config  # noqa: E402
from searchapp.library import Library  # noqa: E402
from searchapp.library.sync.meaning_pass import embed_pending  # noqa: E402

DATA = next((d for d in (REPO.parent / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            REPO.parent / "shared" / "data")
CORPUS = DATA / "ir" / "scifact-train" / "corpus.jsonl"


def machine() -> dict:
    flag = subprocess.run("grep -o avx512_bf16 /proc/cpuinfo | head -1", shell=True, capture_output=True,
                          text=True).stdout.strip()
    return {"cpu_bf16": flag or "none", "loadavg": [round(x, 2) for x in os.getloadavg()], "cores": os.cpu_count()}


def write_files(folder: Path, n: int) -> None:
    docs = [json.loads(line) for line in open(CORPUS, encoding="utf-8")]
    folder.mkdir(parents=True)
    for i in range(n):
        d = docs[i % len(docs)]
        copy = ""
        if i >= len(docs):  # a reused text with its sentences rotated: passages differ, no vector is shared
            parts = d.get("text", "").split(". ")
            k = 1 + (i // len(docs)) % max(1, len(parts) - 1)
            d = {"title": f"{d.get('title', '')} (copy {i // len(docs)})", "text": ". ".join(parts[k:] + parts[:k])}
        sub = folder / f"d{i // 1000:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc-{i:05d}.txt").write_text(f"{d.get('title', '')}\n\n{d.get('text', '')}{copy}", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--sample", type=int, default=256, help="passages embedded to measure phase 2's rate")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        write_files(folder, args.files)
        config = load_config(Path(tmp) / "lib", env={}, overrides={"models": {"reranker": ""}})
        with Library(config) as lib:
            lib.encoder.token_offsets("warm up")  # loading the tokenizer/model is not part of the sync
            at = machine()
            t0 = time.perf_counter()
            rep = lib.add_folder(folder, embed=False)
            words_s = time.perf_counter() - t0
            passages = lib.store.chunk_count()
            found = len(lib.search("diffusion tensor white matter", mode="lexical").hits)
            print(json.dumps({"bench": "words_first", "result": "phase1_words", "files": rep.added,
                              "passages": passages, "seconds": round(words_s, 2),
                              "files_per_s": round(rep.added / words_s, 1), "lexical_hits": found, **at}))

            at = machine()
            encoder = lib.models.passage_encoder()
            encoder.encode(["warm up"])
            t0 = time.perf_counter()
            with lib._writing():  # what Library.sync's phase 2 runs, stopped after the sample
                embedded = embed_pending(lib.store, encoder, lib.vectors, batch=64, limit=args.sample)
            embed_s = time.perf_counter() - t0
            rate = embedded / embed_s
            print(json.dumps({"bench": "words_first", "result": "phase2_meaning", "passages": embedded,
                              "seconds": round(embed_s, 2), "passages_per_s": round(rate, 1), **at}))
            # The old sync committed a file's words only with its vectors: everything was searchable once
            # every passage was embedded (reading and chunking interleaved: phase 1's cost plus the embedding).
            old_s = words_s + passages / rate
            print(json.dumps({"bench": "words_first", "result": "time_to_all_searchable_by_words",
                              "new_s": round(words_s, 1), "old_one_phase_s_extrapolated": round(old_s, 1),
                              "ratio_old_vs_new": round(old_s / words_s, 1), **machine()}))


if __name__ == "__main__":
    main()
