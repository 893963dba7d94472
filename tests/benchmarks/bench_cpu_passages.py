"""Passage paths for CPUs without native bf16, against sentence-transformers fp32 in the same run (issue 41, 1).

    python tests/benchmarks/bench_cpu_passages.py [--passages 256] [--rounds 3] [--threads N] [--busy]
        [--only a,b] [--cranfield-docs 1400] [--scifact-docs 1000] [--scifact-queries 300]

Speed: ~256 chunk-sized scifact passages (~200 word pieces, as the chunker makes them), batch 32, every path
once per round in a rotated order (A, B, C, B, C, A, ...); a path's figure is its median round, its ratio the
median of its per-round ratios to sentence-transformers fp32 in the same round. `--busy` runs one spinning
process beside the rounds (a second program holding a core). The load average is printed before and after.

Paths: sentence-transformers fp32 (the baseline); searchapp fp32 (BiEncoder, precision fp32: lean_bert's fused
body on oneDNN-packed weights); searchapp auto (what this CPU's default runs); ONNX Runtime fp32 (this
library's export); ORT dynamic int8 of the weight matmuls, per channel: 7-bit weights (`ort-int8`),
full-range s8 (`ort-int8-s8full`, which can saturate without VNNI), u8 weights (`ort-int8-u8`), feed-forward
only (`ort-int8-ffn`); torch dynamic int8 of every Linear (`torch-int8`, fbgemm, per tensor). The ONNX paths
need `onnxruntime` and `onnx` (torch's exporter and ORT's quantizer); without them they are skipped, said in
one JSON line.

Goal (issue 41, 1): ≥ 2.5× sentence-transformers fp32, quiet and beside one busy process, with top-10
agreement ≥ 0.98 and nDCG@10 within 0.3 of fp32 on every collection. First measurement (AMD EPYC, AVX2 only,
2026-11-28, load 8-15, so speeds are noisy): no int8 variant holds top-10 ≥ 0.98 (ORT 0.92-0.94 whatever the
weight range or the layers quantized, torch 0.81-0.82; min cosine 0.990 and 0.881), and none reached 2.5×
(ORT int8 1.2-1.7×, searchapp's fused fp32 0.7-1.6× in the same runs); ORT fp32 was no faster than the fused
fp32 path. Quality is deterministic; speed should be re-measured quiet.

Quality, per path: min cosine and top-10 neighbour agreement (100 of the passages as queries, neighbours
within the set) against sentence-transformers fp32; dense nDCG@10 on each IR collection in shared/data
(cranfield: its whole corpus; scifact-train: its first --scifact-queries judged claims and a corpus of their
judged abstracts plus the first others up to --scifact-docs), documents encoded by the path ("# title" line,
blank line, text, as `eval ir` writes them; cut at max_seq_length), queries by sentence-transformers fp32 as
the query path does not change. Quality is computed once per path, after the timed rounds.
One JSON line per path.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from bench_encode import DATA, load_passages, top10_agreement

from searchapp.base.config import PACKAGED_BI_ENCODER
from searchapp.models import BiEncoder
from searchapp.models.cpu import cpu_flags
from searchapp.models.transformer import torch_threads

Encode = Callable[[Sequence[str]], np.ndarray]
BASE = "sentence-transformers-fp32"
COLLECTIONS = ("cranfield", "scifact-train")


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return ""


# -- ONNX Runtime: this library's fp32 export (onnx_query._export: body + mean pooling + L2 normalization),
# optionally with its weight matmuls dynamically quantized to int8 ------------------------------------------
# Weight matmuls of the feed-forward block in the TorchScript export's node names (BERT module paths).
_FFN = ("/intermediate/dense/", "/output/dense/")
_ATTENTION_OUT = "/attention/output/dense/"


def ort_missing() -> list[str]:
    """The packages an ONNX path needs and this environment lacks (`onnx`: torch's exporter, the quantizer)."""
    import importlib.util

    return [m for m in ("onnxruntime", "onnx") if importlib.util.find_spec(m) is None]


def export_fp32(enc: BiEncoder) -> tuple[bytes, list[str]]:
    from searchapp.models.onnx_query import _export

    data, meta = _export(enc.resolved.path, enc.pooling, enc.max_seq_length)
    return data, list(meta["inputs"])


def weight_matmuls(model, only_ffn: bool) -> list[str]:
    """MatMul nodes whose second input is a weight (an initializer): never the attention's activation-by-
    activation products. `only_ffn`: the feed-forward block's two (2/3 of a layer's weight FLOPs)."""
    weights = {init.name for init in model.graph.initializer}
    names = []
    for node in model.graph.node:
        if node.op_type != "MatMul" or len(node.input) != 2 or node.input[1] not in weights:
            continue
        if only_ffn and not (any(k in node.name for k in _FFN) and _ATTENTION_OUT not in node.name):
            continue
        names.append(node.name)
    return names


def quantize_int8(data: bytes, *, only_ffn: bool = False, reduce_range: bool = True, weight_type: str = "s8") -> bytes:
    """Dynamic int8 (ONNX Runtime's quantizer): weights per output channel, activations per tensor at run time.
    reduce_range: 7-bit weights, the quantizer's advice for x86 without VNNI (u8*s8 sums saturate 16 bits)."""
    import tempfile

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    nodes = weight_matmuls(onnx.load_from_string(data), only_ffn)
    with tempfile.TemporaryDirectory(prefix="bench-int8-") as tmp:
        src, dst = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        src.write_bytes(data)
        quantize_dynamic(src, dst, op_types_to_quantize=["MatMul"], nodes_to_quantize=nodes, per_channel=True,
                         reduce_range=reduce_range,
                         weight_type=QuantType.QInt8 if weight_type == "s8" else QuantType.QUInt8)
        return dst.read_bytes()


def ort_session(data: bytes, inputs: list[str], threads: int) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as the app's query session
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    session = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    return lambda feed: np.asarray(session.run(None, {k: feed[k] for k in inputs})[0], dtype=np.float32)


def batches_through(enc: BiEncoder, run: Callable[[dict[str, np.ndarray]], np.ndarray]) -> Encode:
    """searchapp's tokenization and length-sorted batching around `run` (NumPy model inputs -> unit vectors)."""
    from searchapp.models.batching import length_sorted_batches, restore_order
    from searchapp.models.transformer import collate

    def encode(texts: Sequence[str]) -> np.ndarray:
        features = enc._tokenize(list(texts))
        batches = length_sorted_batches([len(r) for r in features["input_ids"]], enc.batch_size)
        out = []
        for idx in batches:
            t = collate(features, idx, pad_values=enc._pad_values, padding_side="right",
                        device=torch.device("cpu"), round_to=1)
            out.append(run({k: v.numpy() for k, v in t.items()}))
        return restore_order(batches, out)

    return encode


def torch_int8(model: str, threads: int, batch_size: int) -> Encode:
    """torch's dynamic int8 quantization of every Linear (fbgemm, per tensor) on transformers' module tree (the
    BiEncoder's own PlainBert fuses its Linears' weights, which a quantized Linear no longer exposes)."""
    from transformers import AutoModel

    enc = BiEncoder(model, device="cpu", precision="fp32", batch_size=batch_size, threads=threads)
    enc._lean = None
    tree = AutoModel.from_pretrained(str(enc.resolved.path), dtype=torch.float32).eval()
    enc._model = torch.ao.quantization.quantize_dynamic(tree, {torch.nn.Linear}, dtype=torch.qint8)
    return enc.encode


def paths(model: str, threads: int, batch_size: int, only: set[str]) -> tuple[dict[str, Encode], BiEncoder]:
    from sentence_transformers import SentenceTransformer

    fp32 = BiEncoder(model, device="cpu", precision="fp32", batch_size=batch_size, threads=threads)
    st = SentenceTransformer(str(fp32.resolved.path), device="cpu", model_kwargs={"dtype": torch.float32})
    graph: list[tuple[bytes, list[str]]] = []

    def st_encode(texts: Sequence[str]) -> np.ndarray:
        with torch_threads(threads):
            return st.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                             convert_to_numpy=True, show_progress_bar=False)

    def ort(int8: bool, **quant) -> Encode:
        if not graph:
            graph.append(export_fp32(fp32))
        data, inputs = graph[0]
        return batches_through(fp32, ort_session(quantize_int8(data, **quant) if int8 else data, inputs, threads))

    makers: dict[str, Callable[[], Encode]] = {
        BASE: lambda: st_encode,
        "searchapp-fp32": lambda: fp32.encode,
        "searchapp-auto": lambda: BiEncoder(model, device="cpu", batch_size=batch_size, threads=threads).encode,
        "ort-fp32": lambda: ort(False),
        "ort-int8": lambda: ort(True),
        "ort-int8-s8full": lambda: ort(True, reduce_range=False),
        "ort-int8-u8": lambda: ort(True, reduce_range=False, weight_type="u8"),
        "ort-int8-ffn": lambda: ort(True, only_ffn=True),
        "torch-int8": lambda: torch_int8(model, threads, batch_size),
    }
    missing = ort_missing()
    if missing:
        print(json.dumps({"bench": "cpu_passages", "skipped": "ort-*",
                          "why": f"not installed: {', '.join(missing)} (`pip install onnxruntime onnx`)"}), flush=True)
    out: dict[str, Encode] = {}
    for name, make in makers.items():
        if (name == BASE or not only or name in only) and not (missing and name.startswith("ort-")):
            out[name] = make()
    return out, fp32


