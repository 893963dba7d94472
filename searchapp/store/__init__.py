"""SQLite persistence: the source of truth for roots, files, chunks and their vectors."""

from .db import Store, fts_query
from .rows import ChunkRow, FileRow, NewChunk, RootRow
from .migrations import SCHEMA_VERSION, migrate

__all__ = ["Store", "FileRow", "ChunkRow", "NewChunk", "RootRow", "fts_query", "migrate", "SCHEMA_VERSION"]
