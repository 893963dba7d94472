"""A row is weak only when it shares no word with the query (decision 0161). Where the words were never asked
(dense mode; a hybrid query of only common words, ranked by meaning alone) a missing BM25 says nothing about
shared words: a row holding the very word typed was marked [weak match] and the search said "no passage shares a
word with the query"."""

from __future__ import annotations

import pytest

from searchapp.library import Library
from searchapp.library.search.result import COMMON, WEAK

TEXTS = {
    "volcano.txt": "Lava from the volcano flowed down the slope and buried the village road in basalt.",
    "jazz.txt": "The saxophone player improvised over the chord changes while the drummer kept time on the ride.",
    "pump.txt": "The heat pump in the garage needs its filter changed every spring; the installer gave a warranty.",
}


@pytest.fixture
def lib(tmp_path, packaged_encoder, make_config):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in TEXTS.items():
        (docs / name).write_text(text, encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=packaged_encoder) as library:
        library.add_folder(docs)
        yield library


def test_dense_mode_does_not_call_a_row_holding_the_word_weak(lib):
    # "time" is in jazz.txt; all-MiniLM-L6-v2 puts that passage at cosine ~0.17 to the single word
    res = lib.search("time", mode="dense")
    jazz = next(h for h in res.hits if h.path.endswith("jazz.txt"))
    assert not jazz.weak, jazz.scores
    assert res.said(WEAK) is None, res.said(WEAK)  # "no passage shares a word with the query": it does


def test_only_common_words_are_not_said_to_share_no_word(lib):
    res = lib.search("the and of", mode="hybrid")
    assert res.said(COMMON) is not None  # every passage holds them, as this note says
    assert res.said(WEAK) is None and not any(h.weak for h in res.hits), res.said(WEAK)
