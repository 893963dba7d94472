"""The store's own write lane (decision 0126): Store.execute and Store.atomic() on the plain sqlite3 connection,
with the semantics sqlite-utils' Database.execute / atomic() had; and the OCR cache's one use of sqlite-utils'
table API. Real SQLite files in tmp_path; a second connection sees only what was committed."""

from __future__ import annotations

import sqlite3

import pytest

from searchapp.base.errors import StoreError
from searchapp.base.types import Document, PageSpan
from searchapp.store import Store
from searchapp.store.ocr_cache import OcrCache


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "library.sqlite")
    yield s
    s.close()


def committed_meta(store: Store) -> dict[str, str]:
    """What another connection reads: only committed rows."""
    other = sqlite3.connect(str(store.path))
    try:
        return dict(other.execute("SELECT key, value FROM meta").fetchall())
    finally:
        other.close()


def test_a_write_outside_a_transaction_is_committed_at_once(store):
    store.set_meta("k", "v")
    assert not store.conn.in_transaction
    assert committed_meta(store)["k"] == "v"


def test_a_failed_write_leaves_no_transaction_open(store):
    with pytest.raises(sqlite3.IntegrityError):
        store.execute("INSERT INTO meta(key, value) VALUES (?, ?)", ("k", None))  # value is NOT NULL
    assert not store.conn.in_transaction
    store.set_meta("after", "1")  # the next write is committed, not swallowed by a stray transaction
    assert committed_meta(store)["after"] == "1"


def test_atomic_commits_together_and_rolls_back_on_an_exception(store):
    with store.atomic():
        store.set_meta("a", "1")
        assert "a" not in committed_meta(store)  # not before the block ends
        store.set_meta("b", "2")
    assert {"a": "1", "b": "2"}.items() <= committed_meta(store).items()
    with pytest.raises(RuntimeError):
        with store.atomic():
            store.set_meta("c", "3")
            raise RuntimeError("stop")
    assert not store.conn.in_transaction
    assert "c" not in committed_meta(store) and store.get_meta("c") is None


def test_a_nested_block_is_a_savepoint_of_the_outer_one(store):
    with store.atomic():
        store.set_meta("outer", "1")
        with pytest.raises(RuntimeError):
            with store.atomic():
                store.set_meta("inner", "1")
                raise RuntimeError("inner fails")
        with store.atomic():  # a second nested block after a failed one works
            store.set_meta("inner2", "1")
    got = committed_meta(store)
    assert got.get("outer") == "1" and got.get("inner2") == "1" and "inner" not in got


def test_a_failed_commit_is_raised_and_nothing_stays_open(store):
    store.conn.execute("CREATE TABLE IF NOT EXISTS p(id INTEGER PRIMARY KEY)")
    store.conn.execute("CREATE TABLE IF NOT EXISTS c(p INTEGER REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)")
    store.conn.commit()
    store.conn.execute("PRAGMA foreign_keys = on")
    with pytest.raises(sqlite3.IntegrityError):  # a deferred constraint fails at COMMIT itself
        with store.atomic():
            store.execute("INSERT INTO c(p) VALUES (42)")
    assert not store.conn.in_transaction
    assert store.conn.execute("SELECT count(*) FROM c").fetchone()[0] == 0


def test_a_write_refused_by_sqlite_names_the_disk(store):
    store.conn.execute("PRAGMA query_only = on")
    with pytest.raises(StoreError, match="everything committed before is kept"):
        with store.atomic():
            store.set_meta("x", "1")
    assert not store.conn.in_transaction


def test_the_connection_runs_triggers_recursively_as_sqlite_utils_set_it(store):
    assert store.conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 1


def test_the_ocr_cache_writes_and_replaces_an_entry_through_the_table_api(tmp_path):
    cache = OcrCache(tmp_path)
    try:
        cache.put("ab" * 32, "tesseract", Document("first text", (PageSpan(1, 0, 5),), kind="ocr", notes=("n",)))
        cache.put("ab" * 32, "tesseract", Document("second text", (PageSpan(2, 0, 6),), kind="ocr"))
        rows = cache.conn.execute("SELECT sha256, engine, text, pages, notes FROM ocr").fetchall()
        assert rows == [("ab" * 32, "tesseract", "second text", "[[2, 0, 6]]", "[]")]  # replaced, not added
        assert not cache.conn.in_transaction  # committed
        got = cache.get("ab" * 32)
        assert got is not None and got.text == "second text" and got.pages == (PageSpan(2, 0, 6),)
    finally:
        cache.close()
