"""A search for a file's name (`sourdough`, a French recipe saved as sourdough-bread.txt): names are not in the
words index, so the words found nothing and nothing said that such a file is there (a newcomer). The search says
so, and that `name:` lists it (search/named.py)."""

from __future__ import annotations

import json

import pytest

from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.library.search.result import NAMED


@pytest.fixture
def lib(make_config, tiny_encoder, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sourdough-bread.txt").write_text("Recette du pain au levain: nourrir le levain la veille.", encoding="utf-8")
    (docs / "heron.txt").write_text("The heron waded through the reeds.", encoding="utf-8")
    (docs / "the-book-of-sand.txt").write_text("A book with no first page and no last.", encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as library:
        library.add_folder(docs)
        yield library


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_name_no_passage_holds_points_at_name(lib, mode):
    res = lib.search("sourdough", mode=mode)
    assert res.said(NAMED) == "no passage holds sourdough, but 1 file is named like it: `name:sourdough` lists it"
    assert res.to_json()["name_notice"] == res.said(NAMED)
    assert [h.path.rsplit("/", 1)[-1] for h in lib.search("name:sourdough", mode=mode).hits] == ["sourdough-bread.txt"]


def test_words_a_passage_holds_or_a_name_none_has_say_nothing(lib):
    assert lib.search("heron", mode="hybrid").said(NAMED) is None  # the words found it (a file is named so too)
    assert lib.search("pumpernickel", mode="hybrid").said(NAMED) is None  # no such name either
    assert lib.search("sourdough", mode="dense").said(NAMED) is None  # meaning alone: words not asked
    # only common words: the words were not asked (every passage holds them), whatever a name holds
    assert lib.search("the of and", mode="hybrid").said(NAMED) is None


def test_the_command_line_prints_it(lib, capsys):
    capsys.readouterr()
    assert main(["--data-dir", str(lib.config.data_dir), "search", "sourdough", "--mode", "lexical", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name_notice"].startswith("no passage holds sourdough")


@pytest.mark.parametrize("query", ["sourdough bread", "sourdough?"])
def test_the_name_the_note_names_lists_the_file(lib, query):
    """The `name:` the note hands over lists the files it counted: a query of two words counted
    sourdough-bread.txt by `*sourdough*bread*` but named `name:"sourdough bread"`, which lists nothing (a name
    holds no space there)."""
    note = lib.search(query, mode="lexical").said(NAMED)
    assert note is not None and note.startswith(f"no passage holds {query}, but 1 file is named like it")
    field = note.split("`")[1]
    assert [h.path.rsplit("/", 1)[-1] for h in lib.search(field, mode="lexical").hits] == ["sourdough-bread.txt"], note
