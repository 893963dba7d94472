"""Training objectives, one per module. Bi-encoder losses take the sentence embeddings of each column of a
batch (list of (batch, dim) tensors) and labels; cross-encoder losses take (batch, num_labels) logits."""

from .binary_cross_entropy import BinaryCrossEntropyLoss
from .cosine_similarity import CosineSimilarityLoss
from .cross_entropy import CrossEntropyLoss
from .score_mse import ScoreMSELoss
from .softmax import SoftmaxLoss
from .triplet import TripletLoss

__all__ = [
    "SoftmaxLoss",
    "CosineSimilarityLoss",
    "TripletLoss",
    "ScoreMSELoss",
    "BinaryCrossEntropyLoss",
    "CrossEntropyLoss",
]