def load_collection(name: str, max_docs: int, max_queries: int) -> tuple[dict[str, str], dict[str, str],
                                                                         dict[str, dict[str, int]]]:
    """(doc id -> text as `eval ir` writes it, query id -> text, qrels) of a reduced collection: the first
    `max_queries` judged queries, their judged documents, then the corpus in order up to `max_docs`."""
    from searchapp.datasets.beir import load_beir

    col = load_beir(DATA / "ir" / name)
    qids = [q for q in col.queries if q in col.qrels][:max_queries]
    qrels = {q: col.qrels[q] for q in qids}
    keep = {d for q in qids for d in qrels[q] if d in col.corpus}
    for d in col.corpus:
        if len(keep) >= max_docs:
            break
        keep.add(d)
    docs = {}
    for d, (title, text) in col.corpus.items():
        if d in keep:
            title = " ".join(title.split())
            docs[d] = f"# {title}\n\n{text}" if title else text
    return docs, {q: col.queries[q] for q in qids}, qrels


def ndcg10(doc_emb: np.ndarray, doc_ids: list[str], query_emb: np.ndarray, qids: list[str],
           qrels: dict[str, dict[str, int]]) -> float:
    from searchapp.evaluation.metrics import ndcg_at_k

    sims = query_emb @ doc_emb.T
    top = np.argsort(-sims, axis=1, kind="stable")[:, :10]
    return float(np.mean([ndcg_at_k([doc_ids[j] for j in row], qrels[q], 10) for q, row in zip(qids, top, strict=True)]))


