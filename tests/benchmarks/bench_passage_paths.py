"""Which path encodes passages fastest on this CPU, against sentence-transformers (fp32) in the same run.

    python tests/benchmarks/bench_passage_paths.py [--passages 64] [--rounds 4] [--threads N] [--only a,b]

Chunk-sized scifact passages (~200 word pieces, as the chunker makes them), batch 32. Paths: the baseline
sentence-transformers fp32 (its own defaults: all threads), the same on 1 thread; searchapp fp32; searchapp
"auto" (whatever `models.precision = "auto"` picks here), and the same as a sync runs it (`background`: each
batch on the threads other processes leave); both also through transformers' module tree instead of
lean_bert's fused body (`-transformers`: the default before 2026-11-26 late); mixed bf16 (Linear weights bf16, LayerNorm and
embeddings fp32: transformer.mixed_bf16); every weight in bf16 (`model.to(torch.bfloat16)`, no autocast:
LayerNorm, softmax and the residual stream in bf16); the same with LayerNorm kept in fp32 (cast up and back
down); ONNX Runtime fp32 on passage batches (this library's own export). Each on `--threads` and on 1 thread.

The machine is shared and noisy: every round runs each path once over the same passages, the order rotated
from round to round, and a path's figure is its best round (the median is printed too). Ratios are to the
baseline's best round in the same run. Fidelity: min cosine to transformers' own fp32 forward and the mean top-10 overlap
of 100 passages' neighbours within the set. One JSON line per path, with the CPU's bf16 flags and the load
average before and after.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from bench_encode import load_passages, top10_agreement
from _common import cpu_note

from searchapp.base.config import PACKAGED_BI_ENCODER
from searchapp.models import BiEncoder
from searchapp.models.transformer import keep_fp32, mixed_bf16, torch_threads

Encode = Callable[[Sequence[str]], np.ndarray]


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return ""


def all_bf16(enc: BiEncoder, *, layernorm_fp32: bool) -> BiEncoder:
    """Every weight in bf16 (what `precision = "bf16-all"` would run); LayerNorm optionally in fp32."""
    enc._lean = None  # the fused forward holds its own copies of the weights: cast the module tree only
    enc._model.to(torch.bfloat16)
    if layernorm_fp32:
        for mod in enc._model.modules():
            if isinstance(mod, torch.nn.LayerNorm):
                keep_fp32(mod)
                mod.register_forward_hook(lambda _m, _a, out: out.to(torch.bfloat16))
    enc.dtype = torch.bfloat16
    return enc


def onnxruntime_passages(enc: BiEncoder, threads: int) -> Encode | None:
    """This library's fp32 export (onnx_query._export: body + pooling + normalization) on passage batches."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    from searchapp.models.batching import length_sorted_batches, restore_order
    from searchapp.models.onnx_query import _export
    from searchapp.models.transformer import collate

    data, meta = _export(enc.resolved.path, enc.pooling, enc.max_seq_length)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    session = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    names = meta["inputs"]

    def encode(texts: Sequence[str]) -> np.ndarray:
        features = enc._tokenize(list(texts))
        batches = length_sorted_batches([len(r) for r in features["input_ids"]], enc.batch_size)
        out = []
        for idx in batches:
            t = collate(features, idx, pad_values=enc._pad_values, padding_side="right",
                        device=torch.device("cpu"), round_to=1)
            out.append(session.run(None, {k: t[k].numpy() for k in names})[0])
        return restore_order(batches, out)

    return encode


