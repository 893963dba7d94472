"""Regression objective (SBERT, STS): mean-squared error between cosine(u, v) and the gold score in 0..1.

Scores on another scale (STS: 0..5) are divided by their maximum when the data is read, not here.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import nn

__all__ = ["CosineSimilarityLoss"]


class CosineSimilarityLoss(nn.Module):
    def forward(self, embeddings: Sequence[torch.Tensor], labels: torch.Tensor) -> torch.Tensor:
        u, v = embeddings
        cos = nn.functional.cosine_similarity(u.float(), v.float(), dim=1)  # (batch,)
        return nn.functional.mse_loss(cos, labels.float())
