"""A BERT cross-encoder's forward in a few fused torch calls, over the weights transformers loaded.

Why: reranking 50 candidates on a GPU is a few hundred microseconds of arithmetic, but transformers' module
tree launches each layer through dozens of Python calls, hooks and mask checks: the forward was measured
launch-bound at ~7.5 ms on an H200. This forward does the same sums with one QKV matmul, one
scaled_dot_product_attention and one LayerNorm per residual (about ten launches a layer), and it has no
host-device synchronization anywhere, so a CUDA graph can capture it (cuda_graphs.py).

It reads the loaded model's own tensors (only Q, K and V are concatenated into one weight, and for that
copy each layer holds 3·H·H more numbers). `LeanBertScorer.build` returns None for anything but a plain BERT
sequence classifier with one label; the caller checks the logits against transformers' own on a probe batch
before using it.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch
import torch.nn.functional as F

__all__ = ["LeanBertScorer"]

_ACTIVATIONS: dict[str, Callable[..., torch.Tensor]] = {"gelu": F.gelu, "relu": F.relu}


class _Layer:
    def __init__(self, layer: Any) -> None:
        att = layer.attention.self
        self.qkv_w = torch.cat([att.query.weight, att.key.weight, att.value.weight])  # (3H, H)
        self.qkv_b = torch.cat([att.query.bias, att.key.bias, att.value.bias])  # (3H,)
        out, up, down = layer.attention.output.dense, layer.intermediate.dense, layer.output.dense
        self.out = (out.weight, out.bias)
        self.up = (up.weight, up.bias)
        self.down = (down.weight, down.bias)
        self.ln1 = layer.attention.output.LayerNorm
        self.ln2 = layer.output.LayerNorm


class LeanBertScorer:
    """(batch, seq) input_ids / attention_mask / token_type_ids -> (batch,) fp32 logits, eval only."""

    def __init__(self, model: Any) -> None:
        cfg = model.config
        bert = model.bert
        self.heads = int(cfg.num_attention_heads)
        self.act: Callable[..., torch.Tensor] = _ACTIVATIONS[cfg.hidden_act]
        self.emb = bert.embeddings
        self.layers = [_Layer(layer) for layer in bert.encoder.layer]
        self.pooler = bert.pooler.dense
        self.classifier = model.classifier
        self.dtype = self.emb.word_embeddings.weight.dtype

    @classmethod
    def build(cls, model: Any) -> Optional["LeanBertScorer"]:
        """The lean forward for `model`, or None when it is not a plain BERT classifier this file covers."""
        cfg = getattr(model, "config", None)
        if type(model).__name__ != "BertForSequenceClassification" or cfg is None:
            return None
        if (getattr(cfg, "num_labels", 0) != 1 or getattr(cfg, "hidden_act", None) not in _ACTIVATIONS
                or getattr(cfg, "position_embedding_type", "absolute") != "absolute"
                or getattr(cfg, "is_decoder", False) or getattr(cfg, "add_cross_attention", False)
                or getattr(model.bert, "pooler", None) is None):
            return None
        body = [p for n, p in model.named_parameters() if not n.startswith(("classifier", "bert.pooler"))]
        if len({p.dtype for p in body}) != 1:  # CPU's mixed bf16 (bf16 Linear beside fp32 LayerNorm) stays on HF
            return None
        try:
            return cls(model)
        except (AttributeError, KeyError, RuntimeError):  # a variant whose module tree differs
            return None

    def __call__(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                 token_type_ids: torch.Tensor) -> torch.Tensor:
        b, t = input_ids.shape
        e = self.emb
        x = (e.word_embeddings(input_ids) + e.token_type_embeddings(token_type_ids)
             + e.position_embeddings.weight[:t])  # (b, t, H)
        x = F.layer_norm(x, x.shape[-1:], e.LayerNorm.weight, e.LayerNorm.bias, e.LayerNorm.eps)
        hidden = x.shape[-1]
        keep = attention_mask.bool()[:, None, None, :]  # (b, 1, 1, t): True where a key may be attended
        for layer in self.layers:
            qkv = F.linear(x, layer.qkv_w, layer.qkv_b).view(b, t, 3, self.heads, hidden // self.heads)
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # each (b, heads, t, head_dim)
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep).transpose(1, 2).reshape(b, t, hidden)
            x = F.layer_norm(F.linear(a, *layer.out) + x, (hidden,), layer.ln1.weight, layer.ln1.bias, layer.ln1.eps)
            h = F.linear(self.act(F.linear(x, *layer.up)), *layer.down)
            x = F.layer_norm(h + x, (hidden,), layer.ln2.weight, layer.ln2.bias, layer.ln2.eps)
        cls = x[:, 0].to(self.pooler.weight.dtype)  # the head is kept in fp32 by the CrossEncoder
        pooled = torch.tanh(F.linear(cls, self.pooler.weight, self.pooler.bias))
        return F.linear(pooled.to(self.classifier.weight.dtype), self.classifier.weight,
                        self.classifier.bias).float().reshape(-1)
