"""The ONNX Runtime query path on the packaged MiniLM: its vectors are the torch fp32 bi-encoder's."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from searchapp.models.onnx_query import export_query_model, load_onnx_query_encoder  # noqa: E402

QUERIES = ["a test sentence", "how do vaccines train the immune system?", "lighthouse keeper's logbook 1887",
           "x", "Ünïcödé query with accents and a very long tail " * 40]


def test_onnx_query_vector_is_torch_fp32_vector_minilm(packaged_model_dir, tmp_path):
    from searchapp.models import BiEncoder

    encoder = BiEncoder(str(packaged_model_dir), device="cpu", precision="fp32", threads=1)
    cache = tmp_path / "model-cache"
    assert export_query_model(encoder.resolved.path, pooling=encoder.pooling, max_seq_length=encoder.max_seq_length,
                              fingerprint=encoder.fingerprint, cache_dir=cache) is not None
    ort = load_onnx_query_encoder(cache, encoder.fingerprint, encoder.resolved.path,
                                  max_seq_length=encoder.max_seq_length)
    assert ort is not None
    for q in QUERIES:
        want = np.asarray(encoder.encode_query(q), dtype=np.float32).reshape(-1)
        got = ort.encode_one(q)
        assert float(got @ want) >= 1 - 1e-3, q
        assert np.abs(got - want).max() < 1e-3, q
