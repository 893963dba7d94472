"""One equivalence test over every query encoder searchapp keeps (decision 0117): torch (the reference, fp32),
the NumPy encoder (a cold command-line search, no torch) and ONNX Runtime on the library's export (a warm process;
only where onnxruntime is installed, the `ocr` extra). Each must give the torch fp32 vector of every query: on the
tiny bi-encoder in each pooling the NumPy and ONNX paths run, and on the packaged MiniLM (the default model).

Tolerance: every component within 1e-4 of torch fp32's and a cosine of at least 1 - 1e-5. The three run the same
fp32 arithmetic in other orders (torch's kernels, NumPy's BLAS, ONNX Runtime's MLAS), which on the 2026-11-29
AVX2 run moved the cosine by 3.9e-7 at most (tests/benchmarks/bench_query_paths.py, 150 queries × 500 passages):
1e-4 leaves room for another CPU's kernels, and stays far below what a real fault moves (bf16 weights: 3e-3; a
wrong pooling or a missing prompt: > 1e-2), so the check does not rest on this CPU's float path.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from searchapp.models import BiEncoder
from searchapp.models.identity import bi_encoder_identity
from searchapp.models.query_encoder import load_query_encoder

# One torch thread for every forward here (conftest.one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

ATOL, MIN_COS = 1e-4, 1 - 1e-5
QUERIES = ["when is the orthodontist consultation", "how do vaccines train the immune system?", "x",
           "Größe 日本語 émoji 🙂 lighthouse keeper's logbook 1887", "a very long tail " * 200]
HAS_ORT = importlib.util.find_spec("onnxruntime") is not None


def _paths(model_dir, pooling: str, cache) -> dict:
    """Every kept path's encoder of one query for the model in `model_dir` (ONNX where it is installed)."""
    from searchapp.models.onnx_query import export_query_model, load_onnx_query_encoder

    ident = bi_encoder_identity(str(model_dir), pooling=pooling)
    numpy_enc = load_query_encoder(ident.resolved.path, pooling=pooling, max_seq_length=ident.max_seq_length)
    assert numpy_enc is not None, "the NumPy encoder handles this model"
    paths = {"numpy": numpy_enc}
    if HAS_ORT:
        assert export_query_model(ident.resolved.path, pooling=pooling, max_seq_length=ident.max_seq_length,
                                  fingerprint=ident.fingerprint, cache_dir=cache) is not None
        ort = load_onnx_query_encoder(cache, ident.fingerprint, ident.resolved.path,
                                      max_seq_length=ident.max_seq_length)
        assert ort is not None
        paths["onnxruntime"] = ort
    return paths


def _assert_agree(torch_enc: BiEncoder, paths: dict) -> None:
    """Each query alone (encode_one), and all of them in one call (encode_many: NumPy packs them into one
    matrix, ONNX Runtime pads them to the longest): every row is the query's own vector, wherever it sits."""
    wants = [np.asarray(torch_enc.encode_query(q), dtype=np.float32).reshape(-1) for q in QUERIES]
    for name, encoder in paths.items():
        many = np.asarray(encoder.encode_many(QUERIES), dtype=np.float32)
        assert many.shape == (len(QUERIES), wants[0].size), name
        for q, want, row in zip(QUERIES, wants, many, strict=True):
            for how, got in (("one", np.asarray(encoder.encode_one(q), dtype=np.float32).reshape(-1)), ("many", row)):
                assert got.shape == want.shape, (name, how, q)
                assert np.abs(got - want).max() <= ATOL and float(got @ want) >= MIN_COS, (name, how, q[:40])


@pytest.mark.parametrize("pooling", ["mean", "cls", "max"])
def test_every_query_encoder_gives_torch_fp32s_vector_tiny(tiny_bi_encoder_dir, pooling, tmp_path):
    torch_enc = BiEncoder(str(tiny_bi_encoder_dir), pooling=pooling, device="cpu", precision="fp32", threads=1)
    _assert_agree(torch_enc, _paths(tiny_bi_encoder_dir, pooling, tmp_path / "model-cache"))


def test_every_query_encoder_gives_torch_fp32s_vector_minilm(packaged_model_dir, minilm_fp32, tmp_path):
    _assert_agree(minilm_fp32, _paths(packaged_model_dir, "mean", tmp_path / "model-cache"))


def test_packed_passages_take_the_cores_other_programs_leave(tiny_bi_encoder_dir, monkeypatch):
    """One BLAS thread for a query (a few rows: hand-offs cost more than they give) and when nothing is known
    of the other programs; for many packed rows, the cores they left since the last reading (decision 0139)."""
    from contextlib import nullcontext

    from searchapp.base.cpu_share import CpuShare
    from searchapp.models import query_encoder as qe

    enc = load_query_encoder(tiny_bi_encoder_dir, pooling="mean", max_seq_length=128)
    monkeypatch.setattr(qe, "usable_cores", lambda: 2)
    threads: list[int] = []
    monkeypatch.setattr(qe, "_blas_threads", lambda n: threads.append(n) or nullcontext())
    long = ["word " * 200] * 4  # 4 x 128 rows (the tiny model's limit): 256 rows a thread, enough for two
    for others, dt, want in ((0.0, 1.0, 2), (1.0, 1.0, 1), (0.0, 0.05, 1)):  # busy cores of others; seconds since
        samples = iter([(0.0, 0.0, 0.0), (others * dt + 0.5 * dt, 0.5 * dt, dt)])  # (all busy, own, clock)
        enc._cpu_share = CpuShare(sample=samples.__next__)
        enc.encode_many(long)
        assert threads[-1] == want, (others, dt)
    enc.encode_many(["a short query"])
    assert threads[-1] == 1


def test_a_text_of_no_word_pieces_gets_a_row_of_nan_beside_the_others(tiny_bi_encoder_dir):
    from types import SimpleNamespace

    enc = load_query_encoder(tiny_bi_encoder_dir, pooling="mean", max_seq_length=128)
    real = enc.tokenizer.encode("basaltic lava")
    got = enc._encode([SimpleNamespace(ids=[], type_ids=[]), real])
    assert np.isnan(got[0]).all() and np.allclose(got[1], enc.encode_one("basaltic lava"), atol=1e-6)
