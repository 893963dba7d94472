"""Scores that mean the same while meaning fills (issue 41, item 5; decision 0109).

The rule: a hybrid row is labelled "match" (w x cosine + (1 - w) x BM25 share) only when its file has a vector;
until then it is labelled "words" and shows the BM25 share alone. So, as the meaning pass fills a library:
a "words" score never changes; a row turns from "words" to "match" once and never back; a "match" score only
rises (more of its file embedded). The library is embedded by steps (0 %, some, all) and every file's shown
score for one query is compared from step to step."""

from __future__ import annotations

import itertools
import os

import pytest

from searchapp.library import Library
from searchapp.library.sync.meaning_pass import embed_pending

WORDS = "amber basil cedar dune ember fjord garnet heron iris jasper kelp lotus".split()


def make_folder(root):
    """12 files; f00 (the oldest, so embedded last) holds the query's rare word, every file 'weather'."""
    d = root / "docs"
    d.mkdir()
    for i in range(12):
        p = d / f"f{i:02d}.txt"
        extra = " A second note on amber0 weather. " * 30 if i == 0 else ""  # two passages: its best can change
        p.write_text(f"Notes on {WORDS[i]}{i} and the weather of day {i}.{extra}", encoding="utf-8")
        os.utime(p, ns=(1_700_000_000_000_000_000 + i * 60 * 10**9,) * 2)
    return d


def shown(lib) -> dict[str, tuple[str, float]]:
    hits = lib.search("amber0 weather", mode="hybrid", k=12, rerank=False).to_json()["hits"]
    assert len(hits) == 12
    return {os.path.basename(h["path"]): (h["score_label"], h["score"]) for h in hits}


@pytest.mark.parametrize("budget", [0, 2])
def test_a_files_shown_score_keeps_its_meaning_as_meaning_fills(make_config, tiny_encoder, tmp_path, budget):
    cfg = make_config(models={"reranker": ""}, chunking={"max_tokens": 64, "overlap": 0.0},
                      search={"embed_on_search": budget})
    with Library(cfg, encoder=tiny_encoder) as lib:
        lib.add_folder(make_folder(tmp_path), embed=False)
        total = lib.store.pending_count()
        steps = [shown(lib)]
        for limit in (1, 4, total):  # a little meaning, more, all of it (newest-modified files first)
            with lib._writing("indexing", check_model=False):
                embed_pending(lib.store, tiny_encoder, lib.vectors, batch=2, limit=limit)
            steps.append(shown(lib))
        assert lib.store.pending_count() == 0
    first, last = steps[0], steps[-1]
    assert first["f00.txt"] == ("match" if budget else "words", pytest.approx(first["f00.txt"][1]))
    if not budget:
        assert first["f00.txt"][1] == pytest.approx(1.0)  # the query's best word match, by words alone
        assert all(label == "words" for label, _ in first.values())  # no vector anywhere: no match score
    assert all(label == "match" for label, _ in last.values())
    for name in first:
        for before, after in itertools.pairwise(steps):
            (lb, vb), (la, va) = before[name], after[name]
            if lb == "words":  # a words score stays what it was until the file has a vector
                assert la == "match" or va == pytest.approx(vb, abs=1e-6), (name, before[name], after[name])
            else:  # never back to words; a match only rises as more of its file is embedded
                assert la == "match" and va >= vb - 1e-4, (name, before[name], after[name])
