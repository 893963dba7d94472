"""Undo for Remove at the store (store/removed_roots.py), on a real SQLite file: the kept rows go back only where
nothing took their place (an id or path taken again is never overwritten or duplicated) and while the library's
model and chunking are the ones they were made with."""

from __future__ import annotations

import pytest

from searchapp.store.removed_roots import keep_removed, mark_kept, restore_removed
from store_files import new_store, put_file


@pytest.fixture
def removed(tmp_path):
    """A store whose root /r (two files) was removed with its rows kept for Undo; (store, generation, ids)."""
    store, root = new_store(tmp_path)
    put_file(store, root, "/r/a.txt", ["alpha", "beta"])
    put_file(store, root, "/r/b.txt", ["gamma"])
    with store.atomic():
        keep_removed(store, root)
        ids = store.delete_root(root)
        generation = store.bump_generation()
        mark_kept(store, generation)
    yield store, generation, ids
    store.close()


def test_undo_puts_the_rows_back_when_nothing_took_their_place(removed):
    store, generation, ids = removed
    with store.atomic():
        assert restore_removed(store) == ("/r", sorted(ids))
    assert [r.path for r in store.roots()] == ["/r"] and sorted(store.chunk_ids().tolist()) == sorted(ids)


@pytest.mark.parametrize("taken", ["path", "root"])
def test_undo_refuses_where_a_removed_path_is_taken_again_at_the_same_generation(removed, taken):
    store, generation, ids = removed
    with store.atomic():
        other = store.add_root("/r" if taken == "root" else "/other")
    put_file(store, other, "/r/a.txt" if taken == "path" else "/r/new.txt", ["written since"])
    before = ([r.path for r in store.roots()], sorted(store.chunk_ids().tolist()))
    with store.atomic():
        assert restore_removed(store) is None
    assert ([r.path for r in store.roots()], sorted(store.chunk_ids().tolist())) == before
    assert not set(ids) & set(store.chunk_ids().tolist())


def test_undo_refuses_once_the_librarys_identity_changed_and_the_keys_cover_what_a_library_records(removed):
    from searchapp.base.config import Config
    from searchapp.library.sync.meta_keys import CONTEXT_META
    from searchapp.models.identity import library_settings
    from searchapp.store.removed_roots import IDENTITY_KEYS

    store, _, _ = removed
    with store.atomic():
        store.set_meta("model_fingerprint", "another model")
        assert restore_removed(store) is None
    recorded = set(library_settings(Config(), "fp", 384, identity=None)) | {CONTEXT_META}
    assert recorded <= set(IDENTITY_KEYS)
