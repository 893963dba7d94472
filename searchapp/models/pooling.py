"""Token vectors → one sentence vector, by name.

Each mode is a function (token_embeddings (B,T,D), attention_mask (B,T), hidden_states) → (B,D), computed
in float32 whatever the model's dtype: bf16 keeps ~3 significant digits, too few to sum hundreds of tokens.
`hidden_states` (every layer's output) is only passed to modes registered with needs_hidden_states=True,
the hook for SBERT-WK ("wk"), which fuses all layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import torch

from .sbert_wk import wk_pooling_fn

__all__ = ["pool", "PoolingMode", "register_pooling", "pooling_modes", "needs_hidden_states", "POOLING_MODES"]

PoolingFn = Callable[[torch.Tensor, torch.Tensor, Optional[Sequence[torch.Tensor]]], torch.Tensor]

# Padding is set to this before the max so it can never win (sentence-transformers uses the same value).
_NEG = -1e9


@dataclass(frozen=True)
class PoolingMode:
    name: str
    fn: PoolingFn
    needs_hidden_states: bool = False


POOLING_MODES: dict[str, PoolingMode] = {}


def register_pooling(name: str, fn: PoolingFn, *, needs_hidden_states: bool = False) -> None:
    POOLING_MODES[name] = PoolingMode(name, fn, needs_hidden_states)


def pooling_modes() -> tuple[str, ...]:
    return tuple(POOLING_MODES)


def needs_hidden_states(mode: str) -> bool:
    return _get(mode).needs_hidden_states


def pool(
    token_embeddings: torch.Tensor,
    attention_mask: torch.Tensor,
    mode: str = "mean",
    *,
    hidden_states: Optional[Sequence[torch.Tensor]] = None,
) -> torch.Tensor:
    """(B,T,D) token vectors + (B,T) mask → (B,D) float32 sentence vectors."""
    entry = _get(mode)
    if entry.needs_hidden_states and hidden_states is None:
        raise ValueError(f"pooling {mode!r} needs every layer's hidden states (output_hidden_states=True)")
    return entry.fn(token_embeddings.float(), attention_mask, hidden_states)


def _get(mode: str) -> PoolingMode:
    try:
        return POOLING_MODES[mode]
    except KeyError:
        raise ValueError(f"unknown pooling {mode!r} (known: {', '.join(POOLING_MODES)})") from None


def _mean(emb: torch.Tensor, mask: torch.Tensor, _hidden: Optional[Sequence[torch.Tensor]]) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(emb.dtype)  # (B,T,1)
    summed = (emb * m).sum(dim=1)  # (B,D)
    counts = m.sum(dim=1).clamp(min=1e-9)  # (B,1); an all-padding row yields zeros, not NaN
    return summed / counts


def _cls(emb: torch.Tensor, mask: torch.Tensor, _hidden: Optional[Sequence[torch.Tensor]]) -> torch.Tensor:
    # The first real token: position 0 with right padding, still right if a tokenizer pads on the left.
    first = mask.to(torch.long).argmax(dim=1)  # (B,)
    return emb[torch.arange(emb.shape[0], device=emb.device), first]


def _max(emb: torch.Tensor, mask: torch.Tensor, _hidden: Optional[Sequence[torch.Tensor]]) -> torch.Tensor:
    padded = emb.masked_fill(~mask.bool().unsqueeze(-1), _NEG)  # (B,T,D)
    return padded.max(dim=1).values


register_pooling("mean", _mean)
register_pooling("cls", _cls)
register_pooling("max", _max)
# SBERT-WK (its own module: it reads every layer's hidden states) is registered here, so the import points one way.
register_pooling("wk", wk_pooling_fn, needs_hidden_states=True)
