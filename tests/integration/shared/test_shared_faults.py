"""A shared library under hostile input and faults: SQL in every typed field, the server going away mid-sync,
a role without write rights, a second writer, another model, a library made by a newer version, two machines."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest

from searchapp.base.errors import ConnectionLost, ModelMismatchError, StoreError
from searchapp.library.sync import words_pass
from searchapp.library.shared import WRITER_LOCK, SharedLibrary
from searchapp.store.postgres.pg_store import PgStore
from searchapp.store.postgres.schema import SCHEMA_VERSION
from corpus import write_texts
from pg_server import database_of, made_at_schema

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

HOSTILE = ["'; DROP TABLE files; --", 'x" OR 1=1 --', "%s %(x)s ?", "$1 $$; SELECT 1; $$", "\\'; \\x00"]


@pytest.fixture
def config(make_config):
    return make_config(models={"reranker": ""})


def table_counts(pg_server, address: str) -> tuple[int, int, int]:
    db = database_of(address)
    return tuple(pg_server.admin("SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks), "
                                 "(SELECT count(*) FROM postings)", database=db)[0])


def test_sql_in_names_texts_and_queries_is_only_text(config, tiny_encoder, tmp_path, pg_server, pg_address):
    """File names, passages and queries full of SQL are stored and searched as text: every table stays, the
    hostile file is found by its words, and a hostile query is just words (or nothing to search)."""
    texts = {f"{i} {name}.txt".replace("/", "_"): f"quince marmalade number {i}: {name}" for i, name in enumerate(HOSTILE)}
    texts["plain.txt"] = "a plain note about walnut bread"
    docs = write_texts(tmp_path / "docs", texts)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs)
        assert rep.added == len(texts) and rep.failed == 0
        files, chunks, postings = table_counts(pg_server, pg_address)
        assert files == len(texts) and chunks >= len(texts) and postings > 0
        for q in HOSTILE + ["quince OR 1=1", "'", "?", "%"]:
            for mode in ("lexical", "hybrid"):
                lib.search(q, mode=mode, literal=True)  # no error, whatever it finds
        found = {Path(h.path).name for h in lib.search("quince marmalade", mode="lexical", k=20).hits}
        assert found == {n for n in texts if n != "plain.txt"}
        top = lib.search("DROP TABLE files", mode="lexical", literal=True).hits
        assert Path(top[0].path).name == "0 '; DROP TABLE files; --.txt"
        # The same text through the query language (decision 0133): phrases, exclusions, OR, prefixes and fields
        # carry it as values; quoted, it is a phrase of its words.
        for h in HOSTILE:
            for q in (f'"{h}"', f'-"{h}" quince', f'quince OR "{h}"', f'name:"{h}" quince', f'in:"{h}"',
                      f'type:"{h}" quince', f"{h} -walnut drop*"):
                for mode in ("lexical", "hybrid"):
                    lib.search(q, mode=mode)  # no error, whatever it finds
        hostile = "0 '; DROP TABLE files; --.txt"
        assert [Path(h.path).name for h in lib.search('"DROP TABLE files"', mode="lexical").hits] == [hostile]
        assert hostile not in {Path(h.path).name for h in lib.search('quince -"drop table"', k=20, mode="lexical").hits}
        assert [Path(h.path).name for h in lib.search('name:"DROP TABLE" quince', mode="lexical").hits] == [hostile]
    assert table_counts(pg_server, pg_address) == (files, chunks, postings)


def test_connection_lost_mid_sync_keeps_whole_batches(config, tiny_encoder, tmp_path, pg_server, pg_address,
                                                      monkeypatch):
    """The server ends the writer's connection in the middle of a batch (its files written, not yet their
    passages): one StoreError line; every file stored is stored whole (its passages and their words), the cut
    batch is not there at all, and the next sync finishes the rest."""
    monkeypatch.setattr(words_pass, "BATCH_FILES", 2)
    docs = write_texts(tmp_path / "docs", {f"n{i:02}.txt": f"note {i} about topic{i} and lanterns" for i in range(9)})
    db = database_of(pg_address)
    calls = []
    insert = PgStore.insert_chunks_of

    def cut_in_batch_three(store, rows):
        calls.append(len(rows))
        if len(calls) == 3:
            pg_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND "
                            "pid <> pg_backend_pid()", params=(db,))
        return insert(store, rows)

    monkeypatch.setattr(PgStore, "insert_chunks_of", cut_in_batch_three)
    lib = SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder)
    with pytest.raises(StoreError, match="lost the connection to the shared library .*nothing of the batch"):
        lib.add_folder(docs)
    lib.close()
    monkeypatch.setattr(PgStore, "insert_chunks_of", insert)
    files, chunks, postings = table_counts(pg_server, pg_address)
    assert files == 4  # two whole batches of two files; nothing of the third
    bad = pg_server.admin("SELECT f.path FROM files f LEFT JOIN chunks c ON c.file_id = f.id GROUP BY f.id "
                          "HAVING count(c.id) <> f.n_chunks", database=db)
    assert bad == []
    assert pg_server.admin("SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM postings p WHERE "
                           "p.chunk_id = c.id)", database=db) == [(0,)]
    with SharedLibrary(config, pg_address, encoder=tiny_encoder) as again:
        rep = again.sync()
        assert rep.added == 9 - files and again.store.pending_count() == 0
        assert len(again.search("lanterns", mode="lexical", k=20).hits) == 9


def test_role_without_write_rights_searches_but_cannot_sync(config, tiny_encoder, tmp_path, pg_server, pg_address):
    docs = write_texts(tmp_path / "docs", {"a.txt": "copper kettles whistle on the stove"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
    db = database_of(pg_address)
    pg_server.admin("DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    pg_server.admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", database=db)
    reader = pg_server.address(db, user="reader")
    with SharedLibrary(config, reader, encoder=tiny_encoder) as lib:
        assert Path(lib.search("copper kettle", mode="hybrid").hits[0].path).name == "a.txt"
        (docs / "b.txt").write_text("brass bells", encoding="utf-8")
        with pytest.raises(StoreError, match="may not write the shared library"):
            lib.sync()
    assert table_counts(pg_server, pg_address)[0] == 1


def test_a_role_that_may_not_read_or_create_is_told_which_right_it_lacks(config, tiny_encoder, tmp_path, pg_server,
                                                                        pg_address):
    """A denied search says the role may not read (not "searches work"); a database where the role may not create
    tables, with no library yet, says the library cannot be made there and which grant makes it."""
    docs = write_texts(tmp_path / "docs", {"a.txt": "copper kettles whistle on the stove"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
    pg_server.admin("DO $$ BEGIN CREATE ROLE stranger LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    stranger = pg_server.address(database_of(pg_address), user="stranger")  # no grant at all
    with pytest.raises(StoreError) as err:
        with SharedLibrary(config, stranger, encoder=tiny_encoder) as lib:
            lib.search("copper", mode="lexical")
    said = str(err.value)
    assert "may not read the shared library" in said and "GRANT SELECT" in said and "searches work" not in said

    empty = pg_server.new_database()  # PostgreSQL 15 and later: only the database's owner creates in public
    with pytest.raises(StoreError) as err:
        SharedLibrary(config, pg_server.address(empty, user="stranger"), create=True, encoder=tiny_encoder)
    said = str(err.value)
    assert "cannot be created" in said and "searches work" not in said and len(said.splitlines()) == 1
    assert said.endswith("grant CREATE on schema public to the role, or make it the database's owner")


def test_role_without_write_rights_opens_an_older_library_as_the_window_does(config, tiny_encoder, tmp_path,
                                                                            pg_server, pg_address):
    """The window opens a library with `create` (it may index); a role that only reads cannot migrate an older
    library, so it reads it as it is instead of failing to open it, and a writer migrates it later."""
    docs = write_texts(tmp_path / "docs", {"a.txt": "copper kettles whistle on the stove"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        made_at_schema(lib.store, SCHEMA_VERSION - 1)  # made by the searchapp before this one
        lib.store.rows("DROP TRIGGER files_reader_unknown ON files")  # and as its tables were (schema 9 added these)
        for table in ("files", "removed_files"):
            lib.store.rows(f"ALTER TABLE {table} DROP COLUMN reader")
    db = database_of(pg_address)
    pg_server.admin("DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    pg_server.admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", database=db)
    with SharedLibrary(config, pg_server.address(db, user="reader"), create=True, encoder=tiny_encoder) as lib:
        assert lib.read_only and lib.store.schema_version == SCHEMA_VERSION - 1
        assert Path(lib.search("copper kettle", mode="lexical").hits[0].path).name == "a.txt"
        # what reads its files' rows, too (they named a column the older table lacks)
        assert lib.explain(str(docs / "a.txt"))["state"] == "indexed"
        assert lib.status(wait_for_meaning=False).files == {"indexed": 1} and len(lib.ledger()) == 1
        with pytest.raises(StoreError, match="may not write the shared library"):
            lib.sync()
    # A role that writes rows but does not own the tables may not alter them either: it opens the library too.
    pg_server.admin("DO $$ BEGIN CREATE ROLE clerk LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    pg_server.admin("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO clerk", database=db)
    with SharedLibrary(config, pg_server.address(db, user="clerk"), create=True, encoder=tiny_encoder) as lib:
        assert not lib.read_only and lib.store.schema_version == SCHEMA_VERSION - 1
        assert Path(lib.search("copper kettle", mode="lexical").hits[0].path).name == "a.txt"
        # It writes nothing into the older tables (a column or table they lack would fail it halfway)
        with pytest.raises(StoreError, match="only the role that owns its tables may bring it up to date"):
            lib.sync()
        with pytest.raises(StoreError, match="only the role that owns its tables"):
            lib.add_folder(write_texts(tmp_path / "more", {"b.txt": "brass bells"}))
    assert table_counts(pg_server, pg_address)[0] == 1
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as writer:
        assert writer.store.schema_version == SCHEMA_VERSION


def test_one_writer_per_root_and_no_lock_outlives_its_process(config, tiny_encoder, tmp_path, pg_server,
                                                              pg_address):
    """A second writer of a root is refused in one line while another session holds that root's lock; the lock
    is gone with that session."""
    docs = write_texts(tmp_path / "docs", {"a.txt": "owls hunt at dusk"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        root_id = lib.store.add_root(str(docs))
        holder = psycopg.connect(pg_address, autocommit=True)  # another process of this machine, mid-sync
        holder.execute("SELECT pg_advisory_lock(%s, %s)", (WRITER_LOCK, root_id))
        with pytest.raises(StoreError, match=f"another process is syncing {docs} in the shared library"):
            lib.add_folder(docs)
        assert table_counts(pg_server, pg_address)[0] == 0
        holder.close()  # that process ends (killed or not): the server lets go of its lock
        held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s"
        for _ in range(2400):  # its backend exits just after the client closes: wait for that, not for a clock
            if pg_server.admin(held, params=(WRITER_LOCK, root_id)) == [(0,)]:
                break
            time.sleep(0.05)
        assert lib.add_folder(docs).added == 1
        assert pg_server.admin(held, params=(WRITER_LOCK, root_id)) == [(0,)]  # let go after the sync


def test_another_model_is_refused_with_the_reason(make_config, tiny_encoder, tmp_path, pg_address,
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
        assert lib.search("herons", mode="lexical").hits  # words need no model
        with pytest.raises(ModelMismatchError):
            lib.search("herons", mode="dense")
        with pytest.raises(ModelMismatchError):
            lib.sync()


def test_a_library_from_a_newer_version_is_refused_untouched(config, pg_server, pg_address):
    SharedLibrary(config, pg_address, create=True).close()
    db = database_of(pg_address)
    pg_server.admin("UPDATE meta SET value = '99' WHERE key = 'shared_schema'", database=db)
    with pytest.raises(StoreError, match="made by a newer searchapp .*nothing was changed"):
        SharedLibrary(config, pg_address, create=True)
    assert pg_server.admin("SELECT value FROM meta WHERE key = 'shared_schema'", database=db) == [("99",)]


def test_two_machines_keep_their_own_roots_at_one_path(config, tiny_encoder, tmp_path, pg_address):
    """Two desktops index a folder at the same path (each its own disk): two roots, both searched."""
    docs = write_texts(tmp_path / "docs", {"a.txt": "plums ripen in august"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as a:
        a.add_folder(docs)
    (docs / "a.txt").write_text("pears ripen in september", encoding="utf-8")
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-b") as b:
        assert b.add_folder(docs).added == 1  # not desk-a's row: a file of its own
        st = b.summary()
        assert [(m, f) for m, _, f, *_ in st.roots] == [("desk-a", 1), ("desk-b", 1)]
        assert len(b.search("ripen", mode="lexical").hits) == 2
        assert b.sync().unchanged == 1  # desk-b syncs its own root only


def test_server_gone_mid_search_is_one_line_then_the_next_search_reconnects(config, tiny_encoder, tmp_path,
                                                                            pg_server, pg_address):
    """A long-lived library whose connection the server ends: the search in flight is one StoreError line, the
    next one connects again and answers (decision 0125)."""
    docs = write_texts(tmp_path / "docs", {"a.txt": "moths circle the lamp"})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        for mode in ("lexical", "hybrid"):
            pg_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND "
                            "pid <> pg_backend_pid()", params=(database_of(pg_address),))
            with pytest.raises(StoreError, match="^lost the connection to the shared library postgresql://") as err:
                lib.search("moths", mode=mode)
            assert "\n" not in str(err.value)
            assert Path(lib.search("moths", mode=mode).hits[0].path).name == "a.txt"
        (docs / "b.txt").write_text("lamps draw moths at night", encoding="utf-8")
        assert lib.sync().added == 1  # and writes again


def test_no_new_connection_inside_a_transaction(config, pg_server, pg_address):
    """A statement after the connection was lost inside a transaction fails too, rather than running on a new
    connection outside the transaction (half a batch written); the next request after it connects again."""
    SharedLibrary(config, pg_address, create=True).close()
    store = PgStore(pg_address)
    try:
        with pytest.raises(StoreError, match="lost the connection"):
            with store.atomic():
                store.set_meta("first", "1")
                pg_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND "
                                "pid <> pg_backend_pid()", params=(database_of(pg_address),))
                with pytest.raises(StoreError, match="lost the connection"):
                    store.set_meta("second", "2")
                store.set_meta("third", "3")  # a caller that went on: must not be written
        assert (store.get_meta("first"), store.get_meta("second"), store.get_meta("third")) == (None, None, None)
    finally:
        store.close()


def test_batches_written_beside_the_reading_stay_whole_and_in_order(config, tiny_encoder, tmp_path, pg_address,
                                                                    monkeypatch):
    """A shared sync commits each full batch on its writer thread while it reads the next (sync/batches.py), with
    the batch's words made ahead on the sync's thread (PgStore.prepare_words). An entry that cannot be stored in
    a batch in flight fails alone, as in a batch written at once; every other file is stored whole and found,
    and each batch's words were made ahead."""
    import threading

    monkeypatch.setattr(words_pass, "BATCH_FILES", 2)
    texts = {f"n{i:02}.txt": f"note {i} about topic{i} and lanterns" for i in range(9)}
    texts["n04.txt"] = "note 4 about poison and lanterns"
    docs = write_texts(tmp_path / "docs", texts)
    insert, take = PgStore.insert_chunks_of, PgStore._take_prepared
    threads, ahead = [], []

    def poisoned(store, rows):
        threads.append(threading.current_thread().name)
        if any("poison" in c.text for _, c in rows):
            raise ValueError("poisoned passage")
        return insert(store, rows)

    def taken(store, texts):
        got = take(store, texts)
        ahead.append(got is not None)
        return got

    monkeypatch.setattr(PgStore, "insert_chunks_of", poisoned)
    monkeypatch.setattr(PgStore, "_take_prepared", taken)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        failed = {Path(row.path).name: row.error for _state, row in lib.ledger("failed")}
        assert failed == {"n04.txt": "internal error: ValueError: poisoned passage"}
        assert rep.added == 8
        for i in (0, 3, 5, 8):  # before, beside and after the poisoned batch
            assert [Path(h.path).name for h in lib.search(f"topic{i}", mode="lexical").hits] == [f"n{i:02}.txt"]
    assert any(name.startswith("batch-writer") for name in threads)  # full batches went to the writer thread
    assert ahead.count(True) >= 3  # the full batches' words were made ahead (the last, flushed at once, is not)


