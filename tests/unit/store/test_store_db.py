"""Store's named reads and writes (store/db.py, vector_queue.py) and its schema (migrations.py), on a real SQLite
file in tmp_path."""

from __future__ import annotations

import os
import sqlite3
import time

import numpy as np
import pytest

from searchapp.base.errors import StoreError
from searchapp.base.member_paths import MEMBER_SEP
from searchapp.store import SCHEMA_VERSION, NewChunk, Store, fts_query, migrate
from searchapp.store.migrations import MIGRATIONS, OPENED_BY_OLDER, schema_steps
from searchapp.store.shelf import SHELF_DAYS
from store_files import new_store, put_file


@pytest.fixture
def lib(tmp_path):
    store, root = new_store(tmp_path)
    yield store, root
    store.close()


# -- schema -------------------------------------------------------------------------------------------------

def test_a_new_file_is_at_the_newest_schema_with_wal(tmp_path):
    store = Store(tmp_path / "sub" / "library.sqlite")  # its folder is created
    try:
        assert schema_steps(store.conn) == SCHEMA_VERSION == len(MIGRATIONS)
        # the oldest schema whose searchapp may open it (decision 0153)
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == OPENED_BY_OLDER.get(SCHEMA_VERSION,
                                                                                              SCHEMA_VERSION)
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
        assert {"roots", "files", "chunks", "chunks_fts", "chunks_cjk", "chunk_spans", "chunks_unembedded"} <= tables
        cols = {r[1] for r in store.conn.execute("PRAGMA table_info(files)")}
        assert {"date_ns", "ocr", "embed_title", "ocr_pages"} <= cols
    finally:
        store.close()


def test_migrate_steps_from_an_older_version_and_refuses_a_newer_one(tmp_path):
    conn = sqlite3.connect(tmp_path / "old.sqlite", isolation_level=None)
    conn.create_function("cjk_chars", 1, lambda t: "", deterministic=True)
    conn.executescript(f"BEGIN;{MIGRATIONS[0]}PRAGMA user_version = 1;COMMIT;")
    conn.execute("INSERT INTO roots(path, added_at) VALUES ('/r', 0)")
    assert migrate(conn) == SCHEMA_VERSION
    assert schema_steps(conn) == SCHEMA_VERSION
    assert conn.execute("SELECT path FROM roots").fetchall() == [("/r",)]  # kept across the steps
    assert migrate(conn) == SCHEMA_VERSION  # nothing left to do
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer searchapp"):
        migrate(conn)
    conn.close()


def test_a_failed_step_leaves_the_previous_version(tmp_path):
    conn = sqlite3.connect(tmp_path / "half.sqlite", isolation_level=None)
    conn.create_function("cjk_chars", 1, lambda t: "", deterministic=True)
    conn.executescript(f"BEGIN;{MIGRATIONS[0]}PRAGMA user_version = 1;COMMIT;")
    conn.execute("CREATE TABLE chunk_spans (x)")  # step 3 creates this table: it fails there
    with pytest.raises(StoreError, match="schema migration 3 failed"):
        migrate(conn)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2 and not conn.in_transaction
    conn.close()


def test_a_file_that_is_not_a_database_is_one_line_on_how_to_recover(tmp_path):
    bad = tmp_path / "library.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="is damaged .* move it aside"):
        Store(bad)


def test_readonly_opens_without_writing(tmp_path):
    store, root = new_store(tmp_path)
    put_file(store, root, "/r/a.txt", ["alpha"])
    store.close()
    ro = Store(tmp_path / "library.sqlite", readonly=True)
    try:
        assert ro.chunk_count() == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            ro.conn.execute("DELETE FROM chunks")
    finally:
        ro.close()


# -- meta, roots, files -------------------------------------------------------------------------------------

def test_meta_and_generation(lib):
    store, _ = lib
    assert store.get_meta("model") is None and store.generation() == 0
    with store.atomic():
        store.set_meta("model", "m1")
        assert store.bump_generation() == 1
        assert store.bump_generation() == 2
    assert store.generation() == 2 and store.get_meta("model") == "m1"
    assert set(store.meta()) == {"model", "generation", "schema"}  # schema: the migration steps taken (0153)


