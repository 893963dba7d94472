"""Search history and saved searches (store/history.py): searches.sqlite in a tmp data dir."""

from __future__ import annotations

import os
import stat
import sqlite3

import pytest

from searchapp.base.errors import DataDirError, StoreError
from searchapp.store.history import SEARCHES_DB, SearchesDamaged, SearchesDB, SearchesError


@pytest.fixture
def db(tmp_path):
    with SearchesDB(tmp_path) as d:
        yield d


def test_created_private_with_a_rollback_journal(tmp_path):
    old = os.umask(0o022)
    try:
        SearchesDB(tmp_path).close()
    finally:
        os.umask(old)
    path = tmp_path / SEARCHES_DB
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with SearchesDB(tmp_path) as d:
        assert d.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert d.conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
        assert d.conn.execute("PRAGMA user_version").fetchone()[0] == 1


def test_create_false_never_creates_the_file(tmp_path):
    with pytest.raises(SearchesError, match="no searches.sqlite"):
        SearchesDB(tmp_path, create=False)
    assert not (tmp_path / SEARCHES_DB).exists()


def test_history_newest_first_without_repeats_and_trimmed(db):
    for i, q in enumerate(["a", "b", "a", "c"]):
        db.add_history(q, "hybrid", float(i), keep=10)
    assert [(h.query, h.at) for h in db.history(10)] == [("c", 3.0), ("a", 2.0), ("b", 1.0)]
    assert [h.query for h in db.history(2)] == ["c", "a"]
    db.add_history("d", "dense", 4.0, keep=2)
    assert [(h.query, h.mode) for h in db.history(10)] == [("d", "dense"), ("c", "hybrid")]
    db.add_history("c", "lexical", 5.0, keep=0)  # history off: the query is removed, nothing added
    assert [h.query for h in db.history(10)] == []
    db.add_history("e", "hybrid", 6.0, keep=5)
    assert db.clear_history() == 1 and db.history(10) == []


def test_saved_searches_sorted_replaced_and_removed(db):
    db.save("beta", "in:/r tax", "hybrid", 20, False, 1.0, replace=False)
    db.save("Alpha", '"exact words"', "lexical", 5, True, 2.0, replace=False)
    assert [s.name for s in db.saved()] == ["Alpha", "beta"]  # case-blind order
    one = db.saved_one("Alpha")
    assert (one.query, one.mode, one.k, one.literal, one.opened_at, one.hits) == ('"exact words"', "lexical", 5,
                                                                                    True, None, 0)
    with pytest.raises(SearchesError, match="cannot write"):
        db.save("beta", "other", "dense", 1, False, 3.0, replace=False)  # the name is taken
    db.save("beta", "other", "dense", 1, False, 3.0, replace=True)
    assert db.saved_one("beta").query == "other" and db.saved_one("nope") is None
    assert db.remove_saved("beta") is True and db.remove_saved("beta") is False
    assert [s.name for s in db.saved()] == ["Alpha"]


def test_opened_lists_are_what_new_is_counted_against(db):
    db.save("s", "q", "hybrid", 10, False, 1.0, replace=False)
    db.mark_opened("s", ["/a", "/b", "/a"], generation=7, at=2.0)
    assert db.seen("s") == {"/a", "/b"}
    s = db.saved_one("s")
    assert (s.opened_at, s.checked_generation, s.new_hits, s.hits) == (2.0, 7, 0, 2)
    db.set_counts("s", generation=8, new_hits=3, hits=5)
    assert (db.saved_one("s").checked_generation, db.saved_one("s").new_hits, db.saved_one("s").hits) == (8, 3, 5)
    db.mark_opened("s", ["/c"], generation=9, at=3.0)
    assert db.seen("s") == {"/c"} and db.saved_one("s").new_hits == 0
    db.save("s", "q2", "hybrid", 10, False, 4.0, replace=True)
    assert db.seen("s") == set()  # the seen files went with the replaced search (ON DELETE CASCADE)


def test_a_failed_write_rolls_back(db):
    db.add_history("kept", "hybrid", 1.0, keep=5)
    with pytest.raises(ZeroDivisionError):
        with db._tx() as c:
            c.execute("DELETE FROM history")
            raise ZeroDivisionError("midway")
    assert [h.query for h in db.history(5)] == ["kept"] and not db.conn.in_transaction


def test_a_damaged_file_names_itself_and_says_to_move_it_aside(tmp_path):
    (tmp_path / SEARCHES_DB).write_bytes(b"not sqlite at all " * 200)
    with pytest.raises(SearchesDamaged, match=r"searches\.sqlite .*damaged.*library is not affected.*mv ") as info:
        SearchesDB(tmp_path)
    assert isinstance(info.value, StoreError)


def test_a_newer_file_is_refused(tmp_path):
    with sqlite3.connect(tmp_path / SEARCHES_DB) as conn:
        conn.execute("PRAGMA user_version = 99")
    os.chmod(tmp_path / SEARCHES_DB, 0o600)
    with pytest.raises(SearchesError, match="newer searchapp"):
        SearchesDB(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="symbolic links and modes")
def test_a_link_in_its_place_is_never_followed(tmp_path):
    target = tmp_path / "elsewhere.sqlite"
    (tmp_path / SEARCHES_DB).symlink_to(target)
    with pytest.raises(DataDirError, match="symbolic link"):
        SearchesDB(tmp_path)
    assert not target.exists()


def test_damage_is_corrupt_or_not_a_database_never_a_broken_constraint(tmp_path):
    from searchapp.store.damage import is_damage

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a PRIMARY KEY)")
    conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.IntegrityError) as taken:
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.OperationalError) as missing:
        conn.execute("SELECT * FROM nowhere")
    (tmp_path / "junk").write_bytes(b"x" * 5000)
    with pytest.raises(sqlite3.DatabaseError) as junk:
        sqlite3.connect(tmp_path / "junk").execute("SELECT 1 FROM sqlite_master")
    assert is_damage(junk.value) and not is_damage(taken.value) and not is_damage(missing.value)
    assert not is_damage(OSError("disk")) and is_damage(sqlite3.DatabaseError("database disk image is malformed"))


def test_a_saved_searchs_json_is_what_saved_list_has_always_printed(db):
    """One type for a saved search (store and library alike): its JSON leaves the bookkeeping out, in the field
    order `saved list --json` printed before the library's mirror type was dropped."""
    db.save("s", "q", "dense", 7, True, 1.0, replace=False)
    db.mark_opened("s", ["/a"], generation=4, at=2.0)
    assert db.saved_one("s").to_json() == {"name": "s", "query": "q", "mode": "dense", "k": 7, "literal": True,
                                           "created_at": 1.0, "opened_at": 2.0, "new_hits": 0, "hits": 1}
    assert list(db.saved_one("s").to_json()) == ["name", "query", "mode", "k", "literal", "created_at", "opened_at",
                                                 "new_hits", "hits"]
