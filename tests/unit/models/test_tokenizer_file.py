"""The words pass chunks with the model folder's tokenizer.json alone (models/tokenizer_file.py, ModelSet.chunker):
the same tokenizer transformers builds for the bi-encoder, the same passages, and no model loaded for them."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from searchapp.base.types import Document
from searchapp.library.resources.model_set import ModelSet
from searchapp.ingest.passages import passages_of
from searchapp.models.chunking_tokenizer import ChunkingTokenizer
from searchapp.models.tokenizer_file import chunker_from_files, same_chunking

TEXT = ("Café crème, naïve façade — Ünïcödé with combining accents (e\u0301) and emoji 🦫🌊 in a sentence.\n\n"
        + "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherung " * 3
        + "https://example.org/" + "very-long-path-segment-" * 30 + "end\n\n"
        + "東京の喫茶店で珈琲を飲みながら、長い文章を読みました。北京和上海的图书馆。서울의 도서관에서 책을 읽었다.\n\n"
        + " ".join(f"Sentence {i} speaks of rivers, ocelots and ﬁne ligatures." for i in range(60)))


class _NoBatch:
    cancel = None

    def flush_and_stop(self) -> None:  # pragma: no cover - no cancel in these tests
        raise AssertionError("not cancelled")


def transformers_chunker(path: Path, max_seq_length: int) -> ChunkingTokenizer:
    """What BiEncoder chunks with: transformers' tokenizer for the folder, as BiEncoder builds it (no weights)."""
    from searchapp.models.transformer import load_tokenizer

    return ChunkingTokenizer(load_tokenizer(path, require_fast=True).backend_tokenizer.to_str(), max_seq_length)


def test_the_packaged_tokenizer_json_is_what_transformers_builds(packaged_model_dir):
    direct = chunker_from_files(packaged_model_dir, 256)
    assert direct is not None
    built = transformers_chunker(packaged_model_dir, 256)
    assert same_chunking(direct, built)
    assert direct.token_offsets(TEXT) == built.token_offsets(TEXT)
    assert direct.token_offsets_batch([TEXT, "x"]) == built.token_offsets_batch([TEXT, "x"])


def _altered(tmp_path: Path, packaged: Path, **config) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("tokenizer.json", "vocab.txt", "special_tokens_map.json", "config.json"):
        shutil.copy(packaged / name, folder / name)
    cfg = json.loads((packaged / "tokenizer_config.json").read_text(encoding="utf-8"))
    cfg.update(config)
    cfg = {k: v for k, v in cfg.items() if v != "<drop>"}
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return folder


@pytest.mark.parametrize("config", [
    {"do_lower_case": False}, {"strip_accents": True}, {"tokenize_chinese_chars": False},
    {"added_tokens_decoder": {"30522": {"content": "<note>", "lstrip": False, "rstrip": False, "normalized": False,
                                        "single_word": False, "special": True}}},
    {"tokenizer_class": "<drop>"}, {"tokenizer_class": "PreTrainedTokenizerFast", "do_lower_case": False},
    {"additional_special_tokens": ["<extra>"]},
])
def test_where_transformers_alters_the_file_it_is_not_used_alone(tmp_path, packaged_model_dir, config):
    folder = _altered(tmp_path, packaged_model_dir, **config)
    direct = chunker_from_files(folder, 256)
    built = transformers_chunker(folder, 256)
    # Used alone only where it is transformers' tokenizer; otherwise the caller loads the model.
    assert direct is None or (same_chunking(direct, built) and direct.token_offsets(TEXT) == built.token_offsets(TEXT))
    if not same_chunking(chunker_from_files(packaged_model_dir, 256), built):
        assert direct is None


def test_sync_encoder_cuts_the_passages_the_bi_encoder_cuts_without_loading_it(make_config, tiny_bi_encoder_dir,
                                                                               tiny_encoder):
    config = make_config(models={"bi_encoder": str(tiny_bi_encoder_dir), "reranker": ""},
                         chunking={"max_tokens": 48, "title_context": True})
    models = ModelSet(config)
    sync_encoder = models.passage_encoder()
    doc = Document(text=TEXT, title="Ünïcödé notes — 東京")
    direct = passages_of(doc, sync_encoder, config, _NoBatch())
    assert models.loaded_encoder is None  # chunked with the tokenizer alone
    loaded = passages_of(doc, tiny_encoder, config, _NoBatch())
    assert direct[0] == loaded[0] and direct[2] == loaded[2]
    assert [(c.start, c.end, c.text) for c in direct[1]] == [(c.start, c.end, c.text) for c in loaded[1]]
    assert len(direct[1]) > 5
    assert sync_encoder.chunking_spec()[1:] == tiny_encoder.chunking_spec()[1:]


def test_a_search_asks_the_models_vocabulary_without_loading_the_model(make_config, tiny_bi_encoder_dir, tmp_path):
    """A word the vocabulary holds whole is no typo (search/typos.py, decision 0194), asked in a lexical search too,
    which never loads torch; a model folder that is not there knows no word, and the search goes on."""
    models = ModelSet(make_config(models={"bi_encoder": str(tiny_bi_encoder_dir), "reranker": ""}))
    assert [models.knows_word(w) for w in ("brake", "Brake", "recieve", "warranty")] == [True, True, False, False]
    assert models.loaded_encoder is None
    gone = ModelSet(make_config(models={"bi_encoder": str(tmp_path / "no-model"), "reranker": ""}))
    assert gone.knows_word("brake") is False and gone.loaded_encoder is None


def test_a_loaded_model_that_chunks_otherwise_is_warned_of_and_chunks_from_then_on(
        tmp_path, make_config, packaged_model_dir, tiny_encoder, caplog):
    models = ModelSet(make_config(models={"reranker": ""}), encoder=tiny_encoder)
    # as if this process had chunked with a tokenizer.json that is not what transformers built for the model
    cased = transformers_chunker(_altered(tmp_path, packaged_model_dir, do_lower_case=False), tiny_encoder.max_seq_length)
    models._chunker = cased
    with caplog.at_level(logging.WARNING, logger="searchapp.library.resources.model_set"):
        models._check_chunker(tiny_encoder)
    assert "another tokenizer" in caplog.text and models._chunker is False
    assert models.chunker() is tiny_encoder
