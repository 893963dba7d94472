"""Retrieval evaluation: ranking metrics and the BEIR collection reader."""

from ..datasets.beir import BeirCollection, load_beir
from .metrics import evaluate_run, mrr_at_k, ndcg_at_k, recall_at_k

__all__ = ["BeirCollection", "load_beir", "evaluate_run", "mrr_at_k", "ndcg_at_k", "recall_at_k"]
