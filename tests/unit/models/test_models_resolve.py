"""Where weights come from: packaged (sha256-verified), local folders, the HF cache; pickles refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from searchapp.base.errors import ModelLoadError, ModelNotFoundError
from searchapp.models import resolve
from searchapp.models.resolve import PACKAGED_SHA256, resolve_model, verify_sha256


@pytest.fixture
def empty_hf_cache(tmp_path, monkeypatch) -> Path:
    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    return cache


def _model_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "bert"}))
    save_file({"w": torch.arange(6, dtype=torch.float32)}, str(folder / "model.safetensors"))
    return folder


def test_packaged_model_is_verified():
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        r = resolve_model(name, kind="bi-encoder")
        assert r.source == "packaged"
        assert r.sha256 == PACKAGED_SHA256
        assert (r.path / "model.safetensors").is_file() and (r.path / "config.json").is_file()


def test_corrupt_packaged_copy_fails_the_sha_check(tmp_path):
    src = resolve_model("all-MiniLM-L6-v2", kind="bi-encoder").path / "model.safetensors"
    copy = tmp_path / "model.safetensors"
    shutil.copyfile(src, copy)
    assert verify_sha256(copy, PACKAGED_SHA256) == PACKAGED_SHA256
    with open(copy, "r+b") as fh:  # flip one byte in the middle of the weights
        fh.seek(copy.stat().st_size // 2)
        b = fh.read(1)
        fh.seek(-1, 1)
        fh.write(bytes([b[0] ^ 0xFF]))
    with pytest.raises(ModelLoadError, match="corrupt.*[Rr]einstall"):
        verify_sha256(copy, PACKAGED_SHA256)


def test_local_folder(tmp_path):
    folder = _model_folder(tmp_path / "my-model")
    r = resolve_model(str(folder), kind="bi-encoder")
    assert r.source == "local" and r.path == folder.resolve()
    assert len(r.sha256) == 64
    assert r == resolve_model(str(folder), kind="bi-encoder")  # stable (and served from the hash cache)


def test_sharded_weights_hash_over_sorted_shards(tmp_path):
    folder = _model_folder(tmp_path / "sharded")
    save_file({"v": torch.ones(3)}, str(folder / "model-00002-of-00002.safetensors"))
    (folder / "model.safetensors").rename(folder / "model-00001-of-00002.safetensors")
    r = resolve_model(str(folder), kind="bi-encoder")
    parts = [resolve.file_sha256(p) for p in sorted(folder.glob("*.safetensors"))]
    import hashlib

    assert r.sha256 == hashlib.sha256("".join(parts).encode()).hexdigest()


def test_sentence_transformers_folder_follows_modules_json(tmp_path):
    root = tmp_path / "st-model"
    _model_folder(root / "0_Transformer")
    (root / "modules.json").write_text(
        json.dumps([{"idx": 0, "name": "0", "path": "0_Transformer", "type": "sentence_transformers.models.Transformer"}])
    )
    assert resolve_model(str(root), kind="bi-encoder").path == (root / "0_Transformer").resolve()


def test_missing_hf_id_says_how_to_add_a_reranker(empty_hf_cache):
    with pytest.raises(ModelNotFoundError) as err:
        resolve_model("cross-encoder/ms-marco-MiniLM-L-6-v2", kind="reranker")
    msg = str(err.value)
    assert "No cross-encoder weights found for 'cross-encoder/ms-marco-MiniLM-L-6-v2'" in msg
    assert str(empty_hf_cache) in msg  # says where it looked
    assert "Search still works without reranking" in msg
    assert "--reranker or [models] reranker in config.toml" in msg
    assert "config.json + model.safetensors + tokenizer files" in msg


def test_missing_bi_encoder_and_empty_spec(empty_hf_cache, tmp_path):
    with pytest.raises(ModelNotFoundError, match=r"\[models\] bi_encoder"):
        resolve_model("someone/some-model", kind="bi-encoder")
    with pytest.raises(ModelNotFoundError):
        resolve_model(str(tmp_path / "no" / "such" / "folder"), kind="bi-encoder")
    with pytest.raises(ModelNotFoundError):
        resolve_model("", kind="reranker")


def test_hf_cache_snapshot_is_found(empty_hf_cache):
    # The layout huggingface_hub writes: refs/main names the snapshot folder holding the files.
    repo = empty_hf_cache / "models--someone--tiny"
    commit = "abc123" + "0" * 34  # a sha1's 40 hex digits
    _model_folder(repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    r = resolve_model("someone/tiny", kind="bi-encoder")
    assert r.source == "hf-cache"
    assert r.path == repo / "snapshots" / commit


def test_pickle_only_folder_is_refused_without_unpickling(tmp_path, monkeypatch):
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04not really a pickle")
    calls = []
    monkeypatch.setattr(torch, "load", lambda *a, **k: calls.append(a))
    with pytest.raises(ModelLoadError, match="refusing to unpickle.*safetensors"):
        resolve_model(str(folder), kind="bi-encoder")
    from searchapp.models import BiEncoder

    with pytest.raises(ModelLoadError, match="refusing to unpickle"):
        BiEncoder(str(folder), device="cpu")
    assert calls == []


def test_folder_without_config_or_weights(tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    with pytest.raises(ModelLoadError, match="config.json"):
        resolve_model(str(bare), kind="bi-encoder")
    (bare / "config.json").write_text("{}")
    with pytest.raises(ModelLoadError, match="no model.safetensors"):
        resolve_model(str(bare), kind="bi-encoder")
