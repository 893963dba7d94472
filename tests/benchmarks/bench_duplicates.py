"""`duplicates` measured: precision/recall of `near` on a planted set, and time at 10k / 100k passages.

Planted set (../shared/data, never a test fixture): every STS-B train+dev pair with gold >= 4.5 and every
MRPC paraphrase (label 1) is written as two separate files: the pairs to find. Hard negatives are written
the same way and must NOT be paired: STS-B pairs with gold <= 2.0 and MRPC non-paraphrases (label 0, often
high word overlap). 500 SciFact abstracts are added as unrelated multi-passage files. A sentence is used
once (repeats would be exact copies). The folder is indexed by the real Library with the packaged MiniLM,
then `duplicates` runs once at a low threshold; each threshold's result is the pairs with similarity >= it
(the same set a run at that threshold returns: a qualifying pair has a passage pair at or above any lower
threshold). Precision counts every reported pair that is not planted as wrong (some are real repeats in
STS-B: precision is a lower bound).

Timing: real sentences embedded by MiniLM (bench_query's corpus, cached under /tmp/searchapp-bench), 100
passages a file, written through the Store; the HNSW index is built once and saved (not timed). Peer in the
same run: exact all-pairs neighbours (blocked NumPy matmul, same k) on the same vectors.

    python tests/benchmarks/bench_duplicates.py --planted
    python tests/benchmarks/bench_duplicates.py --sizes 10000,100000 [--peer-max 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from searchapp.base.config import load_config  # noqa: E402
from searchapp.library import Library  # noqa: E402

DATA = Path(os.environ.get("SEARCHAPP_DATA", "/work/shared/data"))
WORK = Path(os.environ.get("SEARCHAPP_BENCH_DIR", "/tmp/searchapp-bench"))


def planted_folder(root: Path) -> tuple[set[frozenset[str]], int]:
    """Write the planted set under root; returns the planted pairs (as file-name pairs) and the file count."""
    used: set[str] = set()
    pos: set[frozenset[str]] = set()
    n = 0

    def write(a: str, b: str, tag: str) -> tuple[str, str] | None:
        nonlocal n
        a, b = a.strip(), b.strip()
        if not a or not b or a in used or b in used or a == b:
            return None
        used.update((a, b))
        names = (f"{tag}-{n:05d}-a.txt", f"{tag}-{n:05d}-b.txt")
        for name, text in zip(names, (a, b)):
            (root / tag / name).write_text(text + "\n", encoding="utf-8")
        n += 1
        return names

    for tag in ("sts-pos", "sts-neg", "mrpc-pos", "mrpc-neg", "scifact"):
        (root / tag).mkdir(parents=True, exist_ok=True)
    for split in ("stsb-train.tsv", "stsb-dev.tsv"):
        for line in (DATA / "sts" / split).read_text(encoding="utf-8").splitlines()[1:]:
            score, a, b = line.split("\t")[:3]
            if float(score) >= 4.5 and (names := write(a, b, "sts-pos")):
                pos.add(frozenset(names))
            elif float(score) <= 2.0:
                write(a, b, "sts-neg")
    for line in (DATA / "pairs" / "mrpc-train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        label, a, b = line.split("\t")[:3]
        a, b = a.strip('"').replace('""', '"'), b.strip('"').replace('""', '"')
        if label == "1" and (names := write(a, b, "mrpc-pos")):
            pos.add(frozenset(names))
        elif label == "0":
            write(a, b, "mrpc-neg")
    files = 2 * n
    for i, line in enumerate((DATA / "ir" / "scifact-train" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:500]):
        doc = json.loads(line)
        (root / "scifact" / f"abstract-{i:04d}.txt").write_text(doc["title"] + "\n\n" + doc["text"], encoding="utf-8")
        files += 1
    return pos, files


def run_planted() -> None:
    root = WORK / "planted"
    docs, data = root / "docs", root / "lib"
    if not (root / "pairs.json").exists():
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        pos, files = planted_folder(docs)
        cfg = load_config(data, env={})
        t0 = time.perf_counter()
        with Library(cfg) as lib:
            lib.add_folder(docs)
        print(json.dumps({"bench": "duplicates-planted", "note": "indexed", "files": files,
                          "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
        (root / "pairs.json").write_text(json.dumps([sorted(p) for p in pos]))
    pos = {frozenset(p) for p in json.loads((root / "pairs.json").read_text())}
    cfg = load_config(data, env={})
    with Library(cfg) as lib:
        t0 = time.perf_counter()
        rep = lib.duplicates(threshold=0.6)
        secs = time.perf_counter() - t0
        chunks = lib.reader().chunk_count()
    found = [(frozenset((Path(p.a).name, Path(p.b).name)), p.similarity, Path(p.a).parent.name, Path(p.b).parent.name)
             for p in rep.near]
    print(json.dumps({"bench": "duplicates-planted", "planted_pairs": len(pos), "passages": chunks,
                      "exact_groups": len(rep.exact), "seconds_at_0.6": round(secs, 2)}), flush=True)
    by_source = {"sts": {p for p in pos if next(iter(p)).startswith("sts")},
                 "mrpc": {p for p in pos if next(iter(p)).startswith("mrpc")}}
    for t in np.arange(0.70, 0.96, 0.01):
        got = [f for f in found if f[1] >= t - 1e-9]
        names = {f[0] for f in got}
        tp = len(names & pos)
        hard_fp = 0  # a planted non-paraphrase pair (same number, -a/-b, in a *-neg folder) reported
        for f in got:
            x, y = sorted(f[0])
            hard_fp += f[0] not in pos and "-neg-" in x and x[:-6] == y[:-6]
        line = {"bench": "duplicates-planted", "threshold": round(float(t), 2), "reported": len(got), "tp": tp,
                "precision": round(tp / len(got), 4) if got else None, "recall": round(tp / len(pos), 4),
                "f1": round(2 * tp / (len(got) + len(pos)), 4), "fp_hard_negative_pairs": hard_fp}
        for name, subset in by_source.items():
            line[f"recall_{name}"] = round(len(names & subset) / len(subset), 4) if subset else None
        print(json.dumps(line), flush=True)


def embedded(n: int):
    import bench_query

    bench_query.CACHE = WORK / "cache"
    bench_query.DATA = DATA
    from searchapp.models import BiEncoder

    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    texts, vecs = bench_query.embedded(n, enc)
    return texts, vecs, enc


def bench_library(n: int, texts, vecs, enc) -> Path:
    """A library of n real passages, 100 a file, in 100-file folders dir000/…, its HNSW index built and saved."""
    import hashlib

    from searchapp.store import NewChunk, Store

    data = WORK / f"lib-{n}"
    cfg = load_config(data, env={})
    if (data / "vectors.hnsw").exists():
        return data
    import shutil

    shutil.rmtree(data, ignore_errors=True)
    store = Store(data / "library.sqlite")
    with store.atomic():
        root = store.add_root("/bench")
        for f in range(0, n, 100):
            i = f // 100
            ext = "pdf" if i % 100 == 0 else "txt"  # 1% of the files are PDFs
            mtime = int(time.mktime((2020 + i % 5, 1 + i % 12, 1, 12, 0, 0, 0, 0, -1))) * 10**9
            fid = store.upsert_file(root, f"/bench/dir{i // 10:03d}/file{i:05d}.{ext}", 1, mtime, f"sha{i}",
                                    "indexed", None, "text", min(100, n - f))
            store.insert_chunks(fid, [NewChunk(j - f, 0, len(texts[j]), None, texts[j],
                                               hashlib.sha1(texts[j].encode()).hexdigest(), vecs[j])
                                      for j in range(f, min(f + 100, n))])
        meta = {"model_fingerprint": enc.fingerprint, "model": cfg.models.bi_encoder, "pooling": cfg.models.pooling,
                "dim": str(enc.dim), "chunk_max_tokens": str(cfg.chunking.max_tokens),
                "chunk_overlap": str(cfg.chunking.overlap)}
        for k, v in meta.items():
            store.set_meta(k, v)
        store.bump_generation()
    store.close()
    t0 = time.perf_counter()
    with Library(cfg, encoder=enc) as lib:
        lib.index()  # rebuilt from the stored vectors and saved
    print(json.dumps({"bench": "duplicates", "n": n, "note": "hnsw index built", "seconds": round(time.perf_counter() - t0, 1)}),
          flush=True)
    return data


def exact_neighbours(vecs: np.ndarray, k: int, block: int = 2048) -> np.ndarray:
    """The peer: exact top-k neighbours of every vector against all (blocked matmul + argpartition)."""
    out = np.empty((len(vecs), k), dtype=np.int64)
    for s in range(0, len(vecs), block):
        sims = vecs[s:s + block] @ vecs.T
        out[s:s + block] = np.argpartition(-sims, k, axis=1)[:, :k]
    return out


def run_timing(sizes: list[int], peer_max: int, threshold: float) -> None:
    texts, vecs, enc = embedded(max(sizes))
    for n in sizes:
        if n > len(texts):
            print(json.dumps({"bench": "duplicates", "n": n, "skipped": f"only {len(texts)} passages cached"}))
            continue
        data = bench_library(n, texts, vecs, enc)
        with Library(load_config(data, env={}), encoder=enc) as lib:
            lib.index()
            t0 = time.perf_counter()
            rep = lib.duplicates(threshold)
            secs = time.perf_counter() - t0
        line = {"bench": "duplicates", "n": n, "threshold": threshold, "seconds": round(secs, 2),
                "neighbours_s": round(rep.stats.get("neighbours_ms", 0) / 1000, 2),
                "candidate_file_pairs": rep.stats.get("candidate_pairs"), "near_pairs": len(rep.near),
                "limit_s": 120, "cpu_note": "2 shared cores, no AVX-512 BF16"}
        if n <= peer_max:
            t0 = time.perf_counter()
            exact_neighbours(vecs[:n], 11)
            peer = time.perf_counter() - t0
            line.update(peer="exact all-pairs top-11 (NumPy)", peer_seconds=round(peer, 2),
                        speedup_vs_peer=round(peer / secs, 2))
        print(json.dumps(line), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--planted", action="store_true", help="precision/recall on the planted set")
    ap.add_argument("--sizes", default="", help="e.g. 10000,100000: time duplicates at these sizes")
    ap.add_argument("--peer-max", type=int, default=20000, help="largest size the exact all-pairs peer runs at")
    ap.add_argument("--threshold", type=float, default=None)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(2)
    if args.planted:
        run_planted()
    if args.sizes:
        from searchapp.library.duplicates import DEFAULT_THRESHOLD

        run_timing([int(s) for s in args.sizes.split(",")], args.peer_max,
                   DEFAULT_THRESHOLD if args.threshold is None else args.threshold)


if __name__ == "__main__":
    main()
