"""Classification objective (SBERT, NLI): o = softmax(W [u; v; |u − v|]), cross-entropy against the label.

W ∈ R^{3n×k} lives only in training; inference compares sentence vectors by cosine. The paper found |u − v|
the most important feature and adding u * v harmful, so the concatenation is exactly (u, v, |u − v|).
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import nn

__all__ = ["SoftmaxLoss"]


class SoftmaxLoss(nn.Module):
    def __init__(self, dim: int, num_labels: int) -> None:
        super().__init__()
        if num_labels < 2:
            raise ValueError("the softmax objective needs at least 2 labels")
        self.num_labels = num_labels
        self.classifier = nn.Linear(3 * dim, num_labels)

    def logits(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        features = torch.cat([u, v, (u - v).abs()], dim=1)  # (batch, 3 * dim)
        return self.classifier(features.to(self.classifier.weight.dtype))  # (batch, k)

    def forward(self, embeddings: Sequence[torch.Tensor], labels: torch.Tensor) -> torch.Tensor:
        u, v = embeddings
        return nn.functional.cross_entropy(self.logits(u, v).float(), labels.long())
