"""Training: the Sentence-BERT objectives for bi-encoders, cross-encoder training, hard-negative mining.

Attributes load lazily (PEP 562), so importing the package does not import torch.
"""

from __future__ import annotations

from ..base.lazy import lazy_exports

__all__ = [
    "TrainingArgs",
    "TrainStats",
    "run_training",
    "train_bi_encoder",
    "train_cross_encoder",
    "load_sentence_model",
    "SentenceModel",
    "bucketed_batches",
    "mine_hard_negatives",
    "MinedExample",
    "TextColumns",
    "regression_data",
    "softmax_data",
    "triplet_data",
    "cross_encoder_data",
    "read_saved_pooling",
    "atomic_folder",
]

_WHERE = {
    "TrainingArgs": "trainer",
    "TrainStats": "trainer",
    "run_training": "trainer",
    "train_bi_encoder": "bi_encoder",
    "train_cross_encoder": "cross_encoder",
    "load_sentence_model": "sentence_model",
    "SentenceModel": "sentence_model",
    "bucketed_batches": "batching",
    "mine_hard_negatives": "mining",
    "MinedExample": "mining",
    "TextColumns": "data",
    "regression_data": "data",
    "softmax_data": "data",
    "triplet_data": "data",
    "cross_encoder_data": "data",
    "read_saved_pooling": "checkpoint",
    "atomic_folder": "checkpoint",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