def test_a_write_that_fails_inside_atomic_keeps_what_came_before(lib):
    store, root = lib
    put_file(store, root, "/r/kept.txt", ["kept"])
    with pytest.raises(RuntimeError):
        with store.atomic():
            store.upsert_file(root, "/r/lost.txt", 1, 1, None, "indexed", None, "txt", 0)
            raise RuntimeError("midway")
    assert store.file_by_path("/r/lost.txt") is None and store.file_by_path("/r/kept.txt") is not None


def test_roots_add_once_list_by_path_and_delete_with_their_passages(lib):
    store, root = lib
    with store.atomic():
        assert store.add_root("/r") == root  # the same path: the same root
        other = store.add_root("/a")
    assert [r.path for r in store.roots()] == ["/a", "/r"]
    assert store.root_by_path("/a").id == other and store.root_by_path("/nope") is None
    assert store.roots()[1].last_sync is None
    with store.atomic():
        store.touch_root(root)
    assert store.root_by_path("/r").last_sync is not None
    put_file(store, root, "/r/x.txt", ["one", "two"])
    kept = put_file(store, other, "/a/y.txt", ["three"])
    assert store.root_counts(root) == (1, 0, 2) and store.has_files(root)
    with store.atomic():
        removed = store.delete_root(root)
    assert len(removed) == 2 and store.chunks(removed) == {}
    assert [r.path for r in store.roots()] == ["/a"] and store.chunk_ids_of_file(kept) != []
    assert store.root_counts(root) == (0, 0, 0) and not store.has_files(root)


def test_absorb_roots_moves_files_to_the_outer_root(lib):
    store, root = lib
    with store.atomic():
        inner = store.add_root("/r/in")
    fid = put_file(store, inner, "/r/in/a.txt", ["alpha"])
    with store.atomic():
        store.absorb_roots(root, [inner])
    assert store.root_by_path("/r/in") is None and set(store.files_of_root(root)) == {"/r/in/a.txt"}
    assert store.chunk_ids_of_file(fid) != []  # passages stay


def test_counts_keep_files_on_disk_and_members_apart(lib):
    """`status`'s counts (decision 0163): a member's key holds MEMBER_SEP after its first character; a path that
    starts with it (a POSIX `//` root) is a file on disk, and a member of a member is one member."""
    store, root = lib
    zipped = "/r/a.zip" + MEMBER_SEP
    for path in ("/r/a.zip", zipped + "x.txt", zipped + "in.zip" + MEMBER_SEP + "y.txt", "//host/r/b.txt"):
        put_file(store, root, path, ["t"])
    with store.atomic():
        store.upsert_file(root, zipped + "bad.pdf", 1, 1, None, "failed", "broken", "pdf", 0)
    assert store.root_counts(root) == (2, 3, 4)
    assert store.file_counts()[:2] == ({"indexed": 2}, {"indexed": 2, "failed": 1})


def test_files_under_and_below_are_range_scans_on_the_separator(lib):
    store, root = lib
    for p in ("/r/a", "/r/a/x.txt", "/r/a/b/y.txt", "/r/ab.txt", "/r/a0.txt"):
        put_file(store, root, p.replace("/", os.sep), ["t"])
    sep = os.sep
    assert set(store.files_under(root, f"{sep}r{sep}a")) == {f"{sep}r{sep}a", f"{sep}r{sep}a{sep}x.txt",
                                                            f"{sep}r{sep}a{sep}b{sep}y.txt"}
    assert store.has_files_below(root, f"{sep}r{sep}a") and store.has_files_below(root, f"{sep}r{sep}a{sep}")
    assert not store.has_files_below(root, f"{sep}r{sep}ab.txt")


def test_upsert_updates_in_place_and_problem_files_list_the_rest(lib):
    store, root = lib
    with store.atomic():
        fid = store.upsert_file(root, "/r/a.txt", 10, 5, "h1", "indexed", None, "txt", 1)
        again = store.upsert_file(root, "/r/a.txt", 20, 2**70, "h2", "failed", "boom", "txt", 0)
        store.upsert_file(root, "/r/b.txt", 1, 1, None, "skipped", "too big", "txt", 0)
    row = store.file_by_path("/r/a.txt")
    assert again == fid and (row.size, row.sha256, row.status, row.error) == (20, "h2", "failed", "boom")
    assert row.mtime_ns < 2**63  # a date past int64 is clamped, never an overflow
    assert [(r.path, r.status) for r in store.problem_files()] == [("/r/a.txt", "failed"), ("/r/b.txt", "skipped")]
    assert store.file_counts() == ({"failed": 1, "skipped": 1}, {}, 0, 0, 0, 0)
    with store.atomic():
        store.set_file_stat(fid, 7, 8)
    assert (store.file_by_path("/r/a.txt").size, store.file_by_path("/r/a.txt").mtime_ns) == (7, 8)