def paths(model: str, threads: int, batch_size: int, only: set[str]) -> tuple[dict[str, Encode], BiEncoder]:
    from sentence_transformers import SentenceTransformer

    fp32 = BiEncoder(model, device="cpu", precision="fp32", batch_size=batch_size, threads=threads)
    fp32._lean = None  # the fidelity reference: transformers' own fp32 forward
    st = SentenceTransformer(str(fp32.resolved.path), device="cpu", model_kwargs={"dtype": torch.float32})

    def st_encode(n: int) -> Encode:
        def encode(texts: Sequence[str]) -> np.ndarray:
            with torch_threads(n):
                return st.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        return encode

    def bi(precision: str, n: int, fused: bool = True) -> BiEncoder:
        enc = BiEncoder(model, device="cpu", precision=precision, batch_size=batch_size, threads=n)
        if not fused:
            enc._lean = None  # transformers' module tree, as before models/lean_bert's CPU body
        return enc

    def mixed(n: int) -> BiEncoder:
        enc = bi("fp32", n, fused=False)
        mixed_bf16(enc._model)
        enc.dtype = torch.bfloat16
        return enc

    makers: dict[str, Callable[[], Encode | None]] = {
        "sentence-transformers-fp32": lambda: st_encode(threads),
        "sentence-transformers-fp32-1t": lambda: st_encode(1),
        "searchapp-fp32": lambda: bi("fp32", threads).encode,
        "searchapp-fp32-1t": lambda: bi("fp32", 1).encode,
        "searchapp-auto": lambda: bi("auto", threads).encode,
        "searchapp-auto-1t": lambda: bi("auto", 1).encode,
        "searchapp-auto-transformers": lambda: bi("auto", threads, fused=False).encode,
        "searchapp-auto-transformers-1t": lambda: bi("auto", 1, fused=False).encode,
        "searchapp-fp32-transformers": lambda: fp32.encode,
        # what a sync runs: each batch on the threads other processes leave (base/cpu_share.py)
        "searchapp-auto-background": lambda: functools.partial(bi("auto", threads).encode, background=True),
        "mixed-bf16": lambda: mixed(threads).encode,
        "mixed-bf16-1t": lambda: mixed(1).encode,
        "all-bf16": lambda: all_bf16(bi("fp32", threads, False), layernorm_fp32=False).encode,
        "all-bf16-1t": lambda: all_bf16(bi("fp32", 1, False), layernorm_fp32=False).encode,
        "all-bf16-ln-fp32": lambda: all_bf16(bi("fp32", threads, False), layernorm_fp32=True).encode,
        "all-bf16-ln-fp32-1t": lambda: all_bf16(bi("fp32", 1, False), layernorm_fp32=True).encode,
        "onnxruntime-fp32": lambda: onnxruntime_passages(fp32, threads),
        "onnxruntime-fp32-1t": lambda: onnxruntime_passages(fp32, 1),
    }
    out: dict[str, Encode] = {}
    for name, make in makers.items():
        if only and name not in only and name not in ("sentence-transformers-fp32", "searchapp-fp32-transformers"):
            continue
        fn = make()
        if fn is not None:
            out[name] = fn
    return out, fp32


def run(n_passages: int, rounds: int, threads: int, batch_size: int, only: set[str],
        model: str = PACKAGED_BI_ENCODER) -> list[dict]:
    torch.set_num_threads(threads)
    load_before = cpu_note()["load_avg"]
    impls, fp32 = paths(model, threads, batch_size, only)
    texts = load_passages(n_passages, fp32)
    for fn in impls.values():
        fn(texts[:batch_size])  # warm-up: first-call allocations and kernel selection
    times: dict[str, list[float]] = {name: [] for name in impls}
    embs: dict[str, np.ndarray] = {}
    names = list(impls)
    for r in range(rounds):
        order = names[r % len(names):] + names[: r % len(names)]  # rotate: no path always runs after another
        for name in order:
            t0 = time.perf_counter()
            embs[name] = np.asarray(impls[name](texts), dtype=np.float32)
            times[name].append(time.perf_counter() - t0)
    base = "sentence-transformers-fp32"
    ref = embs["searchapp-fp32-transformers"]
    info = cpu_note()
    rows = []
    for name in names:
        best, med = min(times[name]), statistics.median(times[name])
        rows.append({
            "bench": "passage_paths", "impl": name,
            "passages_per_s": round(len(texts) / best, 2),
            "median_passages_per_s": round(len(texts) / med, 2),
            "ratio_vs_sentence_transformers": round(min(times[base]) / best, 3),
            "median_ratio": round(statistics.median(times[base]) / med, 3),
            "min_cosine_vs_fp32": round(float(np.min(np.sum(embs[name] * ref, axis=1))), 6),
            "top10_agreement_vs_fp32": round(top10_agreement(embs[name], ref), 4),
            "n": len(texts), "rounds": rounds, "batch_size": batch_size, "threads": threads,
            "torch": torch.__version__, "cpu": cpu_model(), **{k: v for k, v in info.items() if k != "load_avg"},
            "load_avg_before": load_before, "load_avg_after": info["load_avg"],
        })
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--passages", type=int, default=64)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--only", default="", help="comma-separated path names (the two fp32 references always run)")
    p.add_argument("--model", default=PACKAGED_BI_ENCODER, help="bi-encoder (a folder: an absolute path)")
    args = p.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    for row in run(args.passages, args.rounds, args.threads, args.batch_size, only, args.model):
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
