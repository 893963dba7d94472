"""A BERT forward in a few fused torch calls, over loaded weights (transformers' or plain_bert's): one body, two heads.

Why: transformers' module tree runs each layer through dozens of Python calls, hooks, mask checks and,
under mixed bf16 on the CPU, a cast of the same input before each of Q, K and V. This body does the same sums
with one QKV matmul, one scaled_dot_product_attention and one LayerNorm per residual, and it takes its
matmuls from the caller (`LinearMaker`), so the same arithmetic serves two machines:

- the GPU (`plain_linear`): about ten launches a layer and no host-device synchronization, so a CUDA graph
  can capture it (cuda_graphs.py): the reranker's forward was measured launch-bound at ~7.5 ms on an H200;
- the CPU (`cpu_linear.packed_linear`): oneDNN matmuls on weights reordered once at load, with GELU fused
  into the up-projection. The passages of a sync go through it (bench_passage_paths.py: see BiEncoder).

The residual stream keeps the embeddings' dtype (fp32 in transformer.mixed_bf16's mix, where only the
matmuls run in bf16), so the sums and LayerNorms are where transformers' forward does them. It reads the
loaded model's own tensors; only Q, K and V are concatenated into one weight (3·H·H more numbers a layer).
`build` returns None for anything but a plain BERT; callers check the result against the module's own
forward on a probe batch before using it.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch
import torch.nn.functional as F

from .identity import plain_bert_config

__all__ = ["BertBody", "LeanBertScorer", "LinearMaker", "plain_linear"]

_ACTIVATIONS: dict[str, Callable[..., torch.Tensor]] = {"gelu": F.gelu, "relu": F.relu}

Linear = Callable[[torch.Tensor], torch.Tensor]
# (weight (out, in), bias (out,), activation name: "none" or a key of _ACTIVATIONS) -> x (..., in) -> (..., out)
LinearMaker = Callable[[torch.Tensor, torch.Tensor, str], Linear]


def plain_linear(weight: torch.Tensor, bias: torch.Tensor, act: str) -> Linear:
    """F.linear, then the activation: what the GPU's graphs capture."""
    if act == "none":
        return lambda x: F.linear(x, weight, bias)
    fn = _ACTIVATIONS[act]
    return lambda x: fn(F.linear(x, weight, bias))


def _covers(bert: Any) -> bool:
    """A plain BERT encoder this file reproduces (identity.plain_bert_config: the rule `status` reads too)."""
    cfg = getattr(bert, "config", None)
    return (cfg is not None and type(bert).__name__ in ("BertModel", "PlainBert") and plain_bert_config(cfg.to_dict())
            and cfg.hidden_act in _ACTIVATIONS)


class _Layer:
    def __init__(self, layer: Any, linear: LinearMaker, act: str) -> None:
        att = layer.attention.self
        self.qkv = linear(torch.cat([att.query.weight, att.key.weight, att.value.weight]),  # (3H, H)
                          torch.cat([att.query.bias, att.key.bias, att.value.bias]), "none")
        out, up, down = layer.attention.output.dense, layer.intermediate.dense, layer.output.dense
        self.out = linear(out.weight, out.bias, "none")
        self.up = linear(up.weight, up.bias, act)  # the activation fused where the maker can
        self.down = linear(down.weight, down.bias, "none")
        self.ln1 = layer.attention.output.LayerNorm
        self.ln2 = layer.output.LayerNorm


class BertBody:
    """(batch, seq) input_ids / attention_mask / token_type_ids -> (batch, seq, H) last hidden state, eval only,
    in the embeddings' dtype: a bi-encoder's token vectors, or a cross-encoder's before its head."""

    def __init__(self, bert: Any, linear: LinearMaker) -> None:
        cfg = bert.config
        self.heads = int(cfg.num_attention_heads)
        self.hidden = int(cfg.hidden_size)  # a constant, not x.shape[-1]: an ONNX trace needs a static norm shape
        self.emb = bert.embeddings
        self.layers = [_Layer(layer, linear, cfg.hidden_act) for layer in bert.encoder.layer]

    @classmethod
    def build(cls, bert: Any, linear: LinearMaker) -> Optional["BertBody"]:
        """The body of a BertModel this file covers, or None."""
        if not _covers(bert):
            return None
        try:
            return cls(bert, linear)
        except (AttributeError, KeyError, RuntimeError):  # a variant whose module tree differs
            return None

    def __call__(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                 token_type_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        b, t = input_ids.shape
        e = self.emb
        types = (e.token_type_embeddings(token_type_ids) if token_type_ids is not None
                 else e.token_type_embeddings.weight[0])  # transformers' default: all type 0
        x = e.word_embeddings(input_ids) + types + e.position_embeddings.weight[:t]  # (b, t, H)
        hidden = self.hidden
        x = F.layer_norm(x, (hidden,), e.LayerNorm.weight, e.LayerNorm.bias, e.LayerNorm.eps)
        keep = attention_mask.bool()[:, None, None, :]  # (b, 1, 1, t): True where a key may be attended
        for layer in self.layers:
            qkv = layer.qkv(x).view(b, t, 3, self.heads, hidden // self.heads)
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # each (b, heads, t, head_dim)
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep).transpose(1, 2).reshape(b, t, hidden)
            # A bf16 matmul's output plus the fp32 stream sums in fp32 (type promotion), as in transformers.
            x = F.layer_norm(layer.out(a) + x, (hidden,), layer.ln1.weight, layer.ln1.bias, layer.ln1.eps)
            h = layer.down(layer.up(x))
            x = F.layer_norm(h + x, (hidden,), layer.ln2.weight, layer.ln2.bias, layer.ln2.eps)
        return x


class LeanBertScorer:
    """A cross-encoder: (batch, seq) input_ids / attention_mask / token_type_ids -> (batch,) fp32 logits."""

    def __init__(self, model: Any, linear: LinearMaker = plain_linear) -> None:
        self.body = BertBody(model.bert, linear)
        self.pooler = model.bert.pooler.dense
        self.classifier = model.classifier
        self.dtype = self.body.emb.word_embeddings.weight.dtype

    @classmethod
    def build(cls, model: Any, linear: Optional[LinearMaker] = None) -> Optional["LeanBertScorer"]:
        """The lean forward for `model`, or None when it is not a plain BERT classifier with one label.
        Without `linear` (plain F.linear), the body's weights must share one dtype: the CPU's mixed bf16
        (bf16 Linear beside fp32 LayerNorm) needs a maker that casts its inputs, as cpu_linear's does."""
        cfg = getattr(model, "config", None)
        if (type(model).__name__ not in ("BertForSequenceClassification", "PlainBertClassifier") or cfg is None
                or getattr(cfg, "num_labels", 0) != 1 or not _covers(getattr(model, "bert", None))
                or getattr(model.bert, "pooler", None) is None):
            return None
        body = [p for n, p in model.named_parameters() if not n.startswith(("classifier", "bert.pooler"))]
        if linear is None and len({p.dtype for p in body}) != 1:
            return None
        try:
            return cls(model, linear or plain_linear)
        except (AttributeError, KeyError, RuntimeError):  # a variant whose module tree differs
            return None

    def __call__(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                 token_type_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        x = self.body(input_ids, attention_mask, token_type_ids)
        cls = x[:, 0].to(self.pooler.weight.dtype)  # the head is kept in fp32 by the CrossEncoder
        pooled = torch.tanh(F.linear(cls, self.pooler.weight, self.pooler.bias))
        return F.linear(pooled.to(self.classifier.weight.dtype), self.classifier.weight,
                        self.classifier.bias).float().reshape(-1)
