"""A long query said word for word (search/exact_phrase.py, decision 0169): a newcomer's scanned letter holding the
query's very sentence came 2nd (0.51) under a file that only paraphrased it (0.52). Here a house log holds "The
boiler pressure drops below one bar every night." among other news (its line broken as a scan's text is), and a
forum post says the same in other words: the bi-encoder puts the paraphrase far nearer. On both engines, with the
real packaged model."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import library_on
from corpus import write_texts

from searchapp.library.search.exact_phrase import PHRASE_WORDS, phrase_of

NOTES = {
    "house-log.txt": ("House log, winter. The chimney sweep came on the third of December and the gutters were "
                      "cleared. We bought new curtains for the living room and painted the hallway. The car passed "
                      "its inspection and got winter tyres. The boiler pressure drops below one\nbar every night. "
                      "The neighbours lent us a ladder for the attic, and the smoke alarms got new batteries."),
    "heating-forum.txt": ("Heating forum: each night our heating system loses pressure and the gauge on the boiler "
                          "falls under 1 bar by morning."),
    "boiler-manual.txt": "Boiler manual: keep the pressure between 1 and 1.5 bar; top up through the filling loop.",
    "bread.txt": "Bake the sourdough loaf in a hot oven every morning.",
    "bike.txt": "Bike repair: new brake pads, chain oiled and the rear tyre patched.",
}




def _rows(lib, query: str) -> list[tuple[str, float, float, bool]]:
    return [(Path(h["path"]).name, h["score"], h["scores"]["dense"], h["exact_phrase"])
            for h in lib.search(query, mode="hybrid", rerank=False).to_json()["hits"]]


def test_the_file_holding_the_querys_sentence_comes_first(engine_address, tmp_path, packaged_encoder):
    with library_on(engine_address, tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", NOTES))
        rows = _rows(lib, "the boiler pressure drops below one bar every night")
        cosine = {name: cos for name, _, cos, _ in rows}
        assert cosine["house-log.txt"] < cosine["heating-forum.txt"] - 0.3, rows  # the case: meaning prefers the other
        assert rows[0][0] == "house-log.txt" and rows[0][3], rows  # it was 3rd, under the forum post and the manual
        assert [r[3] for r in rows[1:]] == [False] * (len(rows) - 1), rows
        # its meaning counts as the nearest candidate's: 0.8 × the best cosine + 0.2 × its words share
        top = max(cosine.values())
        assert rows[0][1] == pytest.approx(0.8 * top + 0.2 * 1.0), rows
        # not said word for word (a word left out), or too short to be evidence: no lift, meaning decides
        for query in ("the boiler pressure drops every night", "pressure drops below one"):
            rows = _rows(lib, query)
            assert rows[0][0] == "heating-forum.txt" and not any(r[3] for r in rows), (query, rows)


def test_what_counts_as_a_phrase():
    assert PHRASE_WORDS == 5
    assert phrase_of("pressure drops below one") is None  # four words
    assert phrase_of('Boiler "pressure" drops, below one!') == '"Boiler pressure drops below one"'  # no syntax leaks
    assert phrase_of("暖房の 圧力が 毎晩 下がる 原因") is None  # CJK: the character table reads it


BILLS = {
    "electricity-bill.txt": ("Electricity bill for March. Meter reading 45213 kWh. Amount due: 812.60 EUR, to be "
                             "paid by direct debit on the 15th."),
    "dose-schedule.txt": ("Dose schedule: 60 mg at 08:00, 60 mg at 20:00. Batch 812, 812 tablets left, 60 days "
                          "of treatment, 0.60 ml syrup, 8.12 ml drops."),
    "inventory.txt": "Shelf 812: 0 | 60 | 0 | 0 | 812 | 0 | 60 | 0 | 0 | 812 | 0",
    "bread.txt": "Bake the sourdough loaf in a hot oven every morning.",
    "tax-letter.txt": "Tax office letter: your refund of 1,873.42 EUR will be paid into your account in May.",
    "scores.txt": "League table: 1873 points for the home side, 42 for the visitors, 873 in total last year.",
}


def test_an_amount_typed_whole_finds_the_file_holding_it_whole(engine_address, tmp_path, packaged_encoder):
    """A newcomer's "812.60": the bill holding it came 3rd, under files holding "812" and "60" apart (the words index
    reads the amount as two words). An amount or code typed whole and found whole lifts as a long phrase does."""
    from searchapp.library.search.exact_phrase import codes_of

    assert codes_of("(812.60) 1,873.42 bill 22/815/09431 TP1337 IL-6 20-40% 812.60") == [
        "812.60", "1,873.42", "22/815/09431"]  # one word ("TP1337"), a name ("IL-6") or a share ("20-40%") is none
    from searchapp.library.search.exact_phrase import holding_codes

    texts = {1: "Amount due: 812.60 EUR", 2: "rows 812 60 14 9", 3: "batch 1812.60", 4: "(812.60)"}
    assert holding_codes("bill 812.60", texts) == {1, 4}  # as typed: not columns side by side, not 1812.60
    # with its thousands grouped or not, either way (a newcomer's "1873.42" found no letter saying 1,873.42)
    assert holding_codes("1873.42", {1: "refund 1,873.42", 2: "21,873.42", 3: "1873 42"}) == {1}
    assert holding_codes("1,873.42", {1: "refund 1873.42", 2: "1,87342"}) == {1}
    with library_on(engine_address, tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", BILLS))
        for query, meant in (("812.60", "electricity-bill.txt"), ("electricity 812.60", "electricity-bill.txt"),
                             ("1873.42", "tax-letter.txt")):
            rows = _rows(lib, query)
            assert rows[0][0] == meant and rows[0][3], (query, rows)
            assert not any(r[3] for r in rows[1:]), (query, rows)  # its words apart are no lift