def test_delete_file_and_forget_files(lib):
    store, root = lib
    a = put_file(store, root, "/r/a.txt", ["one", "two"])
    put_file(store, root, "/r/b.txt", ["three"])
    with store.atomic():
        gone = store.delete_file(a)
    assert len(gone) == 2 and store.file_by_path("/r/a.txt") is None and store.chunk_count() == 1
    assert store.search_lexical("one", 5) == []  # the FTS rows went with the passages (trigger)
    with store.atomic():
        store.forget_files()
    assert store.chunk_count() == 0 and store.file_paths() == {} and [r.path for r in store.roots()] == ["/r"]
    assert not store.has_chunks()


# -- passages and vectors -----------------------------------------------------------------------------------

def _chunk(i: int, text: str, vec, repeats=()) -> NewChunk:
    return NewChunk(i, i * 10, i * 10 + len(text), None, text, f"h-{text}", vec, tuple(repeats))


def test_vectors_skip_non_finite_and_waiting_rows(lib):
    store, root = lib
    with store.atomic():
        fid = store.upsert_file(root, "/r/a.txt", 1, 1, None, "indexed", None, "txt", 3)
        ids = store.insert_chunks(fid, [_chunk(0, "ok", np.ones(4, np.float32)),
                                        _chunk(1, "nan", np.full(4, np.nan, np.float32)),
                                        _chunk(2, "later", None)])
    got_ids, mat = store.vectors()
    assert got_ids.tolist() == [ids[0]] and mat.shape == (1, 4) and mat.dtype == np.float32
    assert store.vectors(ids[1:])[0].tolist() == []
    empty_ids, empty = store.vectors([], dim=4)
    assert empty_ids.tolist() == [] and empty.shape == (0, 4)
    assert set(store.vectors_by_hash(["h-ok", "h-nan", "h-later", "h-none"])) == {"h-ok"}
    assert store.chunk_ids().tolist() == ids and store.embedded_ids().tolist() == ids[:2]
    assert store.pending_count() == 1 and store.pending_with_hashes(["h-later", "h-ok"]) == {ids[2]: "h-later"}


def test_the_shelf_gives_vectors_back_by_hash_within_its_caps_and_only_for_its_model(lib):
    """Decision 0187: vectors shelved from deleted passages are found by their hash, taken off the shelf when a
    passage holds them again, the oldest pruned past the count, all past the days or once the model changed."""
    store, root = lib
    with store.atomic():
        fids = [store.upsert_file(root, f"/r/{t}.txt", 1, 1, None, "indexed", None, "txt", 1) for t in "abcd"]
        for fid, t in zip(fids, "abcd", strict=True):
            store.insert_chunks(fid, [_chunk(0, t, np.full(4, ord(t), np.float32))])
    with store.atomic():
        for fid in fids:  # in order: a is the oldest
            assert store.shelve_vectors(fid, root) == 1
            store.delete_file(fid)
    assert store.shelved_count() == 4 and store.vectors_by_hash(["h-a", "h-x"])["h-a"][0] == ord("a")
    assert store.prune_shelf(max_vectors=3) == 1 and set(store.vectors_by_hash(["h-a", "h-b"])) == {"h-b"}
    with store.atomic():  # a passage holding b's vector again: b is off the shelf
        fid = store.upsert_file(root, "/r/b2.txt", 1, 1, None, "indexed", None, "txt", 1)
        store.insert_chunks(fid, [_chunk(0, "b", store.vectors_by_hash(["h-b"])["h-b"])])
    assert store.shelved_count() == 2 and store.prune_shelf(now=time.time() + (SHELF_DAYS - 1) * 86400.0) == 0
    assert store.prune_shelf(now=time.time() + (SHELF_DAYS + 1) * 86400.0) == 2 and store.shelved_count() == 0
    with store.atomic():
        store.shelve_vectors(fid, root)
    store.set_meta("model", "another/model")  # b's vector is another model's meaning: never given back, pruned
    assert store.shelved_vectors(["h-b"]) == {} and store.prune_shelf() == 1 and store.shelved_count() == 0


