"""The chunker's atoms: every sentence's word pieces counted in one call (_Tokens.counts) give the very atoms
that counting sentence by sentence gave, and one scan finds the gaps that three scans found, on random texts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchapp.ingest import chunking as ch

_PIECE = 3  # a stand-in tokenizer: each run of non-spaces in pieces of 3 characters


def _offsets(text: str) -> list[tuple[int, int]]:
    return [(a, min(a + _PIECE, m.end())) for m in re.finditer(r"\S+", text) for a in range(m.start(), m.end(), _PIECE)]


def _atoms_one_by_one(text: str, lo: int, hi: int, tokens: ch._Tokens, max_tokens: int) -> ch._Atoms:
    """The atoms as they were found before: each sentence counted by two bisections as it is met."""
    atoms = ch._Atoms()
    lead = ch._GAP.match(text, lo, hi)
    pos = lead.end() if lead else lo
    for a, b in ch._sentence_gaps(text, lo, hi):
        if a <= pos:
            continue
        strength = ch._strength(text, a, b)
        if strength >= ch.LINE:
            ch._sentence(atoms, text, tokens, pos, a, tokens.count(pos, a), strength, max_tokens, None)
            pos = b
    end = hi
    while end > pos and text[end - 1].isspace():
        end -= 1
    if end > pos:
        ch._sentence(atoms, text, tokens, pos, end, tokens.count(pos, end), ch.PARAGRAPH, max_tokens, None)
    return atoms


_PARTS = ["word", "longerwordhere", "x" * 40, "end.", "Stop!", "(yes).", "天气。", "预报！", "é", " ", "  ", "\n", "\n\n",
          "\r\n", "\t", "\u3000", "\u2029", "\x0b", ". "]


def _parts(atoms: ch._Atoms) -> tuple[list[int], list[int], list[int], list[int]]:
    return list(atoms.start), list(atoms.end), list(atoms.n), list(atoms.strength)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PARTS), max_size=80).map("".join), st.integers(1, 30), st.data())
def test_atoms_counted_at_once_are_those_counted_one_by_one(text, max_tokens, data):
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    tokens = ch._Tokens(text, _offsets)
    assert _parts(ch._atoms(text, lo, hi, tokens, max_tokens)) == _parts(
        _atoms_one_by_one(text, lo, hi, tokens, max_tokens))
    spans = [(a, b) for a in range(0, len(text) + 1, 7) for b in range(a, len(text) + 1, 5)]
    assert tokens.counts([a for a, _ in spans], [b for _, b in spans]) == [tokens.count(a, b) for a, b in spans]


@pytest.mark.parametrize("mutation", ["one more piece", "no split"])
def test_a_wrong_count_is_caught(monkeypatch, mutation):
    """The comparison above can fail: a count one too high, or a sentence over the limit kept whole, differs."""
    text = "First sentence here. Second one is a little longer than that.\n\nA third paragraph with words. " * 3
    tokens = ch._Tokens(text, _offsets)
    want = _parts(_atoms_one_by_one(text, 0, len(text), tokens, 12))
    assert _parts(ch._atoms(text, 0, len(text), tokens, 12)) == want
    real = ch._Tokens.counts
    if mutation == "one more piece":
        monkeypatch.setattr(ch._Tokens, "counts", lambda self, a, b: [n + 1 for n in real(self, a, b)])
    else:
        monkeypatch.setattr(ch._Tokens, "counts", lambda self, a, b: [min(n, 12) for n in real(self, a, b)])
    assert _parts(ch._atoms(text, 0, len(text), tokens, 12)) != want


_OLD_LINE_GAP = re.compile("[" + ch._BREAK_CHARS + r"]\s*")
_OLD_AFTER_END = re.compile("[" + re.escape("".join(sorted(ch._SENTENCE_END | ch._CLOSERS))) + r"](\s+)")
_OLD_AFTER_CJK_END = re.compile(r"[。！？；](?!\s)")


def _gaps_by_three_scans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """The sentence gaps as they were found before: a scan for each kind, merged by position."""
    gaps: dict[int, int] = {}
    for m in _OLD_LINE_GAP.finditer(text, lo, hi):
        a = m.start()
        while a > lo and text[a - 1].isspace():
            a -= 1
        gaps[a] = m.end()
    for m in _OLD_AFTER_END.finditer(text, lo, hi):
        gaps[m.start(1)] = m.end(1)
    for m in _OLD_AFTER_CJK_END.finditer(text, lo, hi):
        gaps.setdefault(m.end(), m.end())
    return sorted(gaps.items())


_GAP_CHARS = list(ch._BREAK_CHARS + "".join(ch._SENTENCE_END | ch._CLOSERS) + "。！？；") + [
    " ", "\t", "\u3000", "\u00a0", "a", "Z", "天", "、", "\x00"]


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_GAP_CHARS), max_size=50).map("".join), st.data())
def test_one_scan_finds_the_gaps_three_scans_found(text, data):
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    assert ch._sentence_gaps(text, lo, hi) == _gaps_by_three_scans(text, lo, hi)
    assert ch._sentence_gaps(text, 0, len(text)) == _gaps_by_three_scans(text, 0, len(text))


@pytest.mark.parametrize("pattern", [
    "[\n](?:(?<=[\n])(\\s*)|(?<=[.])(\\s+)|(?<=[。])(?!\\s))",  # most break characters and ends left out
    ch._MAY_END.pattern.replace("(\\s+)", "(\\s)"),  # a gap after a sentence end cut to one character
])
def test_a_wrong_scan_is_caught(monkeypatch, pattern):
    """The comparison above can fail: a scan that misses characters, or cuts a run short, differs somewhere."""
    import random

    rng = random.Random(3)
    texts = ["".join(rng.choice(_GAP_CHARS) for _ in range(rng.randrange(50))) for _ in range(300)]
    assert all(ch._sentence_gaps(t, 0, len(t)) == _gaps_by_three_scans(t, 0, len(t)) for t in texts)
    monkeypatch.setattr(ch, "_MAY_END", re.compile(pattern))
    assert any(ch._sentence_gaps(t, 0, len(t)) != _gaps_by_three_scans(t, 0, len(t)) for t in texts)
