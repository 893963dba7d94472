"""Where a sync's time goes: cProfile of `Library.add_folder` on SciFact-train abstracts written as files.

    python tests/benchmarks/bench_sync_profile.py [--limit 300] [--src /work/main] [--threads 2]

`--src` imports searchapp from another tree (e.g. `main`, for a before/after in the same run). Prints one
JSON line: passages/s and the share of wall time (cumulative, cProfile) spent chunking, tokenizing, in the
model forward and in SQLite. The profile's own overhead inflates the Python-heavy parts (chunking) a little.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[2]
DATA = next((d for d in (REPO.parent / "shared" / "data", Path("/work/shared/data")) if d.is_dir()), REPO.parent / "shared" / "data")

# Functions whose cumulative time makes up each share (matched on "file:function" substrings).
PARTS = {
    "chunking": ("chunking.py:chunk_document",),
    "encode": ("bi_encoder.py:encode", "passage_vectors.py:encode"),  # the first: a tree from before the split
    "model_forward": ("bi_encoder.py:_forward", "bi_encoder_forward.py:_forward"),
    "sqlite_commit": ("store/passage_records.py:insert_chunks", "store/file_records.py:upsert_file", "store/db.py:atomic",
                      "store/db.py:insert_chunks", "store/db.py:upsert_file"),  # the last two: a tree from before the split
    "hnsw_add": ("ann/hnsw.py:add",),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(DATA / "ir" / "scifact-train"))
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--src", default=str(REPO), help="source tree whose searchapp is measured")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--no-profile", action="store_true", help="time only (no cProfile overhead)")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.src).resolve()))
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from searchapp.base.config import load_config
    from searchapp.datasets.beir import load_beir
    from searchapp.evaluation.ir import write_corpus
    from searchapp.library import Library

    coll = load_beir(Path(args.corpus), split="test" if (Path(args.corpus) / "qrels" / "test.tsv").exists() else "train")
    coll.corpus = dict(list(coll.corpus.items())[: args.limit])
    with tempfile.TemporaryDirectory(prefix="bench-sync-profile-") as tmp:
        folder = Path(tmp) / "corpus"
        write_corpus(coll, folder)
        cfg = load_config(Path(tmp) / "lib", env={})
        lib = Library(cfg)
        lib.models.encoder.encode(["warm up the model and its first-call allocations"])
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        if args.no_profile:
            rep = lib.add_folder(folder)
        else:
            rep = prof.runcall(lib.add_folder, folder)
        wall = time.perf_counter() - t0
        lib.close()
    row = {"bench": "sync_profile", "src": str(Path(args.src).resolve()), "files": rep.added,
           "passages": rep.chunks_added, "seconds": round(wall, 2),
           "passages_per_s": round(rep.chunks_added / wall, 2), "torch_threads": torch.get_num_threads(),
           "profiled": not args.no_profile}
    if not args.no_profile:
        stats = pstats.Stats(prof, stream=io.StringIO())
        cum: dict[str, float] = {}
        for (filename, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
            key = f"{filename.replace(os.sep, '/')}:{func}"
            for part, names in PARTS.items():
                if any(key.endswith(n) for n in names):
                    cum[part] = cum.get(part, 0.0) + ct
        total = sum(v[3] for k, v in stats.stats.items() if k[2] == "add_folder")  # type: ignore[attr-defined]
        for part in PARTS:
            row[f"share_{part}"] = round(cum.get(part, 0.0) / total, 3) if total else None
    print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