def test_words_made_ahead_that_fail_blame_no_file(config, tiny_encoder, tmp_path, pg_address, monkeypatch):
    """Making a batch's words ahead is only a head start: when it fails, the batch makes its own inside its
    transaction, and no file read meanwhile is recorded as failed for it."""
    monkeypatch.setattr(words_pass, "BATCH_FILES", 2)
    docs = write_texts(tmp_path / "docs", {f"n{i:02}.txt": f"note {i} about topic{i} and lanterns" for i in range(7)})

    def broken(store, texts):
        raise ValueError("no words ahead")

    monkeypatch.setattr(PgStore, "prepare_words", broken)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert rep.added == 7 and rep.failed == 0 and lib.ledger("failed") == []
        assert len(lib.search("lanterns", mode="lexical", k=20).hits) == 7


def test_a_database_without_pgvector_names_a_superuser_to_create_it(pg_server):
    """pgvector is not a trusted extension: the database's owner running CREATE EXTENSION is refused ("Must be
    superuser"), as a tester found following the old advice. The message names a superuser, and how."""
    pg_server.admin("DO $$ BEGIN CREATE ROLE team LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    name = pg_server.new_database(with_vector=False)
    try:
        pg_server.admin(f'ALTER DATABASE "{name}" OWNER TO team')
        with pytest.raises(StoreError) as refused:
            PgStore(pg_server.address(name, user="team"), create=True)
        said = str(refused.value)
        assert "lacks pgvector" in said and "superuser" in said and "CREATE EXTENSION vector" in said
        assert f"sudo -u postgres psql -d {name} -c 'CREATE EXTENSION vector'" in said
        assert pg_server.admin("SELECT count(*) FROM pg_extension WHERE extname = 'vector'", database=name) == [(0,)]
    finally:
        pg_server.drop_database(name)


@pytest.mark.parametrize("which", ["database", "role"])
def test_a_database_or_role_refused_at_connect_is_no_lost_connection(pg_server, which):
    """A reviewer's: libpq's connect errors carry no SQL state, so a database or role that does not exist was a
    ConnectionLost, and `search -` asked every line again for 15 s (decision 0171: a refusal is a StoreError)."""
    addr = pg_server.address("no_such_db") if which == "database" else pg_server.address("postgres", user="no_such_role")
    with pytest.raises(StoreError) as got:
        PgStore(addr)
    assert not isinstance(got.value, ConnectionLost), str(got.value)


def test_a_statement_timeout_is_an_error_not_a_lost_connection(pg_server):
    """A server's statement_timeout (SQL state 57014) said "lost the connection … the next request connects
    again" and, as a ConnectionLost, cost a `search -` line 15 s of asking again."""
    addr = pg_server.address(pg_server.new_database())
    PgStore(addr, create=True, machine="m").close()
    store = PgStore(addr + "&options=-c%20statement_timeout%3D50", machine="m")
    try:
        with pytest.raises(StoreError) as got:
            store.rows("SELECT pg_sleep(1)", ())
        assert not isinstance(got.value, ConnectionLost) and "lost the connection" not in str(got.value), got.value
        assert "statement timeout" in str(got.value)
        assert store.rows("SELECT 1", ()) == [(1,)]  # the connection is fine
    finally:
        store.close()
