"""A search that finds nothing because its filters leave no file of the library says which filter, and what the
library has instead (search/empty_reason.py): a newcomer's `type:banana boiler` printed a bare "no results", or,
while a sync ran, "search again in a moment". A miss among the files the filters allow still says plain
"no results"."""

from __future__ import annotations

import json
import os

import pytest

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main
from searchapp.library import SearchFilters
from searchapp.library.search.result import ABSENT, FILTERED, OUTSIDE, PLACE, WHY_EMPTY

DAY = 86400


@pytest.fixture
def lib(tiny_library, tmp_path):
    docs = tmp_path / "docs"
    (docs / "geo").mkdir(parents=True)
    (docs / "geo" / "volcano.txt").write_text("The volcano erupted with lava and ash over the village.\n")
    (docs / "bread.txt").write_text("A recipe for bread with a sourdough starter and rye flour.\n")
    (docs / "notes.md").write_text("Notes on the volcano tour and the bread market. #travel\n")
    for name in ("geo/volcano.txt", "bread.txt", "notes.md"):  # every file of 2024-05-01 .. 2024-05-03
        when = 1714564800 + DAY * ("geo/volcano.txt", "bread.txt", "notes.md").index(name)
        os.utime(docs / name, (when, when))
    tiny_library.add_folder(docs)
    return tiny_library, docs


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_a_type_no_indexed_file_has_says_so_with_the_types_there_are(lib, mode):
    library, _ = lib
    res = library.search("volcano type:banana", mode=mode, rerank=False)
    assert res.hits == []
    assert res.said(ABSENT) == 'no indexed file is of type "banana" (types here: txt 2, md 1)'
    assert res.to_json()["filter_notice"] == res.said(ABSENT)
    # a type a reader takes (a sync may still bring one), asked by --type or the filter bar
    res = library.search("volcano", mode=mode, rerank=False, filters=SearchFilters.build(types=["pdf", "docx"]))
    assert res.said(FILTERED) == 'no indexed file is of type "pdf" or "docx" (types here: txt 2, md 1)'


def test_an_in_outside_every_indexed_folder_says_so_with_the_indexed_folders(lib, tmp_path):
    library, docs = lib
    res = library.search(f"volcano in:{tmp_path / 'nowhere'}", mode="lexical")
    assert res.said(OUTSIDE) == f"{tmp_path / 'nowhere'} is not in an indexed folder (indexed: {docs})"
    assert res.said(PLACE) is not None  # said beside results too, as before (search/places.py)
    res = library.search("volcano", mode="lexical", filters=SearchFilters.build(folders=["/nonexistent-x"]))
    assert res.said(OUTSIDE) == f"/nonexistent-x is not in an indexed folder (indexed: {docs})"
    # inside an indexed folder, where no indexed file is: said, not as a place outside
    res = library.search(f"volcano in:{docs / 'goe'}", mode="lexical")
    assert res.said(FILTERED) == f"no indexed file is in {docs / 'goe'}"


def test_a_date_range_no_file_is_in_says_so_with_the_dates_there_are(lib):
    library, _ = lib
    res = library.search("volcano after:2001-01-01 before:2002-01-01", mode="lexical")
    assert res.said(FILTERED) == ("no indexed file was modified on or after 2001-01-01 and before 2002-01-01 "
                                  "(files here: 2024-05-01 to 2024-05-03)")
    res = library.search("volcano", mode="lexical", filters=SearchFilters.build(after="2030-01-01"))
    assert res.said(FILTERED) == "no indexed file was modified on or after 2030-01-01 (files here: 2024-05-01 to 2024-05-03)"


def test_filters_that_each_match_but_not_together_say_so(lib):
    library, docs = lib
    res = library.search(f"volcano type:md in:{docs / 'geo'}", mode="lexical")
    assert res.said(FILTERED) == f"no indexed file matches in:{docs / 'geo'} type:md at once (each alone does): remove one of them"


def test_a_tag_no_file_holds_says_so(lib):
    """On both engines: the shared library tests a tag by its passages too (pg_scope.tag_fragment)."""
    library, _ = lib
    for query in ("#nosuchtag", "#nosuchtag volcano", "#travel #nosuchtag", "#nosuchtag OR #nothertag"):
        res = library.search(query, mode="lexical")
        assert res.hits == [] and res.said(FILTERED) is not None, (query, res.notices)
        assert res.said(FILTERED).startswith("no file is tagged #nosuchtag"), query
    assert res.said(FILTERED) == "no file is tagged #nosuchtag or #nothertag"
    res = library.search("#travel -volcano", mode="lexical")  # the tag is held: a miss among its files
    assert res.hits == [] and res.said(*WHY_EMPTY) is None, res.notices


@pytest.mark.parametrize("query", ["zeppelin", "zeppelin type:txt", "zeppelin after:2024-01-01", "type:txt -bread -volcano"])
def test_a_miss_among_the_files_the_filters_allow_says_no_reason(lib, query):
    library, docs = lib
    res = library.search(query, mode="lexical")
    assert res.hits == [] and res.said(*WHY_EMPTY) is None, res.notices
    res = library.search("zeppelin", mode="lexical", filters=SearchFilters.build(folders=[str(docs / "geo")]))
    assert res.hits == [] and res.said(*WHY_EMPTY) is None, res.notices


@pytest.mark.engines("sqlite")  # the command line on the data dir's library
def test_the_command_line_says_why_on_the_no_results_line(lib, tmp_path, capsys):
    library, docs = lib

    def run(*argv: str) -> tuple[str, str]:
        assert main(["--data-dir", str(library.data_dir), "search", *argv, "--mode", "lexical"]) == 0
        return capsys.readouterr()

    out, err = run("boiler type:banana")
    assert out == 'no results: no indexed file is of type "banana" (types here: txt 2, md 1)\n'
    assert "banana" not in err  # said once, on the result line
    out, err = run("boiler", "--type", "banana")
    assert out == 'no results: no indexed file is of type "banana" (types here: txt 2, md 1)\n'
    out, err = run("boiler in:/nonexistent-x")
    assert out == f"no results: /nonexistent-x is not in an indexed folder (indexed: {docs})\n"
    assert "nonexistent-x" not in err  # nor the place's own note beside it
    out, err = run("boiler", "--in", "/nonexistent-x")
    assert out == f"no results: /nonexistent-x is not in an indexed folder (indexed: {docs})\n"
    assert err == "searchapp: note: --in /nonexistent-x: no such folder here\n"  # not on disk either: a typo?
    out, _ = run("volcano", "--after", "2001-01-01", "--before", "2002-01-01")
    assert out == ("no results: no indexed file was modified on or after 2001-01-01 and before 2002-01-01 "
                   "(files here: 2024-05-01 to 2024-05-03)\n")
    out, _ = run("zeppelin")
    assert out == "no results\n"
    out, _ = run("#nosuchtag budget")
    assert out == "no results: no file is tagged #nosuchtag\n"
    out, err = run("boiler type:banana", "--json")
    assert json.loads(out)["filter_notice"].startswith('no indexed file is of type "banana"')
    assert 'searchapp: note: no indexed file is of type "banana"' in err  # JSON's readers see it on stderr too
