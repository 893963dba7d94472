"""What a query's words can say (search/word_weight.py, decision 0169): "report on cycling maintenance" over a folder
of weekly reports and one note on a bike's repair. "report" is in most notes, so its BM25 is ~0 everywhere, yet
convex fusion divided it by the best and gave a weekly report a full words share (0.2 of the fused score): a
report sharing nothing of the query's meaning came first, the bike note (no query word, nearest in meaning) second.
On both engines, with the real packaged model."""

from __future__ import annotations

from pathlib import Path

from conftest import library_on
from corpus import write_texts

from searchapp.library.search.word_weight import reference_idf, words_weight
from searchapp.store.bm25_postings import bm25_idf as idf

OFFICE = ["printer toner ordered for the second floor", "the coffee machine was descaled",
          "new chairs arrived for the meeting room", "the server room air conditioning was serviced",
          "parking permits renewed for staff", "fire drill held on Tuesday", "the kitchen fridge was cleaned out",
          "visitor badges reprinted at reception", "lift inspection passed", "window cleaners booked for March",
          "carpet in the hallway replaced", "desk lamps replaced in accounts"]
NOTES = {f"report{i:02}.txt": f"Weekly report {i}: {t}." for i, t in enumerate(OFFICE)}
NOTES |= {"birds.txt": "Birdwatching log for the year: we spotted herons, kingfishers, owls and a pair of swans.",
          "garden.txt": "Garden plan: tomatoes along the fence, beans by the shed, herbs in pots near the door.",
          "bike.txt": "Bike repair: new brake pads, chain oiled and the rear tyre patched."}
QUERY = "report on cycling maintenance"




def test_a_word_most_notes_hold_gives_no_file_a_words_share(engine_address, tmp_path, packaged_encoder):
    with library_on(engine_address, tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", NOTES))
        # the only query word the notes hold is in 12 of 15: FTS5's IDF is 1e-6 (more than half hold it)
        assert words_weight(lib.store, QUERY) < 0.01
        hits = lib.search(QUERY, mode="hybrid", rerank=False).to_json()["hits"]
        rows = [(Path(h["path"]).name, round(h["scores"]["dense"], 3), h["scores"]["words"]) for h in hits]
        assert rows[0][0] == "bike.txt", rows  # the nearest in meaning (it was 2nd, under report08 at words 1.0)
        # the shown words share is the one fused: match = 0.8 × cosine + 0.2 × words
        assert all(abs(h["score"] - (0.8 * max(0.0, h["scores"]["dense"]) + 0.2 * h["scores"]["words"])) < 1e-6
                   for h in hits), hits
        # a word the library holds once still counts in full, as before
        assert words_weight(lib.store, "kingfishers by the river") == 1.0


def test_the_weight_reads_the_words_index(tmp_path, make_config, tiny_encoder):
    """On a small library with the tiny encoder: the weight follows the IDF of what the library holds."""
    from searchapp.library import Library

    notes = {f"n{i:02}.txt": f"Minutes {i} of the meeting." + (" Budget agreed." if i < 30 else "") for i in range(200)}
    notes["one.txt"] = "The orchard budget for pruning."
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", notes))
        n = len(notes)
        reference = reference_idf(n)
        assert reference == idf(n, 3)  # 1 % of 201 is 2: a few passages (3) at least
        assert words_weight(lib.store, "the minutes") == idf(n, 200) / reference < 0.01  # in all but one
        assert words_weight(lib.store, "budget") == idf(n, 31) / reference  # in 31 of 201: a part
        assert 0.3 < words_weight(lib.store, "budget") < 0.5
        assert words_weight(lib.store, "orchard budget") == 1.0  # one passage holds "orchard"
        assert words_weight(lib.store, "zebra budget") == words_weight(lib.store, "budget")  # none holds "zebra"
        assert words_weight(lib.store, "budg*", prefixes=["budg"]) == 1.0  # a prefix: not told, as before


def test_a_library_of_fewer_passages_than_the_reference_is_searched(tmp_path, make_config, tiny_encoder):
    """The reference term is held by at least 3 passages: in a library of 2, its IDF's log was of a negative number
    and every hybrid search raised (the window showed nothing: its search never finished)."""
    from searchapp.library import Library

    assert idf(2, 3) == 1e-6 and reference_idf(2) == 1e-6
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", {"a.txt": "Basalt is a volcanic rock.",
                                                       "b.txt": "Bread needs flour and time."}))
        assert words_weight(lib.store, "volcanic rock") == 1.0  # no word of two passages can be told common
        assert [Path(h.path).name for h in lib.search("volcanic rock", mode="hybrid").hits][:1] == ["a.txt"]
