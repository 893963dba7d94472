"""Cross-encoder, k labels (e.g. NLI): softmax over the k logits, cross-entropy against the class index."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["CrossEntropyLoss"]


class CrossEntropyLoss(nn.Module):
    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(logits.float(), labels.long())
