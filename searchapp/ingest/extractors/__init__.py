"""Turn files into text: one module per format, chosen by suffix through the registry."""

from .registry import DEFAULT_MAX_BYTES, extract, extractor_name, supported_suffixes

__all__ = ["DEFAULT_MAX_BYTES", "extract", "extractor_name", "supported_suffixes"]
