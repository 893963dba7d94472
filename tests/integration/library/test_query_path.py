"""A sync that loads the bi-encoder leaves an ONNX export behind; queries then take it, and status says so."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from searchapp.library.resources import sync_encoder
from searchapp.models.onnx_query import cache_files


def test_library_exports_after_sync_and_status_names_the_query_path(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                     monkeypatch):
    monkeypatch.delenv("SEARCHAPP_NO_QUERY_EXPORT", raising=False)
    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)  # a sync that loads the model (not decision 0164's)
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The lighthouse keeper wrote in his logbook every night.\n", encoding="utf-8")
    (docs / "b.txt").write_text("Vaccines train the immune system to recognise a virus.\n", encoding="utf-8")
    config = make_config(models={"bi_encoder": str(tiny_bi_encoder_dir), "reranker": "", "threads": 1})
    with Library(config) as lib:
        before = lib.status()
        assert before.query_path.startswith("numpy fp32")
        lib.add_folder(docs)  # loads the model: the export is made at the end
        st = lib.status()
        assert st.query_path.startswith("onnxruntime fp32 (1 thread)")
        assert st.to_json()["query_path"] == st.query_path and "device" in st.to_json()
        graph, _ = cache_files(lib.data_dir / "model-cache", lib.models.identity()[0])
        assert graph.is_file()
        hits = lib.search("lighthouse logbook", mode="dense").hits
        assert lib.models.query_path() == "onnxruntime fp32 (1 thread)"  # the warm process took that path
        torch_vec = np.asarray(lib.models.encoder.encode_query("lighthouse logbook")).reshape(-1)
        assert float(lib.models.encode_query("lighthouse logbook") @ torch_vec) >= 1 - 1e-3
        assert hits


def test_a_damaged_export_means_torch_then_a_fresh_export(make_config, tiny_bi_encoder_dir, tmp_path, monkeypatch):
    from searchapp.library import Library

    monkeypatch.delenv("SEARCHAPP_NO_QUERY_EXPORT", raising=False)
    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)  # syncs that load the model (not decision 0164's)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The lighthouse keeper wrote in his logbook every night.\n", encoding="utf-8")
    config = make_config(models={"bi_encoder": str(tiny_bi_encoder_dir), "reranker": "", "threads": 1})
    with Library(config) as lib:
        lib.add_folder(docs)
        graph, _ = cache_files(lib.data_dir / "model-cache", lib.models.identity()[0])
    graph.write_bytes(b"garbage, not a graph")
    graph.chmod(0o600)
    with Library(config) as lib:
        assert lib.search("lighthouse", mode="dense").hits  # no crash
        assert lib.search("logbook", mode="dense").hits  # warm now: the export is tried, refused, removed
        assert not graph.exists() and not lib.models.query_path().startswith("onnxruntime")
        (docs / "b.txt").write_text("Vaccines train the immune system.\n", encoding="utf-8")
        lib.sync()  # the model is loaded: exported again
        assert graph.is_file() and graph.stat().st_size > 1000
        lib.search("vaccines", mode="dense")
        assert lib.models.query_path() == "onnxruntime fp32 (1 thread)"
