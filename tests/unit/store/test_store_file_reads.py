"""The store's reads for similar files and duplicates, on a real SQLite file."""

from __future__ import annotations

from store_files import new_store, put_file

from searchapp.store.ledger import files_by_id


def test_owners_passages_paths_and_hashes(tmp_path):
    store, root = new_store(tmp_path)
    try:
        a = put_file(store, root, "/r/b.txt", [("one", 1), ("two", 2), ("three", 2)], sha="s1")
        b = put_file(store, root, "/r/a.txt", ["four"], sha="s1")
        c = put_file(store, root, "/r/c.txt", ["five"], sha=None)
        d = put_file(store, root, "/r/d.txt", ["six"], sha="s2", status="failed")
        ids, owners = store.chunk_owners()
        assert owners.tolist() == [a, a, a, b, c, d] and ids.tolist() == sorted(ids.tolist()) and len(set(ids)) == 6
        assert ids.dtype == owners.dtype == "int64"
        ids_a = store.chunk_ids_of_file(a)
        assert [store.chunks([i])[i].text for i in ids_a] == ["one", "two", "three"]  # reading order
        assert [store.chunks([i])[i].text for i in store.chunk_ids_of_file(a, 2)] == ["two", "three"]
        assert store.chunk_ids_of_file(a, 9) == [] and store.chunk_ids_of_file(999) == []
        assert store.file_paths() == {a: "/r/b.txt", b: "/r/a.txt", c: "/r/c.txt", d: "/r/d.txt"}
        rows = files_by_id(store, [d, a, 999])  # a few rows by id, not every path of the library
        assert set(rows) == {a, d} and (rows[a].path, rows[d].path, rows[d].status) == ("/r/b.txt", "/r/d.txt", "failed")
        assert rows[a] == store.file_by_path("/r/b.txt") and files_by_id(store, []) == {}
        # indexed, with passages and a hash, by path
        assert store.file_hashes() == [(b, "/r/a.txt", "s1"), (a, "/r/b.txt", "s1")]
    finally:
        store.close()
