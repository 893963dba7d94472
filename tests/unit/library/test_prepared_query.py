"""prepare_query: what the desktop's and the shared library's search read from a query before searching (one
reading for both engines; query/prepared.py)."""

from __future__ import annotations

import pytest

from searchapp.library.query import prepared
from searchapp.library.query.prepared import prepare_query


def test_each_reading_and_its_notes():
    plain = prepare_query("sourdough bread", "hybrid", False)
    assert (plain.query, plain.parsed, plain.warnings, plain.reading, plain.problem) == (
        "sourdough bread", None, [], "strict", None)
    strict = prepare_query('"sourdough bread" -rye', "lexical", False)
    assert strict.parsed is not None and strict.parsed.has_syntax and strict.reading == "strict"
    literal = prepare_query('"sourdough bread" -rye', "lexical", True)
    assert (literal.parsed, literal.reading) == (None, "literal")
    prose = prepare_query('Why does the "starter" need flour every day of the week?', "hybrid", False)
    assert prose.reading == "plain" and len(prose.warnings) == 1
    assert prose.warnings[0].startswith('a long question: "starter" searched as plain words')
    long = prepare_query(" ".join(["rye"] * 1200), "lexical", False)
    assert len(long.query.split()) == 1000 and long.warnings[0].startswith("the query is longer than 1,000 words")
    common = prepare_query("the of", "lexical", False)
    assert common.problem and common.problem.startswith("only common words (the, of)")
    assert prepare_query('"the of"', "lexical", False).problem is None  # syntax: the constraints answer it


@pytest.mark.parametrize("engine", ["desktop", "shared"])
def test_both_engines_read_a_query_by_it(engine, monkeypatch):
    """Library.search and SharedLibrary.search ask prepare_query (the SearchResult of an unsearchable query is
    built from what it answers)."""
    from searchapp.library import library as desktop_module
    from searchapp.library.search.result import UNSEARCHABLE

    def refusing(query, mode, literal):
        return prepared.PreparedQuery(query.upper(), None, ["noted"], "plain", "refused by the test")

    monkeypatch.setattr(prepared, "prepare_query", refusing)
    monkeypatch.setattr(desktop_module, "prepare_query", refusing)
    if engine == "desktop":
        from searchapp.library.library import Library

        search = Library.search.__wrapped__  # without _searching: the bare object has no connections
        result = search(_Bare(), "rye", mode="lexical")
    else:
        from searchapp.library.shared import SharedLibrary

        result = SharedLibrary.search(_Bare(), "rye", mode="lexical")
    assert (result.query, result.warnings, result.reading, result.hits) == ("RYE", ["noted"], "plain", [])
    assert [(n.kind, n.text) for n in result.notices] == [(UNSEARCHABLE, "refused by the test")]


class _Bare:
    """Only the config a search reads before its query: a refused query touches nothing else."""

    def __init__(self):
        from searchapp.base.config import Config

        self.config = Config()
