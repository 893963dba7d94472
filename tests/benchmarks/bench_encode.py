"""Encoding speed and fidelity: searchapp's BiEncoder against sentence-transformers' `encode`, same run.

    python tests/benchmarks/bench_encode.py [--passages 256] [--sentences 1000] [--threads N] [--repeats 2]

Two real text sets: scifact passages (title + text cut to ~200 word pieces, i.e. chunk-sized) and STS-B
dev sentences. Every implementation encodes the same texts with the same batch size and thread count;
repeats are interleaved across implementations and the best time is kept (the machine is shared and
noisy). Prints one JSON line per (set, implementation):

    {"bench": "encode", "set": "passages", "impl": "searchapp-bf16", "texts_per_s": ...,
     "ratio_vs_sentence_transformers": ..., "min_cosine_vs_st": ..., "top10_agreement": ...}

top10_agreement: for 100 texts of the set as queries, the mean overlap of their 10 nearest neighbours
within the set under these embeddings and under sentence-transformers' (fp32) embeddings.
Goal on a CPU with native bf16: searchapp-bf16 ≥ 1.5× with min cosine ≥ 0.9999.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from searchapp.models import BiEncoder, cpu_has_native_bf16

REPO = Path(__file__).resolve().parents[2]
DATA = next((d for d in (REPO.parent / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            REPO.parent / "shared" / "data")
PASSAGES = DATA / "ir" / "scifact-train" / "corpus.jsonl"
SENTENCES = DATA / "sts" / "stsb-dev.tsv"
CHUNK_TOKENS = 200
N_QUERIES = 100


def load_passages(n: int, encoder: BiEncoder) -> list[str]:
    out = []
    with open(PASSAGES, encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            text = f"{doc.get('title', '')}. {doc.get('text', '')}".strip()
            offsets = encoder.token_offsets(text)
            if len(offsets) < CHUNK_TOKENS // 2:
                continue  # chunk-sized passages only: the chunker fills chunks to ~200 word pieces
            out.append(text[: offsets[min(CHUNK_TOKENS, len(offsets)) - 1][1]])
            if len(out) == n:
                break
    return out


def load_sentences(n: int) -> list[str]:
    seen: dict[str, None] = {}
    with open(SENTENCES, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            for key in ("sentence1", "sentence2"):
                s = (row.get(key) or "").strip()
                if s:
                    seen.setdefault(s, None)
            if len(seen) >= n:
                break
    return list(seen)[:n]


def top10_agreement(a: np.ndarray, b: np.ndarray, n_queries: int = N_QUERIES, k: int = 10) -> float:
    queries = np.linspace(0, len(a) - 1, num=min(n_queries, len(a)), dtype=int)

    def neighbours(emb: np.ndarray) -> list[set[int]]:
        sims = emb[queries] @ emb.T  # (queries, n)
        sims[np.arange(len(queries)), queries] = -np.inf  # a text is not its own neighbour
        top = np.argpartition(-sims, k, axis=1)[:, :k]
        return [set(row.tolist()) for row in top]

    return float(np.mean([len(x & y) / k for x, y in zip(neighbours(a), neighbours(b), strict=True)]))


def onnxruntime_encoder(enc: BiEncoder, threads: int) -> Callable[[Sequence[str]], np.ndarray] | None:
    """The candidate for CPUs without native bf16: the same model exported to ONNX (TorchScript
    exporter) and run by ONNX Runtime fp32, with searchapp's tokenization, batching and mean pooling.
    None when onnxruntime or onnx is not installed (a fresh `make setup` has onnxruntime, from the OCR extra, but
    not onnx, which torch's exporter needs; the app skips its own export then too): said in one JSON line."""
    import importlib.util

    missing = [m for m in ("onnxruntime", "onnx") if importlib.util.find_spec(m) is None]
    if missing:
        print(json.dumps({"bench": "encode", "skipped": "onnxruntime-fp32",
                          "why": f"not installed: {', '.join(missing)} (`pip install onnxruntime onnx`)"}), flush=True)
        return None
    import onnxruntime as ort
    import tempfile

    from searchapp.models.batching import length_sorted_batches, restore_order
    from searchapp.models.transformer import collate

    class Body(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                              return_dict=True).last_hidden_state

    path = Path(tempfile.mkdtemp(prefix="bench-onnx-")) / "model.onnx"
    ids = torch.ones((2, 16), dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 10:] = 0  # an example with padding, so the mask path is traced
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(Body(enc._model).eval(), (ids, mask, torch.zeros_like(ids)), str(path), input_names=names,
                      output_names=["hidden"], dynamic_axes={k: {0: "b", 1: "s"} for k in names + ["hidden"]},
                      opset_version=17, dynamo=False)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

    def encode(texts: Sequence[str]) -> np.ndarray:
        features = enc._tokenize(list(texts))
        if "token_type_ids" not in features:
            features["token_type_ids"] = [[0] * len(r) for r in features["input_ids"]]
        batches = length_sorted_batches([len(r) for r in features["input_ids"]], enc.batch_size)
        out = []
        for idx in batches:
            t = collate(features, idx, pad_values=enc._pad_values, padding_side="right", device=torch.device("cpu"),
                        round_to=1)
            feed = {k: t[k].numpy() for k in names}
            hidden = session.run(None, feed)[0]
            m = feed["attention_mask"][..., None].astype(np.float32)
            emb = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
            out.append(emb / np.linalg.norm(emb, axis=1, keepdims=True))
        return restore_order(batches, out)

    return encode


def run(n_passages: int, n_sentences: int, threads: int, batch_size: int, repeats: int) -> list[dict]:
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    fp32 = BiEncoder(precision="fp32", batch_size=batch_size, threads=threads)
    auto = BiEncoder(precision="auto", batch_size=batch_size, threads=threads)
    # The alternatives the default was chosen against (see searchapp/models/bi_encoder_forward.py):
    autocast = BiEncoder(precision="fp32", batch_size=batch_size, threads=threads)
    autocast._autocast_dtype = torch.bfloat16  # fp32 weights, bf16 matmuls, fp32 LayerNorm/softmax
    autocast._lean = None  # autocast wraps transformers' module tree
    plain = BiEncoder(precision="fp32", batch_size=batch_size, threads=threads)
    plain._model.to(torch.bfloat16)  # everything bf16, residual stream included
    plain._lean = None  # the fused forward holds its own copies of the weights: cast the module tree only
    st = SentenceTransformer(str(fp32.resolved.path), device="cpu")

    auto_name = "searchapp-bf16" if auto.dtype == torch.bfloat16 else "searchapp-auto"
    impls: dict[str, Callable[[Sequence[str]], np.ndarray]] = {
        "sentence-transformers-fp32": lambda t: st.encode(
            list(t), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        ),
        "searchapp-fp32": fp32.encode,
        auto_name: auto.encode,
    }
    if cpu_has_native_bf16():
        impls["searchapp-bf16-autocast"] = autocast.encode
        impls["searchapp-bf16-all-weights"] = plain.encode
    ort_encode = onnxruntime_encoder(fp32, threads)
    if ort_encode is not None:
        impls["onnxruntime-fp32"] = ort_encode

    sets = {"passages": load_passages(n_passages, fp32), "sentences": load_sentences(n_sentences)}
    results = []
    for set_name, texts in sets.items():
        for fn in impls.values():
            fn(texts[:batch_size])  # warm-up: first-call allocations and kernel selection
        best = {name: float("inf") for name in impls}
        embs: dict[str, np.ndarray] = {}
        for _ in range(repeats):
            for name, fn in impls.items():
                t0 = time.perf_counter()
                embs[name] = np.asarray(fn(texts), dtype=np.float32)
                best[name] = min(best[name], time.perf_counter() - t0)
        ref_name = "sentence-transformers-fp32"
        ref = embs[ref_name]
        ref_tps = len(texts) / best[ref_name]
        for name in impls:
            tps = len(texts) / best[name]
            results.append(
                {
                    "bench": "encode",
                    "set": set_name,
                    "impl": name,
                    "texts_per_s": round(tps, 2),
                    "ratio_vs_sentence_transformers": round(tps / ref_tps, 3),
                    "min_cosine_vs_st": round(float(np.min(np.sum(embs[name] * ref, axis=1))), 6),
                    "top10_agreement": round(top10_agreement(embs[name], ref), 4),
                    "n": len(texts),
                    "batch_size": batch_size,
                    "threads": threads,
                    "mean_tokens": round(float(np.mean([fp32.count_tokens(t) for t in texts])), 1),
                }
            )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--passages", type=int, default=256)
    p.add_argument("--sentences", type=int, default=1000)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args(argv)
    for row in run(args.passages, args.sentences, args.threads, args.batch_size, args.repeats):
        print(json.dumps(row), flush=True)
    return 0


@pytest.mark.benchmark
def test_bf16_encode_is_faster_and_faithful():
    if not cpu_has_native_bf16():
        pytest.skip("needs a CPU with native bf16")
    if not PASSAGES.is_file() or not SENTENCES.is_file():
        pytest.skip(f"benchmark data not found under {DATA}")
    rows = run(128, 500, torch.get_num_threads(), 32, 1)
    for row in rows:
        print(json.dumps(row))
        if row["impl"] == "searchapp-bf16":
            assert row["min_cosine_vs_st"] >= 0.9999 and row["top10_agreement"] >= 0.99
            assert row["ratio_vs_sentence_transformers"] >= 1.5


if __name__ == "__main__":
    raise SystemExit(main())
