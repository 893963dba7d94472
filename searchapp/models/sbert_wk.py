"""SBERT-WK pooling (Wang & Kuo, 2020): fuse every chosen layer's token vectors, then weight words.

For each word w and chosen layer i, the context window C = the same word's vectors at up to m layers on each
side (clipped at the first and last chosen layer). One QR of C̃ = [C, v_w^i] gives r = the coordinates of v_w^i
in the orthonormal basis of C̃:
  novelty    α_n = |r_last| / ‖r‖                 (share of v_w^i orthogonal to its context)
  alignment  a   = mean_j ĉ_j · r_ctx / ‖r_ctx‖   (ĉ_j: the context columns of R, unit length), α_a = 1 / (2·width·a)
Each is normalized to sum 1 over the layers, α = ω·α_a + (1 − ω)·α_n renormalized, and the word vector is
Σ_i α_i v_w^i. Word importance is the variance of the word's consecutive-layer cosines, l1-normalized over the
sentence's words, and the sentence vector is the importance-weighted sum of word vectors.

Vectorized: the windows of every word × layer of a batch go through ONE batched `torch.linalg.qr`, on whatever
device the hidden states live (the reference code looped in Python and ran NumPy QR per word and layer).

Choices, where the reference code (BinWang28/SBERT-WK-Sentence-Embedding, utils.py) and method.md differ:
- [CLS] and [SEP] are excluded (the first and last real token of each row); the reference kept [CLS].
- windows are clipped at the first chosen layer: the reference's `x[k - m:k]` is empty for 0 < k < m (a
  negative NumPy start wraps around), which drops left context it should keep.
- the alignment constant 2·width (width = columns of C̃, 2m + 1 inside, fewer at a clipped edge) is the
  reference's; α_a ∝ 1/alignment within a window width.
Degenerate inputs: a row without words (only [CLS]/[SEP]) falls back to mean pooling of the last layer; a
sentence whose words all have zero variance (e.g. fewer than 3 chosen layers) weights its words equally.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch


__all__ = ["wk_pool", "wk_pooling_fn", "wk_windows", "LAYER_START", "WINDOW", "OMEGA"]

LAYER_START = 4  # hidden_states[4:]: the outputs of transformer layers 4..last (index 0 is the embeddings)
WINDOW = 2  # m: context layers on each side
OMEGA = 0.5  # weight of inverse alignment against novelty

_EPS = 1e-12


def wk_windows(n_layers: int, m: int = WINDOW) -> tuple[torch.Tensor, torch.Tensor]:
    """Column layout of every layer's C̃ = [context..., self, zero padding...], all of one width.

    Returns (index (L, W) long, n_context (L,) long) with W = min(2m, L − 1) + 1. Padding columns go after the
    word's own column: QR is column-sequential, so R[:, c] depends only on columns 0..c and the padding cannot
    change r; index −1 marks padding.
    """
    width = min(2 * m, n_layers - 1) + 1
    index = torch.full((n_layers, width), -1, dtype=torch.long)
    n_context = torch.empty(n_layers, dtype=torch.long)
    for i in range(n_layers):
        ctx = list(range(max(0, i - m), i)) + list(range(i + 1, min(n_layers, i + m + 1)))
        cols = ctx + [i]
        index[i, : len(cols)] = torch.tensor(cols)
        n_context[i] = len(ctx)
    return index, n_context


def _layer_start(n_hidden: int, layer_start: int) -> int:
    # Small models (fewer than layer_start + 3 hidden states) keep their last 3 layers where they have them:
    # the word weights need at least two consecutive-layer cosines to have a variance.
    return max(0, min(layer_start, n_hidden - 3))


def word_positions(mask: torch.Tensor) -> torch.Tensor:
    """(B, T) bool: real tokens other than the first ([CLS]) and last ([SEP]) of each row; any padding side."""
    real = mask.bool()
    rank = real.long().cumsum(dim=1)  # 1-based rank among a row's real tokens
    count = rank[:, -1:]  # (B, 1)
    return real & (rank > 1) & (rank < count)


def wk_pool(
    hidden_states: Sequence[torch.Tensor],
    attention_mask: torch.Tensor,
    *,
    layer_start: int = LAYER_START,
    m: int = WINDOW,
    omega: float = OMEGA,
) -> torch.Tensor:
    """(B, D) sentence vectors from every layer's (B, T, D) output; computed in float32 (float64 if given)."""
    dtype = torch.float64 if hidden_states[-1].dtype == torch.float64 else torch.float32
    start = _layer_start(len(hidden_states), layer_start)
    layers = torch.stack([h.to(dtype) for h in hidden_states[start:]], dim=2)  # (B, T, L, D)
    batch, _, n_layers, dim = layers.shape
    words_mask = word_positions(attention_mask)  # (B, T)
    out = _mean_last(hidden_states[-1].to(dtype), attention_mask)  # fallback for rows without words
    if not bool(words_mask.any()):
        return out
    words = layers[words_mask]  # (N, L, D): every word of the batch, every chosen layer
    sentence_of = words_mask.nonzero()[:, 0]  # (N,) row of each word

    unified = _unify_words(words, m, omega)  # (N, D)
    importance = _word_importance(words)  # (N,)

    # l1-normalize importance within each sentence; all-zero sentences weight their words equally.
    total = torch.zeros(batch, dtype=dtype, device=words.device).index_add_(0, sentence_of, importance)
    count = torch.zeros(batch, dtype=dtype, device=words.device).index_add_(
        0, sentence_of, torch.ones_like(importance)
    )
    flat = (total[sentence_of] <= _EPS).to(dtype)  # (N,) 1 where the sentence has no variance at all
    weight = (1 - flat) * importance / total[sentence_of].clamp_min(_EPS) + flat / count[sentence_of]
    pooled = torch.zeros(batch, dim, dtype=dtype, device=words.device).index_add_(
        0, sentence_of, unified * weight.unsqueeze(1)
    )  # (B, D)
    has_words = words_mask.any(dim=1, keepdim=True)  # (B, 1)
    return torch.where(has_words, pooled, out)


