"""Fetching a model from the Hugging Face hub, on explicit request only (`searchapp models pull`, the GUI's Download).

This is the one place that ever opens a network connection, and only when a person asked for a model by
name: `models.allow_download` is not needed and HF_HUB_OFFLINE does not stop it (huggingface_hub reads
that once at import; it is lifted for the duration of the pull and restored after).

What is fetched: configs, tokenizer files and safetensors weights (never pickles, ONNX or OpenVINO
exports), with the real huggingface_hub client, one file after another into a private staging cache
beside the real one. Only after every file arrived, the safetensors hashes match the hub's, and the
model loads (a reranker with exactly one output label) is the repository moved into the normal
Hugging Face cache, where `resolve_model` finds it offline like any cached model. A cancelled, failed or
killed pull therefore never leaves a half-installed model behind: the staging folder is removed at once,
or by the next pull when the process was killed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional
from urllib.parse import urlsplit

from ..base.config import DEFAULT_RERANKER
from ..base.errors import Cancelled, ModelLoadError, ModelNotFoundError, SearchAppError, UnsupportedFileError
from ..base.progress import CancelToken, ProgressFn, report
from ..base.safe_open import open_regular
from .resolve import file_sha256, hf_cache_dir, resolve_model

__all__ = [
    "DownloadError",
    "KnownModel",
    "KNOWN_MODELS",
    "RemoteModel",
    "PulledModel",
    "DEFAULT_ENDPOINT",
    "hub_endpoint",
    "plan_pull",
    "pull_model",
    "remove_cached_model",
    "repo_folder",
    "folder_bytes",
    "guess_role",
    "remove_stale_staging",
    "STAGING_PREFIX",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
ALLOW_PATTERNS = ("*.json", "*.safetensors", "*.txt", "*.model")  # configs, weights, vocab/merges, sentencepiece
SKIP_FOLDERS = ("onnx/", "openvino/", "coreml/", "tf/", "flax/")  # other runtimes' exports of the same weights
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".h5", ".msgpack")
STAGING_PREFIX = ".searchapp-pull-"
MAX_FILES = 200  # a model folder has a dozen files; anything beyond this is not a model we can use
STALL_GRACE_S = 3.0  # after Cancel, how long a download stuck in a socket read may take to notice


class DownloadError(SearchAppError):
    """The hub could not be reached, refused, or the disk filled up. Nothing was installed."""

    exit_code = 1


@dataclass(frozen=True)
class KnownModel:
    role: str  # "reranker" | "bi-encoder"
    repo_id: str
    size_mb: int  # what a pull fetches, rounded
    note: str


# A short list the GUI offers; any other id works too.
KNOWN_MODELS = (
    KnownModel("reranker", DEFAULT_RERANKER, 90, "fast English reranker (MS MARCO), the default"),
    KnownModel("reranker", "cross-encoder/ms-marco-MiniLM-L-12-v2", 130, "larger English reranker: better, ~2x slower"),
    KnownModel("bi-encoder", "sentence-transformers/all-mpnet-base-v2", 440, "stronger English bi-encoder, ~5x slower"),
    KnownModel("bi-encoder", "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", 470,
               "50+ languages, for files not in English"),
)


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int
    sha256: Optional[str]  # the hub's LFS sha256, for weights


@dataclass(frozen=True)
class RemoteModel:
    repo_id: str
    commit: str
    endpoint: str
    files: tuple[RemoteFile, ...]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


@dataclass(frozen=True)
class PulledModel:
    repo_id: str
    role: str
    path: Path  # the snapshot folder in the Hugging Face cache
    commit: str
    sha256: str
    bytes: int
    already_present: bool = False
    notes: list[str] = field(default_factory=list)


def hub_endpoint(endpoint: Optional[str] = None) -> str:
    """The hub to talk to: the argument, else $HF_ENDPOINT read now (huggingface_hub froze it at import)."""
    return (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def repo_folder(repo_id: str, cache: Path) -> Path:
    return cache / f"models--{repo_id.replace('/', '--')}"


# -- the network switch ---------------------------------------------------------------------------
_ONLINE_LOCK = threading.Lock()
_ONLINE_USERS = 0
_SAVED: dict[str, object] = {}


@contextlib.contextmanager
def _online() -> Iterator[None]:
    """Let huggingface_hub make requests while a pull runs, whatever HF_HUB_OFFLINE said at import.

    Xet is switched off too: one plain HTTP stream per file, written only into our staging folder
    (Xet keeps a chunk cache of its own elsewhere, which a cancelled pull would leave behind).
    """
    global _ONLINE_USERS
    from huggingface_hub import constants

    with _ONLINE_LOCK:
        if _ONLINE_USERS == 0:
            _SAVED.update(HF_HUB_OFFLINE=constants.HF_HUB_OFFLINE, HF_HUB_DISABLE_XET=constants.HF_HUB_DISABLE_XET)
            constants.HF_HUB_OFFLINE = False
            constants.HF_HUB_DISABLE_XET = True
        _ONLINE_USERS += 1
    try:
        yield
    finally:
        with _ONLINE_LOCK:
            _ONLINE_USERS -= 1
            if _ONLINE_USERS == 0:
                for name, value in _SAVED.items():
                    setattr(constants, name, value)
                _SAVED.clear()


# -- planning ---------------------------------------------------------------------------------------
def _wanted(path: str) -> bool:
    from fnmatch import fnmatch

    if any(path.startswith(d) for d in SKIP_FOLDERS) or path.count("/") > 1:
        return False
    return any(fnmatch(path.rsplit("/", 1)[-1], pat) for pat in ALLOW_PATTERNS)


def plan_pull(repo_id: str, *, endpoint: Optional[str] = None) -> RemoteModel:
    """Ask the hub which commit `repo_id` is at and which of its files a pull fetches (network; small requests).

    Refuses a repository without safetensors weights before anything is downloaded.
    """
    _check_repo_id(repo_id)
    endpoint = hub_endpoint(endpoint)
    from huggingface_hub import HfApi
    from huggingface_hub.hf_api import RepoFile

    api = HfApi(endpoint=endpoint)
    with _online():
        try:
            info = api.model_info(repo_id, revision="main")
            commit = info.sha
            entries = []
            for f in api.list_repo_tree(repo_id, revision=commit, recursive=True):
                if isinstance(f, RepoFile):
                    entries.append(f)
                    if len(entries) > 10 * MAX_FILES:
                        break
        except Exception as exc:  # noqa: BLE001 - mapped to one sentence each
            raise _hub_error(exc, repo_id, endpoint) from exc
    if not commit:
        raise DownloadError(f"{_host(endpoint)} gave no revision for {repo_id}; it does not look like a Hugging Face hub.")
    names = [f.path for f in entries]
    files = tuple(RemoteFile(f.path, int(f.lfs.size if f.lfs else f.size or 0), f.lfs.sha256 if f.lfs else None)
                  for f in entries if _wanted(f.path))
    if not any(f.path.endswith(".safetensors") for f in files):
        pickles = [n for n in names if n.endswith(PICKLE_SUFFIXES)]
        if pickles:
            raise ModelLoadError(
                f"{repo_id} has only pickled weights ({', '.join(sorted(pickles)[:3])}); searchapp loads safetensors "
                "only (a pickle can run code when loaded), so nothing was downloaded.")
        raise ModelLoadError(f"{repo_id} has no model.safetensors weights, so it cannot be used; nothing was downloaded.")
    if not any(f.path in ("config.json", "modules.json") for f in files):
        raise ModelLoadError(f"{repo_id} has no config.json; it is not a Transformers model, so nothing was downloaded.")
    if len(files) > MAX_FILES:
        raise ModelLoadError(f"{repo_id} has {len(files)} files to fetch; that is not a single model, so nothing was downloaded.")
    # Small files first: a wrong repository fails on its config before 400 MB of weights arrive.
    return RemoteModel(repo_id, commit, endpoint, tuple(sorted(files, key=lambda f: (f.size, f.path))))


# -- pulling ----------------------------------------------------------------------------------------
def pull_model(repo_id: str, *, role: Optional[str] = None, endpoint: Optional[str] = None,
               cache_dir: Optional[Path] = None, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> PulledModel:
    """Download `repo_id` into the Hugging Face cache, check it loads, and return where it is.

    `role` ("reranker" or "bi-encoder") is guessed from config.json when None. Raises Cancelled when
    `cancel` is set (then nothing is installed), DownloadError, ModelNotFoundError or ModelLoadError.
    """
    cancel = cancel or CancelToken()
    cache = Path(cache_dir) if cache_dir is not None else hf_cache_dir()
    remove_stale_staging(cache)
    report(progress, "asking the hub", 0, None, repo_id)
    plan = plan_pull(repo_id, endpoint=endpoint)
    cancel.check()

    present = _installed_snapshot(repo_id, cache, plan)
    if present is not None:
        role = role or guess_role(present)
        sha = _verify_loads(present, role, repo_id)
        return PulledModel(repo_id, role, present, plan.commit, sha, folder_bytes(present), already_present=True)

    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _disk_error(exc, cache, plan) from exc
    free = shutil.disk_usage(cache).free
    if free < plan.total_bytes + (16 << 20):
        raise DownloadError(f"Not enough disk space for {repo_id}: it needs {_mb(plan.total_bytes)}, "
                            f"and {cache} has {_mb(free)} free.")
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=cache))
    try:
        snapshot = _download(plan, staging, progress, cancel)
        cancel.check()
        report(progress, "checking", 0, None, repo_id)
        _verify_hashes(plan, snapshot)
        role = role or guess_role(snapshot)
        sha = _verify_loads(snapshot, role, repo_id)
        cancel.check()
        path = _install(staging / repo_folder(repo_id, Path()).name, cache, plan.commit) / "snapshots" / plan.commit
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    # The proof the issue asks for: found offline, the way the app looks models up.
    if cache_dir is None or Path(cache_dir) == hf_cache_dir():
        resolve_model(repo_id, kind=role, allow_download=False)
    report(progress, "done", plan.total_bytes, plan.total_bytes, repo_id)
    return PulledModel(repo_id, role, path, plan.commit, sha, plan.total_bytes)


def _download(plan: RemoteModel, staging: Path, progress: Optional[ProgressFn], cancel: CancelToken) -> Path:
    """Fetch every planned file into `staging` on a worker thread; the caller's thread watches `cancel`.

    huggingface_hub has no cancel switch: the progress bar it updates per chunk raises Cancelled instead,
    and a download stuck waiting for bytes is abandoned after a short grace (its staging folder goes).
    """
    from huggingface_hub import hf_hub_download

    state = {"done": 0, "file": ""}
    lock = threading.Lock()
    total = plan.total_bytes

    class _Bar:  # what hf_hub_download calls tqdm_class: counts bytes, reports them, and is where cancelling bites
        def __init__(self, *args, **kwargs) -> None:
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            pass

        def update(self, n=1) -> None:
            if cancel.cancelled:
                raise Cancelled("download cancelled")
            with lock:
                state["done"] += int(n or 0)
                done = state["done"]
            report(progress, "downloading", min(done, total), total, state["file"])

        def close(self) -> None:
            pass

        def set_postfix_str(self, *a, **k) -> None:
            pass

        def set_description(self, *a, **k) -> None:
            pass

        def refresh(self, *a, **k) -> None:
            pass

    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            with _online():
                for f in plan.files:
                    cancel.check()
                    state["file"] = f.path
                    before = state["done"]
                    hf_hub_download(plan.repo_id, f.path, revision=plan.commit, cache_dir=str(staging),
                                    endpoint=plan.endpoint, tqdm_class=_Bar)
                    with lock:  # a file with no bytes reported (empty, or served in one go) still counts
                        state["done"] = max(state["done"], before + f.size)
            outcome["ok"] = True
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc
        finally:
            if cancel.cancelled:
                shutil.rmtree(staging, ignore_errors=True)  # the caller may have left already

    report(progress, "downloading", 0, total, "")
    thread = threading.Thread(target=work, name=f"pull {plan.repo_id}", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(0.1)
        if cancel.cancelled:
            thread.join(STALL_GRACE_S)
            raise Cancelled("download cancelled")
    err = outcome.get("error")
    if err is not None:
        if isinstance(err, (Cancelled, SearchAppError)):
            raise err
        raise _hub_error(err, plan.repo_id, plan.endpoint, plan) from err
    return staging / repo_folder(plan.repo_id, Path()).name / "snapshots" / plan.commit


def _verify_hashes(plan: RemoteModel, snapshot: Path) -> None:
    for f in plan.files:
        local = snapshot / f.path
        if not local.is_file():
            raise DownloadError(f"{f.path} of {plan.repo_id} did not arrive; nothing was installed. Try again.")
        if f.sha256 and file_sha256(local) != f.sha256.lower():
            raise DownloadError(f"{f.path} of {plan.repo_id} arrived corrupted (sha256 mismatch); nothing was installed. "
                                "Try again.")


def guess_role(snapshot: Path) -> str:
    """reranker for a sequence classifier (config.json's architectures), else bi-encoder."""
    try:
        with open_regular(snapshot / "config.json") as fh:  # never open a FIFO: it would block forever
            cfg = json.loads(fh.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError, UnsupportedFileError):
        return "bi-encoder"  # a sentence-transformers layout keeps config.json in a module folder
    archs = cfg.get("architectures") or []
    return "reranker" if any(str(a).endswith("ForSequenceClassification") for a in archs) else "bi-encoder"


def _verify_loads(snapshot: Path, role: str, repo_id: str) -> str:
    """Load the model once on the CPU (the same classes the app uses); returns the weights' sha256."""
    if role not in ("reranker", "bi-encoder"):
        raise SearchAppError(f"unknown role {role!r}: use reranker or bi-encoder")
    try:
        if role == "reranker":
            from .cross_encoder import CrossEncoder

            model = CrossEncoder(str(snapshot), device="cpu", precision="fp32", threads=1)
        else:
            from .bi_encoder import BiEncoder

            model = BiEncoder(str(snapshot), device="cpu", precision="fp32", threads=1)
    except ModelLoadError as exc:
        raise ModelLoadError(f"{repo_id} was downloaded but cannot be used as a {role}, so it was not installed: "
                             f"{_first_sentence(str(exc))}") from exc
    return model.resolved.sha256


def _installed_snapshot(repo_id: str, cache: Path, plan: RemoteModel) -> Optional[Path]:
    snap = repo_folder(repo_id, cache) / "snapshots" / plan.commit
    if snap.is_dir() and all((snap / f.path).is_file() for f in plan.files):
        _write_ref(repo_folder(repo_id, cache), plan.commit)
        return snap
    return None


def _install(staged: Path, cache: Path, commit: str) -> Path:
    """Move a complete staged repository folder into the cache; returns the repository folder there."""
    shutil.rmtree(staged / "trees", ignore_errors=True)  # a listing of the whole repo would call our subset "incomplete"
    _write_ref(staged, commit)  # files were fetched by commit; `main` is how the cache finds them offline
    target = cache / staged.name
    if not target.exists():
        os.replace(staged, target)  # one rename: the model is either absent or complete
        return target
    # An older revision (or an earlier partial copy made by other tools) is there: add the new blobs,
    # then swap the snapshot in, then point refs/main at it.
    (target / "blobs").mkdir(parents=True, exist_ok=True)
    for blob in (staged / "blobs").iterdir():
        dest = target / "blobs" / blob.name
        if not dest.exists():
            os.replace(blob, dest)
    snaps = target / "snapshots"
    snaps.mkdir(exist_ok=True)
    old = snaps / commit
    if old.exists():
        trash = snaps / f".{commit}.old-{uuid.uuid4().hex[:8]}"
        os.replace(old, trash)
        shutil.rmtree(trash, ignore_errors=True)
    os.replace(staged / "snapshots" / commit, old)
    _write_ref(target, commit)
    return target


def _write_ref(repo_dir: Path, commit: str) -> None:
    refs = repo_dir / "refs"
    refs.mkdir(parents=True, exist_ok=True)
    tmp = refs / f".main.{uuid.uuid4().hex[:8]}"
    tmp.write_text(commit, encoding="ascii")
    os.replace(tmp, refs / "main")


def remove_stale_staging(cache: Path) -> int:
    """Remove staging folders of pulls whose process is gone (killed mid-download). Returns how many."""
    removed = 0
    try:
        entries = list(cache.iterdir())
    except OSError:
        return 0
    for d in entries:
        if not d.name.startswith(STAGING_PREFIX):
            continue
        try:
            pid = int(d.name[len(STAGING_PREFIX):].split("-", 1)[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _pid_alive(pid):
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_cached_model(repo_id: str, cache_dir: Optional[Path] = None) -> int:
    """Delete `repo_id` from the Hugging Face cache; returns the bytes freed. Renamed away first, so a
    half-deleted model is never found."""
    _check_repo_id(repo_id)
    cache = Path(cache_dir) if cache_dir is not None else hf_cache_dir()
    folder = repo_folder(repo_id, cache)
    if not folder.is_dir():
        raise ModelNotFoundError(f"{repo_id} is not in the Hugging Face cache ({cache}); `searchapp models list` shows what is.")
    size = folder_bytes(folder, follow_links=False)
    trash = cache / f".{folder.name}.removing-{uuid.uuid4().hex[:8]}"
    os.replace(folder, trash)
    shutil.rmtree(trash, ignore_errors=True)
    shutil.rmtree(cache / ".locks" / folder.name, ignore_errors=True)
    return size


# -- errors -----------------------------------------------------------------------------------------
def _class_names(exc: BaseException) -> set[str]:
    names: set[str] = set()
    e: Optional[BaseException] = exc
    for _ in range(6):  # follow the cause chain a little: hub errors wrap the transport's
        if e is None:
            break
        names.update(c.__name__ for c in type(e).__mro__)
        e = e.__cause__ or e.__context__
    return names


def _hub_error(exc: BaseException, repo_id: str, endpoint: str, plan: Optional[RemoteModel] = None) -> SearchAppError:
    """One sentence for each way the hub can fail (the type names cover huggingface_hub's httpx/requests eras)."""
    host = _host(endpoint)
    names = _class_names(exc)
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return _disk_error(exc, hf_cache_dir(), plan)
    if names & {"RepositoryNotFoundError", "GatedRepoError"}:
        return ModelNotFoundError(f"{repo_id} was not found on {host}; check the name (private and gated models "
                                  "are not supported).")
    if "RevisionNotFoundError" in names:
        return ModelNotFoundError(f"{repo_id} has no main revision on {host}.")
    if names & {"RemoteEntryNotFoundError", "EntryNotFoundError"}:
        return DownloadError(f"A file of {repo_id} disappeared from {host} during the download; try again.")
    if names & {"OfflineModeIsEnabled", "ConnectError", "ConnectTimeout", "ConnectionError", "TimeoutException",
                "Timeout", "ReadTimeout", "LocalEntryNotFoundError", "NetworkError", "RemoteProtocolError",
                "ProtocolError", "gaierror"}:
        return DownloadError(f"Could not reach {host} to download {repo_id}: check the internet connection "
                             "(nothing was changed).")
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        return DownloadError(f"{host} answered HTTP {status} for {repo_id}; try again later (nothing was changed).")
    return DownloadError(f"Downloading {repo_id} from {host} failed: {_first_sentence(str(exc)) or type(exc).__name__}.")


def _disk_error(exc: OSError, cache: Path, plan: Optional[RemoteModel]) -> DownloadError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        need = f" (it needs {_mb(plan.total_bytes)})" if plan else ""
        return DownloadError(f"The disk holding {cache} is full{need}; free some space and try again (nothing was installed).")
    return DownloadError(f"Cannot write to the Hugging Face cache {cache}: {exc.strerror or exc}.")


def _check_repo_id(repo_id: str) -> None:
    import re

    if not re.fullmatch(r"[A-Za-z0-9][\w.\-]*/[A-Za-z0-9][\w.\-]*|[A-Za-z0-9][\w.\-]*", repo_id or "") or ".." in repo_id:
        raise SearchAppError(f"{repo_id!r} is not a Hugging Face model id (like {DEFAULT_RERANKER}).")


def _host(endpoint: str) -> str:
    return urlsplit(endpoint).netloc or endpoint


def _mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def _first_sentence(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:300]


def folder_bytes(folder: Path, follow_links: bool = True) -> int:
    """Bytes under `folder`; a snapshot's files are links to blobs: follow them there, not in a whole repo folder."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name), follow_symlinks=follow_links).st_size
            except OSError:
                pass
    return total
