"""`duplicates` measured: precision/recall of `near` on a planted set, and time at 10k / 100k passages.

Vectors: real sentences from ../shared/data embedded by the packaged MiniLM (`--embed` writes them in parts
of 1024 under /tmp/searchapp-bench/emb: planted-set sentences, TrecQA answers, then bench_query's corpus), read back
by every other step. Libraries are written through the Store the way a sync writes them (a file of one
sentence is one passage), so the benchmark runs the real `Library.duplicates` on the real HNSW index.

Planted set (never a test fixture): every STS-B train+dev pair with gold >= 4.5 and every MRPC paraphrase
(label 1) becomes two separate files: the pairs to find. Hard negatives are written the same way and must
NOT be paired: STS-B pairs with gold <= 2.0 and MRPC non-paraphrases (label 0, often high word overlap),
plus up to 5,000 unrelated sentences (TrecQA answer candidates, news) as single files. A sentence is used once.
`duplicates` runs once at a low threshold; each threshold's result is the pairs with similarity >= it (the
same set a run at that threshold returns). Every reported pair that is not planted counts as wrong (some
are true repeats in STS-B: precision is a lower bound).

Timing: 100 passages a file, 10 files a folder, the HNSW index built once and saved (not timed). When fewer
real vectors than asked for are embedded yet (or $SEARCHAPP_BENCH_REAL caps them), the rest are mixtures of two random real vectors
(normalised a*u + (1-a)*v, a in [0.3, 0.7]), said in the output. Peer in the same run: exact all-pairs
neighbours (blocked NumPy matmul, same k) on the same vectors, up to --peer-max.

    python tests/benchmarks/bench_duplicates.py --embed          # long: run in the background once
    python tests/benchmarks/bench_duplicates.py --planted
    python tests/benchmarks/bench_duplicates.py --sizes 10000,100000 [--peer-max 20000]
    python tests/benchmarks/bench_duplicates.py --planted --impls before,after
    python tests/benchmarks/bench_duplicates.py --compare LIBRARY_DIR [--threshold 0.8] [--ef 24] [--profile]

--compare: the implementation before batched scoring (duplicates_before.py, ef 48) and the current one, each in
a fresh process on the same library (e.g. bench_million.py --build-only's): wall and CPU seconds, RSS after
open and peak (VmHWM), then whether both report the same pairs. Every line carries CPU flags and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from searchapp.base.config import load_config
from searchapp.library import Library
from _common import cpu_note

DATA = Path(os.environ.get("SEARCHAPP_DATA", "/work/shared/data"))
WORK = Path(os.environ.get("SEARCHAPP_BENCH_DIR", "/tmp/searchapp-bench"))


def load_vectors() -> tuple[list[str], np.ndarray, dict]:
    """Every embedded part so far: texts, (n, dim) unit vectors, and the model's fingerprint and dim."""
    emb = WORK / "emb"
    meta = json.loads((emb / "meta.json").read_text())
    texts: list[str] = []
    vecs = []
    for part in sorted(emb.glob("part-*.npz")):
        z = np.load(part, allow_pickle=False)
        texts += [str(t) for t in z["texts"]]
        vecs.append(z["vectors"])
    return texts, (np.concatenate(vecs) if vecs else np.zeros((0, meta["dim"]), np.float32)), meta


