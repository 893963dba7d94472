"""Undo after Remove, and reindex, on a shared library (decision 0135), against the real server: Undo brings back
the same hits from the kept rows, only to the machine that removed them and within the minute; a reindex reads
this machine's files again, batch by batch, and one cut short resumes where it stopped; a role that may not
write is refused both in one line; a library of schema 4 is migrated by its first Remove."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from searchapp.base.errors import ModelMismatchError, SearchAppError, StoreError
from searchapp.library.shared import SharedLibrary
from searchapp.library.sync import words_pass
from searchapp.store.postgres.pg_store import PgStore
from searchapp.store.postgres.schema import SCHEMA_VERSION
from corpus import write_texts
from pg_server import made_at_schema, database_of

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

KEPT = ("removed_roots", "removed_files", "removed_chunks", "removed_postings", "removed_spans",
        "removed_cjk_postings")


@pytest.fixture
def config(make_config):
    return make_config(models={"reranker": ""})


def hits(lib: SharedLibrary, query: str, mode: str) -> list[tuple[str, float]]:
    return [(h.path, h.chunk_id, h.start, h.end, h.scores) for h in lib.search(query, mode=mode, k=20,
                                                                                 group="passage").hits]


def kept_rows(pg_server, address: str) -> list[int]:
    return [pg_server.admin(f"SELECT count(*) FROM {t}", database=database_of(address))[0][0] for t in KEPT]  # noqa: S608 (KEPT)


def word_rows(pg_server, address: str) -> list[tuple]:
    """Every posting (and CJK posting, where the library has them) with its passage's path and offsets: ids
    and all, as Undo must put them back."""
    tables = ["postings"] + (["cjk_postings"] if pg_server.admin("SELECT to_regclass('cjk_postings') IS NOT NULL",
                                                                 database=database_of(address))[0][0] else [])
    sql = ("SELECT p.term, p.chunk_id, p.tf, p.dl, f.path, c.start FROM {} p JOIN chunks c ON c.id = p.chunk_id "
           "JOIN files f ON f.id = c.file_id ORDER BY 1, 2")
    return [pg_server.admin(sql.format(t), database=database_of(address)) for t in tables]


def read_only(pg_server, address: str) -> str:
    db = database_of(address)
    pg_server.admin("DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    pg_server.admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", database=db)
    return pg_server.address(db, user="reader")


MBOX = ("From a@example.org Tue Jan  2 10:00:00 2018\nFrom: a@example.org\nSubject: Barn owls\n\nOwls in the barn.\n\n"
        "From b@example.org Tue Jan  2 11:00:00 2018\nFrom: b@example.org\nSubject: Hay\n\nThe hay is in.\n")


def test_remove_then_undo_brings_back_the_same_hits(config, tiny_encoder, tmp_path, pg_server, pg_address):
    """The folder comes back from the kept rows as it was: the same hits and scores by words and by meaning, the
    same totals, nothing embedded again; another machine's folder is untouched, and nothing stays kept."""
    a = write_texts(tmp_path / "a", {"n1.txt": "kestrels hover over the meadow", "n2.txt": "the meadow floods in spring",
                               "n3.txt": "spring lambs in the meadow\n\n" + "hedgerows and kestrels " * 40,
                               "n4.txt": "草原の上をチョウゲンボウが舞う", "box.mbox": MBOX})
    b = write_texts(tmp_path / "b", {"m.txt": "a meadow on another desk"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-b") as other:
        other.add_folder(b)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as lib:
        lib.add_folder(a)
        before = {m: hits(lib, "kestrels meadow", m) for m in ("lexical", "dense", "hybrid")}
        status = lib.summary()
        words = word_rows(pg_server, pg_address)
        assert all(words)  # the words, and the CJK text's characters where the library keeps them
        assert lib.remove_folder(a, undoable=True) == 5  # files on disk: its two messages are the mailbox's
        assert [Path(h[0]).parent.name for h in hits(lib, "kestrels meadow", "lexical")] == ["b"]
        passages_a = next(c for m, _, _, c, _ in status.roots if m == "desk-a")
        assert kept_rows(pg_server, pg_address)[:3] == [1, 7, passages_a] and passages_a > 7
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as lib:  # a later process
        assert lib.undo_remove() == (str(a), 5)
        assert word_rows(pg_server, pg_address) == words
        assert {m: hits(lib, "kestrels meadow", m) for m in before} == before
        after = lib.summary()
        assert (after.files, after.passages, after.embedded, after.roots) == (
            status.files, status.passages, status.embedded, status.roots)
        with pytest.raises(SearchAppError, match=r"nothing to undo: no folder of this machine \(desk-a\)"):
            lib.undo_remove()  # one Undo per Remove
    assert kept_rows(pg_server, pg_address) == [0] * len(KEPT)


def test_undo_is_the_removing_machines_only_and_lasts_a_minute(config, tiny_encoder, tmp_path, pg_server,
                                                               pg_address):
    docs = write_texts(tmp_path / "docs", {"a.txt": "otters slide down the bank"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as a:
        a.add_folder(docs)
        a.remove_folder(docs, undoable=True)
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-b") as b:
        with pytest.raises(SearchAppError, match=r"nothing to undo: no folder of this machine \(desk-b\)"):
            b.undo_remove()
        assert b.summary().files == 0
    assert kept_rows(pg_server, pg_address)[:2] == [1, 1]  # still desk-a's to undo
    pg_server.admin("UPDATE removed_roots SET removed_at = removed_at - 61", database=database_of(pg_address))
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as a:
        with pytest.raises(SearchAppError, match=r"too late to undo the remove of .*docs \(Undo lasts 60 s\)"):
            a.undo_remove()
        assert a.summary().files == 0
    assert kept_rows(pg_server, pg_address) == [0] * len(KEPT)  # its text is not kept past the minute


def test_any_machines_undo_forgets_every_expired_removal(config, tiny_encoder, tmp_path, pg_server, pg_address):
    """Decision 0135: the next Undo of any machine deletes the kept removals past their minute, whoever made
    them, also an Undo that has nothing of its own to put back."""
    db = database_of(pg_address)
    docs_a, docs_b = write_texts(tmp_path / "a", {"a.txt": "otters slide"}), write_texts(tmp_path / "b", {"b.txt": "voles dig"})
    a = SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a")
    b = SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-b")
    try:
        a.add_folder(docs_a)
        a.remove_folder(docs_a, undoable=True)
        pg_server.admin("UPDATE removed_roots SET removed_at = removed_at - 61", database=db)
        with pytest.raises(SearchAppError, match=r"nothing to undo: no folder of this machine \(desk-b\)"):
            b.undo_remove()
        assert kept_rows(pg_server, pg_address) == [0] * len(KEPT)  # desk-a's expired text is gone

        b.add_folder(docs_b)
        b.remove_folder(docs_b, undoable=True)
        a.add_folder(docs_a)
        a.remove_folder(docs_a, undoable=True)
        pg_server.admin("UPDATE removed_roots SET removed_at = removed_at - 61 WHERE machine = 'desk-a'", database=db)
        assert kept_rows(pg_server, pg_address)[:2] == [2, 2]
        assert b.undo_remove()[1] == 1 and b.summary().files == 1
        assert kept_rows(pg_server, pg_address) == [0] * len(KEPT)  # desk-b's put back, desk-a's expired one gone
    finally:
        a.close()
        b.close()


def test_undo_refuses_when_the_folder_was_indexed_again(config, tiny_encoder, tmp_path, pg_server, pg_address):
    docs = write_texts(tmp_path / "docs", {"a.txt": "badgers dig at night"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        lib.remove_folder(docs, undoable=True)
        lib.add_folder(docs)
        with pytest.raises(SearchAppError, match="was indexed again since it was removed; `searchapp index"):
            lib.undo_remove()
        assert lib.summary().files == 1
    assert kept_rows(pg_server, pg_address) == [0] * len(KEPT)


def test_a_role_that_may_not_write_is_refused_undo_and_reindex(config, tiny_encoder, tmp_path, pg_server,
                                                              pg_address):
    docs = write_texts(tmp_path / "docs", {"a.txt": "wrens nest in the ivy"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        lib.remove_folder(docs, undoable=True)
    with SharedLibrary(config, read_only(pg_server, pg_address), encoder=tiny_encoder) as lib:
        for act in (lib.undo_remove, lib.reindex):
            with pytest.raises(StoreError, match="may not write the shared library .*nothing was changed") as err:
                act()
            assert "\n" not in str(err.value)
    assert kept_rows(pg_server, pg_address)[:2] == [1, 1]


def test_reindex_reads_the_files_again_and_resumes_after_a_kill(config, tiny_encoder, tmp_path, pg_server,
                                                                pg_address, monkeypatch):
    """A file changed without a new size or mtime is found again by a reindex only. The server ends the
    reindex's connection in its third batch (what it sees of a killed machine): the whole batches are kept,
    searches still find every file (old passages until new ones are in), and the next reindex reads only the
    files left; another machine's files are never read."""
    monkeypatch.setattr(words_pass, "BATCH_FILES", 2)
    docs = write_texts(tmp_path / "docs", {f"n{i:02}.txt": f"note {i} about topic{i} and lanterns" for i in range(9)})
    other = write_texts(tmp_path / "other", {"x.txt": "lanterns on another desk"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-b") as b:
        b.add_folder(other)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as lib:
        lib.add_folder(docs)
    quiet = docs / "n00.txt"
    st = quiet.stat()
    quiet.write_text("note 0 about walrus0 and lanterns", encoding="utf-8")  # same length
    os.utime(quiet, ns=(st.st_atime_ns, st.st_mtime_ns))
    calls: list[int] = []
    insert = PgStore.insert_chunks_of

    def cut_in_batch_three(store, rows):
        calls.append(len(rows))
        if len(calls) == 3:
            pg_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND "
                            "pid <> pg_backend_pid()", params=(database_of(pg_address),))
        return insert(store, rows)

    monkeypatch.setattr(PgStore, "insert_chunks_of", cut_in_batch_three)
    lib = SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a")
    with pytest.raises(StoreError, match="lost the connection"):
        lib.reindex()
    lib.close()
    monkeypatch.setattr(PgStore, "insert_chunks_of", insert)
    db = database_of(pg_address)
    left = pg_server.admin("SELECT count(*) FROM files WHERE size = -1", database=db)[0][0]
    assert left == 9 - 4  # two whole batches of two files read again; the cut one and the rest still marked
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as lib:
        assert len(lib.search("lanterns", mode="lexical", k=20).hits) == 10
        with pytest.raises(SearchAppError):  # the other desk's reindex does not touch desk-a's marks
            SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-c").reindex()
        rep = lib.reindex()
        resumed = rep.resumed
        assert resumed == left and rep.added + rep.updated == left and rep.unchanged == 9 - left
        assert pg_server.admin("SELECT count(*) FROM files WHERE size = -1", database=db) == [(0,)]
        assert pg_server.admin("SELECT count(*) FROM meta WHERE key LIKE 'reindex:%%'", database=db) == [(0,)]
        assert [Path(h.path).name for h in lib.search("walrus0", mode="lexical").hits] == ["n00.txt"]
        assert lib.store.pending_count() == 0 and lib.summary().files == 10
        rep = lib.reindex()  # a finished reindex: the next one reads every file again
        resumed = rep.resumed
        assert resumed is None and rep.added + rep.updated == 9 and rep.unchanged == 0
    assert pg_server.admin("SELECT count(*) FROM files WHERE machine = 'desk-b' AND size = -1", database=db) == [(0,)]


def test_an_index_finishes_an_interrupted_reindex(config, tiny_encoder, tmp_path, pg_address):
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken

    docs = write_texts(tmp_path / "docs", {f"n{i}.txt": f"herring number {i}" for i in range(3)})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        token = CancelToken()
        token.cancel()
        with pytest.raises(Cancelled):
            lib.reindex(cancel=token)
        assert lib.store.get_meta(f"reindex:{lib.store.machine}") == "3"
        rep = lib.sync()
        assert rep.added + rep.updated == 3 and lib.store.get_meta(f"reindex:{lib.store.machine}") is None


def test_reindex_with_another_model_is_refused_with_the_reason(make_config, tiny_encoder, tmp_path, pg_address,
                                                               packaged_model_dir):
    from tiny_models import build_tiny_bert
    from searchapp.models import BiEncoder

    docs = write_texts(tmp_path / "docs", {"a.txt": "herons wade in the shallows"})
    with SharedLibrary(make_config(models={"reranker": ""}), pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
    other_dir = build_tiny_bert(tmp_path / "other", packaged_model_dir, seed=1)
    other = BiEncoder(str(other_dir), device="cpu", precision="fp32", threads=1)
    config = make_config(models={"reranker": "", "bi_encoder": str(other_dir)})
    with SharedLibrary(config, pg_address, encoder=other) as lib:
        with pytest.raises(ModelMismatchError, match="the library was built with .*not there yet; nothing was") as err:
            lib.reindex()
        assert "run `searchapp reindex`" not in str(err.value)
        assert str(err.value).endswith("nothing was changed: set [models] and [chunking] in this desktop's config "
                                       "back to the library's (`status` shows them)")
        assert lib.store.get_meta(f"reindex:{lib.store.machine}") is None


def test_undo_is_refused_once_another_model_named_the_empty_library(make_config, tiny_encoder, tmp_path,
                                                                     pg_server, pg_address, packaged_model_dir):
    """A Remove that empties the library, then a desktop with another model syncs (an empty folder: it names its
    model all the same): the kept vectors are the old model's, so Undo is refused, not restored under the new
    model's name."""
    from tiny_models import build_tiny_bert
    from searchapp.models import BiEncoder

    docs = write_texts(tmp_path / "docs", {"a.txt": "herons wade in the shallows"})
    with SharedLibrary(make_config(models={"reranker": ""}), pg_address, create=True, encoder=tiny_encoder,
                       machine="desk-a") as lib:
        lib.add_folder(docs)
        lib.remove_folder(docs, undoable=True)
    other_dir = build_tiny_bert(tmp_path / "other", packaged_model_dir, seed=1)
    other = BiEncoder(str(other_dir), device="cpu", precision="fp32", threads=1)
    config = make_config(models={"reranker": "", "bi_encoder": str(other_dir)})
    with SharedLibrary(config, pg_address, encoder=other, machine="desk-b") as lib:
        lib.add_folder(write_texts(tmp_path / "empty", {}))
    with SharedLibrary(make_config(models={"reranker": ""}), pg_address, encoder=tiny_encoder,
                       machine="desk-a") as lib:
        with pytest.raises(SearchAppError, match="the shared library's model changed since"):
            lib.undo_remove()
        assert lib.summary().files == 0
    assert kept_rows(pg_server, pg_address) == [0] * len(KEPT)


def test_a_library_of_schema_4_is_migrated_by_its_first_remove(config, tiny_encoder, tmp_path, pg_server,
                                                               pg_address):
    docs = write_texts(tmp_path / "docs", {"a.txt": "voles run under the snow"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        for t in KEPT:
            lib.store.rows(f"DROP TABLE {t}")
        made_at_schema(lib.store, 4)
    with SharedLibrary(config, pg_address, encoder=tiny_encoder) as lib:  # `remove` opens without create
        assert lib.store.schema_version == 4
        with pytest.raises(SearchAppError, match="nothing to undo"):
            lib.undo_remove()  # a reader of schema 4 changes nothing
        assert lib.store.get_meta("shared_schema") == "4"
        lib.remove_folder(docs, undoable=True)
        assert lib.store.schema_version == SCHEMA_VERSION >= 5
        assert lib.store.get_meta("shared_schema_steps") == str(SCHEMA_VERSION)
        assert lib.undo_remove() == (str(docs), 1)
        assert [Path(h.path).name for h in lib.search("voles snow", mode="lexical").hits] == ["a.txt"]


def test_a_remove_kept_at_schema_7_is_undone_after_the_migration_to_ctimes(config, tiny_encoder, tmp_path,
                                                                           pg_address):
    """Schema 8 adds files.ctime_ns (decision 0150) to the removal's copy too: rows kept by a Remove before it are
    restored after it (a Remove keeps and restores rows with SELECT *)."""
    docs = write_texts(tmp_path / "docs", {"a.txt": "voles run under the snow"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        lib.remove_folder(docs, undoable=True)
        for table in ("files", "removed_files"):  # schema 7 as it was
            lib.store.rows(f"ALTER TABLE {table} DROP COLUMN ctime_ns")
        made_at_schema(lib.store, 7)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        assert lib.store.schema_version == SCHEMA_VERSION >= 8
        assert lib.undo_remove() == (str(docs), 1)
        assert [Path(h.path).name for h in lib.search("voles snow", mode="lexical").hits] == ["a.txt"]
        assert lib.store.file_by_path(str(docs / "a.txt")).ctime_ns is None  # not known: the next sync records it
        lib.sync(embed=False)
        assert lib.store.file_by_path(str(docs / "a.txt")).ctime_ns is not None


def test_a_library_of_schema_8_is_migrated_to_readers_and_read_once(config, tiny_encoder, tmp_path, pg_address):
    """Schema 9 adds files.reader (decision 0152), to the removal's copy too: a Remove kept before it is undone
    after it, its entries read once more by the next sync; an entry left waiting for OCR although skipped for
    another reason is let go."""
    from searchapp.store.ledger import set_ocr_state

    docs = write_texts(tmp_path / "docs", {"a.txt": "voles run under the snow"})
    other = write_texts(tmp_path / "other", {"b.txt": "herons by the weir"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        lib.add_folder(other, embed=False)
        with lib.store.atomic():
            b = lib.store.file_by_path(str(other / "b.txt"))
            lib.store.upsert_file(b.root_id, b.path, b.size, b.mtime_ns, b.sha256, "skipped", "file too large",
                                  b.kind, 0)
            set_ocr_state(lib.store, b.id, "pending")  # as a version before this one could leave it
        lib.remove_folder(docs, undoable=True)
        for table in ("files", "removed_files"):  # schema 8 as it was
            lib.store.rows(f"ALTER TABLE {table} DROP COLUMN reader")
        made_at_schema(lib.store, 8)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        assert lib.store.schema_version == SCHEMA_VERSION >= 9
        assert lib.store.file_by_path(str(other / "b.txt")).ocr is None
        assert lib.undo_remove() == (str(docs), 1)
        assert lib.store.file_by_path(str(docs / "a.txt")).reader is None
        rep = lib.sync(embed=False)
        assert rep.reread == 1 and lib.store.file_by_path(str(docs / "a.txt")).reader is not None
        assert lib.sync(embed=False).reread == 0
        # A searchapp of schema 8 may still open it (decision 0153), and what it writes of a file's new bytes
        # (every column but the reader) makes the row forget its reader: this version reads the file again.
        assert (lib.store.get_meta("shared_schema"), lib.store.get_meta("shared_schema_steps")) == ("8", "9")
        a = lib.store.file_by_path(str(docs / "a.txt"))
        with lib.store.atomic():
            lib.store.rows("UPDATE files SET sha256 = 'other', size = 1 WHERE id = %s", (a.id,))
        assert lib.store.file_by_path(str(docs / "a.txt")).reader is None
        with lib.store.atomic():  # this version's own write of new bytes keeps the reader it read them with
            lib.store.upsert_file(a.root_id, a.path, 2, 2, "again", "indexed", None, a.kind, 0, reader=5)
        assert lib.store.file_by_path(str(docs / "a.txt")).reader == 5
        with lib.store.atomic():  # edited again, read by the same reader: the trigger's forgetting is undone
            lib.store.upsert_file(a.root_id, a.path, 3, 3, "edited", "indexed", None, a.kind, 0, reader=5)
        assert lib.store.file_by_path(str(docs / "a.txt")).reader == 5
