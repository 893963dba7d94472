"""Triplet objective (SBERT): max(‖a − p‖ − ‖a − n‖ + ε, 0) with Euclidean distance, averaged over the batch.

ε defaults to the paper's 1 (sentence-transformers' TripletLoss defaults to 5).
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch
from torch import nn

__all__ = ["TripletLoss"]


class TripletLoss(nn.Module):
    def __init__(self, margin: float = 1.0) -> None:
        super().__init__()
        if margin < 0:
            raise ValueError("the triplet margin must be >= 0")
        self.margin = float(margin)

    def forward(self, embeddings: Sequence[torch.Tensor], labels: Optional[torch.Tensor] = None) -> torch.Tensor:
        anchor, positive, negative = (e.float() for e in embeddings)
        d_pos = (anchor - positive).norm(dim=1)  # (batch,)
        d_neg = (anchor - negative).norm(dim=1)
        return torch.relu(d_pos - d_neg + self.margin).mean()
