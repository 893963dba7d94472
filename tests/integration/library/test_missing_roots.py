"""A root that cannot be read is kept, marked missing, still searchable, and reported as an error;
when it comes back nothing is embedded again. Only files gone from a root that is still there are removed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from notes_folder import cli, make_notes

from searchapp.base.errors import ConfigError


@pytest.fixture
def library(tiny_library):
    return tiny_library


def test_root_renamed_away_is_kept_marked_missing_and_searchable(library, tmp_path):
    notes = make_notes(tmp_path / "notes")
    first = library.add_folder(notes)
    assert first.added == 3
    chunks = library.store.chunk_count()

    notes.rename(tmp_path / "notes-moved")
    rep = library.sync()
    assert [p for p, _ in rep.missing_roots] == [str(notes)]
    assert rep.removed == 0 and rep.chunks_removed == 0
    assert library.store.chunk_count() == chunks and library.status().vectors == chunks

    st = library.status()
    [root] = st.roots
    assert root.missing and root.state == "missing" and root.files == 3 and "not found" in root.reason
    js = st.to_json()["roots"][0]
    assert js["missing"] is True and js["state"] == "missing"

    res = library.search("orthodontist consultation", mode="lexical")
    assert Path(res.hits[0].path).name == "orthodontist.txt"
    assert res.hits[0].available is False and res.to_json()["hits"][0]["available"] is False
    assert library.search("orthodontist", mode="dense").hits  # dense search still reads its vectors


def test_root_that_disappears_and_comes_back_is_not_embedded_again(library, tmp_path):
    notes = make_notes(tmp_path / "usb" / "notes")
    library.add_folder(notes)
    ids_before = sorted(library.store.chunk_ids().tolist())

    shutil.move(str(tmp_path / "usb"), str(tmp_path / "unplugged"))  # the drive goes away
    gone = library.sync()
    assert gone.missing_roots and gone.removed == 0

    shutil.move(str(tmp_path / "unplugged"), str(tmp_path / "usb"))  # and is plugged in again
    back = library.sync()
    assert back.missing_roots == []
    assert back.chunks_embedded == 0 and back.chunks_added == 0 and back.removed == 0
    assert back.unchanged == 3
    assert sorted(library.store.chunk_ids().tolist()) == ids_before  # the very same passages and vectors
    assert not library.status().roots[0].missing
    assert library.search("orthodontist", mode="lexical").hits[0].available is True


def test_empty_mount_point_is_taken_for_an_unmounted_drive(library, tmp_path):
    share = make_notes(tmp_path / "share")
    library.add_folder(share)
    aside = tmp_path / "aside"
    aside.mkdir()
    for f in list(share.iterdir()):  # what an unmounted share looks like: the folder is there, empty
        f.rename(aside / f.name)
    rep = library.sync()
    assert rep.removed == 0 and rep.missing_roots and "empty" in rep.missing_roots[0][1]
    assert library.status().roots[0].missing
    for f in list(aside.iterdir()):
        f.rename(share / f.name)
    back = library.sync()
    assert back.chunks_embedded == 0 and back.unchanged == 3


def test_files_gone_from_a_present_root_are_removed(library, tmp_path):
    notes = make_notes(tmp_path / "notes")
    library.add_folder(notes)
    (notes / "volcano.txt").unlink()
    rep = library.sync()
    assert rep.removed == 1 and rep.missing_roots == []
    assert not library.search("basaltic lava shield", mode="lexical").hits


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any folder")
def test_unreadable_subfolder_keeps_its_files(library, tmp_path):
    notes = make_notes(tmp_path / "notes")
    sub = make_notes(notes / "sub")
    library.add_folder(notes)
    chunks = library.store.chunk_count()
    sub.chmod(0)
    try:
        rep = library.sync()
        assert rep.removed == 0 and rep.failed == 1
        assert library.store.chunk_count() == chunks
    finally:
        sub.chmod(0o755)
    back = library.sync()
    assert back.chunks_embedded == 0 and back.removed == 0


def test_watcher_event_for_a_moved_root_removes_nothing(library, tmp_path):
    notes = make_notes(tmp_path / "notes")
    library.add_folder(notes)
    chunks = library.store.chunk_count()
    notes.rename(tmp_path / "elsewhere")
    rep = library.sync_changed([str(notes)])  # what a file watcher reports for `mv notes elsewhere`
    assert rep.removed == 0 and rep.missing_roots
    assert library.store.chunk_count() == chunks


def test_remove_is_the_only_way_to_forget_a_missing_root(library, tmp_path):
    notes = make_notes(tmp_path / "notes")
    library.add_folder(notes)
    notes.rename(tmp_path / "gone")
    with pytest.raises(ConfigError, match="cannot be read now"):
        library.add_folder(notes)
    library.sync()
    assert library.store.chunk_count() > 0
    assert library.remove_folder(notes) == 3
    assert library.store.chunk_count() == 0 and library.status().roots == []


def test_cli_reports_a_missing_root_as_an_error_and_keeps_it(tiny_cli, tmp_path, capsys):
    notes = make_notes(tmp_path / "notes")
    data = str(tmp_path / "lib")
    assert cli(capsys, "--data-dir", data, "index", str(notes))[0] == 0
    notes.rename(tmp_path / "notes-moved")

    code, out, err = cli(capsys, "--data-dir", data, "index")
    assert code == 1 and str(notes) in err and "kept" in err
    assert "0 removed" in out
    code, out, err = cli(capsys, "--data-dir", data, "index", "--json")
    rep = json.loads(out)
    assert code == 1 and rep["removed"] == 0 and rep["missing_roots"][0]["path"] == str(notes)

    code, out, _ = cli(capsys, "--data-dir", data, "status", "--json")
    assert code == 0 and json.loads(out)["roots"][0]["missing"] is True
    code, out, _ = cli(capsys, "--data-dir", data, "status")
    assert "MISSING" in out and "3 files" in out
    assert cli(capsys, "--data-dir", data, "status", "--check")[0] == 1

    code, out, _ = cli(capsys, "--data-dir", data, "search", "orthodontist consultation", "--mode", "lexical", "--json")
    hits = json.loads(out)["hits"]
    assert code == 0 and hits and hits[0]["available"] is False
    code, out, _ = cli(capsys, "--data-dir", data, "search", "orthodontist consultation", "--mode", "lexical")
    assert "unavailable" in out

    (tmp_path / "notes-moved").rename(notes)
    code, out, err = cli(capsys, "--data-dir", data, "index", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["chunks_embedded"] == 0 and rep["unchanged"] == 3 and rep["missing_roots"] == []
    assert cli(capsys, "--data-dir", data, "status", "--check")[0] == 0


def test_reindex_refuses_while_a_root_is_missing(library, tmp_path):
    from searchapp.base.errors import SearchAppError

    notes = make_notes(tmp_path / "notes")
    library.add_folder(notes)
    chunks = library.store.chunk_count()
    notes.rename(tmp_path / "away")
    with pytest.raises(SearchAppError, match="cannot reindex"):
        library.reindex()
    assert library.store.chunk_count() == chunks  # nothing was dropped


def test_a_container_indexed_on_its_own_stays_a_file_and_follows_its_changes(library, tmp_path):
    """A newcomer indexed an mbox (and a zip) on its own: every sync after the first called it "a file now, not
    the folder that was indexed" (its members' keys, `inbox.mbox//…`, were taken for files under a folder), kept
    it missing, and never read the message appended to it. A container is a file root like any other."""
    import zipfile

    from searchapp.library.sync.roots import root_missing

    box = tmp_path / "inbox.mbox"
    message = "From a@example.com Sat Nov  1 10:00:00 2025\nSubject: {s}\nFrom: a@example.com\n\n{b}\n\n"
    box.write_text(message.format(s="Kayak trip", b="The kayak trip leaves at dawn."), encoding="utf-8")
    archive = tmp_path / "notes.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a/lava.txt", "Basaltic lava flows spread slowly.")
    for root in (box, archive):
        library.add_folder(root)
    again = library.sync()
    assert not again.missing_roots and again.unchanged == 4, again  # two containers and their two entries
    assert [root_missing(library.store, r) for r in library.store.roots()] == [None, None]
    with box.open("a", encoding="utf-8") as f:
        f.write(message.format(s="Orchard", b="The apricot orchard opens on Sunday."))
    assert not library.sync().missing_roots
    assert f"{box}//2: Orchard" in [h.path for h in library.search("apricot orchard", mode="lexical").hits]

