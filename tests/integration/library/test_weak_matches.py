"""A row that shares no word with the query and is far from it in meaning is marked weak, and a search whose rows
all are says that nothing is close (search/weak.py, decision 0161): "vitamin type:pdf" over PDFs that never mention
vitamins listed a file at match 0.14 and said nothing (a newcomer)."""

from __future__ import annotations

import pytest

from corpus import write_texts

from searchapp.base.types import Hit, StageScores
from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.library.search.result import COMMON, WEAK
from searchapp.library.search.weak import (UNREAD_COSINE, WEAK_COSINE, WEAK_NOTICE, is_weak, mark_weak,
                                          unread_notice, unread_words)

TEXTS = {
    "volcano.txt": "Lava from the volcano flowed down the slope and buried the village road in basalt.",
    "jazz.txt": "The saxophone player improvised over the chord changes while the drummer kept time on the ride.",
    "pump.txt": "The heat pump in the garage needs its filter changed every spring; the installer gave a warranty.",
}


def _hit(text: str = "The heat pump needs a new filter", **scores) -> Hit:
    return Hit(chunk_id=1, path="/d/a.txt", page=None, start=0, end=len(text), text=text, scores=StageScores(**scores))


def test_the_rule():
    low = WEAK_COSINE - 0.05
    assert is_weak(_hit(dense=low, lexical=None)) and is_weak(_hit(dense=low, lexical=0.0))
    assert not is_weak(_hit(dense=low, lexical=1.2))  # a shared word is a reason
    assert not is_weak(_hit(dense=WEAK_COSINE + 0.01))  # near enough in meaning
    # but not a passage of too few words for its meaning to count (decision 0170): "Body" at 0.31 for "my CV"
    assert is_weak(_hit("Body", dense=0.31)) and not is_weak(_hit("Body", dense=0.31, lexical=2.0))
    assert not is_weak(_hit(lexical=3.0))  # lexical mode, or a file with no vector yet: no cosine to judge by
    assert not is_weak(_hit(dense=low, rerank=0.9)) and is_weak(_hit(dense=low, rerank=0.1))  # the reranker's say
    named = _hit(dense=low)
    named.named = True
    assert not is_weak(named)
    # a query the model reads only in pieces (decision 0200): a cosine under UNREAD_COSINE is no answer either
    assert is_weak(_hit(dense=UNREAD_COSINE - 0.05), UNREAD_COSINE) and not is_weak(_hit(dense=UNREAD_COSINE + 0.01),
                                                                                    UNREAD_COSINE)
    known = {"invoice", "due"}.__contains__
    assert unread_words("zzzqqq qqxx", known) == ["zzzqqq", "qqxx"]
    assert unread_words("zzzqqq invoice", known) == [] and unread_words("zzzqqq", None) == []
    rows = [_hit(dense=0.33), _hit(dense=0.30)]  # the newcomer's "zzzqqq": 0.29-0.37 to everything
    assert mark_weak(rows, ["zzzqqq"]) == unread_notice(["zzzqqq"]) and all(h.weak for h in rows)
    assert mark_weak(rows, []) is None and not any(h.weak for h in rows)  # a query the model reads: near enough


def test_a_made_up_word_is_said_to_be_held_by_no_passage(lib, capsys):
    """`search zzzqqq` listed "Haystack Needle Haystack" at match 0.28 and said nothing (a newcomer): a word the
    model reads in pieces sits at cosine ~0.3 to everything."""
    res = lib.search("zzzqqq", mode="hybrid")
    assert res.hits and all(h.weak for h in res.hits), [(h.path, h.scores.dense) for h in res.hits]
    assert res.said(WEAK) == unread_notice(["zzzqqq"]) and "no passage holds “zzzqqq”" in res.said(WEAK)
    answered = lib.search("volcano zzzqqq", mode="hybrid")  # a word some passage holds: the usual rule
    assert answered.said(WEAK) is None and not answered.hits[0].weak


@pytest.fixture(scope="module")
def lib(tmp_path_factory, packaged_encoder):
    """One library for the module (its tests only search it): MiniLM embedding it is most of the module's time."""
    from searchapp.base.config import load_config

    root = tmp_path_factory.mktemp("weak")
    docs = write_texts(root / "docs", TEXTS)
    with Library(load_config(root / "library", env={}, overrides={"models": {"reranker": ""}}),
                 encoder=packaged_encoder) as library:
        library.add_folder(docs)
        yield library


def test_a_query_nothing_is_close_to_is_said_and_each_row_marked(lib, capsys):
    res = lib.search("vitamin deficiency in premature infants", mode="hybrid")
    assert res.hits and all(h.weak for h in res.hits), [(h.path, h.scores.dense) for h in res.hits]
    assert res.said(WEAK) == WEAK_NOTICE and res.to_json()["weak_notice"] == WEAK_NOTICE
    assert all(h["weak"] for h in res.to_json()["hits"])
    capsys.readouterr()
    data = str(lib.config.data_dir)
    assert main(["--data-dir", data, "search", "vitamin deficiency in premature infants", "--mode", "hybrid"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].endswith("  [weak match]") and "nothing close" in err


def test_a_query_something_answers_has_no_weak_top_row_and_says_nothing(lib):
    res = lib.search("lava flowing from a volcano", mode="hybrid")
    assert res.hits[0].path.endswith("volcano.txt") and not res.hits[0].weak
    assert res.said(WEAK) is None
    res = lib.search("volcano", mode="lexical")  # words alone: every row shares a word
    assert res.hits and not any(h.weak for h in res.hits)


# Where the words were never asked (dense mode; a hybrid query of only common words, ranked by meaning alone) a
# missing BM25 says nothing about shared words: a row holding the very word typed was marked [weak match] and the
# search said "no passage shares a word with the query" (a reviewer).
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


def test_a_saved_search_counts_and_marks_no_weak_match(lib):
    """`saved list` said "(10 files)" whatever the folder held, its weak rows counted (a newcomer)."""
    from searchapp.library.query.saved import SavedSearches

    saved = SavedSearches(lib)
    res = saved.add("lava", "lava flowing from a volcano", mode="hybrid")
    assert any(h.weak for h in res.hits) and not any(h.new for h in res.hits if h.weak)
    row = next(s for s in saved.refresh() if s.name == "lava")
    assert row.hits == sum(not h.weak for h in res.hits) == 1


def test_saved_add_says_the_count_saved_list_says(lib, capsys):
    """`saved add` said "10 files now" (every row, weak ones too) and `saved list` "(4 files)" (a newcomer)."""
    data = str(lib.config.data_dir)
    capsys.readouterr()
    assert main(["--data-dir", data, "saved", "add", "flows", "lava flowing from a volcano", "--mode", "hybrid"]) == 0
    added = capsys.readouterr().out
    assert main(["--data-dir", data, "saved", "list"]) == 0
    listed = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("flows\t"))
    assert "saved flows: 1 file now" in added and "(1 file)" in listed, (added, listed)
