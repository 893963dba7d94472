"""SQLite persistence: the source of truth for roots, files, chunks and their vectors.

The names below load on first use, so a light module here (cjk.py, history.py) can be imported without
numpy: the command line's warm path (cli/entry.py, library/warm/exchange.py) prints a search without loading it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.lazy import lazy_exports

if TYPE_CHECKING:
    from .db import Store
    from .lexical_queries import fts_query
    from .migrations import SCHEMA_VERSION, migrate
    from .rows import ChunkRow, FileRow, NewChunk, RootRow

__all__ = ["Store", "FileRow", "ChunkRow", "NewChunk", "RootRow", "fts_query", "migrate", "SCHEMA_VERSION"]

_HOME = {"Store": "db", "fts_query": "lexical_queries", "ChunkRow": "rows", "FileRow": "rows", "NewChunk": "rows",
         "RootRow": "rows", "SCHEMA_VERSION": "migrations", "migrate": "migrations"}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())
