"""A plain BERT encoder built from its folder's safetensors and config.json alone: no transformers import.

Why: on an ordinary 2-core CPU, importing transformers costs ~6 s of a process's start (its import pulls in
torch.distributed.tensor, torch._dynamo, sympy and scipy), more than torch itself (~3.4 s) and twenty times
the weights' load; every `searchapp index` that embeds, every warm start and every worker the suite starts
paid it (tests/benchmarks/bench_startup.py). The module tree here has transformers' names, so the folder's
tensors load under their own keys, `transformer.mixed_bf16` casts it as it casts transformers' tree, and
lean_bert's body runs it: one arithmetic for both. Its forward is that body on plain F.linear (the matmuls
cast their input to the weights' dtype, as mixed bf16 does); the CPU's packed forward is checked against it
at load, as it is against transformers' when transformers loads the model.

`load` returns None for anything it does not reproduce exactly (not a plain BERT, sharded or missing weights,
old tensor names): the caller then loads through transformers, which also gives the error message.
tests/unit/models/test_plain_bert.py compares its vectors with transformers' BertModel.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping, Optional

import torch
import torch.nn.functional as F
from torch import nn

from .config_json import read_config_json
from .identity import plain_bert_config
from .lean_bert import BertBody, Linear

__all__ = ["PlainBert", "PlainBertClassifier", "PlainBertConfig", "load", "load_classifier", "num_labels"]

_WEIGHTS = "model.safetensors"
# config.json's sizes this file reads and has no default for
_SIZES = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
          "max_position_embeddings")
_ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"gelu": F.gelu, "relu": F.relu}


class PlainBertConfig(SimpleNamespace):
    """config.json's values as attributes (what lean_bert and BiEncoder read), and `to_dict` as transformers'."""

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def _norm(cfg: PlainBertConfig) -> nn.LayerNorm:
    return nn.LayerNorm(cfg.hidden_size, eps=float(cfg.layer_norm_eps))


class _Dense(nn.Module):
    def __init__(self, cfg: PlainBertConfig, n_in: int, n_out: int, norm: bool) -> None:
        super().__init__()
        self.dense = nn.Linear(n_in, n_out)
        if norm:
            self.LayerNorm = _norm(cfg)


def _embedding(rows: int, width: int) -> nn.Embedding:
    """A table left uninitialized: the checkpoint's tensor replaces it. Its random init on the meta device (`_load`)
    would import torch._dynamo, ~3 CPU s of every process that loads a model (torch._refs.normal_). Built only
    under `_load`'s meta device, where it allocates nothing; anywhere else its memory would be garbage until the
    checkpoint is assigned (load_state_dict(strict=True, assign=True) refuses a checkpoint that lacks it)."""
    return nn.Embedding(rows, width, _weight=torch.empty(rows, width))


class _Embeddings(nn.Module):
    def __init__(self, cfg: PlainBertConfig) -> None:
        super().__init__()
        self.word_embeddings = _embedding(cfg.vocab_size, cfg.hidden_size)
        self.position_embeddings = _embedding(cfg.max_position_embeddings, cfg.hidden_size)
        self.token_type_embeddings = _embedding(cfg.type_vocab_size, cfg.hidden_size)
        self.LayerNorm = _norm(cfg)


class _SelfAttention(nn.Module):
    def __init__(self, cfg: PlainBertConfig) -> None:
        super().__init__()
        h = cfg.hidden_size
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)


class _Attention(nn.Module):
    def __init__(self, cfg: PlainBertConfig) -> None:
        super().__init__()
        self.self = _SelfAttention(cfg)  # transformers' name: the tensors are "attention.self.query.weight"
        self.output = _Dense(cfg, cfg.hidden_size, cfg.hidden_size, norm=True)


class _Layer(nn.Module):
    def __init__(self, cfg: PlainBertConfig) -> None:
        super().__init__()
        self.attention = _Attention(cfg)
        self.intermediate = _Dense(cfg, cfg.hidden_size, cfg.intermediate_size, norm=False)
        self.output = _Dense(cfg, cfg.intermediate_size, cfg.hidden_size, norm=True)


class _Encoder(nn.Module):
    def __init__(self, cfg: PlainBertConfig) -> None:
        super().__init__()
        self.layer = nn.ModuleList(_Layer(cfg) for _ in range(cfg.num_hidden_layers))


def _casting_linear(weight: torch.Tensor, bias: torch.Tensor, act: str) -> Linear:
    """F.linear on the input cast to the weights' dtype: a bf16 Linear beside the fp32 stream (mixed bf16)."""
    fn = _ACTIVATIONS.get(act)
    if fn is None:
        return lambda x: F.linear(x.to(weight.dtype), weight, bias)
    return lambda x: fn(F.linear(x.to(weight.dtype), weight, bias))


