"""`searchapp models`: a real download with the real huggingface_hub client from a hub served on 127.0.0.1."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import build_tiny_cross_encoder
from hub_server import FakeHub

REPO = Path(__file__).resolve().parents[3]
RERANKER_ID = "acme/tiny-reranker"


@pytest.fixture
def hf_cache(tmp_path, monkeypatch) -> Path:
    """A cache of this test's own (conftest's is shared by the session)."""
    home = tmp_path / "hf-home"
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(home / "hub"))
    return home / "hub"


@pytest.fixture
def hub(tmp_path, monkeypatch, tiny_cross_encoder_dir):
    with FakeHub() as h:
        h.add_repo(RERANKER_ID, tiny_cross_encoder_dir)
        monkeypatch.setenv("HF_ENDPOINT", h.url)
        yield h


def leftovers(cache: Path) -> list[str]:
    """What a clean cache must not hold after a failed or cancelled pull."""
    root = cache.parent
    if not root.exists():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.name.endswith(".incomplete") or p.name.startswith(".searchapp-pull-")
                  or p.name.startswith("models--"))


def cli(*args: str, env_extra: dict | None = None, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]), **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "searchapp", *args], env=env, capture_output=True, text=True,
                          timeout=180, **kw)


def test_pull_installs_into_the_cache_is_found_offline_and_search_reranks(hub, hf_cache, tiny_encoder, make_config,
                                                                        tmp_corpus):
    from searchapp.library import Library
    from searchapp.models.catalog import list_models
    from searchapp.models.hub import pull_model
    from searchapp.models.resolve import resolve_model

    assert os.environ["HF_HUB_OFFLINE"] == "1"  # conftest's: the explicit pull needs no switch
    seen = []
    got = pull_model(RERANKER_ID, progress=seen.append)
    assert got.role == "reranker" and not got.already_present
    assert got.path == hf_cache / "models--acme--tiny-reranker" / "snapshots" / hub.repos[RERANKER_ID].commit
    names = sorted(p.name for p in got.path.iterdir())
    assert "model.safetensors" in names and "config.json" in names and "vocab.txt" in names
    assert "README.md" not in names and not (got.path / "onnx").exists()  # only what a model needs
    assert not any(path.endswith(("README.md", ".onnx")) for _, path in hub.requests)
    assert seen[-1].stage == "done" and any(p.stage == "downloading" and p.done == p.total for p in seen)
    assert leftovers(hf_cache) == ["hub/models--acme--tiny-reranker"]

    # Found offline, the way the app looks models up: the hub is gone now.
    hub.server.shutdown()
    found = resolve_model(RERANKER_ID, kind="reranker")
    assert found.source == "hf-cache" and found.path == got.path and found.sha256 == got.sha256

    config = make_config(models={"reranker": RERANKER_ID}, index={"backend": "exact"})
    with Library(config, encoder=tiny_encoder) as lib:
        lib.add_folder(tmp_corpus)
        res = lib.search("photosynthesis in leaves", k=5)
        assert res.reranked and res.notice is None
        assert all(h.scores.rerank is not None for h in res.hits)
    entry = next(e for e in list_models(config) if e.id == RERANKER_ID)
    assert (entry.source, entry.role, entry.in_use, entry.sha256) == ("cache", "reranker", ["reranker"], got.sha256)


def run_main(*args: str) -> tuple[int, str, str]:
    """`searchapp ARGS` in this process (cheap where the command needs no separate process)."""
    import contextlib
    import io

    from searchapp.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    handler = signal.getsignal(signal.SIGINT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(list(args))
    finally:
        signal.signal(signal.SIGINT, handler)
    return rc, out.getvalue(), err.getvalue()


def test_cli_pull_list_and_remove(hub, hf_cache, tmp_path, monkeypatch):
    # In-process, as the commands after it: a fresh Python with torch to check the pulled model was most of this
    # test's CPU (the Ctrl+C and the one-line-error tests below start the real command)
    monkeypatch.setenv("SEARCHAPP_DATA_DIR", str(tmp_path / "lib"))
    rc, out, err = run_main("models", "pull", RERANKER_ID, "--use", "--json")
    assert rc == 0, err
    pulled = json.loads(out)
    assert pulled["role"] == "reranker" and pulled["in_use"] and Path(pulled["path"]).is_dir()

    rc, out, err = run_main("models", "pull", RERANKER_ID, "--json")
    assert rc == 0 and json.loads(out)["already_present"], err

    rc, out, err = run_main("models", "list", "--json")
    assert rc == 0, err
    entries = {e["id"]: e for e in json.loads(out)}
    mine = entries[RERANKER_ID]
    assert mine["source"] == "cache" and mine["in_use"] == ["reranker"]  # --use wrote config.toml
    assert mine["sha256"] == pulled["sha256"] and mine["bytes"] > 100_000
    assert entries["all-MiniLM-L6-v2"]["source"] == "packaged"
    rc, bare, err = run_main("models")  # a bare `models` lists them, as `saved` and `history` do
    assert rc == 0 and bare.splitlines()[0].startswith("role") and RERANKER_ID in bare, err

    rc, out, err = run_main("models", "remove", RERANKER_ID)
    assert rc == 0 and "configured reranker" in err and leftovers(hf_cache) == []
    rc, out, err = run_main("models", "remove", RERANKER_ID)
    assert rc == 5 and err.count("\n") == 1 and "is not in the Hugging Face cache" in err


def test_ctrl_c_mid_file_leaves_the_cache_clean_and_a_second_pull_succeeds(hub, hf_cache, tmp_path):
    from searchapp.models.hub import pull_model

    hub.stall_once(RERANKER_ID, "model.safetensors")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "SEARCHAPP_DATA_DIR": str(tmp_path / "lib")}
    proc = subprocess.Popen([sys.executable, "-m", "searchapp", "models", "pull", RERANKER_ID], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert hub.stalled.wait(120), "the download never reached the weights"
        staged = [p for p in hf_cache.iterdir() if p.name.startswith(".searchapp-pull-")]
        assert staged and not (hf_cache / "models--acme--tiny-reranker").exists()  # half a file, only in staging
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "cancelled" in err and "Traceback" not in err
    assert leftovers(hf_cache) == []
    hub.release.set()

    got = pull_model(RERANKER_ID)
    assert (got.path / "model.safetensors").is_file() and leftovers(hf_cache) == ["hub/models--acme--tiny-reranker"]


def test_cancel_token_mid_file_in_process(hub, hf_cache):
    import threading

    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken
    from searchapp.models.hub import pull_model

    hub.stall_once(RERANKER_ID, "model.safetensors")
    token = CancelToken()
    threading.Thread(target=lambda: hub.stalled.wait(60) and token.cancel(), daemon=True).start()
    with pytest.raises(Cancelled):
        pull_model(RERANKER_ID, cancel=token)
    assert leftovers(hf_cache) == []
    hub.release.set()  # the abandoned download now ends: it must not bring anything back
    time.sleep(1.5)
    assert leftovers(hf_cache) == []
    assert pull_model(RERANKER_ID).path.is_dir()


def test_a_repository_with_only_pytorch_model_bin_is_refused(hub, hf_cache, tmp_path, tiny_cross_encoder_dir):
    from searchapp.base.errors import ModelLoadError
    from searchapp.models.hub import pull_model

    folder = tmp_path / "pickled"
    folder.mkdir()
    for name in ("config.json", "vocab.txt", "tokenizer_config.json"):
        (folder / name).write_bytes((tiny_cross_encoder_dir / name).read_bytes())
    (folder / "pytorch_model.bin").write_bytes(b"PK\x03\x04 not to be unpickled")
    hub.add_repo("acme/pickled", folder)
    with pytest.raises(ModelLoadError, match="only pickled weights .*pytorch_model.bin"):
        pull_model("acme/pickled")
    assert not any("/resolve/" in path for _, path in hub.requests)  # refused before a byte was fetched
    assert leftovers(hf_cache) == []


def test_a_classifier_with_three_labels_is_not_installed_as_reranker(hub, hf_cache, tmp_path, packaged_model_dir):
    from searchapp.base.errors import ModelLoadError
    from searchapp.models.hub import pull_model

    hub.add_repo("acme/nli", build_tiny_cross_encoder(tmp_path / "nli", packaged_model_dir, num_labels=3))
    with pytest.raises(ModelLoadError, match="cannot be used as a reranker.*3 output labels"):
        pull_model("acme/nli", role="reranker")
    assert leftovers(hf_cache) == []


def test_missing_repository_and_unreachable_hub_are_one_line_errors(hub, hf_cache, tmp_path):
    import socket

    env = {"SEARCHAPP_DATA_DIR": str(tmp_path / "lib")}
    out = cli("models", "pull", "acme/no-such-model", env_extra=env)
    assert out.returncode == 5
    assert out.stderr.strip().splitlines() == [
        f"searchapp: error: acme/no-such-model was not found on {hub.url[7:]}; check the name (private and gated "
        "models are not supported)."]

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    out = cli("models", "pull", RERANKER_ID, env_extra={**env, "HF_ENDPOINT": dead})
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"searchapp: error: Could not reach {dead[7:]}"), out.stderr
    assert leftovers(hf_cache) == []


def test_disk_full_and_bad_ids_read_as_one_sentence(hf_cache):
    from searchapp.base.errors import SearchAppError
    from searchapp.models.hub import RemoteFile, RemoteModel, pull_model
    from searchapp.models.hub.errors import disk_error as _disk_error

    plan = RemoteModel("acme/x", "0" * 40, "http://127.0.0.1:1", (RemoteFile("model.safetensors", 90_000_000, None),))
    err = _disk_error(OSError(errno.ENOSPC, "No space left on device"), hf_cache, plan)
    assert str(err).startswith("The disk holding ") and "is full (it needs 90 MB)" in str(err)
    with pytest.raises(SearchAppError, match="is not a Hugging Face model id"):
        pull_model("../../etc")


def test_staging_folders_of_dead_pulls_are_removed(hf_cache):
    from searchapp.models.hub import remove_stale_staging

    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = hf_cache / f".searchapp-pull-{proc.stdout.strip()}-abc"
    mine = hf_cache / f".searchapp-pull-{os.getpid()}-def"
    for d in (dead, mine):
        (d / "blobs").mkdir(parents=True)
    assert remove_stale_staging(hf_cache) == 1
    assert not dead.exists() and mine.exists()


def test_pull_use_for_one_run_keeps_the_files_library_address(hub, hf_cache, tmp_path, monkeypatch):
    """`--library local` opens this desktop's library for one run: a reviewer found `models pull --use` in such a run
    saved config.toml without its `[library] address`. The saved file keeps the address it had."""
    import tomllib

    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text('[library]\naddress = "postgresql://team@server/searchapp"\n', encoding="utf-8")
    monkeypatch.setenv("SEARCHAPP_DATA_DIR", str(data))
    rc, _, err = run_main("--library", "local", "models", "pull", RERANKER_ID, "--use", "--json")
    assert rc == 0, err
    saved = tomllib.loads((data / "config.toml").read_text(encoding="utf-8"))
    assert saved["library"]["address"] == "postgresql://team@server/searchapp"
    assert saved["models"]["reranker"] == RERANKER_ID
