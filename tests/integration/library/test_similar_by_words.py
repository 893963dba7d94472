"""Similar files while meaning fills (issue 41 item 4, decision 0159): the files without a vector are found by the
source's distinctive words after the meaning rows, marked "by words" and scored by words, never by a cosine; with
meaning complete nothing changes. Each test runs on the desktop library and on a shared one (tiny_library)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from notes_folder import cli
from searchapp.library.search.similar_hit import NOT_READY_HERE
from searchapp.library.search.similar_words import distinctive_words

PUMP = {
    "pump1.txt": "The heat pump in the garage needs a new filter every spring. Call the installer about the "
                 "warranty before the filter runs out.",
    "pump2.txt": "Heat pump warranty: the installer replaced the filter and checked the refrigerant.",
    "pump3.txt": "Cleaning the heat pump filter monthly keeps its warranty valid, says the installer.",
}
OTHER = {
    "bread.txt": "Sourdough bread baked in spring: feed the starter, shape the loaf, bake it in a hot oven.",
    "shed.txt": "The garden shed roof leaks near the gutter; buy roofing felt and nails.",
}


def notes(folder: Path, texts: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for name, text in texts.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    return folder


def names(hits) -> list[str]:
    return [os.path.basename(h.path) for h in hits]


def test_a_words_only_library_finds_the_notes_on_the_same_topic_by_words(tiny_library, tmp_path):
    tiny_library.add_folder(notes(tmp_path / "docs", {**PUMP, **OTHER}), embed=False)
    res = tiny_library.similar(str(tmp_path / "docs" / "pump1.txt"), k=10)
    assert res.meaning_percent == 0
    found = names(res.hits)
    assert sorted(found[:2]) == ["pump2.txt", "pump3.txt"], found  # the same topic first
    assert "pump1.txt" not in found and "shed.txt" not in found  # never the source; the shed shares no word
    assert found[2:] in ([], ["bread.txt"])  # "spring" alone: after the heat pump notes, if at all
    for rank, h in enumerate(res.hits, start=1):
        assert h.by == "words" and h.why == NOT_READY_HERE and h.ranks.final == rank
        assert h.scores.dense is None and h.shown_score[1] == "words"  # no cosine, a words score labelled so
        assert {"heat", "pump", "filter"} <= set(h.words) or h.path.endswith("bread.txt"), h.words
    shares = [h.scores.words for h in res.hits]  # the weighted share of pump1's distinctive words each holds
    assert 0.5 < shares[0] < 1.0 and shares == sorted(shares, reverse=True) and shares[-1] > 0.0
    row = res.to_json()["hits"][0]
    assert row["by"] == "words" and row["similarity"] is None and row["source"] is None
    assert row["score_label"] == "words" and row["score"] == shares[0] and row["why"] == NOT_READY_HERE


def test_its_distinctive_words_are_weighed_against_the_library(tiny_library, tmp_path):
    tiny_library.add_folder(notes(tmp_path / "docs", {**PUMP, **OTHER}), embed=False)
    store = tiny_library.reader() if hasattr(tiny_library, "reader") else tiny_library._as_store
    query = distinctive_words(store, [PUMP["pump1.txt"]])
    assert query.words[0] == "filter"  # said twice, and the other heat pump notes say it
    assert {"heat", "pump", "installer", "warranty", "spring"} <= set(query.words)
    assert "garage" not in query.words and "the" not in query.words  # no other note says it; a stop word
    assert query.weights == sorted(query.weights, reverse=True)
    # "spring" (2 of 5 notes) weighs more than "heat" (3 of 5): the rarer, the more it says
    assert query.weights[query.words.index("spring")] > query.weights[query.words.index("heat")]


def test_the_files_waiting_for_meaning_follow_the_meaning_rows(tiny_library, tmp_path):
    tiny_library.add_folder(notes(tmp_path / "done", {"pump1.txt": PUMP["pump1.txt"], **OTHER}))
    tiny_library.add_folder(notes(tmp_path / "new", {n: PUMP[n] for n in ("pump2.txt", "pump3.txt")}), embed=False)
    res = tiny_library.similar(str(tmp_path / "done" / "pump1.txt"), k=10)
    by = [h.by for h in res.hits]
    assert by == ["meaning", "meaning", "words", "words"], [(h.path, h.by) for h in res.hits]
    assert sorted(names(res.hits[:2])) == ["bread.txt", "shed.txt"]  # the files with meaning: by meaning
    assert sorted(names(res.hits[2:])) == ["pump2.txt", "pump3.txt"]  # the others: by words, each once
    assert [h.ranks.final for h in res.hits] == [1, 2, 3, 4]
    assert all(h.scores.dense is not None for h in res.hits[:2])
    assert all(h.scores.dense is None and h.why == NOT_READY_HERE for h in res.hits[2:])


def test_with_meaning_complete_nothing_is_found_by_words(tiny_library, tmp_path):
    tiny_library.add_folder(notes(tmp_path / "docs", {**PUMP, **OTHER}))
    res = tiny_library.similar(str(tmp_path / "docs" / "pump1.txt"), k=10)
    assert res.meaning_percent is None
    assert len(res.hits) == 4 and all(h.by == "meaning" and h.scores.dense is not None for h in res.hits)
    assert "words" not in res.timings_ms  # the words side did not run: the answer is the one before it existed


def test_the_command_line_marks_a_row_found_by_words(tiny_cli, tmp_path, capsys):
    docs = notes(tmp_path / "docs", {**PUMP, **OTHER})
    data = str(tmp_path / "library")
    code, _, err = cli(capsys, "--data-dir", data, "index", "--words-only", str(docs))
    assert code == 0, err
    code, out, err = cli(capsys, "--data-dir", data, "similar", str(docs / "pump1.txt"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(" 1. ") and lines[0].endswith(("pump2.txt", "pump3.txt")), out
    assert re.fullmatch(r"    words 0\.\d\d \(by words: meaning not ready for this file\) \| shares: .*heat.*", lines[1]), out
    assert "similarity" not in out and "no similar files" not in out
    code, out, err = cli(capsys, "--data-dir", data, "similar", str(docs / "pump1.txt"), "--json")
    assert code == 0, err
    rows = json.loads(out)["hits"]
    assert rows and all(r["by"] == "words" and r["similarity"] is None for r in rows)
    code, out, err = cli(capsys, "--data-dir", data, "similar", str(docs / "shed.txt"))
    assert code == 0, err  # neither side finds one: the note that says why stays
    assert out.startswith("no similar files yet: no other file shares this one's distinctive words"), out
