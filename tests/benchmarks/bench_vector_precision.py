"""What lower precision costs in retrieval quality: nDCG@10 x 100 on held-out sets
(Cranfield, SciFact-sub) for the same collection indexed three ways, in one run:

- fp32:  passages and queries encoded by MiniLM in float32, vectors stored float32 (the reference);
- fp16-stored: the fp32 library's stored vectors rounded to float16 and back (what float16 BLOBs in SQLite
         would give), HNSW index rebuilt from them; queries fp32;
- bf16:  passages and queries encoded with the app's bf16 path (precision "bf16": mixed bf16 matmuls, what
         "auto" picks on a CPU with AVX-512 BF16 / AMX), stored float32;
- bf16-all: passages encoded with every weight in bf16 (LayerNorm, softmax and residual stream included;
         bench_passage_paths.all_bf16), queries fp32 (the path a person's queries take: ONNX Runtime or
         NumPy fp32). Also the min cosine of its passage vectors to the fp32 library's;
- bf16-passages: passages with the app's mixed bf16, queries fp32: what a warm process runs now.

Scored as bench_quality scores them: "shown" = the default search top 10 read as a ranking of files,
"eval_ir" = every passage candidate (k = 200), files by first passage. Modes dense and hybrid (lexical does
not use vectors). Also the library size with float32 vs float16 BLOBs (after VACUUM) and encode passages/s
for fp32 vs bf16 on the same passages. Cached under /tmp/searchapp-bench-precision.

    python tests/benchmarks/bench_vector_precision.py [--collections cranfield,scifact-sub,trecqa]
        [--variants fp16-stored,bf16,bf16-all,bf16-passages] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import numpy as np

import bench_quality
from _common import cpu_note

CACHE = Path(os.environ.get("SEARCHAPP_BENCH_PRECISION", "/tmp/searchapp-bench-precision"))
MODES = ("dense", "hybrid")


def build(name: str, precision: str, encoder) -> tuple[object, dict, Path, float]:
    """The collection indexed with `encoder`; returns (collection, doc_of, library dir, embed seconds)."""
    from searchapp.library import Library

    bench_quality.CACHE = CACHE
    coll = bench_quality.load_collection(name)
    root = CACHE / name
    corpus = root / "corpus-md"
    if not (root / "corpus-md.done").exists():
        from searchapp.evaluation.ir import write_corpus

        (root / "doc_of-md.json").parent.mkdir(parents=True, exist_ok=True)
        (root / "doc_of-md.json").write_text(json.dumps(write_corpus(coll, corpus)))
        (root / "corpus-md.done").write_text("")
    doc_of = json.loads((root / "doc_of-md.json").read_text())
    lib_dir = root / f"library-{precision}"
    t0 = time.perf_counter()
    with Library(bench_quality.bench_config(lib_dir), encoder=encoder) as lib:
        rep = lib.add_folder(corpus)
        passages = lib.reader().chunk_count()
    secs = time.perf_counter() - t0
    if rep.chunks_embedded:
        print(json.dumps({"bench": "vector_precision", "collection": name, "precision": precision,
                          "stage": "indexed", "passages": passages, "embedded": rep.chunks_embedded,
                          "seconds": round(secs, 1), "passages_per_s": round(rep.chunks_embedded / secs, 1),
                          **cpu_note()}), flush=True)
    return coll, doc_of, lib_dir, secs


def fp16_copy(src: Path, dst: Path) -> tuple[float, float]:
    """A copy of library `src` whose vectors went through float16; returns (MB float32, MB float16) after
    VACUUM of a float32 copy and of a copy with 2-byte BLOBs (the size float16 storage would have)."""
    shutil.rmtree(dst, ignore_errors=True)
    dst.mkdir(parents=True)
    con = sqlite3.connect(src / "library.sqlite")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copy(src / "library.sqlite", dst / "library.sqlite")
    size = {}
    for kind in ("f32", "f16"):
        probe = dst / f"size-{kind}.sqlite"
        shutil.copy(src / "library.sqlite", probe)
        con = sqlite3.connect(probe)
        if kind == "f16":
            rows = con.execute("SELECT id, vector FROM chunks").fetchall()
            con.executemany("UPDATE chunks SET vector = ? WHERE id = ?",
                            [(np.frombuffer(v, np.float32).astype(np.float16).tobytes(), i) for i, v in rows])
            con.commit()
        con.execute("VACUUM")
        con.close()
        size[kind] = probe.stat().st_size / 2**20
        probe.unlink()
    con = sqlite3.connect(dst / "library.sqlite")
    rows = con.execute("SELECT id, vector FROM chunks").fetchall()
    con.executemany("UPDATE chunks SET vector = ? WHERE id = ?",  # rounded, stored back as float32 for the app
                    [(np.frombuffer(v, np.float32).astype(np.float16).astype(np.float32).tobytes(), i) for i, v in rows])
    con.commit()
    con.close()
    return size["f32"], size["f16"]  # no vectors.hnsw in dst: the Library rebuilds it from the rounded vectors


def min_cosine(a: Path, b: Path) -> float:
    """The lowest cosine between the same passage's vectors in two libraries of one corpus (matched by text)."""
    def vectors(lib: Path) -> dict[str, np.ndarray]:
        con = sqlite3.connect(f"file:{lib / 'library.sqlite'}?mode=ro", uri=True)
        try:
            return {t: np.frombuffer(v, np.float32) for t, v in con.execute("SELECT text, vector FROM chunks") if v}
        finally:
            con.close()

    va, vb = vectors(a), vectors(b)
    return round(min(float(va[t] @ vb[t]) for t in va.keys() & vb.keys()), 6)


