"""Backend registry: config.index.backend names the class (txtai `ann/` style)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ..base.config import IndexConfig
from ..base.errors import ConfigError
from .base import VectorIndex
from .exact import ExactIndex
from .hnsw import HnswIndex
from .storage import read_sidecar

__all__ = ["BACKENDS", "create_index", "load_index", "load_ids", "read_sidecar"]

BACKENDS: dict[str, type[VectorIndex]] = {cls.name: cls for cls in (HnswIndex, ExactIndex)}


def _backend(config: IndexConfig) -> type[VectorIndex]:
    try:
        return BACKENDS[config.backend]
    except KeyError:
        raise ConfigError(f"index.backend {config.backend!r} is unknown (known: {', '.join(sorted(BACKENDS))})") from None


def create_index(config: IndexConfig, dim: int) -> VectorIndex:
    """A new, empty index of the configured backend."""
    return _backend(config)(dim, config)


def load_index(path: Path, config: IndexConfig, dim: int,
               before_read: Optional[Callable[[float], None]] = None) -> VectorIndex:
    """Load the configured backend's file at `path`; IndexCorruptError if it is unusable (rebuild then).
    `before_read`: see VectorIndex.load."""
    return _backend(config).load(Path(path), dim, config, before_read)


def load_ids(path: Path, config: IndexConfig, dim: int) -> tuple[np.ndarray, int]:
    """The live ids (sorted int64) and saved generation of the configured backend's file at `path`, after the
    same checks as `load_index`, without building the index; IndexCorruptError as `load_index`."""
    return _backend(config).load_ids(Path(path), dim, config)
