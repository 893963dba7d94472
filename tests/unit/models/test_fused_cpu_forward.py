"""The fused CPU forward (lean_bert's body on cpu_linear's oneDNN-packed weights) of the bi-encoder and the
reranker against transformers' own forward: the same vectors and logits, and transformers' forward wherever
the fused one does not hold."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import TOKENIZER_FILES
from searchapp.models import BiEncoder, CrossEncoder, cpu_linear

# One torch thread for every forward here (conftest.one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

TEXTS = [
    "A man is eating food.",
    "short",
    "",
    "Semantic search finds passages by meaning rather than by shared words; " * 8,  # the longest: others pad
    "Ünïcode — café 2024, with “quotes” and digits 3.14159.",
]


_PACKED = cpu_linear.packed_linear


def rows_swapped(dtype):
    """cpu_linear's maker with each layer's outputs in the wrong order: a fused forward that is wrong."""
    make = _PACKED(dtype)
    return lambda weight, bias, act: make(weight.flip(0), bias.flip(0), act)


def bf16_runs_fused() -> bool:
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def reference(enc: BiEncoder, texts: list[str]) -> np.ndarray:
    """The same encoder's vectors through its module's own forward (plain_bert's for these plain BERTs, which
    test_plain_bert.py compares with transformers')."""
    lean, enc._lean = enc._lean, None
    try:
        return enc.encode(texts)
    finally:
        enc._lean = lean


@pytest.mark.parametrize("act", ["none", "gelu", "relu"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_packed_linear_is_f_linear_then_the_activation(act, dtype):
    if dtype == torch.bfloat16 and not bf16_runs_fused():
        pytest.skip("oneDNN has no bf16 matmul on this CPU (the encoder then keeps transformers' forward)")
    torch.manual_seed(0)
    w, b = torch.randn(48, 32) * 0.2, torch.randn(48)
    x = torch.randn(3, 7, 32)  # (batch, seq, in): the op itself takes rows; the maker reshapes
    linear = cpu_linear.packed_linear(dtype)(w, b, act)
    want = F.linear(x.to(dtype), w.to(dtype), b.to(dtype)).float()
    want = {"none": want, "gelu": F.gelu(want), "relu": F.relu(want)}[act]
    got = linear(x)
    assert got.shape == (3, 7, 48) and got.dtype == dtype
    tol = 1e-5 if dtype == torch.float32 else 0.05  # bf16 keeps 8 bits: one unit at |y| ~ 4-8 is 0.03
    np.testing.assert_allclose(got.float().numpy(), want.numpy(), atol=tol, rtol=0 if dtype == torch.float32 else 0.01)
    assert float(want.abs().max()) > 1.0 and (act != "relu" or float((want == 0).float().mean()) > 0.2)


def test_fused_forward_gives_transformers_vectors(tiny_bi_encoder_dir):
    enc = BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=1)
    assert enc.path == "fused"
    got, want = enc.encode(TEXTS), reference(enc, TEXTS)
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)
    assert np.min(np.sum(want[:, None] * want[None], axis=2)[~np.eye(len(TEXTS), dtype=bool)]) < 0.99  # texts differ
    np.testing.assert_allclose(np.ravel(enc.encode_query(TEXTS[0])), want[0], atol=1e-5, rtol=0)  # one row, unpadded


@pytest.fixture(scope="module")
def reranker_fp32(minilm_reranker_dir):
    return CrossEncoder(str(minilm_reranker_dir), device="cpu", precision="fp32", batch_size=2, threads=1)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_fused_minilm_agrees_with_transformers(packaged_model_dir, minilm_fp32, precision):
    enc = minilm_fp32 if precision == "fp32" else BiEncoder(str(packaged_model_dir), device="cpu", precision=precision,
                                                            threads=1)
    if precision == "bf16" and not bf16_runs_fused():
        # An AVX2-only CPU: oneDNN has no bf16 matmul, so the encoder keeps the module's own forward (plain_bert's
        # on bf16 weights, emulated): its vectors must still be fp32's within bf16's rounding (8 bits of mantissa:
        # cosines of ~0.9999 to fp32's over six layers; a wrong forward falls far below).
        assert enc.path == "plain"
        fp32 = minilm_fp32.encode(TEXTS)
        assert np.min(np.sum(enc.encode(TEXTS) * fp32, axis=1)) > 0.999
        return
    assert enc.path == "fused"
    got, want = enc.encode(TEXTS), reference(enc, TEXTS)
    cos = np.sum(got * want, axis=1)
    # fp32: the same sums in another order (oneDNN's blocking vs transformers' matmul), on AVX2 or AVX-512 alike
    assert np.min(cos) > (0.999999 if precision == "fp32" else 0.9999), cos
    # and the nearest text of each is the same one
    assert (np.argsort(-(got @ got.T), axis=1)[:, 1] == np.argsort(-(want @ want.T), axis=1)[:, 1]).all()
    if precision == "bf16":  # both sides above run lean_bert's body: bf16's vectors against fp32's as well
        fp32 = minilm_fp32.encode(TEXTS)
        assert np.min(np.sum(got * fp32, axis=1)) > 0.999


def test_pooling_from_every_layer_keeps_transformers_forward(tiny_bi_encoder_dir):
    enc = BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=1, pooling="wk")
    assert enc.path == "transformers"  # SBERT-WK reads every layer's hidden states: only transformers gives them
    assert enc.encode(TEXTS).shape == (len(TEXTS), enc.dim)


