"""Cross-encoder, one label, graded targets: MSE between sigmoid(logit) and the score scaled to 0..1.

The sigmoid keeps the trained logit on the same footing as the app's reranker display (sigmoid(logit) is
the 0..1 value people threshold) and bounds the prediction to the target's range.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["ScoreMSELoss"]


class ScoreMSELoss(nn.Module):
    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return nn.functional.mse_loss(torch.sigmoid(logits.float().reshape(-1)), labels.float())
