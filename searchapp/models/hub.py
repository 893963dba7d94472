"""Fetching a model from the Hugging Face hub, on explicit request only (`searchapp models pull`, the GUI's Download).

This is the one place that ever opens a network connection, and only when a person asked for a model by
name: `models.allow_download` is not needed and HF_HUB_OFFLINE does not stop it.

What is fetched: configs, tokenizer files and safetensors weights (never pickles, ONNX or OpenVINO
exports), one file after another with our own requests (hub_http.py: timeouts, size caps, cancel checks),
each into a staging file whose name we chose. The hub is not trusted: commit ids must be hex, ETags plain
tokens, file names plain relative names at most one folder deep; a body may not exceed its declared size,
and weights must match the hub's sha256. Only when every file arrived and the model loads (a reranker with
exactly one output label) is the Hugging Face cache layout (blobs/, snapshots/<commit>/, refs/main) built
in staging and moved into the real cache, where `resolve_model` finds it offline like any cached model. A
cancelled, failed or killed pull never leaves a half-installed model: the staging folder is removed at
once, or by the next pull when the process was killed.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, TypeVar

from ..base.config import DEFAULT_RERANKER
from ..base.errors import (Cancelled, ConfigError, ModelLoadError, ModelNotFoundError, SearchAppError,
                           UnsupportedFileError)
from ..base.progress import CancelToken, ProgressFn, report
from ..base.safe_open import open_regular
from ..base.terminal import printable
from .hub_http import DEFAULT_ENDPOINT, DownloadError, HubClient, host_of, parse_endpoint
from .resolve import hf_cache_dir, resolve_model

__all__ = [
    "DownloadError",
    "KnownModel",
    "KNOWN_MODELS",
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

ALLOW_PATTERNS = ("*.json", "*.safetensors", "*.txt", "*.model")  # configs, weights, vocab/merges, sentencepiece
SKIP_FOLDERS = ("onnx/", "openvino/", "coreml/", "tf/", "flax/")  # other runtimes' exports of the same weights
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".h5", ".msgpack")
STAGING_PREFIX = ".searchapp-pull-"
MAX_FILES = 200  # a model folder has a dozen files; anything beyond this is not a model we can use
MAX_PULL_BYTES = 8_000_000_000  # all files of one pull together; $SEARCHAPP_MAX_PULL_MB overrides it
STALL_GRACE_S = 2.0  # after Cancel, how long a request stuck in a socket read may take to notice
# A file name a pull will write: plain ASCII words, at most one folder deep (e.g. 1_Pooling/config.json).
_SAFE_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-+@=,~ ]{0,127}(/[A-Za-z0-9_][A-Za-z0-9_.\-+@=,~ ]{0,127})?")
_REPO_PART = r"[A-Za-z0-9](?:[A-Za-z0-9_.\-]{0,94}[A-Za-z0-9_])?"
_REPO_ID = re.compile(rf"(?:{_REPO_PART}/)?{_REPO_PART}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
T = TypeVar("T")


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
    """The hub to talk to: the argument, else $HF_ENDPOINT read now (huggingface_hub froze it at import).
    May hold credentials: show `hub_host()` instead."""
    return (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")


def hub_host(endpoint: Optional[str] = None) -> str:
    """host[:port] of the hub for messages: never its credentials, never an exception (even for `http://[::1`)."""
    return host_of(hub_endpoint(endpoint))


def max_pull_bytes() -> int:
    """The most one pull may fetch: $SEARCHAPP_MAX_PULL_MB (megabytes), else MAX_PULL_BYTES."""
    raw = os.environ.get("SEARCHAPP_MAX_PULL_MB", "").strip()
    if not raw:
        return MAX_PULL_BYTES
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if not mb > 0:
        raise ConfigError(f"SEARCHAPP_MAX_PULL_MB must be a positive number of megabytes, not {printable(raw)!r}.")
    return int(mb * 1e6)


def repo_folder(repo_id: str, cache: Path) -> Path:
    return cache / f"models--{repo_id.replace('/', '--')}"


def _run_cancellable(fn: Callable[[], T], cancel: CancelToken, name: str) -> T:
    """Run `fn` on a daemon thread and wait for it, watching `cancel` every 0.1 s.

    Every request has a timeout, and `fn` checks `cancel` between chunks; a request stuck waiting for
    bytes is abandoned after STALL_GRACE_S (it can only write into the staging folder, which goes)."""
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
            if cancel.cancelled:
                thread.join(STALL_GRACE_S)
                raise Cancelled("download cancelled")
    except BaseException:
        cancel.cancel()  # a KeyboardInterrupt here: the worker stops at its next check
        raise
    err = outcome.get("error")
    if err is not None:
        raise err  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


# -- planning ---------------------------------------------------------------------------------------
def _wanted(path: str) -> bool:
    from fnmatch import fnmatch

    if any(path.startswith(d) for d in SKIP_FOLDERS) or path.count("/") > 1:
        return False
    return any(fnmatch(path.rsplit("/", 1)[-1], pat) for pat in ALLOW_PATTERNS)


def _remote_file(entry: dict, repo_id: str, host: str) -> RemoteFile:
    """A listed file a pull will fetch, checked: a safe relative name, a sane size, a hex sha256 for weights."""
    path = entry["path"]
    if not _SAFE_PATH.fullmatch(path) or ".." in path:
        raise DownloadError(f"{host} lists a file named {printable(path)!r} for {repo_id}; a pull only writes plain "
                            "names (at most one folder deep), so nothing was downloaded.")
    lfs = entry.get("lfs") if isinstance(entry.get("lfs"), dict) else None
    size = (lfs or entry).get("size")
    sha = lfs.get("oid") if lfs else None
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise DownloadError(f"{host} gave no usable size for {printable(path)} of {repo_id}; nothing was downloaded.")
    if lfs is not None and not (isinstance(sha, str) and _SHA256.fullmatch(sha.lower())):
        raise DownloadError(f"{host} gave a malformed sha256 for {printable(path)} of {repo_id}; nothing was downloaded.")
    if path.endswith(".safetensors") and lfs is None:
        raise DownloadError(f"{host} gave no sha256 for the weights {printable(path)} of {repo_id}; they cannot be "
                            "checked, so nothing was downloaded.")
    return RemoteFile(path, size, sha.lower() if sha else None)


def plan_pull(repo_id: str, *, endpoint: Optional[str] = None, cancel: Optional[CancelToken] = None) -> RemoteModel:
    """Ask the hub which commit `repo_id` is at and which of its files a pull fetches (network; small requests).

    Refuses a repository without safetensors weights, or bigger than max_pull_bytes(), before anything is
    downloaded.
    """
    _check_repo_id(repo_id)
    cancel = cancel or CancelToken()
    endpoint = hub_endpoint(endpoint)
    client = HubClient(endpoint, cancel)

    def ask() -> tuple[str, list[dict]]:
        commit = client.revision(repo_id)
        return commit, client.tree(repo_id, commit)

    commit, entries = _run_cancellable(ask, cancel, f"plan {repo_id}")
    names = [e["path"] for e in entries if e.get("type", "file") == "file" and isinstance(e.get("path"), str)]
    files = tuple(_remote_file(e, repo_id, client.host) for e in entries
                  if e.get("type", "file") == "file" and isinstance(e.get("path"), str) and _wanted(e["path"]))
    if not any(f.path.endswith(".safetensors") for f in files):
        pickles = [printable(n) for n in names if n.endswith(PICKLE_SUFFIXES)]
        if pickles:
            raise ModelLoadError(
                f"{repo_id} has only pickled weights ({', '.join(sorted(pickles)[:3])}); searchapp loads safetensors "
                "only (a pickle can run code when loaded), so nothing was downloaded.")
        raise ModelLoadError(f"{repo_id} has no model.safetensors weights, so it cannot be used; nothing was downloaded.")
    if not any(f.path in ("config.json", "modules.json") for f in files):
        raise ModelLoadError(f"{repo_id} has no config.json; it is not a Transformers model, so nothing was downloaded.")
    if len(files) > MAX_FILES:
        raise ModelLoadError(f"{repo_id} has {len(files)} files to fetch; that is not a single model, so nothing was downloaded.")
    if len({f.path for f in files}) != len(files):
        raise DownloadError(f"{client.host} lists a file of {repo_id} twice; nothing was downloaded.")
    plan = RemoteModel(repo_id, commit, endpoint, tuple(sorted(files, key=lambda f: (f.size, f.path))))
    cap = max_pull_bytes()
    if plan.total_bytes > cap:
        raise DownloadError(f"{repo_id} is {_mb(plan.total_bytes)}, more than a pull may fetch ({_mb(cap)}; "
                            "$SEARCHAPP_MAX_PULL_MB raises it); nothing was downloaded.")
    # Small files first (that sort): a wrong repository fails on its config before 400 MB of weights arrive.
    return plan


# -- pulling ---------------------------------------------------------------------------------------
def pull_model(repo_id: str, *, role: Optional[str] = None, endpoint: Optional[str] = None,
               cache_dir: Optional[Path] = None, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> PulledModel:
    """Download `repo_id` into the Hugging Face cache, check it loads, and return where it is.

    `role` ("reranker" or "bi-encoder") is guessed from config.json when None. Raises Cancelled when
    `cancel` is set (then nothing is installed), DownloadError, ModelNotFoundError or ModelLoadError.
    """
    cancel = cancel or CancelToken()
    _check_repo_id(repo_id)
    parse_endpoint(hub_endpoint(endpoint))  # a malformed HF_ENDPOINT is one sentence, before anything else
    cache = Path(cache_dir) if cache_dir is not None else hf_cache_dir()
    remove_stale_staging(cache)
    report(progress, "asking the hub", 0, None, repo_id)
    plan = plan_pull(repo_id, endpoint=endpoint, cancel=cancel)
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
        try:
            blobs = _download(plan, staging, progress, cancel)
            cancel.check()
            report(progress, "checking", 0, None, repo_id)
            staged = _lay_out(plan, staging, blobs)
        except OSError as exc:
            raise _disk_error(exc, cache, plan) from exc
        snapshot = staged / "snapshots" / plan.commit
        role = role or guess_role(snapshot)
        sha = _verify_loads(snapshot, role, repo_id)
        cancel.check()
        path = _install(staged, cache, plan.commit) / "snapshots" / plan.commit
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    # The proof the issue asks for: found offline, the way the app looks models up.
    if cache_dir is None or Path(cache_dir) == hf_cache_dir():
        resolve_model(repo_id, kind=role, allow_download=False)
    report(progress, "done", plan.total_bytes, plan.total_bytes, repo_id)
    return PulledModel(repo_id, role, path, plan.commit, sha, plan.total_bytes)


def _download(plan: RemoteModel, staging: Path, progress: Optional[ProgressFn], cancel: CancelToken) -> list[str]:
    """Fetch every planned file into staging/files/<n>.part (names we chose); returns each file's blob name.

    Each body is capped at its declared size while streaming, and weights must match the hub's sha256."""
    client = HubClient(plan.endpoint, cancel)
    parts = staging / "files"
    parts.mkdir()
    total = plan.total_bytes
    state = {"done": 0}

    def work() -> list[str]:
        names = []
        for i, f in enumerate(plan.files):
            cancel.check()
            before = state["done"]

            def counted(n: int, name: str = f.path) -> None:
                state["done"] += n
                if state["done"] > total:  # cannot happen while each file is capped; the total cap's backstop
                    raise DownloadError(f"{plan.repo_id} sent more than its {_mb(total)}; stopped.")
                report(progress, "downloading", state["done"], total, name)

            # "x": exclusive create; the folder was made by us and never re-created, so an abandoned
            # download cannot write once the staging folder is gone.
            with open(parts / f"{i}.part", "xb") as out:
                sha256, git_sha1 = client.fetch(plan.repo_id, plan.commit, f.path, f.size, out, counted)
            if f.sha256 and sha256 != f.sha256:
                raise DownloadError(f"{printable(f.path)} of {plan.repo_id} arrived corrupted (sha256 mismatch); "
                                    "nothing was installed. Try again.")
            names.append(sha256 if f.sha256 else git_sha1)  # how huggingface_hub names blobs: LFS sha256, git sha1
            state["done"] = before + f.size
            report(progress, "downloading", state["done"], total, f.path)
        return names

    report(progress, "downloading", 0, total, "")
    return _run_cancellable(work, cancel, f"pull {plan.repo_id}")


