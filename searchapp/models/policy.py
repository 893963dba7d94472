"""The model rules written once: what counts as a hub id, which weights are refused, what a pull fetches, and
the cache folder a hub id lives in. resolve.py, catalog.py and the hub package all import them from here.

Two strengths of the id rule, on purpose (each errs on the safe side for its use):
  * `looks_like_hub_id` decides whether a configured name is a hub id or a folder (resolve.is_path_spec).
    Wide: anything that could be an id is never read as a folder under the current directory.
  * `check_repo_id` is what a pull or a remove accepts: the hub's own rule, narrower. The id becomes a
    cache folder name (models--owner--name), so "--" and ".." are refused: `a--b` would name the folder of `a/b`.
Every id `check_repo_id` accepts also `looks_like_hub_id`.
"""

from __future__ import annotations

import re

from ..base.config import DEFAULT_RERANKER
from ..base.errors import ConfigError
from ..base.terminal import printable

__all__ = [
    "ALLOW_PATTERNS",
    "SKIP_FOLDERS",
    "PICKLE_SUFFIXES",
    "OTHER_RUNTIME_SUFFIXES",
    "REPO_FOLDER_PREFIX",
    "looks_like_hub_id",
    "is_repo_id",
    "check_repo_id",
    "repo_folder_name",
    "repo_id_of_folder",
]

# -- what a pull fetches: configs, weights, vocab/merges, sentencepiece; never other runtimes' exports -----
ALLOW_PATTERNS = ("*.json", "*.safetensors", "*.txt", "*.model")
SKIP_FOLDERS = ("onnx/", "openvino/", "coreml/", "tf/", "flax/")

# -- weights that are never loaded --------------------------------------------------------------------
# Pickles can run code when loaded: a folder or repository holding only these is refused.
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
# TensorFlow (Keras) and Flax weights: not loadable here either; a pull names them with the pickles.
OTHER_RUNTIME_SUFFIXES = (".h5", ".msgpack")

# -- the id ---------------------------------------------------------------------------------------------
_HUB_ID_SHAPE = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[A-Za-z0-9][\w.\-]*)?$")
_REPO_PART = r"[A-Za-z0-9](?:[A-Za-z0-9_.\-]{0,94}[A-Za-z0-9_])?"
_REPO_ID = re.compile(rf"(?:{_REPO_PART}/)?{_REPO_PART}")


def looks_like_hub_id(spec: str) -> bool:
    """"name" or "owner/name" (the wide rule: a configured name that could be an id is treated as one)."""
    return _HUB_ID_SHAPE.match(spec) is not None


def is_repo_id(repo_id: object) -> bool:
    """An id the hub itself accepts: owner/name of plain ASCII parts, without "--" or ".."."""
    return isinstance(repo_id, str) and _REPO_ID.fullmatch(repo_id) is not None and "--" not in repo_id \
        and ".." not in repo_id


def check_repo_id(repo_id: str) -> None:
    """ConfigError unless `repo_id` may be pulled or removed (see is_repo_id)."""
    if not is_repo_id(repo_id):
        raise ConfigError(f"{printable(repo_id)!r} is not a Hugging Face model id (like {DEFAULT_RERANKER}).")


# -- the cache folder -------------------------------------------------------------------------------------
REPO_FOLDER_PREFIX = "models--"  # huggingface_hub's layout: <cache>/models--owner--name


def repo_folder_name(repo_id: str) -> str:
    return REPO_FOLDER_PREFIX + repo_id.replace("/", "--")


def repo_id_of_folder(name: str) -> str:
    """The id a `models--owner--name` folder holds (the inverse of repo_folder_name)."""
    return name[len(REPO_FOLDER_PREFIX):].replace("--", "/")
