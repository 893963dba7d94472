"""SBERT-WK pooling: the batched implementation against a plain loop-based reference written from method.md."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from searchapp.models import pooling
from searchapp.models.sbert_wk import wk_pool, wk_windows


def reference_wk(hidden_states, mask, layer_start=4, m=2, omega=0.5) -> np.ndarray:
    """One sentence, one word, one layer at a time, NumPy float64 QR per window (the paper's procedure)."""
    hs = np.stack([h.double().numpy() for h in hidden_states])  # (layers+1, B, T, D)
    start = max(0, min(layer_start, len(hs) - 3))
    hs = hs[start:]
    n_layers = hs.shape[0]
    out = []
    for b in range(hs.shape[1]):
        real = [t for t in range(hs.shape[2]) if mask[b, t]]
        words = real[1:-1]  # [CLS] and [SEP] excluded
        if not words:
            last = hidden_states[-1][b].double().numpy()
            out.append(last[real].mean(axis=0))
            continue
        unified, variances = [], []
        for t in words:
            v = hs[:, b, t, :]  # (L, D): this word at every chosen layer
            align, novelty = np.zeros(n_layers), np.zeros(n_layers)
            for i in range(n_layers):
                context = [v[j] for j in range(max(0, i - m), i)] + [v[j] for j in range(i + 1, min(n_layers, i + m + 1))]
                c_tilde = np.stack(context + [v[i]], axis=1)  # (D, c + 1)
                _, r_mat = np.linalg.qr(c_tilde)
                r = r_mat[:, -1]
                novelty[i] = abs(r[-1]) / np.linalg.norm(r)
                ctx = r_mat[:-1, :-1]
                unit = ctx / np.linalg.norm(ctx, axis=0, keepdims=True)
                a = unit.mean(axis=1).dot(r[:-1]) / np.linalg.norm(r[:-1])
                align[i] = 1.0 / (a * c_tilde.shape[1] * 2)
            alpha = omega * align / align.sum() + (1 - omega) * novelty / novelty.sum()
            alpha /= alpha.sum()
            unified.append(v.T @ alpha)
            cos = [v[i] @ v[i + 1] / (np.linalg.norm(v[i]) * np.linalg.norm(v[i + 1])) for i in range(n_layers - 1)]
            variances.append(np.var(cos))
        variances = np.array(variances)
        weights = variances / variances.sum() if variances.sum() > 1e-12 else np.full(len(words), 1 / len(words))
        out.append(np.stack(unified, axis=1) @ weights)
    return np.stack(out)


def _batch(n_hidden=8, batch=3, seq=7, dim=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    # A shared component plus layer-to-layer drift: realistic enough that cosines and alignments vary.
    base = torch.randn(batch, seq, dim, generator=g)
    hidden, h = [], base
    for _ in range(n_hidden):
        h = h + 0.6 * torch.randn(batch, seq, dim, generator=g)
        hidden.append(h.clone())
    mask = torch.zeros(batch, seq, dtype=torch.long)
    for b, n in enumerate([seq, 4, 3][:batch] + [seq] * max(0, batch - 3)):
        mask[b, :n] = 1
    return hidden, mask


@pytest.mark.parametrize("n_hidden", [7, 13, 3, 5])  # MiniLM-L6, BERT-base, a 2-layer model, clipped windows
def test_batched_matches_loop_reference(n_hidden):
    hidden, mask = _batch(n_hidden=n_hidden)
    want = reference_wk(hidden, mask)
    got64 = wk_pool([h.double() for h in hidden], mask)
    got32 = wk_pool(hidden, mask)
    assert got64.dtype == torch.float64 and got32.dtype == torch.float32
    np.testing.assert_allclose(got64.numpy(), want, atol=1e-10, rtol=1e-8)
    np.testing.assert_allclose(got32.numpy(), want, atol=1e-5, rtol=1e-5)


def test_padding_and_left_padding_do_not_change_the_result():
    hidden, mask = _batch()
    right = wk_pool(hidden, mask)
    # The same sentences padded on the left instead (a tokenizer may pad either side).
    shifted, left_mask = [], torch.zeros_like(mask)
    for b in range(mask.shape[0]):
        n = int(mask[b].sum())
        left_mask[b, mask.shape[1] - n :] = 1
    for h in hidden:
        s = torch.full_like(h, 123.0)  # padding values must never leak in
        for b in range(mask.shape[0]):
            n = int(mask[b].sum())
            s[b, mask.shape[1] - n :] = h[b, :n]
        shifted.append(s)
    np.testing.assert_allclose(wk_pool(shifted, left_mask).numpy(), right.numpy(), atol=1e-5)
    # One sentence alone gives the same vector as inside a batch.
    alone = wk_pool([h[1:2, :4] for h in hidden], mask[1:2, :4])
    np.testing.assert_allclose(alone.numpy(), right[1:2].numpy(), atol=1e-5)


def test_windows_are_clipped_and_padded_after_the_word():
    index, n_ctx = wk_windows(3, 2)  # MiniLM-L6 with layers 4..6
    assert index.tolist() == [[1, 2, 0], [0, 2, 1], [0, 1, 2]]
    assert n_ctx.tolist() == [2, 2, 2]
    index, n_ctx = wk_windows(6, 2)
    assert index[0].tolist() == [1, 2, 0, -1, -1] and n_ctx[0] == 2
    assert index[1].tolist() == [0, 2, 3, 1, -1] and n_ctx[1] == 3
    assert index[3].tolist() == [1, 2, 4, 5, 3] and n_ctx[3] == 4


def test_rows_without_words_fall_back_to_mean_of_last_layer():
    hidden, _ = _batch(batch=2, seq=4)
    mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 0]])  # only [CLS] [SEP]; one word
    out = wk_pool(hidden, mask)
    assert torch.allclose(out[0], hidden[-1][0, :2].mean(dim=0), atol=1e-6)
    assert torch.isfinite(out).all()
    np.testing.assert_allclose(out.numpy(), reference_wk(hidden, mask), atol=1e-5)


def test_registered_and_needs_hidden_states():
    assert "wk" in pooling.pooling_modes()
    assert pooling.needs_hidden_states("wk")
    hidden, mask = _batch()
    out = pooling.pool(hidden[-1], mask, "wk", hidden_states=hidden)
    assert torch.allclose(out, wk_pool(hidden, mask))
    with pytest.raises(ValueError, match="hidden states"):
        pooling.pool(hidden[-1], mask, "wk")


def test_bi_encoder_with_wk_pooling(packaged_model_dir, make_config):
    from searchapp.models import BiEncoder

    assert make_config(models={"pooling": "wk"}).models.pooling == "wk"
    enc = BiEncoder(str(packaged_model_dir), pooling="wk", device="cpu", precision="fp32")
    texts = ["A man is eating food.", "A man eats something.", "The stock market fell sharply today."]
    vecs = enc.encode(texts)
    assert vecs.shape == (3, 384) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    sims = vecs @ vecs.T
    assert sims[0, 1] > sims[0, 2]
    assert enc.fingerprint != BiEncoder(str(packaged_model_dir), pooling="mean", device="cpu").fingerprint


@pytest.mark.gpu
def test_wk_on_cuda_matches_the_cpu():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    hidden, mask = _batch(n_hidden=13)
    got = wk_pool([h.cuda() for h in hidden], mask.cuda())
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().numpy(), reference_wk(hidden, mask), atol=1e-4)