def _inside(root: Path, path: Path, *, may_be_root: bool = False) -> Path:
    """`path`, after checking it resolves inside `root` (file names come from the hub)."""
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root or (real == real_root and not may_be_root):
        raise DownloadError(f"{printable(path.name)} would be written outside the download folder; refused.")
    return path


def _lay_out(plan: RemoteModel, staging: Path, blobs: list[str]) -> Path:
    """Build the Hugging Face cache layout in staging from the downloaded parts; returns the repository folder."""
    repo_dir = staging / repo_folder(plan.repo_id, Path()).name
    blob_dir = repo_dir / "blobs"
    snap = repo_dir / "snapshots" / plan.commit
    blob_dir.mkdir(parents=True)
    snap.mkdir(parents=True)
    for i, (f, name) in enumerate(zip(plan.files, blobs)):
        blob = _inside(blob_dir, blob_dir / name)
        part = staging / "files" / f"{i}.part"
        if blob.exists():  # the same bytes under two names
            part.unlink()
        else:
            os.replace(part, blob)
        dest = _inside(snap, snap / f.path)
        dest.parent.mkdir(exist_ok=True)
        _inside(snap, dest.parent, may_be_root=True)
        try:
            os.symlink(os.path.relpath(blob, dest.parent), dest)  # as huggingface_hub lays it out
        except OSError:
            shutil.copyfile(blob, dest)  # no symlinks here (some Windows setups): a copy works as well
    _write_ref(repo_dir, plan.commit)
    return repo_dir


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
def _disk_error(exc: OSError, cache: Path, plan: Optional[RemoteModel]) -> DownloadError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        need = f" (it needs {_mb(plan.total_bytes)})" if plan else ""
        return DownloadError(f"The disk holding {cache} is full{need}; free some space and try again (nothing was installed).")
    return DownloadError(f"Cannot write to the Hugging Face cache {cache}: {exc.strerror or exc}.")


def _check_repo_id(repo_id: str) -> None:
    """An id the hub itself accepts: owner/name of plain ASCII parts. "--" and ".." are refused, because the
    cache folder is models--owner--name: `a--b` would name the folder of `a/b`."""
    if not isinstance(repo_id, str) or not _REPO_ID.fullmatch(repo_id) or "--" in repo_id or ".." in repo_id:
        raise ConfigError(f"{printable(repo_id)!r} is not a Hugging Face model id (like {DEFAULT_RERANKER}).")


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
