"""An in: at which no folder of the library is (a typo: `in:~/Documnets`) says so beside its results (search/
places.py); "no results" alone read as "nothing matches there". A place inside an indexed folder that simply
holds no match, or a file of one, says nothing."""

from __future__ import annotations

import json

import pytest

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main
from searchapp.library.search.result import PLACE


@pytest.fixture
def lib(tiny_library, tmp_path):
    docs = tmp_path / "docs"
    (docs / "geo").mkdir(parents=True)
    (docs / "geo" / "volcano.txt").write_text("The volcano erupted with lava and ash over the village.\n")
    (docs / "bread.txt").write_text("A recipe for bread with a sourdough starter and rye flour.\n")
    tiny_library.add_folder(docs)
    return tiny_library, docs


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_an_in_no_folder_of_the_library_is_at_says_so(lib, tmp_path, mode):
    library, _ = lib
    res = library.search(f"volcano in:{tmp_path / 'nowhere'}", mode=mode, rerank=False)
    assert res.hits == []
    assert res.said(PLACE) == f"in:{tmp_path / 'nowhere'}: no folder of the library is there or under it (check the path)"
    assert res.to_json()["place_notice"] == res.said(PLACE)
    # a file's path is a place too: one outside the library is said alike
    res = library.search(f"volcano in:{tmp_path / 'nowhere' / 'a.txt'}", mode=mode, rerank=False)
    assert res.said(PLACE) is not None and "nowhere/a.txt" in res.said(PLACE)


@pytest.mark.parametrize("place", ["docs", "docs/geo", "docs/bread.txt", "."])
def test_a_place_of_the_library_with_no_match_says_nothing(lib, tmp_path, place):
    """Inside an indexed folder (a subfolder, a file of it, one that holds no match) or above one (the folder that
    holds it): no note, whether or not a file there matches."""
    library, _ = lib
    res = library.search(f"volcano in:{tmp_path / place}", mode="lexical")
    assert res.said(PLACE) is None, res.notices
    listing = library.search(f"in:{tmp_path / place}", mode="lexical")
    assert listing.said(PLACE) is None, listing.notices


def test_a_typo_inside_an_indexed_folder_is_said_too(lib, tmp_path):
    """A newcomer's `in:/…/home/Noets` (inside the indexed home, no such folder) said only "No results": a place
    inside an indexed folder that is not on disk and holds nothing of the library is said as one outside it. A
    subfolder gone from disk whose files the library still holds is no typo."""
    library, docs = lib
    res = library.search(f"volcano in:{docs / 'goe'}", mode="lexical")
    assert res.said(PLACE) == f"in:{docs / 'goe'}: no folder of the library is there or under it (check the path)"
    (docs / "geo").rename(tmp_path / "geo-away")  # gone from disk, its file still in the library
    assert library.search(f"volcano in:{docs / 'geo'}", mode="lexical").said(PLACE) is None


def test_only_the_places_outside_the_library_are_named(lib, tmp_path):
    library, docs = lib
    res = library.search(f'volcano in:{docs / "geo"} in:"{tmp_path / "My Docs"}" in:/nonexistent-x', mode="lexical")
    assert [h.path for h in res.hits] == [str(docs / "geo" / "volcano.txt")]  # the other place still answers
    assert res.said(PLACE) == (f'in:"{tmp_path / "My Docs"}", in:/nonexistent-x: no folder of the library is there '
                               "or under them (check the path)")


@pytest.mark.engines("sqlite")  # the command line on the data dir's library
def test_the_command_line_says_it_and_its_json_carries_it(lib, tmp_path, capsys):
    library, _ = lib
    args = ["--data-dir", str(library.data_dir), "search", f"volcano in:{tmp_path / 'nowhere'}",
            "--mode", "lexical"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    # nothing found there: the result line says it once, with the indexed folders (search/empty_reason.py)
    assert out == f"no results: {tmp_path / 'nowhere'} is not in an indexed folder (indexed: {tmp_path / 'docs'})\n"
    assert "nowhere" not in err
    assert main([*args, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["place_notice"].startswith(f"in:{tmp_path / 'nowhere'}: no folder of the library")
    assert f"searchapp: note: in:{tmp_path / 'nowhere'}: no folder of the library is there or under it" in err
    # beside hits from another place, the note says it as before
    assert main(["--data-dir", str(library.data_dir), "search", f"volcano in:{tmp_path / 'docs'} "
                 f"in:{tmp_path / 'nowhere'}", "--mode", "lexical"]) == 0
    out, err = capsys.readouterr()
    assert "volcano.txt" in out
    assert f"searchapp: note: in:{tmp_path / 'nowhere'}: no folder of the library is there or under it" in err