def test_a_folder_an_older_version_removed_leaves_nothing_on_the_shelf_when_its_id_is_taken_again(lib):
    """Roots' ids are rowids: the version before (which opens this schema, and knows no shelf) removes the newest
    folder and adds another, which takes its id. The removed folder's shelved vectors must go all the same, not
    stay as the new folder's (prune_shelf tells a removed folder by its id alone)."""
    store, _ = lib
    old_root = store.add_root("/private")
    with store.atomic():
        fid = store.upsert_file(old_root, "/private/diary.txt", 1, 1, None, "indexed", None, "txt", 1)
        store.insert_chunks(fid, [_chunk(0, "diary", np.ones(4, np.float32))])
        assert store.shelve_vectors(fid, old_root) == 1
        store.delete_file(fid)
    with store.atomic():  # the older version's delete_root: roots, files and passages, not the shelf
        store.execute("DELETE FROM files WHERE root_id = ?", (old_root,))
        store.execute("DELETE FROM roots WHERE id = ?", (old_root,))
    assert store.add_root("/elsewhere") == old_root  # the id again
    store.prune_shelf()
    assert store.shelved_count() == 0 and store.vectors_by_hash(["h-diary"]) == {}


@pytest.mark.parametrize("seed,short_texts", [(0, False), (1, False), (2, True)])
def test_embedded_ids_are_exactly_the_rows_with_a_vector(lib, seed, short_texts):
    # embedded_ids reads every id from a covering index less the waiting ones; the plain query over the table
    # is the truth, in both directions, through files added, embedded, deleted and re-added in random order.
    # short_texts: SQLite's longest text cut to 8 bytes, so the ids no longer fit one text (read row by row)
    store, root = lib
    rng = np.random.default_rng(seed)
    truth = ("SELECT id FROM chunks WHERE length(vector) > 0 ORDER BY id")
    files: list[int] = []
    for step in range(40):
        action = rng.integers(3) if files else 0
        with store.atomic():
            if action == 0:  # a file: some passages with a vector (finite or not), some waiting
                fid = store.upsert_file(root, f"/r/{step}.txt", 1, 1, None, "indexed", None, "txt", 3)
                kinds = rng.integers(3, size=int(rng.integers(1, 6)))
                store.insert_chunks(fid, [_chunk(i, f"t{step}-{i}", None if k == 0 else
                                                 np.full(4, np.nan if k == 2 else 1.0, np.float32))
                                          for i, k in enumerate(kinds)])
                files.append(fid)
            elif action == 1:  # the waiting passages of a file get their vectors
                waiting = [i for i, *_ in store.pending_batch(1000)]
                if waiting:
                    store.set_vectors(waiting[: len(waiting) // 2 + 1],
                                      np.ones((len(waiting) // 2 + 1, 4), np.float32))
            else:  # a file goes
                store.delete_file(files.pop(int(rng.integers(len(files)))))
        want = [r[0] for r in store.conn.execute(truth)]
        limit = store.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 8) if short_texts else None
        got = store.embedded_ids()
        if limit is not None:
            store.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limit)
        assert got.dtype == np.int64 and got.tolist() == want, step


def test_pending_batch_is_newest_file_first_and_set_vectors_fills_only_waiting(lib):
    store, root = lib
    with store.atomic():
        old = store.upsert_file(root, "/r/old.txt", 1, 100, None, "indexed", None, "txt", 1, embed_title="Old")
        new = store.upsert_file(root, "/r/new.txt", 1, 200, None, "indexed", None, "txt", 2)
        (o,) = store.insert_chunks(old, [_chunk(0, "o", None)])
        n1, n2 = store.insert_chunks(new, [_chunk(0, "n1", None), _chunk(1, "n2", np.ones(4, np.float32))])
    batch = store.pending_batch(10)
    assert [(b[0], b[2], b[3]) for b in batch] == [(n1, "n1", ""), (o, "o", "Old")]
    assert store.pending_batch(1) == batch[:1] and store.pending_batch(-1) == []
    order = store.pending_order()  # a meaning pass reads the order once, then the rows batch by batch
    assert order.tolist() == [n1, o] and store.pending_rows(order) == batch
    assert store.pending_rows([o, 12345, n2]) == [batch[1]]  # unknown and embedded ids are passed over
    with store.atomic():
        store.set_vectors([o, n2], np.full((2, 4), 2.0, np.float32))
    vec = dict(zip(*store.vectors([o, n2]), strict=True))
    assert vec[o].tolist() == [2.0] * 4 and vec[n2].tolist() == [1.0] * 4  # n2 had one: kept
    assert store.pending_count() == 1


def test_chunks_read_with_their_file_and_repeats(lib):
    store, root = lib
    with store.atomic():
        fid = store.upsert_file(root, "/r/a.txt", 1, 100, None, "indexed", None, "txt", 2)
        a, b = store.insert_chunks(fid, [_chunk(0, "same", None, [(50, 54, 2), (30, 34, None)]),
                                         _chunk(1, "other", None)])
    rows = store.chunks([b, a, 999])
    assert set(rows) == {a, b} and rows[a].path == "/r/a.txt" and rows[a].file_id == fid
    assert (rows[b].ordinal, rows[b].start, rows[b].end, rows[b].text) == (1, 10, 15, "other")
    assert store.chunk_repeats([a, b]) == {a: [(30, 34, None), (50, 54, 2)]}  # by start; b has none
    assert store.chunk_files([a, b]) == {a: fid, b: fid}
    with store.atomic():
        store.delete_chunks_of_file(fid)
    assert store.chunk_repeats([a]) == {}  # spans go with their passage


def test_select_in_reads_more_values_than_one_statement_may_bind(lib):
    store, root = lib
    with store.atomic():
        fid = store.upsert_file(root, "/r/a.txt", 1, 1, None, "indexed", None, "txt", 1200)
        ids = store.insert_chunks(fid, [_chunk(i, f"t{i}", None) for i in range(1200)])
    assert len(store.chunks(ids)) == 1200 and len(store.chunk_files(ids + [10**9])) == 1200


def test_passages_of_many_files_go_in_together_each_with_its_id(lib):
    store, root = lib
    with store.atomic():
        a = store.upsert_file(root, "/r/a.txt", 1, 1, None, "indexed", None, "txt", 150)
        b = store.upsert_file(root, "/r/b.txt", 1, 1, None, "indexed", None, "txt", 150)
        rows = [(a if i % 3 else b, _chunk(i, f"word{i} zebra{i}", np.full(4, i, np.float32) if i % 2 else None,
                                           [(900 + i, 910 + i, None)] if i % 7 == 0 else []))
                for i in range(300)]  # more than one statement's rows, the files interleaved
        ids = store.insert_chunks_of(rows)
    assert len(ids) == len(set(ids)) == 300
    got = store.chunks(ids)
    assert [(got[c].file_id, got[c].ordinal, got[c].text) for c in ids] == [(f, n.ordinal, n.text) for f, n in rows]
    assert store.chunk_repeats([ids[7], ids[8]]) == {ids[7]: [(907, 917, None)]}
    assert ids[123] in {h[0] for h in store.search_lexical("zebra123", 5)}  # the full-text rows came with them
    assert dict(zip(*store.vectors([ids[5]]), strict=True))[ids[5]].tolist() == [5.0] * 4


def test_chunk_ids_are_never_reused(lib):
    store, root = lib
    first = store.chunk_ids_of_file(put_file(store, root, "/r/a.txt", ["one"]))
    with store.atomic():
        store.forget_files()
    again = store.chunk_ids_of_file(put_file(store, root, "/r/a.txt", ["one"]))
    assert again[0] > first[0]  # AUTOINCREMENT: a vector-index label stays unique


def test_integrity_and_vacuum_only_when_sparse(lib):
    store, root = lib
    assert store.integrity_ok()
    assert store.vacuum_if_sparse() is False  # nothing free yet
    put_file(store, root, "/r/big.txt", ["word " * 2000 + str(i) for i in range(50)])
    with store.atomic():
        store.forget_files()
    assert store.vacuum_if_sparse() is True
    assert store.conn.execute("PRAGMA freelist_count").fetchone()[0] == 0


# -- queries ------------------------------------------------------------------------------------------------

def test_fts_query_quotes_words_drops_stop_words_and_marks_prefixes():
    assert fts_query("The budget of 2024") == '"budget" OR "2024"'
    assert fts_query("the of") == '"the" OR "of"'  # only stop words: kept, else nothing would match
    assert fts_query('x"y OR NEAR(z*)') == '"x" OR "y" OR "near" OR "z"'  # no FTS syntax leaks in
    assert fts_query("budg report", prefixes=["BUDG"]) == '"budg" * OR "report"'
    assert fts_query("the*", prefixes=["the"]) == '"the" *'  # a typed prefix is kept, common or not
    assert fts_query("  ,.; ") is None and fts_query("") is None
    assert fts_query("run run RUN") == '"run"'


def _back_to_schema_7(path) -> None:
    """The library as the version before decision 0152 wrote it: no files.reader (nor 0187's shelf)."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER shelved_vectors_root_gone")
    conn.execute("DROP TABLE shelved_vectors")
    conn.execute("DELETE FROM meta WHERE key = 'schema'")  # steps were counted by user_version alone then
    conn.execute("DROP TRIGGER files_reader_unknown")
    conn.execute("ALTER TABLE files DROP COLUMN reader")
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()


def test_a_read_only_open_of_the_schema_before_reads_the_columns_it_has(tmp_path):
    """Only what it lacks reads as none: the ctime and the notes of a schema-7 library are still there."""
    from searchapp.store.ledger import entry_notes

    store, root = new_store(tmp_path)
    with store.atomic():
        fid = store.upsert_file(root, "/r/a.txt", 3, 1, "s", "indexed", None, "text", 0, ctime_ns=42,
                                notes=["text truncated at 5 characters"], reader=2)
    store.close()
    _back_to_schema_7(tmp_path / "library.sqlite")
    old = Store(tmp_path / "library.sqlite", readonly=True)
    try:
        assert old.files_missing == {"reader"}
        got = old.file_by_path("/r/a.txt")
        assert got is not None and (got.ctime_ns, got.reader) == (42, None)
        assert entry_notes(old, fid) == ["text truncated at 5 characters"]
    finally:
        old.close()


def test_the_migration_to_readers_lets_go_of_entries_left_waiting_for_ocr(tmp_path):
    """An entry recorded as skipped for another reason while it waited for OCR stayed 'pending' (the ledger counted
    it waiting, the OCR step read it again); one waiting for OCR, and a PDF whose pages wait, still wait."""
    from searchapp.store.ledger import set_ocr_state

    store, root = new_store(tmp_path)
    with store.atomic():
        for path, status, error in (("/r/grown.png", "skipped", "file too large"), ("/r/photo.png", "skipped",
                                    "waiting for OCR"), ("/r/scan.pdf", "indexed", None)):
            set_ocr_state(store, store.upsert_file(root, path, 3, 1, "s", status, error, "image", 0), "pending")
    store.close()
    _back_to_schema_7(tmp_path / "library.sqlite")
    store = Store(tmp_path / "library.sqlite")
    try:
        assert dict(store.conn.execute("SELECT path, ocr FROM files")) == {
            "/r/grown.png": None, "/r/photo.png": "pending", "/r/scan.pdf": "pending"}
    finally:
        store.close()


def test_new_bytes_written_by_a_version_without_readers_forget_the_reader(tmp_path):
    """A searchapp of the version before, still running beside this one, writes an edited file's text with its own
    reader and leaves files.reader as it was: the row forgets it (this version reads the file again). This
    version's own writes keep theirs, new bytes or not."""
    store, root = new_store(tmp_path)
    try:
        with store.atomic():
            fid = store.upsert_file(root, "/r/a.pdf", 3, 1, "one", "indexed", None, "pdf", 0, reader=2)
            store.upsert_file(root, "/r/a.pdf", 4, 2, "two", "indexed", None, "pdf", 0, reader=2)  # edited, read here
        assert store.file_by_path("/r/a.pdf").reader == 2
        with store.atomic():  # the older version's upsert: every column but the reader
            store.conn.execute("UPDATE files SET sha256 = 'three', size = 5, indexed_at = 9 WHERE id = ?", (fid,))
        assert store.file_by_path("/r/a.pdf").reader is None
        with store.atomic():
            store.conn.execute("UPDATE files SET reader = 2 WHERE id = ?", (fid,))
            store.conn.execute("UPDATE files SET size = 6, indexed_at = 10 WHERE id = ?", (fid,))  # no new bytes
        assert store.file_by_path("/r/a.pdf").reader == 2
    finally:
        store.close()