def write_library(data: Path, files: list[tuple[str, list[int]]], texts: list[str], vecs: np.ndarray, meta: dict,
                  mtime_of=None) -> None:
    """files: (path, row numbers of its passages). Written through the Store as a sync would, then the HNSW
    index is built from the stored vectors and saved (not timed)."""
    import hashlib
    import shutil

    from searchapp.store import NewChunk, Store

    shutil.rmtree(data, ignore_errors=True)
    cfg = load_config(data, env={})
    store = Store(data / "library.sqlite")
    with store.atomic():
        root = store.add_root("/" + files[0][0].split("/")[1])
        for i, (path, rows) in enumerate(files):
            body = "\n".join(texts[r] for r in rows)
            mtime = mtime_of(i) if mtime_of else 1
            fid = store.upsert_file(root, path, len(body), mtime, hashlib.sha256(body.encode()).hexdigest(),
                                    "indexed", None, "text", len(rows))
            store.insert_chunks(fid, [NewChunk(o, 0, len(texts[r]), None, texts[r],
                                               hashlib.sha1(texts[r].encode()).hexdigest(), vecs[r])
                                      for o, r in enumerate(rows)])
        m = {"model_fingerprint": meta["fingerprint"], "model": cfg.models.bi_encoder, "pooling": cfg.models.pooling,
             "dim": str(meta["dim"]), "chunk_max_tokens": str(cfg.chunking.max_tokens),
             "chunk_overlap": str(cfg.chunking.overlap)}
        for k, v in m.items():
            store.set_meta(k, v)
        store.bump_generation()
    store.close()
    t0 = time.perf_counter()
    with Library(cfg) as lib:
        lib.index()  # rebuilt from the stored vectors and saved
    print(json.dumps({"bench": "duplicates", "note": "hnsw index built", "passages": sum(len(r) for _, r in files),
                      "seconds": round(time.perf_counter() - t0, 1)}), flush=True)


