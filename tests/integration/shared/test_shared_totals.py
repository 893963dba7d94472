"""BM25's passage count and token total on a shared library: kept per root by triggers in each batch's own
transaction (decision 0123), so a search never counts the passages. Asserted against a count of the rows after
every kind of write, and after a library made before the totals is opened."""

from __future__ import annotations


import pytest

from pg_server import made_at_schema
from searchapp.library.shared import SharedLibrary
from searchapp.store.postgres.schema import SCHEMA_VERSION
from corpus import write_texts

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

COUNTED = ("SELECT f.root_id, count(*), sum(c.n_tokens) FROM chunks c JOIN files f ON f.id = c.file_id "
           "GROUP BY f.root_id ORDER BY 1")
KEPT = "SELECT root_id, n_rows, n_tokens FROM chunk_totals WHERE n_rows <> 0 ORDER BY 1"


def kept_is_counted(lib: SharedLibrary) -> list[tuple]:
    counted = lib.store.rows(COUNTED)
    assert lib.store.rows(KEPT) == counted
    return counted


def test_totals_follow_adds_edits_deletions_and_a_folder_taking_in_another(make_config, tiny_encoder, tmp_path,
                                                                           pg_address):
    docs = write_texts(tmp_path / "docs", {"a.txt": "apples and pears", "b.txt": "plums, damsons and sloes in the hedge"})
    sub = write_texts(docs / "sub", {"c.txt": "quinces poached slowly in honey and wine"})
    with SharedLibrary(make_config(models={"reranker": ""}), pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(sub)
        assert len(kept_is_counted(lib)) == 1
        lib.add_folder(docs)  # takes sub's file in: the file moves to docs' root, and so do its totals
        counted = kept_is_counted(lib)
        assert len(counted) == 1 and counted[0][1] == 3
        (docs / "a.txt").write_text("apples, pears and a great many medlars rotting softly", encoding="utf-8")
        (docs / "b.txt").unlink()
        lib.sync()
        counted = kept_is_counted(lib)
        assert counted[0][1] == 2
        assert lib.store.lexical_totals() == (2, counted[0][2]) and lib.store.chunk_count() == 2


def test_a_library_made_before_the_totals_is_counted_then_migrated(make_config, tiny_encoder, tmp_path, pg_server,
                                                                   pg_address):
    """Version 1 (no totals): a reader counts the rows and scores as before; the first writer adds the totals,
    counted once, and the scores stay the same doubles."""
    config = make_config(models={"reranker": ""})
    docs = write_texts(tmp_path / "docs", {"a.txt": "owls and larks", "b.txt": "owls hunt voles at dusk in the barn"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        before = [(h.path, h.scores.lexical) for h in lib.search("owls voles", mode="lexical").hits]
        lib.store.rows("DROP TABLE chunk_totals")
        for trigger, table in (("chunks_added", "chunks"), ("chunks_gone", "chunks"), ("file_moved", "files")):
            lib.store.rows(f"DROP TRIGGER {trigger} ON {table}")
        for table in ("saved_seen", "saved", "history"):  # version 3's
            lib.store.rows(f"DROP TABLE {table}")
        made_at_schema(lib.store, 1)
    with SharedLibrary(config, pg_address, encoder=tiny_encoder) as reader:
        assert reader.store.schema_version == 1
        assert [(h.path, h.scores.lexical) for h in reader.search("owls voles", mode="lexical").hits] == before
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as writer:
        assert writer.store.schema_version == SCHEMA_VERSION >= 4
        assert writer.store.get_meta("shared_schema_steps") == str(SCHEMA_VERSION)
        assert writer.store.rows("SELECT count(*) FROM history") == [(0,)]  # version 3's tables, made too
        assert writer.store.rows("SELECT collation_name FROM information_schema.columns WHERE table_name = 'files' "
                                 "AND column_name = 'path'") == [("C",)]  # version 4's byte order
        assert kept_is_counted(writer)[0][1] == 2
        assert [(h.path, h.scores.lexical) for h in writer.search("owls voles", mode="lexical").hits] == before


def test_a_machines_embedding_bar_counts_its_own_passages_alone(make_config, tiny_encoder, tmp_path, pg_address):
    """A tester's bob-pc showed "embedding: 0/2453" where 1,758 of those were alice-pc's, waiting for alice-pc's
    own sync: the bar stopped at 710 (29%), then a stray "0/1744" came after the OCR step. A sync's bar counts
    what its own meaning pass embeds."""
    config = make_config(models={"reranker": ""})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="alice-pc") as alice:
        alice.add_folder(write_texts(tmp_path / "a", {f"a{i}.txt": f"Alice's note {i} on the canal locks." for i in
                                                      range(5)}), embed=False)
    seen: list[tuple[int, int]] = []

    def progress(p) -> None:
        if p.stage == "embedding":
            seen.append((p.done, p.total))

    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="bob-pc") as bob:
        rep = bob.add_folder(write_texts(tmp_path / "b", {f"b{i}.txt": f"Bob's memo {i} about the glasshouse." for i in
                                                          range(3)}), progress=progress)
        assert rep.chunks_embedded == 3 and rep.chunks_pending == 0
        assert seen and {total for _, total in seen} == {3} and seen[-1] == (3, 3), seen
        seen.clear()
        bob.sync()  # nothing of its own to embed: no bar at all, not "0/5"
        assert seen == [], seen
