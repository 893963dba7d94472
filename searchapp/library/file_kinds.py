"""What kind of file a path names, for the layers above the library (the window may not import ingest/): the
readers' own answers, passed through."""

from __future__ import annotations

from ..ingest.extractors.text import is_code

__all__ = ["is_code"]
