"""Readers of evaluation and training data on disk: BEIR collections and sentence-pair files.

Both evaluation (scores a library against judgements) and training (builds examples) read these, so
they live below both and neither imports the other.
"""

from .beir import BeirCollection, load_beir
from .pairs import ScoredPair, read_labeled_pairs, read_rows, read_scored_pairs, read_triplets

__all__ = ["BeirCollection", "load_beir", "ScoredPair", "read_labeled_pairs", "read_rows", "read_scored_pairs",
           "read_triplets"]