def run_planted(impl: str = "after") -> None:
    texts, vecs, meta = load_vectors()
    row = {t: i for i, t in enumerate(texts)}
    used: set[str] = set()
    files: list[tuple[str, list[int]]] = []
    pos: set[frozenset[str]] = set()

    def add(a: str, b: str, tag: str) -> None:
        a, b = a.strip(), b.strip()
        if a not in row or b not in row or a in used or b in used or a == b:
            return
        used.update((a, b))
        n = len(files) // 2
        names = (f"/planted/{tag}/{n:05d}-a.txt", f"/planted/{tag}/{n:05d}-b.txt")
        files.extend([(names[0], [row[a]]), (names[1], [row[b]])])
        if tag.endswith("pos"):
            pos.add(frozenset(names))

    for split in ("stsb-train.tsv", "stsb-dev.tsv"):
        for line in (DATA / "sts" / split).read_text(encoding="utf-8").splitlines()[1:]:
            score, a, b = line.split("\t")[:3]
            if float(score) >= 4.5:
                add(a, b, "sts-pos")
            elif float(score) <= 2.0:
                add(a, b, "sts-neg")
    for line in (DATA / "pairs" / "mrpc-train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        label, a, b = line.split("\t")[:3]
        a, b = a.strip('"').replace('""', '"'), b.strip('"').replace('""', '"')
        add(a, b, "mrpc-pos" if label == "1" else "mrpc-neg")
    planted_files = len(files)
    answers = {line.split("\t")[2].strip() for name in ("trecqa-dev.tsv", "trecqa-train.tsv")
               for line in (DATA / "pairs" / name).read_text(encoding="utf-8").splitlines()[1:]}
    others = [i for i, t in enumerate(texts) if t in answers and t not in used][:5000]  # TrecQA answer sentences
    files += [(f"/planted/other/{n:05d}.txt", [i]) for n, i in enumerate(others)]
    data = WORK / "planted-lib"
    if not (data / "files.json").exists() or json.loads((data / "files.json").read_text()) != files:
        write_library(data, files, texts, vecs, meta)
        (data / "files.json").write_text(json.dumps(files))
    with Library(load_config(data, env={})) as lib:
        t0 = time.perf_counter()
        if impl == "before":
            import duplicates_before

            rep = duplicates_before.find_duplicates(lib.reader(), lib.index(), lib.vectors.dim(), threshold=0.6)
        else:
            rep = lib.duplicates(threshold=0.6)
        secs = time.perf_counter() - t0
    found = [(frozenset((p.a, p.b)), p.similarity) for p in rep.near]
    from searchapp.library.search import duplicates

    print(json.dumps({"bench": "duplicates-planted", "impl": impl, "ef": 48 if impl == "before" else duplicates.SEARCH_EF,
                      "planted_pairs": len(pos), "files": len(files),
                      "pair_files": planted_files, "unrelated_files": len(others), "exact_groups": len(rep.exact),
                      "seconds_at_0.6": round(secs, 2)}), flush=True)
    by_source = {"sts": {p for p in pos if "/sts-" in next(iter(p))}, "mrpc": {p for p in pos if "/mrpc-" in next(iter(p))}}
    for t in np.arange(0.70, 0.951, 0.01):
        got = [f for f in found if f[1] >= t - 1e-9]
        names = {f[0] for f in got}
        tp = len(names & pos)
        hard_fp = 0  # a planted non-paraphrase pair (same number, -a/-b, in a *-neg folder) reported
        for f in got:
            x, y = sorted(f[0])
            hard_fp += f[0] not in pos and "-neg/" in x and x[:-6] == y[:-6]
        line = {"bench": "duplicates-planted", "impl": impl, "threshold": round(float(t), 2), "reported": len(got), "tp": tp,
                "precision": round(tp / len(got), 4) if got else None, "recall": round(tp / len(pos), 4),
                # among the pairs with a gold label (planted paraphrase or planted non-paraphrase pair):
                "precision_judged": round(tp / (tp + hard_fp), 4) if tp + hard_fp else None,
                "f1": round(2 * tp / (len(got) + len(pos)), 4), "fp_hard_negative_pairs": int(hard_fp)}
        for name, subset in by_source.items():
            line[f"recall_{name}"] = round(len(names & subset) / len(subset), 4) if subset else None
        print(json.dumps(line), flush=True)


def bench_vectors(n: int) -> tuple[list[str], np.ndarray, dict, int]:
    """n vectors: every real one embedded so far, then mixtures of two real ones. Returns the real count."""
    texts, vecs, meta = load_vectors()
    real = min(n, len(texts), int(os.environ.get("SEARCHAPP_BENCH_REAL", n)))  # pin it while parts are added
    texts, vecs = texts[:real], vecs[:real]
    if real < n:
        rng = np.random.default_rng(0)
        i, j = rng.integers(0, real, n - real), rng.integers(0, real, n - real)
        a = rng.uniform(0.3, 0.7, (n - real, 1)).astype(np.float32)
        mix = a * vecs[i] + (1 - a) * vecs[j]
        mix /= np.linalg.norm(mix, axis=1, keepdims=True)
        texts = texts + [f"{texts[x]} / {texts[y]}" for x, y in zip(i.tolist(), j.tolist(), strict=True)]
        vecs = np.concatenate([vecs, mix.astype(np.float32)])
    return texts, vecs, meta, real


def bench_library(n: int) -> tuple[Path, int, np.ndarray]:
    """A library of n passages, 100 a file, 10 files a folder dir000/…, 1% of the files PDFs."""
    texts, vecs, meta, real = bench_vectors(n)
    data = WORK / f"lib-{n}-{real}"
    if not (data / "vectors.hnsw").exists():
        files = [(f"/bench/dir{(f // 100) // 10:03d}/file{f // 100:05d}.{'pdf' if (f // 100) % 100 == 0 else 'txt'}",
                  list(range(f, min(f + 100, n)))) for f in range(0, n, 100)]
        write_library(data, files, texts, vecs, meta,
                      mtime_of=lambda i: int(time.mktime((2020 + i % 5, 1 + i % 12, 1, 12, 0, 0, 0, 0, -1))) * 10**9)
    return data, real, vecs


def exact_neighbours(vecs: np.ndarray, k: int, block: int = 2048) -> np.ndarray:
    """The peer: exact top-k neighbours of every vector against all (blocked matmul + argpartition)."""
    out = np.empty((len(vecs), k), dtype=np.int64)
    for s in range(0, len(vecs), block):
        sims = vecs[s:s + block] @ vecs.T
        out[s:s + block] = np.argpartition(-sims, k, axis=1)[:, :k]
    return out


def run_timing(sizes: list[int], peer_max: int, threshold: float) -> None:
    for n in sizes:
        data, real, vecs = bench_library(n)
        with Library(load_config(data, env={})) as lib:
            lib.index()
            t0, c0 = time.perf_counter(), time.process_time()
            rep = lib.duplicates(threshold)
            secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        line = {"bench": "duplicates", "n": n, "real_vectors": real, "mixtures": n - real, "threshold": threshold,
                "seconds": round(secs, 2), "cpu_seconds_all_threads": round(cpu, 2),
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


def _status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def run_child(data: Path, impl: str, threshold: float, limit: float, profile: bool) -> None:
    """One implementation in this fresh interpreter: open, run, one JSON line (peak RSS is this process's)."""
    import threading

    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken

    t0 = time.perf_counter()
    with Library(load_config(data, env={})) as lib:
        index = lib.index()
        open_s, rss_open = time.perf_counter() - t0, _status_mb("VmRSS")
        if impl == "before":
            import duplicates_before

            def run(cancel):
                return duplicates_before.find_duplicates(lib.reader(), index, lib.vectors.dim(), threshold=threshold,
                                                         cancel=cancel)
        else:
            def run(cancel):
                return lib.duplicates(threshold, cancel=cancel)
        cancel = CancelToken()
        timer = threading.Timer(limit, cancel.cancel)
        timer.start()
        t0, c0 = time.perf_counter(), time.process_time()
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        try:
            rep = run(cancel)
        except Cancelled:
            rep = None
        if prof is not None:
            import pstats

            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(14)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        timer.cancel()
    from searchapp.library.search import duplicates

    line = {"bench": "duplicates-compare", "impl": impl, "passages": len(index) if index is not None else 0,
            "ef": 48 if impl == "before" else duplicates.SEARCH_EF,
            "threshold": threshold, "open_s": round(open_s, 2), "rss_after_open_mb": rss_open,
            "peak_rss_mb": _status_mb("VmHWM"), "profiled": profile, **cpu_note()}
    if rep is None:
        line.update(seconds=None, cancelled_after_s=limit)
    else:
        line.update(seconds=round(secs, 1), cpu_seconds_all_threads=round(cpu, 1),
                    neighbours_s=round(rep.stats.get("neighbours_ms", 0) / 1000, 1),
                    candidate_file_pairs=rep.stats.get("candidate_pairs"), near_pairs=len(rep.near),
                    pairs=[[p.a, p.b, round(p.similarity, 5)] for p in rep.near])
    print(json.dumps(line), flush=True)


def run_compare(data: Path, impls: list[str], threshold: float, limit: float, profile: bool, ef: int) -> None:
    """Before and after on the same library in the same run, each in a fresh interpreter; then whether they
    report the same pairs (similarities within 1e-4)."""
    import subprocess

    if not (data / "library.sqlite").is_file():
        raise SystemExit(f"{data}: no library.sqlite there")
    got = {}
    for impl in impls:
        cmd = [sys.executable, __file__, "--child", str(data), "--impl", impl, "--threshold", str(threshold),
               "--limit", str(limit)] + (["--profile"] if profile else []) + (["--ef", str(ef)] if ef else [])
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.stderr.strip():
            print(res.stderr, file=sys.stderr)
        lines = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
        if not lines:
            print(json.dumps({"bench": "duplicates-compare", "impl": impl, "failed": res.returncode}), flush=True)
            continue
        line = lines[-1]
        got[impl] = {(a, b): sim for a, b, sim in line.pop("pairs", [])}
        print(json.dumps(line), flush=True)
    if len(got) == 2:
        one, two = (got[i] for i in impls)
        shared = one.keys() & two.keys()
        print(json.dumps({"bench": "duplicates-compare", "same_pairs": one.keys() == two.keys(),
                          "only_" + impls[0]: len(one.keys() - two.keys()), "only_" + impls[1]: len(two.keys() - one.keys()),
                          "max_similarity_difference": round(max((abs(one[k] - two[k]) for k in shared), default=0.0), 6),
                          **cpu_note()}), flush=True)


def embed(part: int = 1024) -> None:
    """Planted-set sentences first, then bench_query's real sentences; resumable, one part at a time."""
    import bench_query
    import torch

    from searchapp.models import BiEncoder

    bench_query.DATA = DATA
    first = []
    for split in ("stsb-train.tsv", "stsb-dev.tsv"):
        for line in (DATA / "sts" / split).read_text(encoding="utf-8").splitlines()[1:]:
            score, a, b = line.split("\t")[:3]
            if float(score) >= 4.5 or float(score) <= 2.0:
                first += [a.strip(), b.strip()]
    for line in (DATA / "pairs" / "mrpc-train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        _, a, b = line.split("\t")[:3]
        first += [a.strip('"').replace('""', '"').strip(), b.strip('"').replace('""', '"').strip()]
    answers = [line.split("\t")[2].strip() for name in ("trecqa-dev.tsv", "trecqa-train.tsv")
               for line in (DATA / "pairs" / name).read_text(encoding="utf-8").splitlines()[1:]]
    texts = list(dict.fromkeys([t for t in first + answers if t] + bench_query.sentences(100000)))
    torch.set_num_threads(2)
    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    out = WORK / "emb"
    out.mkdir(parents=True, exist_ok=True)
    (out / "meta.json").write_text(json.dumps({"fingerprint": enc.fingerprint, "dim": enc.dim}))
    for p, s in enumerate(range(0, len(texts), part)):
        if (out / f"part-{p:04d}.npz").exists():
            continue
        v = enc.encode(texts[s:s + part], batch_size=64)
        np.savez(out / f"tmp-{p:04d}.npz", texts=np.array(texts[s:s + part]), vectors=v)
        (out / f"tmp-{p:04d}.npz").rename(out / f"part-{p:04d}.npz")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embed", action="store_true", help="embed the sentences (parts under WORK/emb)")
    ap.add_argument("--planted", action="store_true", help="precision/recall on the planted set")
    ap.add_argument("--sizes", default="", help="e.g. 10000,100000: time duplicates at these sizes")
    ap.add_argument("--peer-max", type=int, default=20000, help="largest size the exact all-pairs peer runs at")
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--compare", default="", help="a library folder: `duplicates` before and after, same run")
    ap.add_argument("--impls", default="before,after", help="with --compare: which, in this order")
    ap.add_argument("--limit", type=float, default=600, help="with --compare: cancel a run after this many seconds")
    ap.add_argument("--profile", action="store_true", help="with --compare: cProfile's top functions on stderr")
    ap.add_argument("--ef", type=int, default=0, help="the neighbour queries' HNSW ef for `after` (0: the module's)")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    ap.add_argument("--impl", default="after", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ef:
        from searchapp.library.search import duplicates

        duplicates.SEARCH_EF = args.ef
    if args.child or args.compare:
        from searchapp.library.search.duplicates import DEFAULT_THRESHOLD

        threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
        if args.child:
            run_child(Path(args.child), args.impl, threshold, args.limit, args.profile)
        else:
            run_compare(Path(args.compare), args.impls.split(","), threshold, args.limit, args.profile, args.ef)
        return
    if not (args.embed or args.planted or args.sizes):  # `make bench`: everything
        args.embed, args.planted, args.sizes = True, True, "10000,100000"
    if args.embed:
        embed()
    if args.planted:
        for impl in args.impls.split(","):
            run_planted(impl)
    if args.sizes:
        from searchapp.library.search.duplicates import DEFAULT_THRESHOLD

        run_timing([int(s) for s in args.sizes.split(",")], args.peer_max,
                   DEFAULT_THRESHOLD if args.threshold is None else args.threshold)


if __name__ == "__main__":
    main()
