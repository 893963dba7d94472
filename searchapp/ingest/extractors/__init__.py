"""Turn files into text: one module per format, chosen by suffix through the registry."""

from .registry import (DEFAULT_MAX_BYTES, DEFAULT_MAX_CHARS, extract, extractor_name, reader_version,
                       readers_fingerprint, supported_suffixes, takes_data)

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_CHARS", "extract", "extractor_name", "reader_version", "readers_fingerprint",
           "supported_suffixes", "takes_data"]
