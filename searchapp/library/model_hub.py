"""Models as the front ends manage them: list, pull (the one explicit network use), remove, and put to use.

The GUI reaches the hub only through here (it never imports huggingface_hub or torch); the work itself
lives in models/hub/ and models/catalog.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..base.config import Config
from ..base.progress import CancelToken, ProgressFn
from ..models.catalog import ModelEntry, list_models
from ..models.hub import KNOWN_MODELS, DownloadError, KnownModel, PulledModel, hub_host, remove_cached_model
from ..models.hub import pull_model as _pull

__all__ = ["KNOWN_MODELS", "KnownModel", "ModelEntry", "PulledModel", "DownloadError", "list_models", "pull_model",
           "remove_cached_model", "hub_host", "config_using", "known_model"]

ROLE_KEY = {"reranker": "reranker", "bi-encoder": "bi_encoder"}


def pull_model(repo_id: str, *, role: Optional[str] = None, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None, cache_dir: Optional[Path] = None) -> PulledModel:
    """Download `repo_id` from the hub into the Hugging Face cache and check it loads (see models/hub/)."""
    return _pull(repo_id.strip(), role=role, progress=progress, cancel=cancel, cache_dir=cache_dir)


def config_using(config: Config, role: str, model_id: str) -> Config:
    """`config` with `model_id` as the model for `role` ("reranker" or "bi-encoder")."""
    return config.replace(models={ROLE_KEY[role]: model_id})


def known_model(repo_id: str) -> Optional[KnownModel]:
    return next((k for k in KNOWN_MODELS if k.repo_id == repo_id), None)