def spinner() -> subprocess.Popen:
    """One process that keeps a core busy (`--busy`)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def timed_rounds(impls: dict[str, Encode], texts: list[str], rounds: int) -> tuple[dict[str, list[float]],
                                                                                 dict[str, np.ndarray]]:
    """Seconds per round for each path, and its vectors of the last round."""
    times: dict[str, list[float]] = {name: [] for name in impls}
    embs: dict[str, np.ndarray] = {}
    names = list(impls)
    for r in range(rounds):
        order = names[r % len(names):] + names[: r % len(names)]  # rotated: no path always follows another
        for name in order:
            t0 = time.perf_counter()
            embs[name] = np.asarray(impls[name](texts), dtype=np.float32)
            times[name].append(time.perf_counter() - t0)
    return times, embs


def quality(impls: dict[str, Encode], embs: dict[str, np.ndarray], args: argparse.Namespace) -> dict[str, dict]:
    out: dict[str, dict] = {name: {} for name in impls}
    for name in impls:
        out[name]["min_cosine_vs_st"] = round(float(np.min(np.sum(embs[name] * embs[BASE], axis=1))), 6)
        out[name]["top10_agreement_vs_st"] = round(top10_agreement(embs[name], embs[BASE]), 4)
    sizes = {"cranfield": (args.cranfield_docs, args.cranfield_queries),
             "scifact-train": (args.scifact_docs, args.scifact_queries)}
    ranked = {n: fn for n, fn in impls.items() if n == BASE or not args.ndcg_only or n in args.ndcg_only.split(",")}
    for col in COLLECTIONS:
        if not (DATA / "ir" / col).is_dir() or sizes[col][0] <= 0:
            continue
        docs, queries, qrels = load_collection(col, *sizes[col])
        doc_ids, qids = list(docs), list(queries)
        q_emb = np.asarray(impls[BASE]([queries[q] for q in qids]), dtype=np.float32)
        for name, fn in ranked.items():
            d_emb = np.asarray(fn([docs[d] for d in doc_ids]), dtype=np.float32)
            out[name][f"ndcg10_{col}"] = round(100 * ndcg10(d_emb, doc_ids, q_emb, qids, qrels), 2)
            out[name][f"docs_{col}"] = len(doc_ids)
            print(json.dumps({"progress": "quality", "collection": col, "impl": name,
                              "ndcg10": out[name][f"ndcg10_{col}"], "load_avg": os.getloadavg()[0]}),
                  file=sys.stderr, flush=True)
    for name in impls:
        for col in COLLECTIONS:
            if f"ndcg10_{col}" in out[name]:
                out[name][f"ndcg10_delta_{col}"] = round(out[name][f"ndcg10_{col}"] - out[BASE][f"ndcg10_{col}"], 2)
    return out


def run(args: argparse.Namespace) -> list[dict]:
    torch.set_num_threads(args.threads)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    impls, fp32 = paths(args.model, args.threads, args.batch_size, only)
    texts = load_passages(args.passages, fp32)
    for fn in impls.values():
        fn(texts[: args.batch_size])  # warm-up: first-call allocations and kernel selection
    load_before = [round(x, 2) for x in os.getloadavg()]
    busy = spinner() if args.busy else None
    try:
        times, embs = timed_rounds(impls, texts, args.rounds)
    finally:
        if busy is not None:
            busy.terminate()
            busy.wait()
    load_after = [round(x, 2) for x in os.getloadavg()]
    qual = quality(impls, embs, args) if not args.no_quality else {n: {} for n in impls}
    flags = sorted(cpu_flags() & {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16"})
    rows = []
    for name in impls:
        ratios = [b / t for b, t in zip(times[BASE], times[name], strict=True)]
        rows.append({
            "bench": "cpu_passages", "impl": name,
            "passages_per_s": round(len(texts) / statistics.median(times[name]), 2),
            "ratio_vs_st_fp32": round(statistics.median(ratios), 3),
            "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)],
            **qual[name],
            "n": len(texts), "rounds": args.rounds, "batch_size": args.batch_size, "threads": args.threads,
            "busy_neighbour": bool(args.busy), "load_avg_before": load_before, "load_avg_after": load_after,
            "cpu": cpu_model(), "flags": flags, "torch": torch.__version__,
            "onnxruntime": _version("onnxruntime"),
        })
    return rows


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--passages", type=int, default=256)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--busy", action="store_true", help="one spinning process beside the timed rounds")
    p.add_argument("--only", default="", help=f"comma-separated path names ({BASE} always runs)")
    p.add_argument("--model", default=PACKAGED_BI_ENCODER, help="bi-encoder (a folder: an absolute path)")
    p.add_argument("--cranfield-docs", type=int, default=1400, help="0: skip the collection")
    p.add_argument("--cranfield-queries", type=int, default=225)
    p.add_argument("--scifact-docs", type=int, default=1000, help="0: skip the collection")
    p.add_argument("--scifact-queries", type=int, default=300)
    p.add_argument("--no-quality", action="store_true", help="speed only")
    p.add_argument("--ndcg-only", default="", help="comma-separated paths whose nDCG@10 is measured (default: all)")
    args = p.parse_args(argv)
    for row in run(args):
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
