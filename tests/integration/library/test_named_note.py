"""A search for a file's name (`sourdough`, a French recipe saved as sourdough-bread.txt; `testMSChart`): names are
not in the words index, so the words found nothing, the file was not in the top 10 and nothing said that such a file
is there (newcomers). The files named like it come first, marked, and the note says that `name:` lists them all
(search/named.py, decision 0160)."""

from __future__ import annotations

import json

import pytest

from corpus import write_texts

from searchapp.cli.main import main
from searchapp.library.search.result import NAMED


@pytest.fixture
def lib(tiny_library, tmp_path):
    """On both engines (the desktop's and a shared library: each matches names with its own `name:`)."""
    docs = write_texts(tmp_path / "docs", {"sourdough-bread.txt": "Recette du pain au levain: nourrir le levain la veille.",
                                           "heron.txt": "The heron waded through the reeds.",
                                           "the-book-of-sand.txt": "A book with no first page and no last."})
    tiny_library.add_folder(docs)
    return tiny_library


def _names(res) -> list[str]:
    return [h.path.rsplit("/", 1)[-1] for h in res.hits]


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_name_no_passage_holds_lists_that_file_first(lib, mode):
    res = lib.search("sourdough", mode=mode)
    assert res.said(NAMED) == "no passage holds sourdough: the file named like it comes first (`name:sourdough` lists it)"
    assert res.to_json()["name_notice"] == res.said(NAMED)
    assert _names(res)[0] == "sourdough-bread.txt" and res.hits[0].named and res.hits[0].ranks.final == 1
    top, *rest = res.to_json()["hits"]
    # no score, as the text ("named like the query") and the window ("name") show none: "bm25 0.0" sorted it last
    assert top["named"] is True and (top["score"], top["score_label"]) == (None, "named")
    assert (rest or mode == "lexical") and all(h["score"] is not None and h["score_label"] == "match" for h in rest)
    assert len(_names(res)) == len(set(_names(res)))  # the named file is not listed again by meaning
    assert not any(h.named for h in res.hits[1:])  # what meaning found follows, as it was
    listing = lib.search("name:sourdough", mode=mode)  # only a field: newest first, no stage scored it either
    assert _names(listing) == ["sourdough-bread.txt"]
    assert [(h["score"], h["score_label"]) for h in listing.to_json()["hits"]] == [(None, "newest")]


def test_many_files_named_like_it_come_newest_first_within_k(lib, tmp_path):
    docs = tmp_path / "docs"
    for i in range(4):
        (docs / f"invoice-{i}.txt").write_text(f"Facture numero {i}: montant a regler.", encoding="utf-8")
    lib.add_folder(docs)
    res = lib.search("invoice", mode="lexical", k=3)
    assert [h.named for h in res.hits] == [True, True, True] and [h.ranks.final for h in res.hits] == [1, 2, 3]
    assert res.said(NAMED) == ("no passage holds invoice: 4 files are named like it, the newest 3 first "
                               "(`name:invoice` lists them all)")


def test_a_named_file_outside_the_searchs_filters_is_not_listed(lib, tmp_path):
    """The window's filter bar (or --in, --type) holds for the files named like the query too."""
    from searchapp.library.query.filters import SearchFilters

    other = tmp_path / "other"
    other.mkdir()
    (other / "sourdough-starter.txt").write_text("Nourrir le levain chaque matin.", encoding="utf-8")
    lib.add_folder(other)
    assert sorted(_names(lib.search("sourdough", mode="lexical"))) == ["sourdough-bread.txt", "sourdough-starter.txt"]
    res = lib.search("sourdough", mode="lexical", filters=SearchFilters.build(folders=[str(other)]))
    assert _names(res) == ["sourdough-starter.txt"] and res.hits[0].named
    res = lib.search("sourdough", mode="lexical", filters=SearchFilters.build(types=["md"]))
    assert res.hits == [] and res.said(NAMED) is None


def test_copies_of_a_named_file_share_one_row(lib, tmp_path):
    """A file named so in Documents and its backup were two rows at the top (a reviewer): exact copies share one
    row, as in a search, and a row meaning found for a copy is not listed again."""
    backup = tmp_path / "docs" / "backup"
    backup.mkdir()
    (backup / "sourdough-bread.txt").write_bytes((tmp_path / "docs" / "sourdough-bread.txt").read_bytes())
    lib.add_folder(tmp_path / "docs")
    res = lib.search("sourdough", mode="hybrid")
    named = [h for h in res.hits if h.named]
    assert len(named) == 1 and len(named[0].copies) == 1, [(h.path, h.copies) for h in res.hits]
    assert sum(h.path.endswith("sourdough-bread.txt") for h in res.hits) == 1


def test_words_a_passage_holds_or_a_name_none_has_say_nothing(lib):
    assert lib.search("heron", mode="hybrid").said(NAMED) is None  # the words found it (a file is named so too)
    assert lib.search("pumpernickel", mode="hybrid").said(NAMED) is None  # no such name either
    assert lib.search("sourdough", mode="dense").said(NAMED) is None  # meaning alone: words not asked
    # only common words: the words were not asked (every passage holds them), whatever a name holds
    assert lib.search("the of and", mode="hybrid").said(NAMED) is None


