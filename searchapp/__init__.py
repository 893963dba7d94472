"""searchapp: find things in your own files by meaning (Sentence-BERT retrieve and rerank)."""

__version__ = "0.1.0"
__all__ = ["__version__"]
