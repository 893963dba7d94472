"""Undo for Remove: the removed folder's rows wait in the writer connection's TEMP tables, so Undo puts the
folder back at once — its passages found again by words and by meaning, nothing read or embedded again — also
after other folders were written, and refuses where putting it back would be wrong."""

from __future__ import annotations

from conftest import build_tiny_library

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day."}


def names(res) -> set[str]:
    return {h.path.rsplit("/", 1)[-1] for h in res.hits}


def open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    other = tmp_path / "other"
    other.mkdir()
    (other / "bread.txt").write_text("Sourdough needs a lively starter and a hot oven.\n", encoding="utf-8")
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    lib.add_folder(other)
    return lib, tmp_path / "docs", other


def test_undo_puts_the_folder_back_at_once_searchable_by_words_and_meaning(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    lib, docs, other = open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    try:
        before = lib.status()
        assert names(lib.search("violin", mode="lexical")) == {"violin.txt"}
        assert lib.remove_folder(docs, undoable=True) == 2
        assert names(lib.search("violin", mode="lexical")) == set()
        assert [r.path for r in lib.status().roots] == [str(other)]

        calls = []
        real = lib.models.encoder.encode
        lib.models.encoder.encode = lambda *a, **k: calls.append(1) or real(*a, **k)
        try:
            assert lib.undo_remove() == (str(docs), 2)
        finally:
            lib.models.encoder.encode = real
        assert calls == []  # nothing embedded again
        after = lib.status()
        assert sorted(r.path for r in after.roots) == sorted(r.path for r in before.roots)
        assert (after.chunks, after.embedded, after.vectors) == (before.chunks, before.embedded, before.vectors)
        assert after.consistent
        assert names(lib.search("violin", mode="lexical")) == {"violin.txt"}
        assert "violin.txt" in names(lib.search("a luthier shaping wood for a string instrument", mode="dense"))
        assert lib.undo_remove() is None  # once
    finally:
        lib.close()


def test_undo_works_after_another_folder_was_written_and_refuses_where_its_folder_came_back(tmp_path,
                                                                                          tiny_bi_encoder_dir,
                                                                                          tiny_encoder):
    """A write elsewhere (the window embedding another folder, `watch`, a CLI index) touched nothing Undo puts back:
    it used to refuse after any write at all (decision 0147). The folder indexed again meanwhile is refused."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    lib, docs, other = open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    try:
        lib.remove_folder(docs, undoable=True)
        (other / "more.txt").write_text("Another loaf, rye this time.\n", encoding="utf-8")
        with Library(load_config(lib.data_dir, env={}), encoder=tiny_encoder) as elsewhere:  # another writer
            assert elsewhere.sync().added == 1
        assert lib.undo_remove() == (str(docs), 2)
        st = lib.status()
        assert sorted(r.path for r in st.roots) == sorted([str(docs), str(other)]) and st.consistent
        assert st.vectors == st.chunks  # the other writer's passage and the folder's, both in the index
        assert "violin.txt" in names(lib.search("a luthier shaping wood for a string instrument", mode="dense"))
        assert names(lib.search("rye", mode="lexical")) == {"more.txt"}

        lib.remove_folder(docs, undoable=True)
        lib.add_folder(docs)  # the folder itself indexed again: its rows are there, nothing to put back
        assert lib.undo_remove() is None
        assert lib.status().consistent and names(lib.search("violin", mode="lexical")) == {"violin.txt"}
    finally:
        lib.close()


def test_undo_refuses_once_the_model_or_chunking_changed(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    lib, docs, other = open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    try:
        lib.remove_folder(docs, undoable=True)
        with lib.store.atomic():  # what a reindex with other chunking records
            lib.store.set_meta("chunk_max_tokens", "128")
        assert lib.undo_remove() is None
        assert [r.path for r in lib.status().roots] == [str(other)]
    finally:
        lib.close()


def test_a_plain_remove_keeps_nothing_to_undo(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    lib, docs, other = open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    try:
        lib.remove_folder(docs)  # the CLI's remove: gone for good
        assert lib.undo_remove() is None and [r.path for r in lib.status().roots] == [str(other)]
    finally:
        lib.close()


def test_an_undo_refused_while_another_process_writes_keeps_its_file_for_a_later_undo(tmp_path, tiny_bi_encoder_dir,
                                                                                       tiny_encoder):
    import fcntl
    import os

    import pytest

    from searchapp.base.errors import StoreError
    from searchapp.library.resources.lock import WriterWait
    from searchapp.library.resources.undo_file import FILE_NAME, remove_undoable, undo_last_remove

    lib, docs, _ = open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    try:
        assert remove_undoable(lib, str(docs)) == (2, None)
        kept = lib.data_dir / FILE_NAME
        other = os.open(lib.data_dir / "writer.lock", os.O_RDWR)  # another writer's hold (flock: per open file)
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lib.writer_wait = WriterWait(0, hint=" (--no-wait)")
            with pytest.raises(StoreError):
                undo_last_remove(lib)
            assert kept.is_file()  # the minute is not over: the Undo can still be done
        finally:
            os.close(other)
        assert undo_last_remove(lib) == (str(docs), 2)
        assert not kept.exists() and names(lib.search("violin", mode="lexical")) == {"violin.txt"}
    finally:
        lib.close()


def test_a_linked_undo_file_is_nothing_to_undo(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    import shutil

    import pytest

    from searchapp.base.errors import SearchAppError
    from searchapp.library.resources.undo_file import FILE_NAME, remove_undoable, undo_last_remove

    lib, docs, _ = open_two_roots(tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    try:
        assert remove_undoable(lib, str(docs)) == (2, None)
        kept = lib.data_dir / FILE_NAME
        elsewhere = tmp_path / "elsewhere.sqlite"
        shutil.move(kept, elsewhere)
        kept.symlink_to(elsewhere)
        with pytest.raises(SearchAppError, match="nothing to undo: .*symbolic link") as err:
            undo_last_remove(lib)
        assert "\n" not in str(err.value)
        assert names(lib.search("violin", mode="lexical")) == set() and elsewhere.is_file()
    finally:
        lib.close()
