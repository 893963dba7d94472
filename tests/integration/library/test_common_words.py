"""A hybrid search of only common words ("the of and"): the words index matches nearly every passage with a BM25
of ~1e-6, and the fusion, which scales BM25 by the best one, made that noise a words share of up to 1.0 on
arbitrary rows, with nothing said. The words side now ranks nothing for such a query, the rows are meaning's
order, and a note says why (as a Words search of them says it cannot rank)."""

from __future__ import annotations

import json

from conftest import build_tiny_library
from searchapp.base.config import load_config
from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.library.search.result import COMMON

TEXTS = {
    "volcano.txt": "The volcano erupted and the molten rock of the island flowed down to the sea.",
    "bread.md": "A recipe for the sourdough bread of the baker, with a long cold proof and a crust.",
    "heron.txt": "The heron waded through the reeds of the marsh and the shallow water at dawn.",
    "tax.txt": "Notes on the tax return of the year and the receipts kept for it.",
}


def test_a_hybrid_search_of_only_common_words_is_ranked_by_meaning_alone_and_says_so(tmp_path, tiny_bi_encoder_dir,
                                                                                      tiny_encoder, capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        hybrid = lib.search("the of and", mode="hybrid")
        dense = lib.search("the of and", mode="dense")
        assert hybrid.said(COMMON) == ("only common words (the, of, and): they are in nearly every passage and rank "
                                       "nothing, so these are ranked by meaning alone")
        assert all(h.scores.lexical is None and not h.scores.words for h in hybrid.hits)
        assert [h.path for h in hybrid.hits] == [h.path for h in dense.hits]
        # a word of its own keeps the words side: nothing said, BM25 ranks
        own = lib.search("the heron", mode="hybrid")
        assert own.said(COMMON) is None and any(h.scores.lexical for h in own.hits)
    capsys.readouterr()
    assert main(["--data-dir", str(data), "search", "the of and", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["words_notice"].startswith("only common words (the, of, and)")
    assert "searchapp: note: only common words (the, of, and)" in out.err


def test_a_words_search_of_only_common_words_names_the_mode_as_the_window_and_the_terminal_do(tmp_path,
                                                                                             tiny_bi_encoder_dir,
                                                                                             tiny_encoder):
    """The window's status line told a person to "use --mode hybrid" (a newcomer): the text names both."""
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        said = lib.search("the of and", mode="lexical").notice
    assert said.endswith("add a more specific word, or search by words and meaning (Words + meaning; --mode hybrid)")
