"""An edit that keeps a file's size and mtime is still seen (decision 0150): by its ctime, which every write moves
and no tool sets back, and by reading again a file that changed just before the sync that read it (a second edit
in the same tick of the filesystem's clock leaves both times as they were). On both engines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from searchapp.ingest import scan as scan_module
from searchapp.ingest.scan import CHECK_AGAIN

OLD = "Quarterly figures for the orchard: apples sold well, pears did not."
NEW = "Quarterly figures for the orchard: plums sold well, figs did not!!!"  # the same length, other words
THIRD = "Quarterly figures for the orchard: limes sold well, kiwis did not!!"


def row(lib, path: Path):
    got = lib.store.file_by_path(str(path))
    assert got is not None
    return got


def edit_keeping_size_and_mtime(path: Path, text: str) -> None:
    """What `touch -r`, `rsync -t` or a restore from a backup leaves: other bytes, the old size and mtime."""
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def found(lib, query: str) -> list[str]:
    return [os.path.basename(h.path) for h in lib.search(query, mode="lexical").hits]


@pytest.fixture
def docs(tmp_path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    (d / "orchard.txt").write_text(OLD, encoding="utf-8")
    (d / "other.txt").write_text("Minutes of the allotment committee, spring meeting.", encoding="utf-8")
    return d


def test_an_edit_that_keeps_size_and_mtime_is_indexed(tiny_library, docs, monkeypatch):
    monkeypatch.setattr(scan_module, "RACY_NS", 0)  # no file counts as just changed: the ctime alone tells
    tiny_library.add_folder(docs, embed=False)
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == (docs / "orchard.txt").stat().st_ctime_ns
    edit_keeping_size_and_mtime(docs / "orchard.txt", NEW)
    rep = tiny_library.sync(embed=False)
    assert (rep.updated, rep.unchanged) == (1, 1)
    assert found(tiny_library, "plums") == ["orchard.txt"] and found(tiny_library, "pears") == []
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == (docs / "orchard.txt").stat().st_ctime_ns


def test_a_ctime_moved_by_chmod_costs_a_hash_not_a_reindex(tiny_library, docs, monkeypatch):
    monkeypatch.setattr(scan_module, "RACY_NS", 0)
    tiny_library.add_folder(docs, embed=False)
    os.chmod(docs / "orchard.txt", 0o640)
    rep = tiny_library.sync(embed=False)
    assert (rep.updated, rep.unchanged, rep.chunks_added) == (0, 2, 0)
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == (docs / "orchard.txt").stat().st_ctime_ns


def test_a_file_changed_just_before_its_sync_is_read_again_then_trusted(tiny_library, docs, monkeypatch):
    tiny_library.add_folder(docs, embed=False)  # both files were written a moment ago: within RACY_NS
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == CHECK_AGAIN
    # As if a second edit came in the same tick as the first: the times the scan sees are the stored ones.
    edit_keeping_size_and_mtime(docs / "orchard.txt", NEW)
    tiny_library.store.set_file_stat(row(tiny_library, docs / "orchard.txt").id, len(NEW),
                                     (docs / "orchard.txt").stat().st_mtime_ns, CHECK_AGAIN)
    monkeypatch.setattr(scan_module, "RACY_NS", 0)  # seconds later: nothing is just changed any more
    monkeypatch.setattr(scan_module.ScannedFile, "__init__", _without_ctime(scan_module.ScannedFile.__init__))
    rep = tiny_library.sync(embed=False)
    assert rep.updated == 1
    assert found(tiny_library, "plums") == ["orchard.txt"]


def _without_ctime(init):
    """ScannedFile with no ctime (a filesystem without one): only CHECK_AGAIN can make the sync read it."""
    def patched(self, path, size, mtime_ns, ctime_ns=None):
        init(self, path, size, mtime_ns, None)
    return patched


def test_rows_from_before_ctimes_get_theirs_at_the_next_sync(tiny_library, docs, monkeypatch):
    monkeypatch.setattr(scan_module, "RACY_NS", 0)
    tiny_library.add_folder(docs, embed=False)
    for name in ("orchard.txt", "other.txt"):  # as a library indexed before decision 0150 holds them
        r = row(tiny_library, docs / name)
        tiny_library.store.set_file_stat(r.id, r.size, r.mtime_ns, None)
    edit_keeping_size_and_mtime(docs / "orchard.txt", NEW)
    rep = tiny_library.sync(embed=False)
    assert rep.unchanged == 2 and found(tiny_library, "plums") == []  # no ctime to compare: trusted, as before
    assert row(tiny_library, docs / "other.txt").ctime_ns == (docs / "other.txt").stat().st_ctime_ns
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == (docs / "orchard.txt").stat().st_ctime_ns
    edit_keeping_size_and_mtime(docs / "orchard.txt", THIRD)
    rep = tiny_library.sync(embed=False)
    assert (rep.updated, rep.unchanged) == (1, 1) and found(tiny_library, "kiwis") == ["orchard.txt"]


def test_a_skipped_file_to_check_again_is_checked_once(tiny_library, tmp_path, monkeypatch):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "empty.md").write_text("")  # skipped: no text
    tiny_library.add_folder(d, embed=False)
    assert row(tiny_library, d / "empty.md").ctime_ns == CHECK_AGAIN
    monkeypatch.setattr(scan_module, "RACY_NS", 0)
    tiny_library.sync(embed=False)  # read again, skipped again, and its ctime kept: not read at every sync
    assert row(tiny_library, d / "empty.md").ctime_ns == (d / "empty.md").stat().st_ctime_ns


@pytest.mark.engines("sqlite")
def test_a_remove_kept_before_the_ctime_column_is_undone(tiny_library, docs):
    """Rows a Remove kept without files.ctime_ns (its TEMP copy, or its undo file, made before the migration) go
    back by column name, the new column empty."""
    tiny_library.add_folder(docs, embed=False)
    tiny_library.remove_folder(docs, undoable=True)
    tiny_library.store.conn.execute("ALTER TABLE temp.removed_files DROP COLUMN ctime_ns")
    assert tiny_library.undo_remove() == (str(docs), 2)
    assert found(tiny_library, "pears") == ["orchard.txt"]
    assert row(tiny_library, docs / "orchard.txt").ctime_ns is None
