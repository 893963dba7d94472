"""Which files and passages a search may see (store/scope.py): fragments and the reads over them, on a real
SQLite file."""

from __future__ import annotations

import os

import pytest

from searchapp.base.errors import StoreError
from searchapp.store.scope import INDEXED, all_of, files_containing, files_where, name_matches, on_page
from store_files import new_store, put_file


@pytest.fixture
def lib(tmp_path):
    store, root = new_store(tmp_path)
    ids = {
        "old": put_file(store, root, "/r/a/Old Report.PDF", [("alpha beta", 1), ("gamma delta", 2)], mtime_ns=100),
        "new": put_file(store, root, "/r/a/b/new.txt", ["alpha gamma", "running late 天气很好"], mtime_ns=300),
        "mid": put_file(store, root, "/r/ab/mid.docx", ["beta only"], mtime_ns=200),
        "bad": put_file(store, root, "/r/a/failed.txt", ["alpha"], mtime_ns=400, status="failed"),
    }
    yield store, ids
    store.close()


def files_of(store, where) -> set[str]:
    ids = store.chunk_ids_where(where)
    return {r.path for r in store.chunks(ids.tolist()).values()}


def test_chunk_ids_where_follows_folders_types_and_dates(lib):
    store, _ = lib
    ids = store.chunk_ids_where(INDEXED)
    assert ids.dtype.name == "int64" and ids.tolist() == sorted(ids.tolist()) and len(ids) == 5
    assert files_of(store, files_where(["/r/a"])) == {"/r/a/Old Report.PDF", "/r/a/b/new.txt"}  # not /r/ab
    assert files_of(store, files_where(["/r/ab/mid.docx"])) == {"/r/ab/mid.docx"}
    assert files_of(store, files_where(types=["pdf", "docx"])) == {"/r/a/Old Report.PDF", "/r/ab/mid.docx"}
    assert files_of(store, files_where(after_ns=200)) == {"/r/a/b/new.txt", "/r/ab/mid.docx"}
    assert files_of(store, files_where(after_ns=100, before_ns=200)) == {"/r/a/Old Report.PDF"}


def test_names_pages_and_terms(lib):
    store, _ = lib
    assert files_of(store, all_of([INDEXED, name_matches(["*report*"])])) == {"/r/a/Old Report.PDF"}
    assert files_of(store, all_of([INDEXED, name_matches(["new.*", "mid.*"])])) == {"/r/a/b/new.txt", "/r/ab/mid.docx"}
    page2 = store.chunk_ids_where(all_of([INDEXED, on_page(2)])).tolist()
    assert [r.text for r in store.chunks(page2).values()] == ["gamma delta"]
    require = lambda *terms: files_of(store, all_of([INDEXED, files_containing(list(terms))]))  # noqa: E731
    assert require([("alpha gamma", False)]) == {"/r/a/b/new.txt"}  # a phrase: in order, adjacent
    assert require([("gamma alpha", False)]) == set()
    assert require([("beta", False)], [("delta", False)]) == {"/r/a/Old Report.PDF", "/r/ab/mid.docx"}  # OR
    assert require([("runs", False)]) == {"/r/a/b/new.txt"}  # stemmed, like the lexical index
    assert require([("lat", True)]) == {"/r/a/b/new.txt"}  # a prefix
    assert require([("lat", False)]) == set()
    assert require([("天气", False), ("late", False)]) == {"/r/a/b/new.txt"}  # every piece of a term
    assert require([("气天", False)]) == set()
    assert require([]) == set()
    excluded = files_of(store, all_of([INDEXED, files_containing([[("alpha", False)]], exclude=True)]))
    assert excluded == {"/r/ab/mid.docx"}


def test_newest_first_by_file_and_by_passage(lib):
    store, ids = lib
    by_file = store.newest_first(INDEXED, 10, by_file=True)
    assert [store.chunks([c])[c].path for c in by_file] == ["/r/a/b/new.txt", "/r/ab/mid.docx", "/r/a/Old Report.PDF"]
    assert [store.chunks([c])[c].ordinal for c in by_file] == [0, 0, 0]
    by_passage = store.newest_first(INDEXED, 10, by_file=False)
    assert [(store.chunks([c])[c].path, store.chunks([c])[c].ordinal) for c in by_passage][:3] == \
           [("/r/a/b/new.txt", 0), ("/r/a/b/new.txt", 1), ("/r/ab/mid.docx", 0)]
    assert store.newest_first(INDEXED, 2, by_file=False) == by_passage[:2]
    assert store.newest_first(all_of([INDEXED, on_page(2)]), 10, by_file=True) == by_passage[-1:]


def test_a_failing_statement_is_a_store_error(lib):
    store, _ = lib
    with pytest.raises(StoreError, match="filtered search failed"):
        store.chunk_ids_where(("no_such_column = ?", [1]))
    with pytest.raises(StoreError, match="filtered search failed"):
        store.newest_first(("no_such_column = ?", [1]), 3, by_file=True)


def test_fragments_hold_values_only_as_parameters():
    hostile = "/r/x') OR 1=1 --"
    sql, params = all_of([files_where([hostile], ["p'df"]), name_matches(["*'*"])])
    assert hostile not in sql and "p'df" not in sql and "'*" not in sql
    assert hostile in params and "%.p'df" in params and os.sep in params
