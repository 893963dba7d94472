"""The ONNX Runtime query path's cache: only this program writes it, and a damaged one falls back. That its
vectors are torch fp32's is test_query_encoders_agree.py's (one equivalence test over every query encoder)."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

pytest.importorskip("onnxruntime")

from searchapp.models.onnx_query import (
    cache_files,
    describe_query_path,
    export_query_model,
    load_onnx_query_encoder,
)

# One torch thread for the exports' tracing and probes (conftest.one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _export(encoder, cache):
    return export_query_model(encoder.resolved.path, pooling=encoder.pooling, max_seq_length=encoder.max_seq_length,
                              fingerprint=encoder.fingerprint, cache_dir=cache)


def _load(encoder, cache, threads=1):
    return load_onnx_query_encoder(cache, encoder.fingerprint, encoder.resolved.path,
                                   max_seq_length=encoder.max_seq_length, threads=threads)


@pytest.fixture(scope="module")
def exported(tiny_encoder, tmp_path_factory):
    """One export of the tiny encoder, for the tests of what becomes of an export already in the cache (tracing
    one costs ~0.6 CPU s); the tests of the export itself run their own. Each copies it into its own cache
    (copytree keeps the modes the export wrote)."""
    cache = tmp_path_factory.mktemp("exported") / "model-cache"
    assert _export(tiny_encoder, cache) is not None
    return cache


def test_the_export_lies_in_the_librarys_cache_and_says_what_runs(tiny_encoder, tmp_path):
    cache = tmp_path / "lib" / "model-cache"
    graph = _export(tiny_encoder, cache)
    assert graph is not None and graph.parent == cache
    ort = _load(tiny_encoder, cache, threads=2)
    assert ort is not None and ort.description == "onnxruntime fp32 (2 threads)"


def test_cache_files_are_private_and_inside_the_cache(tiny_encoder, tmp_path):
    cache = tmp_path / "model-cache"
    graph = _export(tiny_encoder, cache)
    graph_path, sidecar = cache_files(cache, tiny_encoder.fingerprint)
    assert graph == graph_path and sidecar.is_file()
    for f in (graph_path, sidecar):
        assert f.resolve().parent == cache.resolve()
        if os.name == "posix":
            assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert not [p for p in cache.iterdir() if p.name.startswith(".tmp-")]  # nothing half-written left


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign-mode", "symlink", "wrong-probe"])
def test_damaged_cache_falls_back_and_is_exported_again(tiny_encoder, exported, tmp_path, damage, caplog):
    cache = shutil.copytree(exported, tmp_path / "model-cache")
    graph, sidecar = cache_files(cache, tiny_encoder.fingerprint)
    assert _load(tiny_encoder, cache) is not None  # the copy is a good export until damaged
    if damage == "garbage":
        graph.write_bytes(b"\x00not an onnx graph" * 100)
    elif damage == "truncated":
        data = graph.read_bytes()
        graph.write_bytes(data[: len(data) // 2])
    elif damage == "foreign-mode":
        graph.chmod(0o666)  # not how this program writes it: someone else's file
    elif damage == "symlink":
        outside = tmp_path / "elsewhere.onnx"
        outside.write_bytes(graph.read_bytes())
        graph.unlink()
        graph.symlink_to(outside)
    else:  # a valid graph whose answer is not the recorded one (another model's export under this name)
        meta = json.loads(sidecar.read_text())
        meta["probe"] = [1.0] + [0.0] * (len(meta["probe"]) - 1)
        sidecar.write_text(json.dumps(meta))
    with caplog.at_level("WARNING"):
        assert _load(tiny_encoder, cache) is None  # no crash: the caller uses torch
    assert "ignoring the cached ONNX query model" in caplog.text
    assert not graph.exists() and not sidecar.exists()  # removed, so the next sync exports it again
    assert _export(tiny_encoder, cache) == graph
    assert _load(tiny_encoder, cache) is not None


def test_no_export_means_no_onnx_path(tiny_encoder, tmp_path):
    assert _load(tiny_encoder, tmp_path / "model-cache") is None
    label = describe_query_path(tmp_path / "model-cache", tiny_encoder.fingerprint, "mean")
    assert label.startswith("numpy fp32") and "after the next sync" in label


def test_unsupported_pooling_is_not_exported(tiny_encoder, tmp_path):
    assert export_query_model(tiny_encoder.resolved.path, pooling="wk", max_seq_length=tiny_encoder.max_seq_length,
                              fingerprint=tiny_encoder.fingerprint, cache_dir=tmp_path / "c") is None
    assert not (tmp_path / "c").exists()


def test_export_removes_stale_partial_writes_and_other_exports(tiny_encoder, tmp_path):
    cache = tmp_path / "model-cache"
    cache.mkdir()
    stale, fresh, other = cache / ".tmp-dead", cache / ".tmp-writing", cache / "query-0000000000000000-ort0.onnx"
    for f in (stale, fresh, other):
        f.write_bytes(b"x" * 100)
    os.utime(stale, (1, 1))  # a process died mid-write long ago; `fresh` may be another process's write
    assert _export(tiny_encoder, cache) is not None
    assert not stale.exists() and fresh.exists() and not other.exists()


def test_a_failed_export_is_logged_once_and_not_retried(tiny_encoder, tmp_path, monkeypatch, caplog):
    import searchapp.models.onnx_query as oq

    calls = []

    def broken(*args):
        calls.append(args)
        raise RuntimeError("this architecture does not trace")

    monkeypatch.setattr(oq, "_export", broken)
    cache = tmp_path / "model-cache"
    with caplog.at_level("INFO", logger="searchapp.models.onnx_query"):
        assert _export(tiny_encoder, cache) is None
    assert [r for r in caplog.records if "ONNX query path not available" in r.getMessage()]
    assert _export(tiny_encoder, cache) is None and len(calls) == 1  # the next sync does not spend seconds again
    graph, sidecar = cache_files(cache, tiny_encoder.fingerprint)
    assert not graph.exists() and not sidecar.exists()
    assert "after the next sync" not in describe_query_path(cache, tiny_encoder.fingerprint, "mean")
