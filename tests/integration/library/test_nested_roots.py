"""A path inside an indexed folder is synced as part of it, never a root of its own; a new folder that
contains indexed folders takes them over without embedding anything again; `[scan] exclude` leaves paths out."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.base.errors import ConfigError
from searchapp.library import Library


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def docs(tmp_path) -> Path:
    d = tmp_path / "docs"
    write(d / "a.txt", "Apricot jam needs plenty of lemon juice.")
    write(d / "sub" / "b.txt", "Bicycle chains want oil every month.")
    write(d / "sub" / "c.txt", "Cello strings are tuned in fifths.")
    write(d / "private" / "diary.txt", "Dear diary, the zeppelin was late again.")
    return d


def make_library(make_config, tiny_encoder, **sections) -> Library:
    return Library(make_config(models={"reranker": ""}, **sections), encoder=tiny_encoder)


def test_path_inside_a_root_is_synced_as_part_of_it(make_config, tiny_encoder, docs):
    with make_library(make_config, tiny_encoder) as lib:
        lib.add_folder(docs)
        b = docs / "sub" / "b.txt"
        write(b, "Bicycle chains want oil every month, and brakes new pads.")
        rep = lib.add_folder(b)
        assert rep.updated == 1 and any(str(docs) in n for n in rep.notes)
        assert [r.path for r in lib.store.roots()] == [str(docs)]  # no root of its own
        with pytest.raises(ConfigError, match=r"belongs to .*docs.*exclude"):
            lib.remove_folder(b)
        assert lib.search("brakes pads", mode="lexical").hits  # still searchable: its folder is indexed
        again = lib.sync()
        assert again.chunks_embedded == 0 and again.unchanged == 4


def test_new_root_takes_over_folders_inside_it_without_reembedding(make_config, tiny_encoder, docs):
    with make_library(make_config, tiny_encoder) as lib:
        lib.add_folder(docs / "sub")
        ids = sorted(lib.store.chunk_ids().tolist())
        rep = lib.add_folder(docs)
        assert [r.path for r in lib.store.roots()] == [str(docs)]
        assert rep.added == 2 and rep.unchanged == 2  # a.txt and the diary are new; sub's files are not
        assert rep.chunks_embedded == 2
        assert set(ids) <= set(lib.store.chunk_ids().tolist())  # sub's passages kept their ids and vectors
        assert lib.remove_folder(docs) == 4 and lib.store.chunk_count() == 0


def test_exclude_leaves_a_folder_out(make_config, tiny_encoder, docs):
    with make_library(make_config, tiny_encoder) as lib:
        lib.add_folder(docs)
        assert lib.search("zeppelin", mode="lexical").hits
    with make_library(make_config, tiny_encoder, scan={"exclude": [str(docs / "private"), "c.txt"]}) as lib:
        rep = lib.sync()
        assert rep.removed == 2  # now outside the library: removed like a deleted file, and not listed
        assert not lib.search("zeppelin", mode="lexical").hits and not lib.search("cello", mode="lexical").hits
        write(docs / "private" / "more.txt", "zeppelin hangar")
        assert lib.sync_changed([str(docs / "private" / "more.txt")]).added == 0  # the watcher obeys it too
        rep = lib.add_folder(docs / "private")
        assert any("exclude" in n for n in rep.notes) and not lib.search("zeppelin", mode="lexical").hits