def test_a_fused_forward_that_disagrees_is_not_used(tiny_bi_encoder_dir, monkeypatch):
    monkeypatch.setattr(cpu_linear, "packed_linear", rows_swapped)
    enc = BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=1)
    assert enc.path == "plain"
    monkeypatch.undo()
    fused = BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=1)
    assert fused.path == "fused"
    np.testing.assert_allclose(enc.encode(TEXTS), fused.encode(TEXTS), atol=1e-5, rtol=0)


def test_a_model_that_is_not_bert_keeps_transformers_forward(tmp_path, packaged_model_dir):
    from transformers import DistilBertConfig, DistilBertModel

    torch.manual_seed(0)
    folder = tmp_path / "tiny-distilbert"
    cfg = DistilBertConfig(vocab_size=30522, dim=32, n_layers=1, n_heads=2, hidden_dim=64)
    DistilBertModel(cfg).eval().save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copyfile(Path(packaged_model_dir) / name, folder / name)
    enc = BiEncoder(str(folder), device="cpu", precision="fp32", threads=1)
    assert enc.path == "transformers"
    vecs = enc.encode(TEXTS)
    assert vecs.shape == (len(TEXTS), 32) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_fused_reranker_gives_transformers_logits(minilm_reranker_dir, reranker_fp32, precision):
    ce = reranker_fp32 if precision == "fp32" else CrossEncoder(str(minilm_reranker_dir), device="cpu",
                                                                precision=precision, batch_size=2, threads=1)
    if precision == "bf16" and not bf16_runs_fused():
        # AVX2 only: the module's own forward (plain_bert's) on bf16 weights, fp32's logits within bf16's rounding,
        # same order
        assert ce.path == "plain"
        want = reranker_fp32.score("how do cats purr", TEXTS)
        got = ce.score("how do cats purr", TEXTS)
        np.testing.assert_allclose(got, want, atol=0.1, rtol=0)
        apart = want[:, None] - want[None] > 0.2  # pairs bf16's rounding cannot swap
        assert np.ptp(want) > 0.5 and ((got[:, None] - got[None] > 0) | ~apart).all()
        return
    assert ce.path == "fused"  # batch 2: three batches, each padded to its own longest pair
    got = ce.score("how do cats purr", TEXTS)
    fused, ce._fused = ce._fused, None
    try:
        want = ce.score("how do cats purr", TEXTS)
    finally:
        ce._fused = fused  # the module's reranker, shared
    np.testing.assert_allclose(got, want, atol=1e-4 if precision == "fp32" else 0.05, rtol=0)
    assert np.ptp(want) > 0.5  # logits that differ: the check would see a forward that ignores its input
    assert (np.argsort(got) == np.argsort(want)).all()


def test_a_fused_reranker_that_disagrees_is_not_used(minilm_reranker_dir, monkeypatch):
    monkeypatch.setattr(cpu_linear, "packed_linear", rows_swapped)
    ce = CrossEncoder(str(minilm_reranker_dir), device="cpu", precision="fp32", threads=1)
    assert ce.path == "plain"