@pytest.mark.engines("sqlite")  # the data dir's library: the command line's output is one for both engines
def test_the_command_line_prints_it(lib, capsys):
    capsys.readouterr()
    assert main(["--data-dir", str(lib.config.data_dir), "search", "sourdough", "--mode", "lexical", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name_notice"].startswith("no passage holds sourdough")
    assert main(["--data-dir", str(lib.config.data_dir), "search", "sourdough", "--mode", "lexical"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(" 1. ") and "sourdough-bread.txt" in out.splitlines()[0]
    assert out.splitlines()[1] == "    named like the query (no passage holds its words)"


@pytest.mark.parametrize("query", ["sourdough bread", "sourdough?"])
def test_the_name_the_note_names_lists_the_file(lib, query):
    """The `name:` the note hands over lists the files it counted: a query of two words counted
    sourdough-bread.txt by `*sourdough*bread*` but named `name:"sourdough bread"`, which lists nothing (a name
    holds no space there)."""
    note = lib.search(query, mode="lexical").said(NAMED)
    assert note is not None and note.startswith(f"no passage holds {query}: the file named like it comes first")
    field = note.split("`")[1]
    assert [h.path.rsplit("/", 1)[-1] for h in lib.search(field, mode="lexical").hits] == ["sourdough-bread.txt"], note


def test_a_name_whose_words_passages_hold_too_comes_first_when_few_files_have_it(lib, tmp_path):
    """A newcomer typed a screenshot's name as their Downloads showed it: its words ("2024", "05") found a spreadsheet
    and the screenshot was not in the top 100 (decision 0181). Where the words find something, the files named like
    the query come first when they are few (FEW); a name dozens of files hold ranks by what they say."""
    from searchapp.library.search.named import FEW

    docs = tmp_path / "docs"
    (docs / "Screenshot 2024-05-02 at 10.14.22.txt").write_text("Wifi: HomeNet, key on the router's back.",
                                                                encoding="utf-8")
    (docs / "budget.txt").write_text("Budget 2024: 05 02 at 10 14 22 screenshot of the plan.", encoding="utf-8")
    for i in range(FEW + 1):
        (docs / f"heron-sightings-{i}.txt").write_text(f"Sighting {i}: a bird by the pond.", encoding="utf-8")
    lib.add_folder(docs)
    res = lib.search("Screenshot 2024-05-02 at 10.14.22", mode="hybrid")
    assert _names(res)[0] == "Screenshot 2024-05-02 at 10.14.22.txt" and res.hits[0].named, _names(res)
    assert res.said(NAMED) == ("named like the query: the file named like it comes first "
                               "(`name:*Screenshot*2024*05*02*at*10*14*22*` lists it)")
    assert "budget.txt" in _names(res)  # what the words found follows
    res = lib.search("heron", mode="hybrid")  # heron.txt holds it; more than FEW files are named like it
    assert res.said(NAMED) is None and not any(h.named for h in res.hits), _names(res)


def test_a_word_inside_a_longer_name_does_not_put_that_file_above_what_the_words_found(lib, tmp_path):
    """"tax" is not the name of syntax-cheatsheet.md: its letters are inside another word. Where the words found the
    file about taxes, a file whose name merely holds the letters is not put above it as "named like the query"
    (decision 0181 means a name that picks out a file, not any name holding the letters)."""
    docs = tmp_path / "docs"
    (docs / "april.txt").write_text("The tax return is due in April; the income tax form is filed.", encoding="utf-8")
    (docs / "syntax-cheatsheet.md").write_text("Python grammar: loops, functions and classes.", encoding="utf-8")
    lib.add_folder(docs)
    res = lib.search("tax", mode="hybrid")
    assert _names(res)[0] == "april.txt", (_names(res), res.said(NAMED))
    assert not any(h.named for h in res.hits), (_names(res), res.said(NAMED))


def test_a_file_named_like_the_query_but_not_indexed_is_said_with_its_reason(lib, tmp_path):
    """A person searching "budget 2024" whose budget-2024.pdf could not be read found other files, or nothing, and no
    word of why: the note names the file and its reason (search/named.py: not_indexed_named)."""
    docs = tmp_path / "docs"
    (docs / "budget-2024.pdf").write_bytes(b"%PDF-1.4 cut short")  # a PDF no reader can open
    (docs / "notes-on-budgets.txt").write_text("A budget for 2024 and the year after.", encoding="utf-8")
    lib.add_folder(docs)
    said = lib.search("budget 2024", mode="lexical").said(NAMED)
    assert said is not None and said.startswith(f"{docs / 'budget-2024.pdf'} is named like the query but is not "
                                                 "indexed: "), said
    assert lib.search("budget 2025", mode="lexical").said(NAMED) is None  # not its name
    for i in range(4):  # more than a few files named so: a topic, not one file meant
        (docs / f"budget-2024-{i}.pdf").write_bytes(b"%PDF-1.4 cut short")
    lib.add_folder(docs)
    assert lib.search("budget 2024", mode="lexical").said(NAMED) is None
