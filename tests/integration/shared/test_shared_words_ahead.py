"""A shared hybrid search reads its words on a second connection while pgvector searches (pg_words_ahead.py): the
same results as reading them on the search's own connection, once a search, and a reader that is lost costs
nothing but the overlap."""

from __future__ import annotations

import pytest

from searchapp.base.errors import StoreError
from searchapp.library.shared import SharedLibrary
from searchapp.store.postgres import pg_words_ahead
from searchapp.store.postgres.pg_lexical import PgLexical
from corpus import write_texts
from pg_server import database_of

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

TEXTS = {f"n{i:02}.txt": f"note {i} on lanterns and moths, topic{i % 4}; a lamp burns by the window {i}"
         for i in range(24)}
# One long file whose many passages all say "glass", and one other file that says it once: a search by files
# for two files widens its words' top (grouping.widen_to_files), asking the words again with a larger limit.
TEXTS["long.txt"] = "\n\n".join(f"part {i}: glass, glass and more glass " + "beads " * 100 for i in range(80))
TEXTS["n00.txt"] += " and a glass"
QUERIES = ["lanterns moths", "lamp window", "topic1 lanterns", "moth*", '"lamp burns" topic2', "window -topic3"]


@pytest.fixture
def config(make_config):
    return make_config(models={"reranker": ""})


def _shown(result) -> list[tuple[str, float, float]]:
    return [(h.path, round(h.scores.lexical or 0.0, 9), round(h.scores.fused or 0.0, 9)) for h in result.hits]


def _reads(monkeypatch, lib) -> tuple[list[tuple[str, bool]], list[str]]:
    """(query, on the reader's connection) of each time `lib` reads a query's word tables from the server, and
    the query of each time its search asks for them."""
    seen: list[tuple[str, bool]] = []
    asked: list[str] = []
    read, ask = PgLexical.read_tables, PgLexical._tables

    def counted(store, query, prefixes):
        seen.append((query, store is not lib.store))
        return read(store, query, prefixes)

    def asking(store, query, prefixes):
        asked.append(query)
        return ask(store, query, prefixes)

    monkeypatch.setattr(PgLexical, "read_tables", counted)
    monkeypatch.setattr(PgLexical, "_tables", asking)
    return seen, asked


def test_hybrid_reads_its_words_once_on_the_reader_with_the_same_results(config, tiny_encoder, tmp_path,
                                                                          pg_address, monkeypatch):
    docs = write_texts(tmp_path / "docs", TEXTS)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        monkeypatch.setattr(pg_words_ahead, "READ_AHEAD", False)  # the words read on the search's own connection
        before = {q: _shown(lib.search(q, mode="hybrid", k=20, group="file")) for q in QUERIES}
        seen, asked = _reads(monkeypatch, lib)
        wide = _shown(lib.search("glass", mode="hybrid", k=2, candidates=2))
        assert len(asked) > 1 and len(seen) == 1  # the search asked for its words again, they were read once
        assert lib.store.words_ahead._reader is None
        monkeypatch.setattr(pg_words_ahead, "READ_AHEAD", True)
        for q in QUERIES:
            seen.clear()
            assert _shown(lib.search(q, mode="hybrid", k=20, group="file")) == before[q], q
            assert len(seen) == 1 and seen[0][1], (q, seen)  # once, and on the reader
        seen.clear()
        assert _shown(lib.search("glass", mode="hybrid", k=2, candidates=2)) == wide
        assert seen == [("glass", True)]
        seen.clear()
        lib.search("lanterns moths", mode="lexical", k=20)
        assert seen == [("lanterns moths", False)]  # no meaning to overlap: read here, once


def test_a_lost_reader_only_means_the_words_are_read_here(config, tiny_encoder, tmp_path, pg_server, pg_address,
                                                          monkeypatch):
    docs = write_texts(tmp_path / "docs", TEXTS)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        first = _shown(lib.search("lanterns moths", mode="hybrid", k=20))
        reader = lib.store.words_ahead._reader
        assert reader is not None
        pid = reader.one("SELECT pg_backend_pid()")[0]
        # ended, and waited for (up to 5 s) so that the next search meets a dead connection
        pg_server.admin("SELECT pg_terminate_backend(%s, 5000)", params=(pid,), database=database_of(pg_address))
        seen, _ = _reads(monkeypatch, lib)
        assert _shown(lib.search("lanterns moths", mode="hybrid", k=20)) == first
        assert [on_reader for _, on_reader in seen] == [True, False]  # the reader failed: read here
        seen.clear()
        assert _shown(lib.search("lanterns moths", mode="hybrid", k=20)) == first
        assert seen == [("lanterns moths", True)]  # and the reader connected again
    # Closed with the library: its connections are gone from the server.
    left = pg_server.admin("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = "
                           "'searchapp'", params=(database_of(pg_address),))
    assert left == [(0,)]


def test_a_reader_that_cannot_connect_is_not_asked_again_at_once(config, tiny_encoder, tmp_path, pg_address,
                                                                 monkeypatch, caplog):
    """A server at its connection limit: the searches read their words on their own connection, the log says
    so once, and the reader is not tried again for each search (a connect can take seconds)."""
    docs = write_texts(tmp_path / "docs", TEXTS)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        monkeypatch.setattr(pg_words_ahead, "READ_AHEAD", False)
        want = _shown(lib.search("lanterns moths", mode="hybrid", k=20))
        monkeypatch.setattr(pg_words_ahead, "READ_AHEAD", True)
        tries = []

        def refused():
            tries.append(1)
            raise StoreError("cannot reach the shared library: too many clients already")

        monkeypatch.setattr(lib.store.words_ahead, "_connect", refused)
        for _ in range(3):
            assert _shown(lib.search("lanterns moths", mode="hybrid", k=20)) == want
        assert len(tries) == 1
        assert sum("too many clients" in r.getMessage() for r in caplog.records) == 1
        monkeypatch.setattr(pg_words_ahead, "RETRY_S", 0.0)  # after a while, tried again
        lib.search("lanterns moths", mode="hybrid", k=20)
        assert len(tries) == 2
        assert sum("too many clients" in r.getMessage() for r in caplog.records) == 1  # said once, not per try
