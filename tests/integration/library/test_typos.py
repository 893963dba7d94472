"""A word typed one letter off is searched as the word the library holds (search/typos.py, decision 0176): "recieve"
found nothing by words, and meaning read it as word pieces."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import write_texts
from searchapp.cli.main import main
from searchapp.library.search.result import DID_YOU_MEAN, TYPO


def _docs(tmp_path: Path) -> Path:
    return write_texts(tmp_path / "docs", {
        "parcel.txt": "Did you receive the package from the courier on Monday?",
        "alps.txt": "The heights of the mountains in the Alps, measured again.",
        "lamps.txt": "Turn off the lights at night. Lights out, lights off, every light.",
        "hotel.txt": "Accommodation for the conference is booked near the station.",
        "pakage-list.txt": "Things to bring: tent, stove, rope.",
        **{f"clinic{i:02d}.txt": f"Visit {i}: the treatment worked, said the nurse." for i in range(25)},
        "typo.txt": "A relatment of sorts, as one letter misspells it. PPARs regulate genes.",
        "focaccia.txt": "Bake the focaccia for 25 minutes, then bake the rolls.",
    })


def names(res) -> list[str]:
    return [Path(h.path).name for h in res.hits]


def typos(res) -> list[str]:
    return [n.text for n in res.notices if n.kind == TYPO]


def test_a_word_one_letter_off_is_searched_as_the_word_the_library_holds(tiny_library, tmp_path):
    tiny_library.add_folder(_docs(tmp_path), embed=False)
    res = tiny_library.search("recieve", mode="lexical")
    assert names(res) == ["parcel.txt"]
    assert typos(res) == ["searched “recieve” as “receive” (no passage holds it as typed; in quotes a word is "
                          "searched as typed)"]
    res = tiny_library.search("Accomodation booked", mode="hybrid")
    assert names(res)[:1] == ["hotel.txt"] and typos(res) == [
        "searched “Accomodation” as “Accommodation” (no passage holds it as typed; in quotes a word is searched as "
        "typed)"]
    # "lights" is held by more passages, "heights" keeps the word's first letter: people rarely mistype that one
    res = tiny_library.search("hights", mode="lexical")
    assert names(res) == ["alps.txt"], typos(res)
    # ... yet a word many passages hold wins over a rare one keeping the first letter (one file's misspelling):
    # 25 passages hold "treatment", one "relatment" (counted 20 times for its first letter)
    res = tiny_library.search("reatment", mode="lexical", k=30)
    assert len(names(res)) == 25 and all(n.startswith("clinic") for n in names(res)), typos(res)
    # A word the model's vocabulary holds whole is a word, not a typo (decision 0194): searched as typed, the word one
    # edit away offered. Searched as "bake", "brake pads" put a focaccia recipe first.
    res = tiny_library.search("brake pads", mode="lexical")
    assert names(res) == [] and typos(res) == [] and res.searched_as == {}
    assert res.did_you_mean == {"brake": "bake"} and res.to_json()["did_you_mean"] == {"brake": "bake"}
    assert [n.text for n in res.notices if n.kind == DID_YOU_MEAN] == [
        "no passage holds “brake”: searched as typed (did you mean “bake”?)"]


def test_a_plural_of_a_known_word_is_known():
    """WordPiece holds few plurals whole ("ditches" is "ditch ##es"): "water-filled ditches" was searched as
    "dutches", and a bread recipe's Dutch oven came first (tests/e2e/test_cli_e2e.py, with the packaged MiniLM)."""
    from searchapp.library.search.typos import is_known

    known = {"ditch", "brake", "city", "box"}.__contains__
    assert all(is_known(w, known) for w in ("ditches", "Brakes", "cities", "boxes"))
    assert not any(is_known(w, known) for w in ("dutches", "recieves", "ditchs s", "bss", "ss"))


def test_a_word_held_as_typed_quoted_or_naming_a_file_is_searched_as_typed(tiny_library, tmp_path):
    tiny_library.add_folder(_docs(tmp_path), embed=False)
    # held as typed; quoted; a prefix; excluded; a field's value; a file's name; 31 letters
    for query in ("lights", '"recieve"', "recieve*", "-recieve courier", "name:recieve", "pakage", "a" * 31):
        res = tiny_library.search(query, mode="lexical")
        assert typos(res) == [], (query, typos(res))
    assert names(tiny_library.search('"recieve"', mode="lexical")) == []
    # --literal searches every word as typed, as quotes do
    res = tiny_library.search("recieve", mode="lexical", literal=True)
    assert names(res) == [] and typos(res) == []
    assert names(tiny_library.search("pakage", mode="lexical")) == ["pakage-list.txt"]  # named.py lists it
    # in capitals or mixed case too, written as the words index reads it where the case is mixed
    assert typos(tiny_library.search("PPARy", mode="lexical")) == [
        "searched “PPARy” as “ppars” (no passage holds it as typed; in quotes a word is searched as typed)"]
    assert typos(tiny_library.search("RECIEVE", mode="lexical"))[0].startswith("searched “RECIEVE” as “RECEIVE”")
    # Many unknown words are another language, not typos: left as typed
    assert typos(tiny_library.search("toujours jamais quelque chose", mode="lexical")) == []


def test_a_corrected_or_alternative_finds_what_the_note_says_was_searched(tiny_library, tmp_path):
    """`recieve OR lights`: the note says "recieve" was searched as "receive", so the file holding "receive" is found
    as its alternative; the OR group kept the word as typed, and parcel.txt was missing while the note said otherwise."""
    tiny_library.add_folder(_docs(tmp_path), embed=False)
    res = tiny_library.search("recieve OR lights", mode="lexical")
    assert typos(res) == [] or "parcel.txt" in names(res), (names(res), typos(res))
    assert "parcel.txt" in names(tiny_library.search("receive OR lights", mode="lexical"))  # as spelt: found


@pytest.mark.engines("sqlite")  # the data dir's library: the command line's output is one for both engines
def test_the_snippet_shows_the_word_searched_in_place_of_the_typo(tiny_library, tmp_path, capsys):
    """`search recieve` found the passage by "receive": its snippet shows (and marks) that word, as it does for
    `search receive`, not the passage's first lines, which hold no word of the query."""
    filler = " ".join(f"Line {i} of the delivery notes talks about weather and roads." for i in range(8))
    write_texts(tmp_path / "docs", {"notes.txt": filler + " Sign the slip when you receive the parcel."})
    tiny_library.add_folder(tmp_path / "docs", embed=False)
    capsys.readouterr()
    shown = {}
    for query in ("receive", "recieve"):
        assert main(["--data-dir", str(tiny_library.config.data_dir), "search", query, "--mode", "lexical"]) == 0
        shown[query] = capsys.readouterr().out
    assert "when you receive the parcel" in shown["receive"], shown["receive"]  # as spelt: the sentence shown
    assert "when you receive the parcel" in shown["recieve"], shown["recieve"]
