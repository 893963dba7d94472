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

from searchapp.library.search.exact_phrase import PHRASE_WORDS, dates_of, holding_codes, phrase_of

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
        # not said word for word (a word left out): no lift, meaning decides
        rows = _rows(lib, "the boiler pressure drops every night")
        assert rows[0][0] == "heating-forum.txt" and not any(r[3] for r in rows), rows
        # a short query held whole by one file is evidence too (decision 0194): it was meaning's, the forum's, before
        rows = _rows(lib, "pressure drops below one")
        assert rows[0][0] == "house-log.txt" and rows[0][3] and not any(r[3] for r in rows[1:]), rows


def test_what_counts_as_a_phrase():
    assert PHRASE_WORDS == 5
    # two to four words are a phrase when two of them are no stop word (decision 0194)
    assert phrase_of("pressure drops below one") == '"pressure drops below one"'
    assert phrase_of("security deposit") == '"security deposit"'
    assert [phrase_of(q) for q in ("the boiler", "boiler", "of the and")] == [None, None, None]
    assert phrase_of('Boiler "pressure" drops, below one!') == '"Boiler pressure drops below one"'  # no syntax leaks
    assert phrase_of("暖房の 圧力が 毎晩 下がる 原因") is None  # CJK: the character table reads it
    assert dates_of("visit on 18 September 2025, then Sept. 24, 1973 or October 2025 and the 7th of May") == [
        "18 September 2025", "Sept. 24, 1973", "October 2025", "7th of May"]
    assert dates_of("you may go in 2025 at 18:30, 12 grams") == []


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


# A newcomer's files (decision 0194): each query's file held its words as typed, and came 2nd to 8th under texts
# nearer in meaning, full of other dates and numbers.
DATED = {
    "claim-letter.txt": ("Northfield Mutual Insurance. Dear Mr Fairweather, thank you for your claim dated 2 September "
                         "2025 concerning water damage in your kitchen. Our loss adjuster will visit on Thursday 18 "
                         "September\n2025 between 9am and noon. Please keep receipts for any emergency plumbing work."),
    "transcript.txt": "Transcript\n\nFebruary 20, 2025, 8:32PM\n\nThis is test 1   0:08\nCorrect, he is not.",
    "energy-report.txt": ("Chapter 5. Heat pumps move heat from outside air into the home using a refrigerant cycle. "
                          "In our measurements the coefficient of performance dropped to 1.8 when the outdoor "
                          "temperature fell below minus seven degrees, and the defrost cycle ran every forty minutes."),
    "chart.txt": "Category 1 | 4.3 | 2.4 | 2 Category 2 | 2.5 | 4.4 | 2 Category 3 | 3.5 | 1.8 | 3 Category 4 | 4.5",
    "ratios.txt": "Tier 1 Ratio (%) Total Assets 0.0 0.3 0.6 0.9 1.2 1.5 1.8 2.1 performance of the banks",
    "doses.txt": "Not more than 1.8 grams of codeine per 100 milliliters, or 1.8 grams of dihydrocodeine.",
    "scores.txt": "HTML 0.952 0.909 0.938 1.8 OTSL 0.923 0.897 performance 1.91 and 0.945 0.901",
    "lease.txt": ("2. Rent and deposit. " + "The parties agree that the terms set out in this section apply for "
                  "the full duration of the contract. Any change must be made in writing. " * 3 + "The monthly rent "
                  "is GBP 1,245.00. The tenant shall pay a security deposit equal to six weeks' rent, which the "
                  "landlord will protect in a government-approved scheme within thirty days."),
    "tax-guide.txt": ("When To Deposit. There are two deposit schedules, monthly and semiweekly, for determining "
                      "when you deposit social security, Medicare, and withheld income taxes. Deposit rules and "
                      "deposit schedules for employers: make deposits on time to avoid failure-to-deposit penalties. "
                      "Your deposit schedule is not determined by how often you pay your employees or make deposits."),
    # dated texts holding "18", "September" and "2025" apart, as a year of notes does: none of these words is rare
    "diary.txt": "Diary, September 2024. On the 18th the school term started; plans for 2025 made on 3 October.",
    "calendar.txt": "Calendar 2025: dentist 18 March, MOT 2 June, boiler service in September.",
    "school.txt": "School letter, 4 September 2025: term dates for 2025 and 2026; the trip on 18 May.",
    "running.txt": "Running log 2025: 18 km on 7 September, 21 km on 14 September, 10 km on 18 October.",
}


@pytest.mark.engines("sqlite")  # what is lifted is read from the candidates' texts, the same on both engines
def test_a_short_query_a_date_or_an_amount_with_its_words_finds_the_file_holding_them(tmp_path, packaged_encoder):
    # "1.8" is in four more texts than the report's: those of them holding the query's other words too are one
    texts = {1: "the coefficient of performance dropped to 1.8", 2: "1.8 | 3.5", 3: "1.8 performance", 4: "1.8 g",
             5: "table 1.8 coefficient"}
    assert holding_codes("coefficient of performance 1.8", texts) == {1}
    with library_on("", tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", DATED))
        for query, meant in (("18 September 2025", "claim-letter.txt"), ("security deposit", "lease.txt"),
                             ("coefficient of performance 1.8", "energy-report.txt"),
                             ("visit 18 September 2025 kitchen", "claim-letter.txt")):
            rows = _rows(lib, query)
            assert rows[0][0] == meant and rows[0][3], (query, rows)
            assert not any(r[3] for r in rows[1:]), (query, rows)
