"""Hostile and odd queries, and the files beside the library that a search touches: a prefix finds what it
should in every mode; a damaged searches.sqlite is named as such and never puts the library at risk; a page
number past SQLite's integers, a superscript digit, or a query of thousands of operators is a note, not an
error; a tampered OCR cache entry is dropped and the file OCR'd again; name: folds case beyond ASCII."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.cli.main import main

TEXTS = {
    "budget.txt": "The budget for next year was approved by the board.",
    "plan.txt": "Budgeting and planning notes for the spring season.",
    "plants.txt": "Ferns and mosses like the shade; plants need water.",
    "Ärger.txt": "Viel Ärger mit dem Vermieter wegen der Heizung.",
    "draft.txt": "This draft of the volcano report is unfinished.",
    "天气.txt": "今天天气预报说会下雨。",
}


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path_factory.mktemp("trust-query"), TEXTS, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')


def cli(capsys, data: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args, "--data-dir", str(data)])
    out = capsys.readouterr()
    return code, out.out, out.err


def found(capsys, data: Path, query: str, mode: str, *extra: str) -> tuple[list[str], str]:
    code, out, err = cli(capsys, data, "search", query, "--mode", mode, "--json", "--k", "20", *extra)
    assert code == 0, err
    return sorted(Path(h["path"]).name for h in json.loads(out)["hits"]), err


# -- hostile query parts -----------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["page:99999999999999999999999", "page:²", "page:١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩٠١",
                                   "budget page:99999999999999999999999"])
def test_an_impossible_page_number_is_a_note(capsys, lib_dir, query):
    code, out, err = cli(capsys, lib_dir, "search", query, "--mode", "lexical")
    assert code == 0, err
    assert "not a page number" in err and "Traceback" not in err


def test_a_reasonable_page_number_still_works():
    from searchapp.library.query.syntax import parse_query

    assert parse_query("page:12").page == 12 and parse_query("page:٣").page == 3


@pytest.mark.parametrize("query", [
    " OR ".join(f"w{i}" for i in range(601)) + " OR budget",
    " ".join(f'"p{i} q{i}"' for i in range(1100)),
    "budget " + " ".join(f"-x{i}" for i in range(10_000)),
    "budget " + " ".join(f"name:x{i}" for i in range(3000)),
    "budget " + " ".join(f"in:/nowhere/x{i}" for i in range(3000)),
    "budget " + " ".join(f"x{i}*" for i in range(3000)),
])
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_huge_query_is_capped_with_a_note_and_the_rest_searched(capsys, lib_dir, query, mode):
    code, out, err = cli(capsys, lib_dir, "search", query, "--mode", mode, "--json")
    assert code == 0, err[-500:]
    assert "only the first" in err and err.count("only the first") == 1
    res = json.loads(out)
    assert isinstance(res["hits"], list)


def test_the_parts_kept_are_still_enforced(capsys, lib_dir):
    # 5000 exclusions, the first of which excludes plan.txt: it holds; the rest are ignored with a note.
    query = "budget* -planning " + " ".join(f"-x{i}" for i in range(5000))
    names, err = found(capsys, lib_dir, query, "lexical")
    assert names == ["budget.txt"] and "only the first" in err
