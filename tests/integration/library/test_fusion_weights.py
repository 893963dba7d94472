"""search.dense_weight reaches hybrid search the right way round, in either fusion (search.fusion): all of the
weight on the dense side gives the dense side's order, none of it the lexical side's (fusion.py, pipeline._fuse)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

TEXTS = {
    "bread.txt": "Sourdough bread rises slowly; the starter feeds on flour and water overnight.",
    "volcano.txt": "The volcano erupted and molten rock flowed down to the sea at night.",
    "tea.txt": "Green tea leaves are steeped in water at seventy degrees for a minute.",
    "river.txt": "The river floods the valley each spring when the snow on the mountains melts.",
    "garden.txt": "Tomatoes in the garden want water every evening and sun all day.",
    "harbour.txt": "Boats in the harbour wait for the tide; the water rises twice a day.",
}
# The test needs a query on which the two sides disagree; the tiny encoder's meaning is random weights, so which
# query does depends on them: the first of these that does is used. Each has words of one file alone, so the
# lexical side has one clear first file (a tie there could come in either order).
QUERIES = ("snow melts in spring", "molten rock erupted", "boats wait for the tide", "sourdough starter",
           "green tea leaves steeped", "tomatoes want sun")


@pytest.fixture
def lib(tmp_path, tiny_library):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in TEXTS.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    return tiny_library


@pytest.mark.parametrize("fusion", ["convex", "rrf"])
def test_the_dense_weight_decides_which_side_orders_a_hybrid_search(lib, fusion):
    def names(query: str, mode: str, weight: float = 0.5) -> list[str]:
        lib.config = replace(saved, search=replace(saved.search, fusion=fusion, dense_weight=weight))
        return [Path(h.path).name for h in lib.search(query, mode=mode, k=len(TEXTS)).hits]

    saved = lib.config
    try:
        sides = [(q, names(q, "dense"), names(q, "lexical")) for q in QUERIES]
        # The two sides disagree on the first file (the tiny encoder's meaning is not the words'), or the test
        # could not tell which side ordered the hybrid list.
        query, dense, lexical = next(((q, d, w) for q, d, w in sides if d[0] != w[0]), sides[0])
        assert dense[0] != lexical[0], sides
        assert names(query, "hybrid", 1.0) == dense
        assert names(query, "hybrid", 0.0)[0] == lexical[0]  # (below it, equal BM25 may come in either order)
    finally:
        lib.config = saved
