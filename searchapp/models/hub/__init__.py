"""Fetching a model from the Hugging Face hub, on explicit request only (`searchapp models pull`, the GUI's Download).

http.py is the only code in searchapp that opens a network connection, and only when a person asked for a
model by name (no setting turns it on, and HF_HUB_OFFLINE does not stop it). Everything else reads models
from disk: resolve.py finds a cached model through the cache's own layout (cache_refs.py: refs/main ->
snapshots/<commit>, decision 0127), and transformers loads folders with local_files_only=True.

What is fetched: configs, tokenizer files and safetensors weights (never pickles, ONNX or OpenVINO exports;
policy.py holds the patterns), one file after another with our own requests (http.py: timeouts, size caps,
cancel checks), each into a staging file whose name we chose. The hub is not trusted: commit ids must be hex,
ETags plain tokens, file names plain relative names at most one folder deep; a body may not exceed its
declared size, and weights must match the hub's sha256. Only when every file arrived and the model loads (a
reranker with exactly one output label) is the Hugging Face cache layout (blobs/, snapshots/<commit>/,
refs/main) built in staging and moved into the real cache, where `resolve_model` finds it offline like any
cached model. A cancelled, failed or killed pull never leaves a half-installed model: the staging folder is
removed at once, or by the next pull when the process was killed.

  plan.py      what a pull fetches: the hub's commit and file list, checked; KNOWN_MODELS
  download.py  pull_model: fetch into staging, check it loads, install
  worker.py    the worker thread that lets Cancel / Ctrl+C stop a stalled request
  cache.py     the Hugging Face cache layout: staging, blobs/snapshots/refs, remove, sizes
  errors.py    DownloadError and the one sentence a disk failure becomes
  http.py      the HTTP client (urllib; timeouts, caps, no credentials in messages); hub_host
  deadline.py  the deadline of a whole request (a minimum rate), so a trickling hub cannot hold a pull
"""

from __future__ import annotations

from .cache import STAGING_PREFIX, folder_bytes, guess_role, remove_cached_model, remove_stale_staging, repo_folder
from .download import PulledModel, pull_model
from .errors import DownloadError
from .http import DEFAULT_ENDPOINT, hub_endpoint, hub_host
from .plan import (KNOWN_MODELS, MAX_PULL_BYTES, KnownModel, RemoteFile, RemoteModel, known_model, max_pull_bytes,
                   plan_pull)

__all__ = [
    "DownloadError",
    "KnownModel",
    "KNOWN_MODELS",
    "known_model",
    "RemoteFile",
    "RemoteModel",
    "PulledModel",
    "DEFAULT_ENDPOINT",
    "MAX_PULL_BYTES",
    "hub_endpoint",
    "hub_host",
    "max_pull_bytes",
    "plan_pull",
    "pull_model",
    "remove_cached_model",
    "repo_folder",
    "folder_bytes",
    "guess_role",
    "remove_stale_staging",
    "STAGING_PREFIX",
]
