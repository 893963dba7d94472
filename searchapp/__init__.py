"""searchapp: find things in your own files by meaning (Sentence-BERT retrieve and rerank)."""

from .base.no_telemetry import quiet_onnxruntime

quiet_onnxruntime()  # before anything imports onnxruntime: its import alone writes telemetry files (base/no_telemetry.py)

__version__ = "0.1.0"
__all__ = ["__version__"]