def _unify_words(words: torch.Tensor, m: int, omega: float) -> torch.Tensor:
    """(N, L, D) word vectors per layer → (N, D) unified word vectors (one batched QR for all N × L windows)."""
    n_words, n_layers, dim = words.shape
    index, n_ctx = wk_windows(n_layers, m)
    index, n_ctx = index.to(words.device), n_ctx.to(words.device)
    width = index.shape[1]
    pad = (index < 0).to(words.dtype)  # (L, W)
    windows = words[:, index.clamp_min(0)] * (1 - pad)[None, :, :, None]  # (N, L, W, D); padding columns zero
    # mode "r" skips forming Q (inference); autograd through QR needs Q, so training asks for it.
    mode = "reduced" if windows.requires_grad else "r"
    _, r_full = torch.linalg.qr(windows.transpose(-1, -2).reshape(n_words * n_layers, dim, width), mode=mode)
    r_full = r_full.reshape(n_words, n_layers, width, width)  # (N, L, W, W) upper triangular

    # r: the word's own column (position n_ctx[i] of layer i); entries below the diagonal are zero.
    col = n_ctx.view(1, n_layers, 1, 1).expand(n_words, n_layers, width, 1)
    r = r_full.gather(3, col).squeeze(3)  # (N, L, W)
    rows = torch.arange(width, device=words.device)
    ctx_rows = (rows[None, :] < n_ctx[:, None]).to(words.dtype)  # (L, W) rows/cols of the context block
    r_self = r.gather(2, n_ctx.view(1, n_layers, 1).expand(n_words, n_layers, 1)).squeeze(2)  # (N, L)
    novelty = r_self.abs() / r.norm(dim=2).clamp_min(_EPS)  # (N, L)

    r_ctx = r * ctx_rows  # (N, L, W) the word's coordinates in the context's basis
    ctx_cols = r_full * ctx_rows[None, :, :, None] * ctx_rows[None, :, None, :]  # (N, L, W, W) context block
    unit_cols = ctx_cols / ctx_cols.norm(dim=2, keepdim=True).clamp_min(_EPS)
    mean_col = unit_cols.sum(dim=3) / n_ctx.clamp_min(1).to(words.dtype)[None, :, None]  # (N, L, W)
    alignment = (mean_col * r_ctx).sum(dim=2) / r_ctx.norm(dim=2).clamp_min(_EPS)  # (N, L)
    inv_alignment = 1.0 / (alignment * (2 * (n_ctx + 1)).to(words.dtype)[None, :])

    inv_alignment = inv_alignment / inv_alignment.sum(dim=1, keepdim=True)
    novelty = novelty / novelty.sum(dim=1, keepdim=True).clamp_min(_EPS)
    alpha = omega * inv_alignment + (1 - omega) * novelty
    alpha = alpha / alpha.sum(dim=1, keepdim=True)  # (N, L)
    return (alpha.unsqueeze(2) * words).sum(dim=1)  # (N, D)


def _word_importance(words: torch.Tensor) -> torch.Tensor:
    """(N, L, D) → (N,) variance of the cosine between consecutive layers' vectors of each word."""
    unit = words / words.norm(dim=2, keepdim=True).clamp_min(_EPS)
    cos = (unit[:, 1:] * unit[:, :-1]).sum(dim=2)  # (N, L − 1): the offset-1 diagonal of the cosine matrix
    return cos.var(dim=1, unbiased=False) if cos.shape[1] > 0 else torch.zeros_like(cos[:, 0:1]).squeeze(1)


def _mean_last(last: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(last.dtype)  # (B, T, 1)
    return (last * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)


def wk_pooling_fn(
    _emb: torch.Tensor, mask: torch.Tensor, hidden: Optional[Sequence[torch.Tensor]]
) -> torch.Tensor:
    assert hidden is not None  # pool() checks this for modes registered with needs_hidden_states
    return wk_pool(hidden, mask)

