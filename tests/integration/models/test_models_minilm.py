"""The real packaged all-MiniLM-L6-v2: semantic sanity and agreement with sentence-transformers."""

from __future__ import annotations

import numpy as np
import pytest

from searchapp.models import PACKAGED_SHA256
from searchapp.models.transformer import torch_threads

SENTENCES = [
    "A man is eating food.",
    "A man is eating a meal.",
    "The girl plays the violin.",
    "A cheetah is running behind its prey.",
    "Semantic search ranks passages by meaning, not by the words they share with the query. " * 8,
]


# The session's loads (conftest): packaged_encoder, BiEncoder("all-MiniLM-L6-v2", device="cpu") as the app loads
# it (precision "auto": bf16 weights on CPUs with native bf16), and minilm_fp32, the same packaged folder in fp32.
# A module encoder of its own cost a third MiniLM load (~1.5 CPU s).


def test_packaged_minilm_loads_verified(packaged_encoder):
    assert packaged_encoder.resolved.source == "packaged" and packaged_encoder.resolved.sha256 == PACKAGED_SHA256
    assert packaged_encoder.dim == 384 and packaged_encoder.max_seq_length == 256  # from sentence_bert_config.json


def test_semantic_sanity(minilm_fp32):
    v = minilm_fp32.encode(SENTENCES[:3])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])
    assert float(v[0] @ v[1]) > 0.8


def test_equal_to_sentence_transformers(minilm_fp32):
    sentence_transformers = pytest.importorskip("sentence_transformers")
    st = sentence_transformers.SentenceTransformer(str(minilm_fp32.resolved.path), device="cpu")
    with torch_threads(1):  # as minilm_fp32 runs
        ref = st.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    ours = minilm_fp32.encode(SENTENCES)
    assert np.min(np.sum(ref * ours, axis=1)) >= 0.9999


def test_auto_precision_stays_within_tolerance(minilm_fp32, packaged_encoder):
    assert np.min(np.sum(packaged_encoder.encode(SENTENCES) * minilm_fp32.encode(SENTENCES), axis=1)) >= 0.999
