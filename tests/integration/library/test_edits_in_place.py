"""An edit that keeps a file's size and mtime is still seen (decision 0150): by its ctime, which every write moves
and no tool sets back, and by reading again a file that changed just before the sync that read it (a second edit
in the same tick of the filesystem's clock leaves both times as they were). On both engines."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from searchapp.ingest import scan as scan_module
from searchapp.ingest.scan import CHECK_AGAIN
from searchapp.library.sync import words_pass

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


def just_after(monkeypatch, path: Path) -> None:
    """The scan's clock a moment after `path` changed, however slow the machine running this is."""
    monkeypatch.setattr(scan_module, "now_ns", lambda: path.stat().st_ctime_ns + scan_module.RACY_NS // 3)


def later(monkeypatch, seconds: float = 60) -> None:
    """The scan's clock `seconds` ahead: a sync that much later, when nothing is "just changed" any more."""
    real = time.time_ns
    monkeypatch.setattr(scan_module, "now_ns", lambda: real() + int(seconds * 1e9))


def counting(monkeypatch) -> dict[str, int]:
    """How many files the sync hashes and extracts in this process (the read-ahead worker off)."""
    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    n = {"hash": 0, "extract": 0}
    for name, key in (("file_sha256", "hash"), ("file_sha256_and_bytes", "hash"), ("extract", "extract")):
        real = getattr(words_pass, name)

        def counted(*a, _real=real, _key=key, **k):
            n[_key] += 1
            return _real(*a, **k)

        monkeypatch.setattr(words_pass, name, counted)
    return n


def test_a_file_changed_just_before_its_sync_is_read_again_then_trusted(tiny_library, docs, monkeypatch):
    just_after(monkeypatch, docs / "orchard.txt")
    tiny_library.add_folder(docs, embed=False)  # both files were written a moment ago: within RACY_NS
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == CHECK_AGAIN
    later(monkeypatch)
    n = counting(monkeypatch)
    assert tiny_library.sync(embed=False).unchanged == 2
    assert n["hash"] == 2  # both read once more (the same bytes), their ctimes stored
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == (docs / "orchard.txt").stat().st_ctime_ns
    tiny_library.sync(embed=False)
    assert n["hash"] == 2  # then trusted
    # As if a second edit came in the same tick as the first: the times the scan sees are the stored ones.
    edit_keeping_size_and_mtime(docs / "orchard.txt", NEW)
    tiny_library.store.set_file_stat(row(tiny_library, docs / "orchard.txt").id, len(NEW),
                                     (docs / "orchard.txt").stat().st_mtime_ns, CHECK_AGAIN)
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
    just_after(monkeypatch, d / "empty.md")
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


def test_a_file_stamped_in_the_future_settles_after_one_read(tiny_library, docs, monkeypatch):
    """An mtime a day ahead (an archive made east of here, a device with a wrong clock) kept the file "just
    changed" and hashed at every sync until that day; its ctime is what is judged."""
    ahead = time.time_ns() + 86_400 * 10**9
    os.utime(docs / "orchard.txt", ns=(ahead, ahead))
    tiny_library.add_folder(docs, embed=False)
    later(monkeypatch)
    n = counting(monkeypatch)
    for _ in range(3):
        assert tiny_library.sync(embed=False).unchanged == 2
    assert n["hash"] <= 2  # each at most once more (they were CHECK_AGAIN at the add), then trusted
    assert row(tiny_library, docs / "orchard.txt").ctime_ns == (docs / "orchard.txt").stat().st_ctime_ns


def test_a_skipped_file_whose_ctime_moved_costs_a_hash_not_an_extraction(tiny_library, tmp_path, monkeypatch):
    monkeypatch.setattr(scan_module, "RACY_NS", 0)
    d = tmp_path / "docs"
    d.mkdir()
    (d / "empty.md").write_text("   \n")  # skipped: no text
    (d / "a.txt").write_text("some words in a text file", encoding="utf-8")
    tiny_library.add_folder(d, embed=False)
    assert row(tiny_library, d / "empty.md").sha256 is not None  # the bytes it was skipped for
    time.sleep(0.02)
    for name in ("empty.md", "a.txt"):
        os.chmod(d / name, 0o600)
    n = counting(monkeypatch)
    rep = tiny_library.sync(embed=False)
    assert (n["hash"], n["extract"]) == (2, 0)
    assert (rep.unchanged, rep.skipped, rep.problems) == (1, 1, [])
    assert row(tiny_library, d / "empty.md").ctime_ns == (d / "empty.md").stat().st_ctime_ns


@pytest.mark.engines("sqlite")
def test_an_image_without_text_is_not_sent_to_ocr_again_by_a_chmod(tiny_library, tmp_path, monkeypatch):
    import hashlib

    from searchapp.base.types import Document
    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.store.ocr_cache import OcrCache

    monkeypatch.setenv(ENGINE_ENV, "none")  # no engine: what OCR found comes from the cache below
    monkeypatch.setattr(scan_module, "RACY_NS", 0)
    d = tmp_path / "photos"
    d.mkdir()
    png = d / "holiday.png"
    png.write_bytes(b"\x89PNG a photo " + bytes(64))
    cache = OcrCache(tiny_library.data_dir)
    cache.put(hashlib.sha256(png.read_bytes()).hexdigest(), "test", Document("", kind="ocr"))  # no text in it
    cache.close()
    tiny_library.add_folder(d, embed=False)
    time.sleep(0.02)
    os.chmod(png, 0o600)
    rep = tiny_library.sync(embed=False)
    assert not [n for n in rep.notes if "read by OCR" in n] and rep.waiting == []
    assert row(tiny_library, png).ctime_ns == png.stat().st_ctime_ns


def test_the_ocr_step_leaves_an_image_edited_since_the_text_pass_with_its_mtime_put_back(tiny_library, tmp_path,
                                                                                        monkeypatch):
    """Between the text pass and the OCR step the image gets other bytes, size and mtime kept: OCR of them would
    be cached under the old bytes' hash. The moved ctime says it changed: the next sync reads it."""
    from searchapp.base.types import Document
    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.library.ocr import step

    monkeypatch.setenv(ENGINE_ENV, "none")
    monkeypatch.setattr(scan_module, "RACY_NS", 0)
    d = tmp_path / "photos"
    d.mkdir()
    png = d / "scan.png"
    png.write_bytes(b"\x89PNG first " + bytes(64))
    real_unchanged, read = step._unchanged, []

    def edit_then_check(r):
        st = png.stat()
        time.sleep(0.02)
        png.write_bytes(b"\x89PNG other " + bytes(64))
        os.utime(png, ns=(st.st_atime_ns, st.st_mtime_ns))
        return real_unchanged(r)

    monkeypatch.setattr(step, "_unchanged", edit_then_check)
    monkeypatch.setattr(step, "_ocr_text", lambda path, *a: read.append(path) or (Document("storm", kind="ocr"), None))
    monkeypatch.setattr(step, "available_engine", lambda: object())  # a cache miss goes to "the engine"
    tiny_library.add_folder(d, embed=False)
    assert read == []  # not read by OCR as the bytes the row's hash names


def test_a_library_from_before_is_read_as_it_is_by_a_read_only_open(tmp_path, tiny_encoder, tiny_bi_encoder_dir,
                                                                     monkeypatch, capsys):
    """A backup or a read-only mount of a library written before these columns: `status`, `explain` and
    `status --files` said "no such column: ctime_ns" (nothing may migrate it there)."""
    from conftest import build_tiny_library
    from searchapp.cli.main import main
    from searchapp.library.resources import data_dir

    data = build_tiny_library(tmp_path, {"volcano.txt": "volcanoes erupt lava"}, tiny_bi_encoder_dir, tiny_encoder)
    conn = sqlite3.connect(data / "library.sqlite")
    for column in ("ctime_ns", "notes"):  # the schema before as it was
        conn.execute(f"ALTER TABLE files DROP COLUMN {column}")
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    monkeypatch.setattr(data_dir, "can_write", lambda p: False)
    for argv in (["search", "lava", "--mode", "lexical"], ["status"], ["status", "--json"],
                 ["explain", str(tmp_path / "docs" / "volcano.txt")], ["status", "--files"]):
        code = main(["--data-dir", str(data), *argv])
        out, err = capsys.readouterr()
        assert code == 0 and "ctime_ns" not in err + out, (argv, err)
