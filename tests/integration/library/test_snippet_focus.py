"""The snippet of a passage found by meaning opens at its sentence nearest the query (search/snippet_focus.py,
decision 0169). "my pet is terminally ill" finds a letter by meaning alone (it holds no query word) whose news of
the cat comes in its fourth sentence: the snippet showed its first three (a postcard, the weather, a school)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import write_texts

from searchapp.base.config import load_config
from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.library.search.snippet import best_snippet
from searchapp.library.search.snippet_focus import FOCUS_BUDGET, meaning_focus

LETTER = ("Dear Anna, thank you for the lovely postcard from Lisbon. The weather here has been grey all week and the "
          "garden is soaked. Tom started at his new school on Monday and already has two friends. The vet says the "
          "cat's kidneys are failing and she may only have a few weeks left. We are thinking of visiting you in the "
          "spring if the trains are running. Love, Marta.")
NOTES = {"letter.txt": LETTER,
         "bike.txt": "Bike repair: new brake pads, chain oiled and the rear tyre patched.",
         "garden.txt": "Garden plan: tomatoes along the fence, beans by the shed, herbs in pots near the door."}
QUERY = "my pet is terminally ill"


@pytest.fixture(scope="module")
def lib(tmp_path_factory, packaged_encoder):
    root = tmp_path_factory.mktemp("focus")
    with Library(load_config(root / "library", env={}, overrides={"models": {"reranker": ""}}),
                 encoder=packaged_encoder) as library:
        library.add_folder(write_texts(root / "notes", NOTES))
        yield library


@pytest.mark.parametrize("mode", ["hybrid", "dense"])
def test_a_passage_meaning_found_shows_the_sentence_that_says_so(lib, mode):
    res = lib.search(QUERY, mode=mode, rerank=False)
    top = res.hits[0]
    assert Path(top.path).name == "letter.txt"
    vet = LETTER.index("The vet says")
    assert top.focus == (vet, LETTER.index(" We are thinking")), top.focus
    assert "The vet says the cat's kidneys are failing" in best_snippet(top.text, QUERY, 240, top.focus).text
    # before: the first sentences, widened to the width, ended before it
    assert "vet" not in best_snippet(top.text, QUERY, 240).text
    assert res.to_json()["hits"][0]["focus"] == [vet, LETTER.index(" We are thinking")]
    assert all(h.focus is None for h in res.hits[1:])  # short notes: shown whole, nothing to choose


def test_the_command_line_shows_it(lib, capsys):
    capsys.readouterr()
    assert main(["--data-dir", str(lib.config.data_dir), "search", QUERY, "--no-rerank", "--direct"]) == 0
    assert "The vet says" in capsys.readouterr().out
    assert main(["--data-dir", str(lib.config.data_dir), "search", QUERY, "--no-rerank", "--direct", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["focus"] is not None


def test_words_still_choose_and_the_budget_holds(lib):
    res = lib.search("the cat's kidneys", mode="hybrid", rerank=False)  # a query word in it: the words choose
    assert Path(res.hits[0].path).name == "letter.txt" and res.hits[0].focus is None
    asked: list[str] = []
    hits = lib.search(QUERY, mode="dense", rerank=False).hits
    for h in hits:
        h.focus = None

    def encode(text):
        asked.append(text)
        return lib.models.encode_query(text)

    q = lib.models.encode_query(QUERY)
    assert meaning_focus(hits, QUERY, q, encode, budget=3) == 3 and len(asked) == 3  # the first three sentences
    assert hits[0].focus is not None and FOCUS_BUDGET >= 6
