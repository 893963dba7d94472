"""The Hugging Face cache read by our own code (models/cache_refs.py, decision 0127): the snapshot refs/main names,
the same one huggingface_hub's snapshot_download(local_files_only=True) answers; a ref that is not a commit id,
or not a regular file, names none; and resolving a cached model imports no huggingface_hub."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from searchapp.models.cache_refs import current_snapshot, ref_commit

REPO = Path(__file__).resolve().parents[3]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def cached_repo(cache: Path, name: str = "models--someone--tiny", ref: str = COMMIT) -> Path:
    """A repository folder as huggingface_hub and `models pull` lay it out: blobs, snapshots/<commit>, refs/main."""
    repo = cache / name
    snap = repo / "snapshots" / COMMIT
    snap.mkdir(parents=True)
    (repo / "blobs").mkdir()
    (repo / "blobs" / "b1").write_text('{"model_type": "bert"}', encoding="utf-8")
    os.symlink(os.path.relpath(repo / "blobs" / "b1", snap), snap / "config.json")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(ref, encoding="ascii")
    return repo


def test_the_snapshot_refs_main_names_is_the_one_huggingface_hub_finds(tmp_path):
    # Only here, to hold our reading to the library's (transformers brings it; searchapp no longer declares it).
    snapshot_download = pytest.importorskip("huggingface_hub").snapshot_download

    repo = cached_repo(tmp_path)
    ours = current_snapshot(repo)
    theirs = Path(snapshot_download("someone/tiny", cache_dir=str(tmp_path), local_files_only=True))
    assert ours == theirs == repo / "snapshots" / COMMIT


def test_a_ref_with_a_newline_still_names_its_commit(tmp_path):
    repo = cached_repo(tmp_path, ref=COMMIT + "\n")
    assert ref_commit(repo) == COMMIT and current_snapshot(repo) == repo / "snapshots" / COMMIT


@pytest.mark.parametrize("ref", ["../../../outside", "/etc", "main", "", "ABC" * 30, "0" * 65, "a", "abc123"])
def test_a_ref_that_is_not_a_commit_id_names_no_snapshot(tmp_path, ref):
    repo = cached_repo(tmp_path, ref=ref)
    (tmp_path / "outside").mkdir(exist_ok=True)  # where "../../../outside" would lead from snapshots/
    assert ref_commit(repo) is None and current_snapshot(repo) is None


def test_a_fifo_ref_or_a_missing_snapshot_names_none(tmp_path):
    repo = cached_repo(tmp_path)
    (repo / "refs" / "main").unlink()
    os.mkfifo(repo / "refs" / "main")  # opening it to read would wait for a writer forever
    assert current_snapshot(repo) is None
    other = cached_repo(tmp_path, "models--someone--other", ref="f" * 40)  # refs/main names a commit not there
    assert current_snapshot(other) is None


def test_resolving_a_cached_model_imports_no_huggingface_hub(tmp_path):
    cache = tmp_path / "hub"
    cached_repo(cache)
    code = ("import sys; from searchapp.models.resolve import _from_hf_cache, hf_cache_dir; "
            "p = _from_hf_cache('someone/tiny', hf_cache_dir()); "
            "print(p.name, 'huggingface_hub' in sys.modules)")
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [COMMIT, "False"]


def test_models_list_names_the_snapshot_resolving_would_and_the_last_one_only_without_a_ref(tmp_path):
    from searchapp.models.catalog import _snapshot

    garbage = cached_repo(tmp_path, "models--someone--garbage", ref="not a commit")
    assert _snapshot(garbage) is None  # the ref is there and names nothing: as resolve_model says
    no_ref = cached_repo(tmp_path, "models--someone--partial")
    (no_ref / "refs" / "main").unlink()  # another tool's partial copy: the last snapshot there
    assert _snapshot(no_ref) == no_ref / "snapshots" / COMMIT
