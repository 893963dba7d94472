"""searchapp: find things in your own files by meaning (Sentence-BERT retrieve and rerank)."""

from .base.no_telemetry import quiet_onnxruntime

quiet_onnxruntime()  # before anything imports onnxruntime: its import alone writes telemetry files (base/no_telemetry.py)

# One number a release, raised by every release (decision 0154): the CHANGELOG heads its section with it, and a
# bug report or `status --json` names the release it came from. pyproject.toml reads it from here.
__version__ = "0.30.0"
__all__ = ["__version__"]
