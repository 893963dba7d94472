"""Cross-encoder, one label, relevant / not relevant: binary cross-entropy on the logit (numerically stable form)."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["BinaryCrossEntropyLoss"]


class BinaryCrossEntropyLoss(nn.Module):
    def __init__(self, pos_weight: float | None = None) -> None:
        super().__init__()
        # pos_weight > 1 counters a data set with many more negatives than positives (mined negatives).
        self.pos_weight = pos_weight

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        weight = None if self.pos_weight is None else torch.tensor(self.pos_weight, device=logits.device)
        return nn.functional.binary_cross_entropy_with_logits(
            logits.float().reshape(-1), labels.float(), pos_weight=weight
        )
