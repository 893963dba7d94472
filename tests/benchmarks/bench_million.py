"""A library of up to a million passages (issue 20, item 2): build without the model, size on disk, open time,
RSS after open, query p50/p95 (dense, hybrid, filtered), `similar` and `duplicates` time.

Passages: real sentences (bench_query.sentences); the first --real are embedded by the packaged MiniLM, every
other passage is "<sentence x> / <sentence y>" with the normalised mixture a*v_x + (1-a)*v_y (a in [0.3, 0.7])
as its vector: real text and real-looking neighbourhoods without embedding a million passages on a shared CPU
(bench_duplicates' trick). 100 passages a file, 10 files a folder, 1% of the files PDFs. Rows are written
through the Store in transactions of --batch passages; the HNSW index is then built from the stored vectors by
the Library (IndexKeeper.rebuild_index, as a repair would) and saved. Both steps are timed.

Measurement runs in a fresh interpreter (`--measure DIR`) so RSS is the library's, not the build's: RSS after
imports, after Library(...) + index load ("open"), the index file size (the HNSW graph in memory holds every
vector in float32 plus its links: about the file's size), then query latency with query vectors encoded up
front (retrieval only; the model's own ~0.3 GB is not in these RSS figures and is said so).

    python tests/benchmarks/bench_million.py --n 250000                 # build (cached) + measure
    python tests/benchmarks/bench_million.py --n 1000000 --real 2000    # the full million: ~15 min build, run in background
(--pool: how many distinct real sentences passage text is drawn from; --dup-limit: cancel `duplicates` after N s)
One JSON line per result; every line carries the CPU flags and the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

WORK = Path(os.environ.get("SEARCHAPP_BENCH_DIR", "/tmp/searchapp-bench")) / "million"
DATA = Path(os.environ.get("SEARCHAPP_DATA", "/work/shared/data"))
PER_FILE, FILES_PER_DIR = 100, 10


def cpu_note() -> dict:
    flags = Path("/proc/cpuinfo").read_text().split("flags")[1].split("\n")[0]
    have = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f" {f}" in flags]
    return {"cpu_flags": have, "cores": os.cpu_count(), "load_avg": [round(x, 2) for x in os.getloadavg()]}


def emit(**row) -> None:
    print(json.dumps({"bench": "million", **row, **cpu_note()}), flush=True)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def real_vectors(real: int) -> tuple[list[str], np.ndarray, dict]:
    """The first `real` distinct sentences and their MiniLM vectors (fp32), cached."""
    import bench_query

    path = WORK / f"real-{real}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        meta = json.loads(str(z["meta"]))
        return [str(t) for t in z["texts"]], z["vectors"], meta
    from searchapp.models import BiEncoder

    bench_query.DATA = DATA
    texts = bench_query.sentences(real)
    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32")
    t0 = time.perf_counter()
    vecs = enc.encode(texts, batch_size=64).astype(np.float32)
    emit(note="embedded real sample", real=len(texts), seconds=round(time.perf_counter() - t0, 1))
    meta = {"fingerprint": enc.fingerprint, "dim": enc.dim}
    WORK.mkdir(parents=True, exist_ok=True)
    np.savez(path, texts=np.array(texts), vectors=vecs, meta=np.array(json.dumps(meta)))
    return texts, vecs, meta


def file_path(f: int) -> str:
    ext = "pdf" if f % 100 == 0 else "txt"
    return f"/bench/dir{f // FILES_PER_DIR:04d}/file{f:06d}.{ext}"


def text_pool(size: int) -> list[str]:
    """Distinct real sentences for passage text; the embedded sample is its first --real (same order)."""
    import bench_query

    bench_query.DATA = DATA
    return bench_query.sentences(size)


def passages(start: int, stop: int, texts: list[str], vecs: np.ndarray, pool: list[str]) -> tuple[list[str], np.ndarray]:
    """Passages start..stop-1: real ones first, then mixtures (seeded by `start`: the same on every build).
    A mixture's text is two sentences drawn from the whole pool (a vocabulary as wide as real text: drawn
    from the embedded sample alone, every query word would match ~1/real of the library and BM25 would
    measure an artefact); its vector mixes two embedded sentences, drawn first so vectors never change."""
    real = len(texts)
    out_t, out_v = [], []
    if start < real:
        out_t += texts[start:min(stop, real)]
        out_v.append(vecs[start:min(stop, real)])
    lo = max(start, real)
    if lo < stop:
        rng = np.random.default_rng(lo)
        i, j = rng.integers(0, real, stop - lo), rng.integers(0, real, stop - lo)
        a = rng.uniform(0.3, 0.7, (stop - lo, 1)).astype(np.float32)
        mix = a * vecs[i] + (1 - a) * vecs[j]
        mix /= np.linalg.norm(mix, axis=1, keepdims=True)
        x, y = rng.integers(0, len(pool), stop - lo), rng.integers(0, len(pool), stop - lo)
        out_t += [f"{pool[u]} / {pool[w]}" for u, w in zip(x.tolist(), y.tolist())]
        out_v.append(mix.astype(np.float32))
    return out_t, np.concatenate(out_v)


def build(n: int, real: int, batch: int, pool_size: int) -> Path:
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.store import NewChunk, Store

    data = WORK / f"lib-{n}-{real}-pool{pool_size}"
    if (data / "vectors.hnsw").exists() and (data / "built.json").exists():
        return data
    texts, vecs, meta = real_vectors(real)
    pool = text_pool(pool_size)
    assert pool[:real] == texts, "the embedded sample must be the pool's first sentences"
    shutil.rmtree(data, ignore_errors=True)
    cfg = load_config(data, env={})
    store = Store(data / "library.sqlite")
    t0 = time.perf_counter()
    root = None
    for s in range(0, n, batch):  # batch is a multiple of PER_FILE: a file never spans two transactions
        t, v = passages(s, min(s + batch, n), texts, vecs, pool)
        with store.atomic():
            root = root or store.add_root("/bench")
            for off in range(0, len(t), PER_FILE):
                f = (s + off) // PER_FILE
                body = "\n".join(t[off:off + PER_FILE])
                mtime = int(time.mktime((2020 + f % 5, 1 + f % 12, 1, 12, 0, 0, 0, 0, -1))) * 10**9
                fid = store.upsert_file(root, file_path(f), len(body), mtime, hashlib.sha256(body.encode()).hexdigest(),
                                        "indexed", None, "text", len(t[off:off + PER_FILE]))
                store.insert_chunks(fid, [NewChunk(o, 0, len(x), None, x, hashlib.sha1(x.encode()).hexdigest(), v[off + o])
                                          for o, x in enumerate(t[off:off + PER_FILE])])
            if s + batch >= n:
                m = {"model_fingerprint": meta["fingerprint"], "model": cfg.models.bi_encoder,
                     "pooling": cfg.models.pooling, "dim": str(meta["dim"]),
                     "chunk_max_tokens": str(cfg.chunking.max_tokens), "chunk_overlap": str(cfg.chunking.overlap)}
                for k, val in m.items():
                    store.set_meta(k, val)
                store.bump_generation()
        if (s // batch) % 5 == 0:
            emit(note="writing", n=n, written=min(s + batch, n), seconds=round(time.perf_counter() - t0, 1))
    store.close()
    write_s = time.perf_counter() - t0
    built = {"n": n, "real_vectors": real, "text_pool": len(pool), "write_s": round(write_s, 1)}
    same_vectors = sorted(p for p in WORK.glob(f"lib-{n}-{real}*/built.json")  # another text pool: same ids and vectors
                          if p.parent.name == f"lib-{n}-{real}" or p.parent.name.startswith(f"lib-{n}-{real}-"))
    if same_vectors:
        src = same_vectors[0].parent  # its index is this one's (the Library checks generation and count at open)
        for name in ("vectors.hnsw", "vectors.hnsw.json"):
            shutil.copy(src / name, data / name)
        built.update(hnsw_build_s=json.loads(same_vectors[0].read_text())["hnsw_build_s"], hnsw_from=src.name)
    else:
        t0 = time.perf_counter()
        with Library(cfg) as lib:
            lib.index()  # missing: rebuilt from the stored vectors (4096 a batch) and saved
        built["hnsw_build_s"] = round(time.perf_counter() - t0, 1)
    hnsw_s = built["hnsw_build_s"]
    (data / "built.json").write_text(json.dumps(built))
    emit(result="build", **built, passages_per_s_write=round(n / write_s), passages_per_s_hnsw=round(n / hnsw_s))
    return data


def query_vectors(count: int) -> Path:
    """STS-B dev sentences as queries, encoded once (fp32) into a file the measuring process reads."""
    path = WORK / f"queries-{count}.npz"
    if path.exists():
        return path
    from searchapp.models import BiEncoder

    qs = [line.split("\t")[1] for line in (DATA / "sts" / "stsb-dev.tsv").read_text().splitlines()[1:count + 1]]
    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32")
    np.savez(path, texts=np.array(qs), vectors=np.stack([enc.encode([q])[0] for q in qs]),
             meta=np.array(json.dumps({"fingerprint": enc.fingerprint, "dim": enc.dim})))
    return path


class CachedQueries:
    """Looks like the BiEncoder to the Library but serves vectors encoded up front (no torch in this process)."""

    def __init__(self, path: Path) -> None:
        z = np.load(path, allow_pickle=False)
        meta = json.loads(str(z["meta"]))
        self.fingerprint, self.dim = meta["fingerprint"], meta["dim"]
        self.texts = [str(t) for t in z["texts"]]
        self._vecs = dict(zip(self.texts, z["vectors"]))

    def encode(self, texts, **_):
        return np.stack([self._vecs[t] for t in texts])

    def encode_query(self, text: str) -> np.ndarray:
        return self._vecs[text]


def timed(fn, items) -> tuple[float, float]:
    fn(items[0])  # warm (first-touch of the pages a query reads)
    ms = []
    for x in items:
        t0 = time.perf_counter()
        fn(x)
        ms.append((time.perf_counter() - t0) * 1000.0)
    ms.sort()
    return round(statistics.median(ms), 2), round(ms[int(0.95 * (len(ms) - 1))], 2)


def measure(data: Path, qpath: Path, dup_limit: float) -> None:
    """In a fresh interpreter: open, RSS, queries, similar, duplicates."""
    from searchapp.base.config import load_config
    from searchapp.base.progress import CancelToken
    from searchapp.base.errors import Cancelled
    from searchapp.library import Library, SearchFilters

    built = json.loads((data / "built.json").read_text())
    n = built["n"]
    cached = CachedQueries(qpath)
    sizes = {p.name: p.stat().st_size for p in data.iterdir() if p.is_file()}
    rss0 = rss_mb()
    t0 = time.perf_counter()
    lib = Library(load_config(data, env={}), encoder=cached)
    index = lib.index()
    open_s = time.perf_counter() - t0
    rss1 = rss_mb()
    emit(result="open", n=n, real_vectors=built["real_vectors"], text_pool=built.get("text_pool"), write_s=built["write_s"],
         hnsw_build_s=built["hnsw_build_s"], open_s=round(open_s, 3), index_action=lib.index_notice() or "loaded",
         rss_before_open_mb=rss0, rss_after_open_mb=rss1, rss_open_delta_mb=round(rss1 - rss0, 1),
         sqlite_mb=round(sum(v for k, v in sizes.items() if k.startswith("library.sqlite")) / 2**20, 1),
         hnsw_file_mb=round(sizes.get("vectors.hnsw", 0) / 2**20, 1),
         disk_total_mb=round(sum(sizes.values()) / 2**20, 1), index_params=index.params(),
         note="RSS without the query model (add ~0.3 GB for MiniLM + torch in the app)")
    qs = cached.texts
    t0 = time.perf_counter()
    lib.search(qs[0], k=10, mode="hybrid", rerank=False)
    emit(result="first_query", n=n, mode="hybrid", ms=round((time.perf_counter() - t0) * 1000, 1))
    dirs = n // PER_FILE // FILES_PER_DIR
    cases = {"none": None,
             "one folder (0.1%)" if dirs >= 1000 else "one folder": SearchFilters.build(folders=[f"/bench/dir{dirs // 2:04d}"]),
             "type pdf (1%)": SearchFilters.build(types=["pdf"])}
    for mode in ("dense", "hybrid"):
        for name, f in cases.items():
            p50, p95 = timed(lambda q: lib.search(q, k=10, mode=mode, rerank=False, filters=f), qs)
            emit(result="query", n=n, mode=mode, filter=name, k=10, queries=len(qs), p50_ms=p50, p95_ms=p95)
    emit(result="rss_after_queries", n=n, rss_mb=rss_mb())
    files = [file_path(f) for f in range(0, n // PER_FILE, max(1, n // PER_FILE // 20))][:20]
    p50, p95 = timed(lambda p: lib.similar(p, k=10), files)
    emit(result="similar", n=n, files=len(files), p50_ms=p50, p95_ms=p95)
    if dup_limit > 0:
        cancel = CancelToken()
        import threading

        timer = threading.Timer(dup_limit, cancel.cancel)
        timer.start()
        t0 = time.perf_counter()
        try:
            rep = lib.duplicates(cancel=cancel)
            emit(result="duplicates", n=n, seconds=round(time.perf_counter() - t0, 1), near_pairs=len(rep.near),
                 exact_groups=len(rep.exact), rss_mb=rss_mb())
        except Cancelled:
            emit(result="duplicates", n=n, seconds=None, cancelled_after_s=dup_limit, rss_mb=rss_mb())
        finally:
            timer.cancel()
    lib.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=250000, help="passages (1000000 for the full million)")
    ap.add_argument("--real", type=int, default=2000, help="passages embedded by MiniLM; the rest are mixtures")
    ap.add_argument("--pool", type=int, default=200000, help="distinct real sentences passage text is drawn from")
    ap.add_argument("--batch", type=int, default=50000, help="passages per write transaction")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--dup-limit", type=float, default=600, help="cancel `duplicates` after this many seconds (0: skip)")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--measure", default="", help=argparse.SUPPRESS)  # internal: the fresh measuring process
    ap.add_argument("--qpath", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(Path(args.measure), Path(args.qpath), args.dup_limit)
        return
    assert args.batch % PER_FILE == 0
    data = build(args.n, args.real, args.batch, args.pool)
    if args.build_only:
        return
    qpath = query_vectors(args.queries)
    subprocess.run([sys.executable, __file__, "--measure", str(data), "--qpath", str(qpath),
                    "--dup-limit", str(args.dup_limit)], check=True)


if __name__ == "__main__":
    main()
