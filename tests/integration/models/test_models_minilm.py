"""The real packaged all-MiniLM-L6-v2: semantic sanity and agreement with sentence-transformers."""

from __future__ import annotations

import numpy as np
import pytest

from searchapp.models import BiEncoder, PACKAGED_SHA256
from searchapp.models.transformer import torch_threads

SENTENCES = [
    "A man is eating food.",
    "A man is eating a meal.",
    "The girl plays the violin.",
    "A cheetah is running behind its prey.",
    "Semantic search ranks passages by meaning, not by the words they share with the query. " * 8,
]


@pytest.fixture(scope="module")
def minilm() -> BiEncoder:
    # One thread: torch's default two spin against each other when other tests hold a core (the vectors are the
    # same on any count).
    return BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32", threads=1)


def test_packaged_minilm_loads_verified(minilm):
    assert minilm.resolved.source == "packaged" and minilm.resolved.sha256 == PACKAGED_SHA256
    assert minilm.dim == 384 and minilm.max_seq_length == 256  # from sentence_bert_config.json


def test_semantic_sanity(minilm):
    v = minilm.encode(SENTENCES[:3])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])
    assert float(v[0] @ v[1]) > 0.8


def test_equal_to_sentence_transformers(minilm):
    sentence_transformers = pytest.importorskip("sentence_transformers")
    st = sentence_transformers.SentenceTransformer(str(minilm.resolved.path), device="cpu")
    with torch_threads(1):  # as the fixture's encoder runs
        ref = st.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    ours = minilm.encode(SENTENCES)
    assert np.min(np.sum(ref * ours, axis=1)) >= 0.9999


def test_auto_precision_stays_within_tolerance(minilm, packaged_encoder):
    # packaged_encoder: the session's BiEncoder("all-MiniLM-L6-v2", device="cpu"), precision "auto" (bf16 weights on
    # CPUs with native bf16), as the app loads it; a load of its own here cost another MiniLM load.
    assert np.min(np.sum(packaged_encoder.encode(SENTENCES) * minilm.encode(SENTENCES), axis=1)) >= 0.999
