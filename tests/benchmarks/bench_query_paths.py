"""Which path encodes a query fastest without moving results: single-query latency and cosine agreement.

    python tests/benchmarks/bench_query_paths.py [--queries 200] [--passages 1000] [--st-passages 128]

Paths (batch of 1, scifact claims as queries): torch fp32, torch mixed bf16 (the bf16 default), torch with
every weight in bf16, the NumPy encoder (cold start without torch), ONNX Runtime fp32 on 1 and 2 threads
(searchapp/models/onnx_query.py). Runs are interleaved query by query (the machine is shared and noisy),
and each path's latency is the median over all queries. Agreement: max |Δcos| between each path's query
vector and torch fp32's against `--passages` scifact passage vectors ("identical to ±0.001 cosine").
Also, in the same run: passages/s of searchapp's auto precision and of all-bf16 weights against
sentence-transformers (fp32) on chunk-sized scifact passages. `--during-sync` times the queries again while
another thread encodes passages the way a sync does (searchapp auto precision, all threads). One JSON line
per result, with the CPU's bf16 flags and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from bench_encode import DATA, load_passages

from searchapp.models import BiEncoder
from _common import cpu_note

REPO = Path(__file__).resolve().parents[2]
QUERIES = DATA / "ir" / "scifact-train" / "queries.jsonl"


def load_queries(n: int) -> list[str]:
    out = []
    with open(QUERIES, encoding="utf-8") as fh:
        for line in fh:
            out.append(json.loads(line)["text"])
            if len(out) == n:
                break
    return out


def query_paths(fp32: BiEncoder, auto: BiEncoder, plain: BiEncoder) -> dict[str, Callable[[str], np.ndarray]]:
    from searchapp.models.onnx_query import export_query_model, load_onnx_query_encoder
    from searchapp.models.query_encoder import load_query_encoder

    paths: dict[str, Callable[[str], np.ndarray]] = {"torch-fp32": fp32.encode_query}
    if fp32.path == "fused":
        module_tree = BiEncoder(precision="fp32", threads=fp32.threads)
        module_tree._lean = None
        paths["torch-fp32-transformers"] = module_tree.encode_query  # the torch path before the fused forward
    if auto.dtype == torch.bfloat16:
        paths["torch-mixed-bf16"] = auto.encode_query
    paths["torch-all-bf16"] = plain.encode_query
    numpy_enc = load_query_encoder(fp32.resolved.path, pooling=fp32.pooling, max_seq_length=fp32.max_seq_length)
    if numpy_enc is not None:
        paths["numpy-fp32"] = numpy_enc.encode_one
    cache = Path(tempfile.mkdtemp(prefix="bench-query-onnx-"))
    t0 = time.perf_counter()
    graph = export_query_model(fp32.resolved.path, pooling=fp32.pooling, max_seq_length=fp32.max_seq_length,
                               fingerprint=fp32.fingerprint, cache_dir=cache)
    print(json.dumps({"bench": "query_paths", "onnx_export_s": round(time.perf_counter() - t0, 2),
                      "onnx_bytes": graph.stat().st_size if graph else None}), flush=True)
    for threads in (1, 2):
        t0 = time.perf_counter()
        ort_enc = load_onnx_query_encoder(cache, fp32.fingerprint, fp32.resolved.path,
                                          max_seq_length=fp32.max_seq_length, threads=threads)
        if ort_enc is not None:
            print(json.dumps({"bench": "query_paths", "onnx_session_load_s": round(time.perf_counter() - t0, 3),
                              "threads": threads}), flush=True)
            paths[f"onnxruntime-fp32-{threads}t"] = ort_enc.encode_one
    return paths


def bench_queries(paths: dict[str, Callable[[str], np.ndarray]], queries: Sequence[str],
                  passages: np.ndarray, label: str = "query_paths") -> list[dict]:
    names = list(paths)
    for name in names:  # warm-up
        paths[name](queries[0])
    times: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    vecs: dict[str, list[np.ndarray]] = {n: [] for n in names}
    for i, q in enumerate(queries):
        order = names[i % len(names):] + names[: i % len(names)]  # rotate who goes first
        for name in order:
            t0, c0 = time.perf_counter(), time.process_time()
            v = paths[name](q)
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)  # every thread of the process: ORT's 2 threads count twice
            vecs[name].append(np.asarray(v, dtype=np.float32).reshape(-1))
    ref = np.stack(vecs["torch-fp32"]) @ passages.T
    rows = []
    for name in names:
        sims = np.stack(vecs[name]) @ passages.T
        top_ref = np.argsort(-ref, axis=1)[:, :10]
        top = np.argsort(-sims, axis=1)[:, :10]
        rows.append({"bench": label, "path": name, "p50_ms": round(1000 * float(np.median(times[name])), 2),
                     "p90_ms": round(1000 * float(np.percentile(times[name], 90)), 2),
                     "cpu_ms_mean": round(1000 * float(np.mean(cpu[name])), 2),
                     "ratio_vs_torch_fp32": None,
                     "max_abs_dcos_vs_fp32": float(f"{np.abs(sims - ref).max():.2e}"),
                     "top10_same_order": round(float(np.mean([(a == b).all() for a, b in zip(top, top_ref, strict=True)])), 3),
                     "queries": len(queries), "passages": len(passages), **cpu_note()})
    base = next(r["p50_ms"] for r in rows if r["path"] == "torch-fp32")
    for r in rows:
        r["ratio_vs_torch_fp32"] = round(base / r["p50_ms"], 2)
    return rows


_COLD = {  # a fresh process's first query vector, each path as the library loads it (model_set.ModelSet)
    "numpy-fp32": "from searchapp.models.query_encoder import load_query_encoder as L; "
                  "e = L(P, pooling=POOL, max_seq_length=N); v = e.encode_one(Q)",
    "onnxruntime-fp32-1t": "from searchapp.models.onnx_query import load_onnx_query_encoder as L; "
                           "e = L(C, F, P, max_seq_length=N); v = e.encode_one(Q)",
    "torch-auto": "from searchapp.models import BiEncoder; e = BiEncoder(str(P), precision='auto', threads=1); "
                  "v = e.encode_query(Q)",
}


def bench_cold(fp32: BiEncoder, query: str, rounds: int) -> list[dict]:
    """Wall seconds, CPU seconds and peak RSS of a fresh process that loads one query path and encodes `query`
    (a cold command-line search's cost), the paths taking turns round by round."""
    import subprocess

    from searchapp.models.onnx_query import export_query_model

    cache = Path(tempfile.mkdtemp(prefix="bench-query-cold-"))
    export_query_model(fp32.resolved.path, pooling=fp32.pooling, max_seq_length=fp32.max_seq_length,
                       fingerprint=fp32.fingerprint, cache_dir=cache)
    head = (f"import sys, numpy as np; from pathlib import Path; P = Path({str(fp32.resolved.path)!r}); "
            f"C = Path({str(cache)!r}); F = {fp32.fingerprint!r}; POOL = {fp32.pooling!r}; "
            f"N = {int(fp32.max_seq_length)}; Q = {query!r}; ")
    got: dict[str, list[tuple[float, float, int]]] = {n: [] for n in _COLD}
    names = list(_COLD)
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.perf_counter()
            # Peak RSS from the child's own VmHWM: wait4's ru_maxrss keeps this process's peak across exec.
            proc = subprocess.Popen([sys.executable, "-c", head + _COLD[name] + "; assert np.isfinite(v).all(); "
                                     "print(next(x for x in open('/proc/self/status') if x.startswith('VmHWM')))"],
                                    cwd=REPO, env={**os.environ, "HF_HUB_OFFLINE": "1"}, stdout=subprocess.PIPE,
                                    text=True)
            out = proc.stdout.read() if proc.stdout else ""
            _, status, use = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            assert os.waitstatus_to_exitcode(status) == 0, name
            got[name].append((wall, use.ru_utime + use.ru_stime, int(out.split()[-2])))
    return [{"bench": "query_paths_cold", "path": n, "wall_s_median": round(float(np.median([g[0] for g in v])), 3),
             "cpu_s_median": round(float(np.median([g[1] for g in v])), 3),
             "peak_rss_mb": round(max(g[2] for g in v) / 1024, 1), "rounds": rounds, **cpu_note()}
            for n, v in got.items()]


def bench_passages(auto: BiEncoder, plain: BiEncoder, fp32: BiEncoder, texts: list[str], batch_size: int,
                   threads: int, repeats: int) -> list[dict]:
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(fp32.resolved.path), device="cpu")
    impls: dict[str, Callable[[Sequence[str]], np.ndarray]] = {
        "sentence-transformers-fp32": lambda t: st.encode(list(t), batch_size=batch_size, normalize_embeddings=True,
                                                          convert_to_numpy=True, show_progress_bar=False),
        f"searchapp-auto ({str(auto.dtype).replace('torch.', '')})": auto.encode,
        "searchapp-all-bf16-weights": plain.encode,
    }
    for fn in impls.values():
        fn(texts[:batch_size])
    best = {n: float("inf") for n in impls}
    embs = {}
    for _ in range(repeats):
        for name, fn in impls.items():
            t0 = time.perf_counter()
            embs[name] = np.asarray(fn(texts), dtype=np.float32)
            best[name] = min(best[name], time.perf_counter() - t0)
    ref = "sentence-transformers-fp32"
    rows = []
    for name in impls:
        rows.append({"bench": "passages", "impl": name, "texts_per_s": round(len(texts) / best[name], 2),
                     "ratio_vs_sentence_transformers": round(best[ref] / best[name], 3),
                     "min_cosine_vs_st": round(float(np.min(np.sum(embs[name] * embs[ref], axis=1))), 6),
                     "n": len(texts), "threads": threads, **cpu_note()})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--passages", type=int, default=1000)
    p.add_argument("--st-passages", type=int, default=128, help="passages for the throughput part (0: skip it)")
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--during-sync", type=int, default=0, metavar="N",
                   help="also time N queries while another thread encodes passages (0: skip)")
    p.add_argument("--cold", type=int, default=0, metavar="ROUNDS",
                   help="also time a fresh process's first query vector on each path, ROUNDS turns each (0: skip)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    fp32 = BiEncoder(precision="fp32", threads=args.threads)
    auto = BiEncoder(precision="auto", threads=args.threads)
    plain = BiEncoder(precision="fp32", threads=args.threads)
    plain._model.to(torch.bfloat16)  # every weight and the residual stream in bf16
    plain._lean = None  # the fused forward holds its own copies of the weights: cast the module tree only
    print(json.dumps({"bench": "query_paths", **cpu_note()}), flush=True)
    if args.cold:
        for row in bench_cold(fp32, load_queries(1)[0], args.cold):
            print(json.dumps(row), flush=True)
    if not args.queries:  # --cold alone
        return 0
    texts = load_passages(max(args.passages, args.st_passages), fp32)
    if args.st_passages:
        for row in bench_passages(auto, plain, fp32, texts[: args.st_passages], 32, args.threads, args.repeats):
            print(json.dumps(row), flush=True)
    passages = auto.encode(texts[: args.passages])
    paths = query_paths(fp32, auto, plain)
    for row in bench_queries(paths, load_queries(args.queries), passages):
        print(json.dumps(row), flush=True)
    if args.during_sync:
        stop = threading.Event()

        def sync_like() -> None:  # a sync's phase 2: batches of chunk-sized passages, back to back
            while not stop.is_set():
                auto.encode(texts[:32])

        worker = threading.Thread(target=sync_like, daemon=True)
        worker.start()
        try:
            for row in bench_queries(paths, load_queries(args.during_sync), passages, "query_paths_during_sync"):
                print(json.dumps(row), flush=True)
        finally:
            stop.set()
            worker.join()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
