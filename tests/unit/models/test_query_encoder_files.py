"""models/query_encoder.py reads a model folder's weights and tokenizer once a process, while its files stay the
same: every Library opened on the same model shares them (the window switching libraries, a test suite's
hundreds), read-only, and a folder whose files changed is read again."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from searchapp.models.query_encoder import load_query_encoder
from tiny_models import save_random_bert


def test_encoders_of_one_folder_share_its_files_and_a_changed_folder_is_read_again(tmp_path, tiny_bi_encoder_dir):
    folder = shutil.copytree(tiny_bi_encoder_dir, tmp_path / "model")
    first = load_query_encoder(folder, pooling="mean", max_seq_length=128)
    second = load_query_encoder(folder, pooling="mean", max_seq_length=128)
    assert first is not None and second is not None and first is not second
    assert first.w is second.w and first.tokenizer is second.tokenizer  # read once
    assert np.array_equal(first.encode_one("a lava field"), second.encode_one("a lava field"))
    with pytest.raises(ValueError):  # shared, so nobody may write into them
        first.w["embeddings.word_embeddings.weight"][0, 0] = 1.0

    shorter = load_query_encoder(folder, pooling="mean", max_seq_length=16)  # truncation is the tokenizer's own
    assert shorter is not None and shorter.tokenizer is not first.tokenizer
    assert len(shorter.tokenizer.encode("word " * 100).ids) == 16

    save_random_bert(folder, seed=7, max_position_embeddings=128)  # other weights, same shapes
    changed = load_query_encoder(folder, pooling="mean", max_seq_length=128)
    assert changed is not None and changed.w is not first.w
    assert not np.allclose(changed.encode_one("a lava field"), first.encode_one("a lava field"))
