"""A file holding the query's words in thousands of passages fills the words side's pool (search/crowded.py): a
newcomer's generated JSON of 60,000 `{"retry": ...}` items hid their note on retries from `search retry`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import write_texts


@pytest.fixture
def crowded(tiny_library, tmp_path, monkeypatch):
    from searchapp.library.search import grouping

    monkeypatch.setattr(grouping, "MAX_POOL", 32)  # the pool's cap, met by a few hundred passages, not 4,096
    docs = tmp_path / "docs"
    write_texts(docs / "notes", {"retries.md": "# Retries\nRetry with exponential backoff.\n",
                                 "other.md": "Nothing about that here, only gardening.",
                                 "retry-log.txt": "retry 1 failed; retry 2 failed; retry 3 worked."})
    items = [{"id": i, "retry": {"max_retries": 3, "note": f"item number {i} of the generated fixture"}}
             for i in range(1500)]
    (docs / "snapshot.json").write_text(json.dumps(items, indent=1), encoding="utf-8")
    tiny_library.add_folder(docs, embed=False)
    return tiny_library


@pytest.mark.parametrize("query", ["retry", "retry type:md,json", "retry -gardening"])
def test_a_file_filling_the_pool_leaves_room_for_the_others(crowded, query):
    from searchapp.library.search import grouping

    res = crowded.search(query, mode="lexical", k=10)
    names = [Path(h.path).name for h in res.hits]
    want = ["snapshot.json", "retries.md"] if "type:" in query else ["snapshot.json", "retry-log.txt", "retries.md"]
    assert names == want, names  # the others after it, as their BM25 says, inside the search's scope
    assert crowded.store.chunk_count() > grouping.MAX_POOL  # the JSON alone fills the pool
    hybrid = [Path(h.path).name for h in crowded.search(query, mode="hybrid", k=10).hits]
    assert "retries.md" in hybrid, hybrid
