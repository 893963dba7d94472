"""What a sync writes in the library's meta table for `status` to read (library/report/): a reindex under way, and
the passage context the stored vectors were embedded with. Here, below report/, so the writer and the reader share
one spelling of each."""

from __future__ import annotations

from ...base.config import Config

__all__ = ["REINDEX_META", "CONTEXT_META", "passage_context"]

REINDEX_META = "reindex_from"  # passages before a reindex began; "" (or absent) when none is under way
CONTEXT_META = "chunk_context"  # "title", "none", or "mixed" once passages of both kinds exist


def passage_context(config: Config) -> str:
    """What the bi-encoder reads before each passage under `config`: "title" or "none"."""
    return "title" if config.chunking.title_context else "none"
