"""The postings of a shared library without foreign keys (schema 7, decision 0136), against the real server: every
statement that deletes passages takes their postings (words and CJK characters) with them through the
chunks_postings_gone trigger, whichever path deletes them (a file changed or gone, Remove, Undo's restore then
a second Remove, reindex), and a library of schema 6 is brought to 7 by its first writer while a reader of it
keeps searching."""

from __future__ import annotations

import os

import pytest

from store_files import batch_sizes
from searchapp.library.shared import SharedLibrary
from searchapp.store.postgres.schema import SCHEMA_VERSION
from corpus import write_texts
from pg_server import made_at_schema, database_of

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

TEXTS = {"a.txt": "voles run under the snow all winter", "b.txt": "東京の天气 and otters in the river",
         "c.txt": "otters and voles share the river bank"}


@pytest.fixture
def config(make_config):
    return make_config(models={"reranker": ""})


def orphans(pg_server, address: str) -> tuple[int, int]:
    """Postings and CJK postings whose passage is gone."""
    db = database_of(address)
    return tuple(pg_server.admin(f"SELECT count(*) FROM {t} p WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE "  # noqa: S608 (constants)
                                 "c.id = p.chunk_id)", database=db)[0][0] for t in ("postings", "cjk_postings"))


def postings(pg_server, address: str) -> tuple[int, int]:
    db = database_of(address)
    return tuple(pg_server.admin(f"SELECT count(*) FROM {t}", database=db)[0][0]  # noqa: S608 (constants)
                 for t in ("postings", "cjk_postings"))


def foreign_keys(pg_server, address: str) -> list[str]:
    return [r[0] for r in pg_server.admin(
        "SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid IN ('postings'::regclass, "
        "'cjk_postings'::regclass) ORDER BY conname", database=database_of(address))]


def test_every_delete_of_passages_takes_their_postings(config, tiny_encoder, tmp_path, pg_server, pg_address):
    docs = write_texts(tmp_path / "docs", TEXTS)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        assert foreign_keys(pg_server, pg_address) == []
        words, chars = postings(pg_server, pg_address)
        assert words > 0 and chars > 0
        (docs / "a.txt").write_text("lemmings", encoding="utf-8")  # changed: its passage deleted, a new one written
        os.utime(docs / "a.txt", ns=(1, 1))
        (docs / "b.txt").unlink()  # gone: the only CJK postings with it
        lib.sync()
        assert orphans(pg_server, pg_address) == (0, 0)
        assert postings(pg_server, pg_address)[1] == 0
        assert [os.path.basename(h.path) for h in lib.search("lemmings", mode="lexical").hits] == ["a.txt"]
        assert lib.search("voles", mode="lexical").hits[0].path.endswith("c.txt")
        lib.reindex(embed=False)
        assert orphans(pg_server, pg_address) == (0, 0)
        lib.remove_folder(docs, undoable=True)
        assert postings(pg_server, pg_address) == (0, 0)
        assert lib.undo_remove() == (str(docs), 2)
        assert postings(pg_server, pg_address)[0] > 0
        assert [os.path.basename(h.path) for h in lib.search("lemmings", mode="lexical").hits] == ["a.txt"]
        lib.remove_folder(docs)
        assert postings(pg_server, pg_address) == (0, 0)


def test_a_library_of_schema_6_is_migrated_by_its_first_writer(config, tiny_encoder, tmp_path, pg_server,
                                                                pg_address):
    docs = write_texts(tmp_path / "docs", TEXTS)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        before = [(h.path, h.scores) for h in lib.search("otters river", mode="lexical", k=10).hits]
        # schema 6 as it was: postings checked by foreign keys that cascade, no trigger
        for table in ("postings", "cjk_postings"):
            lib.store.rows(f"ALTER TABLE {table} ADD CONSTRAINT {table}_chunk_id_fkey FOREIGN KEY (chunk_id) "
                           "REFERENCES chunks(id) ON DELETE CASCADE")
        lib.store.rows("DROP TRIGGER chunks_postings_gone ON chunks")
        lib.store.rows("DROP FUNCTION searchapp_postings_gone()")
        lib.store.rows("DROP INDEX files_ocr_pending")  # schema 7's too (decision 0138)
        made_at_schema(lib.store, 6)
    assert foreign_keys(pg_server, pg_address) == ["cjk_postings_chunk_id_fkey", "postings_chunk_id_fkey"]
    with SharedLibrary(config, pg_address, encoder=tiny_encoder) as reader:
        assert reader.store.schema_version == 6
        assert [(h.path, h.scores) for h in reader.search("otters river", mode="lexical", k=10).hits] == before
        with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as writer:
            assert writer.store.schema_version == SCHEMA_VERSION >= 7
            assert writer.store.get_meta("shared_schema_steps") == str(SCHEMA_VERSION)
            assert foreign_keys(pg_server, pg_address) == []
            assert pg_server.admin("SELECT count(*) FROM pg_indexes WHERE indexname = 'files_ocr_pending'",
                                   database=database_of(pg_address))[0][0] == 1
            (docs / "b.txt").unlink()
            writer.sync()
            assert orphans(pg_server, pg_address) == (0, 0)
        assert [os.path.basename(h.path) for h in reader.search("otters river", mode="lexical", k=10).hits] == [
            "c.txt"]


def test_a_shared_words_pass_writes_batches_of_beside_scale_times_the_passages(config, tiny_encoder, tmp_path,
                                                                              pg_address, monkeypatch):
    """The server's work is a shared words pass's critical path: its batches are BESIDE_SCALE times the desktop's
    (decision 0143), and every passage is written once, with the same postings as one batch would write."""
    from searchapp.library.sync import batches, words_pass
    from searchapp.store.postgres.pg_store import PgStore

    monkeypatch.setattr(words_pass, "BATCH_CHUNKS", 2)
    monkeypatch.setattr(batches, "FIRST_BATCH_S", float("inf"))  # the first batch filled by count, however busy
    docs = write_texts(tmp_path / "docs", {f"n{i:02}.txt": f"note {i} on voles and otters" for i in range(19)})
    sizes = batch_sizes(monkeypatch, PgStore)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert rep.chunks_added == 19
        assert sizes == [2 * batches.BESIDE_SCALE] * (19 // (2 * batches.BESIDE_SCALE)) + [19 % (2 * batches.BESIDE_SCALE)]
        assert len(lib.search("voles", mode="lexical", k=50).hits) == 19
