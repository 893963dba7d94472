"""Vector indexes: one interface (VectorIndex), an HNSW and an exact backend, and a name -> class registry."""

from .base import VectorIndex
from .exact import ExactIndex
from .factory import BACKENDS, create_index, load_ids, load_index, read_sidecar
from .hnsw import HnswIndex

__all__ = ["VectorIndex", "HnswIndex", "ExactIndex", "BACKENDS", "create_index", "load_index", "load_ids",
           "read_sidecar"]