class PlainBert(nn.Module):
    """BertModel's encoder: (batch, seq) ids and mask -> an object whose last_hidden_state is (batch, seq, H), as
    transformers' output. Only the last layer's states: a pooling that reads every layer's loads through
    transformers. The pooler (a dense layer on [CLS]) only where a classifier reads it."""

    def __init__(self, cfg: PlainBertConfig, *, pooler: bool = False) -> None:
        super().__init__()
        self.config = cfg
        self.embeddings = _Embeddings(cfg)
        self.encoder = _Encoder(cfg)
        if pooler:
            self.pooler = _Dense(cfg, cfg.hidden_size, cfg.hidden_size, norm=False)
        # The body concatenates Q, K and V into one copy: built again whenever a tensor was replaced since
        # (a cast of the whole model or of one layer, as mixed_bf16 casts each Linear).
        self._body: Optional[tuple[tuple[Any, ...], BertBody]] = None

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: Optional[torch.Tensor] = None, *, output_hidden_states: bool = False,
                return_dict: bool = True) -> SimpleNamespace:
        if output_hidden_states:
            raise ValueError("PlainBert gives the last layer's states only")
        # _version moves with an in-place write (copy_, load_state_dict without assign): the body is built again
        tensors = tuple((p.data_ptr(), p._version, p.dtype, p.device) for p in self.parameters())
        if self._body is None or self._body[0] != tensors:
            self._body = (tensors, BertBody(self, _casting_linear))
        return SimpleNamespace(last_hidden_state=self._body[1](input_ids, attention_mask, token_type_ids),
                               hidden_states=None)


class PlainBertClassifier(nn.Module):
    """BertForSequenceClassification: the encoder, its pooler (tanh of a dense layer on [CLS]) and a linear
    head; forward gives an object whose `logits` are (batch, labels), as transformers'. A reranker has one label."""

    def __init__(self, cfg: PlainBertConfig, labels: int) -> None:
        super().__init__()
        self.config = cfg
        self.bert = PlainBert(cfg, pooler=True)
        self.classifier = nn.Linear(cfg.hidden_size, labels)

    @property
    def base_model(self) -> PlainBert:  # transformers' name for the encoder under a head
        return self.bert

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: Optional[torch.Tensor] = None, *, return_dict: bool = True) -> SimpleNamespace:
        x = self.bert(input_ids, attention_mask, token_type_ids).last_hidden_state
        dense = self.bert.pooler.dense
        pooled = torch.tanh(F.linear(x[:, 0].to(dense.weight.dtype), dense.weight, dense.bias))
        head = self.classifier
        return SimpleNamespace(logits=F.linear(pooled.to(head.weight.dtype), head.weight, head.bias))


def num_labels(raw: Mapping[str, Any]) -> int:
    """How many labels transformers gives a classifier of this config.json: id2label's size, else num_labels,
    else 2 (PretrainedConfig's default)."""
    if isinstance(raw.get("id2label"), dict):
        return len(raw["id2label"])
    n = raw.get("num_labels", 2)
    return n if type(n) is int else 2


def load(path: Path) -> Optional[PlainBert]:
    """The fp32 encoder in the folder `path`, in eval mode on the CPU, or None when this file would not give
    exactly what transformers' BertModel gives from the same folder (the caller loads through transformers)."""
    cfg = _config(path)
    return _load(path, lambda: PlainBert(cfg), prefix="bert.") if cfg is not None else None


def load_classifier(path: Path) -> Optional[PlainBertClassifier]:
    """The fp32 BertForSequenceClassification in `path` (encoder, pooler and head: none of them may be missing,
    or it would start random), or None as `load`."""
    cfg = _config(path)
    if cfg is None:
        return None
    cfg.num_labels = num_labels(vars(cfg))  # as transformers' config says it
    model: Optional[PlainBertClassifier] = _load(path, lambda: PlainBertClassifier(cfg, cfg.num_labels), prefix="")
    return model


def _config(path: Path) -> Optional[PlainBertConfig]:
    raw = read_config_json(path / "config.json", dict, missing_ok=True)
    if not raw or not plain_bert_config(raw) or raw.get("hidden_act") not in _ACTIVATIONS or "to_dict" in raw:
        return None
    if raw.get("problem_type") == "single_label_classification":  # one label: transformers 5 refuses it
        return None
    sizes = [raw.get(k) for k in _SIZES]
    if not all(type(v) is int and v > 0 for v in sizes) or raw["hidden_size"] % raw["num_attention_heads"]:
        return None  # transformers fills a missing size from BertConfig's defaults, or refuses it: its call
    if not (path / _WEIGHTS).is_file():  # sharded, or another file name: transformers knows those
        return None
    return PlainBertConfig(**{"layer_norm_eps": 1e-12, "type_vocab_size": 2, **raw})


def _load(path: Path, build: Callable[[], Any], prefix: str) -> Any:
    """`build()` on the meta device (shapes only: the checkpoint's tensors are assigned, nothing is initialized
    twice), then the checkpoint's tensors, found under their names or with `prefix` in front."""
    try:
        with torch.device("meta"):
            model = build()
    except (TypeError, ValueError, RuntimeError):  # a config value of the wrong kind
        return None
    try:
        tensors = _tensors(path / _WEIGHTS, model.state_dict(), prefix)
    except Exception:  # a damaged file: transformers' load refuses it with the message a user sees (exit 5)
        return None
    if tensors is None:
        return None
    model.load_state_dict(tensors, strict=True, assign=True)
    return model.eval()


def _tensors(weights: Path, want: Mapping[str, torch.Tensor], prefix: str) -> Optional[dict[str, torch.Tensor]]:
    """The checkpoint's tensors under `want`'s names, in fp32 (or under `prefix` + name: a classifier's checkpoint
    keeps its encoder under "bert."), or None when one is missing or of another shape."""
    from safetensors import safe_open

    with safe_open(str(weights), framework="pt") as f:  # safetensors: no pickle, nothing run
        keys = set(f.keys())
        at = "" if all(k in keys for k in want) else prefix
        if not all(at + k in keys for k in want):
            return None
        out = {k: f.get_tensor(at + k).to(torch.float32) for k in want}
    if any(out[k].shape != v.shape for k, v in want.items()):
        return None
    return out