def score(lib_dir: Path, encoder, coll, doc_of: dict) -> dict:
    from searchapp.library import Library

    queries = {q: t for q, t in coll.queries.items() if q in coll.qrels}
    out = {}
    with Library(bench_quality.bench_config(lib_dir), encoder=bench_quality.QueryCache(encoder)) as lib:
        for mode in MODES:
            full, shown, _ = bench_quality.product_runs(lib, queries, doc_of, mode, True)
            out[mode] = {"shown": bench_quality.ndcg10(shown, coll.qrels), "eval_ir": bench_quality.ndcg10(full, coll.qrels),
                         "queries": len(queries)}
    return out


def speed(enc: dict, n: int, repeats: int) -> None:
    """fp32 vs bf16 passages/s on the same chunk-sized passages (bench_encode's set), runs interleaved and
    the best kept: the cores are shared, so only a same-run ratio means anything."""
    import bench_encode

    texts = bench_encode.load_passages(n, enc["fp32"])
    for e in enc.values():
        e.encode(texts[:8])  # warm-up
    best = {k: float("inf") for k in enc}
    for _ in range(repeats):
        for k, e in enc.items():
            t0 = time.perf_counter()
            e.encode(texts)
            best[k] = min(best[k], time.perf_counter() - t0)
    print(json.dumps({"bench": "vector_precision", "speed": "encode", "passages": len(texts),
                      **{f"{k}_passages_per_s": round(len(texts) / v, 2) for k, v in best.items()},
                      "bf16_vs_fp32": round(best["fp32"] / best["bf16"], 2), **cpu_note()}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collections", default="cranfield,scifact-sub")
    ap.add_argument("--speed", type=int, default=0, help="also time fp32 vs bf16 on this many passages")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--variants", default="fp16-stored,bf16", help="besides fp32: fp16-stored, bf16, bf16-all, bf16-passages")
    ap.add_argument("--threads", type=int, default=2, help="encoding threads (1 is faster on a loaded machine)")
    args = ap.parse_args()
    variants = set(args.variants.split(","))
    import torch
    from bench_passage_paths import all_bf16

    from searchapp.models import BiEncoder

    torch.set_num_threads(args.threads)
    enc = {"fp32": BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32", threads=args.threads),
           "bf16": BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="bf16", threads=args.threads)}
    auto = BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="auto")
    print(json.dumps({"bench": "vector_precision", "auto_picks": str(auto.dtype), **cpu_note()}), flush=True)
    if args.speed:
        speed(enc, args.speed, 2)
    if args.speed_only:
        return
    names = args.collections.split(",")
    ref: dict[str, dict] = {}

    def report(name: str, variant: str, per_mode: dict) -> None:
        for mode, f in per_mode.items():
            r = ref[name][mode]
            print(json.dumps({"bench": "vector_precision", "collection": name, "variant": variant, "mode": mode,
                              "queries": f["queries"], "ndcg10_shown": f["shown"], "ndcg10_eval_ir": f["eval_ir"],
                              "loss_shown_vs_fp32": round(r["shown"] - f["shown"], 2),
                              "loss_eval_ir_vs_fp32": round(r["eval_ir"] - f["eval_ir"], 2), **cpu_note()}), flush=True)

    # fp32 and float16-stored first (no encoding beyond the fp32 library), then bf16 (a second encoding).
    for name in names:
        coll, doc_of, lib32, _ = build(name, "fp32", enc["fp32"])
        ref[name] = score(lib32, enc["fp32"], coll, doc_of)
        report(name, "fp32", ref[name])
        if "fp16-stored" in variants:
            mb32, mb16 = fp16_copy(lib32, CACHE / name / "library-fp16stored")
            report(name, "fp16-stored", score(CACHE / name / "library-fp16stored", enc["fp32"], coll, doc_of))
            print(json.dumps({"bench": "vector_precision", "collection": name, "sqlite_mb_float32_blobs": round(mb32, 2),
                              "sqlite_mb_float16_blobs": round(mb16, 2), "ratio": round(mb16 / mb32, 3),
                              **cpu_note()}), flush=True)
    for name in names:
        if "bf16" in variants:
            coll, doc_of, lib16b, _ = build(name, "bf16", enc["bf16"])
            report(name, "bf16", score(lib16b, enc["bf16"], coll, doc_of))
        passage_variants = {
            "bf16-all": lambda: all_bf16(BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32",
                                                   threads=args.threads), layernorm_fp32=False),
            "bf16-passages": lambda: enc["bf16"],
        }
        for variant, passages in passage_variants.items():
            if variant not in variants:
                continue
            coll, doc_of, lib_v, _ = build(name, variant, passages())
            report(name, variant, score(lib_v, enc["fp32"], coll, doc_of))  # queries fp32, as a person's
            print(json.dumps({"bench": "vector_precision", "collection": name, "variant": variant,
                              "min_cosine_passages_vs_fp32": min_cosine(CACHE / name / "library-fp32", lib_v),
                              **cpu_note()}), flush=True)

if __name__ == "__main__":
    main()
