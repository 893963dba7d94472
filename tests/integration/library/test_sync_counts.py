"""The sync report's counts add up, skipped files stay skipped on re-sync, `status` agrees, and the
progress bar counts passages while embedding."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from store_files import batch_sizes
from searchapp.base.progress import Progress
from searchapp.cli.progress import TerminalProgress
from searchapp.library import Library, SyncReport
from searchapp.library.sync import words_pass as sync_module


def adds_up(rep: SyncReport) -> bool:
    return rep.scanned == rep.added + rep.updated + rep.unchanged + rep.skipped + rep.failed


@pytest.fixture
def library(make_config, tiny_encoder):
    lib = Library(make_config(models={"reranker": ""}, scan={"max_file_mb": 0.01, "ocr": False}), encoder=tiny_encoder)
    yield lib
    lib.close()


@pytest.fixture
def folder(tmp_path) -> Path:
    d = tmp_path / "docs"
    (d / "sub").mkdir(parents=True)
    for i in range(4):
        (d / f"note{i}.txt").write_text(f"Note {i} about gardening, tomatoes and compost number {i}.", encoding="utf-8")
    (d / "sub" / "guide.md").write_text("# Guide\n\nPrune the roses in early spring.", encoding="utf-8")
    (d / "empty.md").write_text("")  # skipped: no text
    (d / "blob.data").write_bytes(b"\x00\x01\x02binary" * 10)  # unknown suffix, binary content: skipped
    (d / "big.txt").write_text("x" * 20_000)  # over the 0.01 MB cap: skipped by the scan
    (d / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 50)  # known binary, OCR off: left out quietly
    return d


def test_counts_add_up_and_skipped_stay_skipped(library, folder):
    first = library.add_folder(folder)
    assert adds_up(first)
    assert (first.scanned, first.added, first.skipped, first.failed) == (8, 5, 3, 0)
    # empty.md is counted skipped, and not listed: an empty file is no problem (its state is `empty`)
    assert {Path(p).name for p, _ in first.problems} == {"blob.data", "big.txt"}

    st = library.status()
    assert sum(st.files.values()) == first.scanned  # status agrees with the report
    assert st.files == {"indexed": 5, "skipped": 3}

    again = library.sync()
    assert adds_up(again)
    assert (again.scanned, again.unchanged, again.skipped) == (8, 5, 3)  # skipped are not "unchanged"
    assert again.problems == []  # each skip is listed once, by the sync that first met it
    assert sum(library.status().files.values()) == again.scanned


def test_counts_add_up_with_edits_and_deletions(library, folder):
    library.add_folder(folder)
    (folder / "note0.txt").write_text("Completely new text on beekeeping and honey.", encoding="utf-8")
    (folder / "note1.txt").unlink()
    (folder / "new.txt").write_text("A new file about bicycles.", encoding="utf-8")
    rep = library.sync()
    assert adds_up(rep)
    assert (rep.added, rep.updated, rep.removed, rep.unchanged, rep.skipped) == (1, 1, 1, 3, 3)


def test_embedding_progress_counts_passages_of_the_whole_sync(make_config, tiny_encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 3)  # several flushes, so several encode calls
    d = tmp_path / "many"
    d.mkdir()
    for i in range(10):
        (d / f"f{i}.txt").write_text(f"Passage {i}: unique words alpha{i} beta{i} gamma{i}.", encoding="utf-8")
    events: list[Progress] = []
    lib = Library(make_config(models={"reranker": ""}), encoder=tiny_encoder)
    try:
        rep = lib.add_folder(d, progress=events.append)
    finally:
        lib.close()
    emb = [p for p in events if p.stage == "embedding"]
    done = [p.done for p in emb]
    assert done == sorted(done) and done[-1] == rep.chunks_embedded == 10  # cumulative, not per batch
    assert all(p.total is not None and p.total >= p.done for p in emb)
    assert emb[-1].total == 10  # once every byte is read the estimate is exact


def test_terminal_bar_counts_passages_once_embedding_starts(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    bar = TerminalProgress(enabled=True)
    bar(Progress("extracting", 1, 10, "a.txt"))
    assert bar._bar.unit == " files"
    bar(Progress("embedding", 32, 400))
    assert bar._bar.unit == " passages" and bar._bar.n == 32 and bar._bar.total == 400
    bar(Progress("extracting", 5, 10, "e.txt"))  # reading more files does not switch back to files
    assert bar._bar.unit == " passages" and bar._bar.n == 32
    bar(Progress("embedding", 64, 380))
    assert bar._bar.n == 64 and bar._bar.total == 380
    bar(Progress("ocr", 2, 7, "scan.png"))  # OCR comes after: a bar of its own, over files
    assert bar._bar.unit == " files" and bar._bar.desc.startswith("OCR") and (bar._bar.n, bar._bar.total) == (2, 7)
    bar.close()


def test_an_unchanged_containers_members_are_counted_every_sync(library, folder):
    """`scanned` drifted 448 -> 425 -> 409 on an unchanged folder: a container's members counted only when it was
    read. They are counted as met (unchanged or skipped, as stored) whenever the container is."""
    import zipfile

    with zipfile.ZipFile(folder / "notes.zip", "w") as z:
        z.writestr("a.txt", "Compost needs air and water.")
        z.writestr("b.txt", "Tomatoes like the sun.")
        z.writestr("empty.txt", "")
    first = library.add_folder(folder)
    again = library.sync()
    assert adds_up(first) and adds_up(again)
    st = library.status()  # the files on disk and the zip's three members, counted apart (decision 0163)
    assert (first.members, again.members, sum(st.members.values())) == (3, 3, 3)
    assert again.scanned == first.scanned == sum(st.files.values()) + sum(st.members.values())
    assert (again.unchanged, again.skipped) == (first.added, first.skipped)
    (folder / "notes.zip").touch()  # the same bytes, a new date: read again to find they did not change
    touched = library.sync()
    assert adds_up(touched) and touched.scanned == first.scanned, touched


def test_the_first_batch_is_committed_once_it_has_waited_not_only_when_full(library, folder, monkeypatch):
    """A newcomer's 24 PDFs (a second each) showed "files: 0" for 28 s: nothing was committed before 64 files.
    The first batch now goes once it has waited FIRST_BATCH_S (here: at once); the later ones fill as before."""
    from searchapp.library.sync import batches
    from searchapp.store import Store

    monkeypatch.setattr(batches, "FIRST_BATCH_S", 0.0)
    sizes = batch_sizes(monkeypatch, Store)
    library.add_folder(folder)
    assert sizes[0] == 1 and len(sizes) == 2, sizes  # the first file alone, then the other four together


@pytest.mark.parametrize("fast_batches, wanted", [
    (99, [2, 4, 8, 8, 8, 3]),  # filled at once: each batch twice the last, up to MAX_BATCH_CHUNKS (8 here)
    (0, [2] * 16 + [1]),  # a second a file: the sync's own size, batch after batch
    (3, [2, 4, 8, 3, 3] + [2] * 6 + [1]),  # slow after three: a grown batch goes after 2 s, halved back
])
def test_batches_grow_while_they_fill_fast(library, tmp_path, monkeypatch, fast_batches, wanted):
    """10,000 small files were 157 transactions, each paying FTS5's and the WAL's fixed part: a batch that filled by
    count within FAST_FILL_S lets the next hold twice as many; slow files keep small batches (words seen soon)."""
    from types import SimpleNamespace

    from searchapp.library.sync import batches
    from searchapp.store import Store

    clock = [0.0]

    def monotonic() -> float:  # the batcher's clock: still while `fast_batches` are written, then a second a look
        clock[0] += 0.0 if len(sizes) < fast_batches else batches.FAST_FILL_S
        return clock[0]

    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 2)
    monkeypatch.setattr(batches, "FIRST_BATCH_S", float("inf"))
    monkeypatch.setattr(batches, "MAX_BATCH_CHUNKS", 8)
    monkeypatch.setattr(batches, "time", SimpleNamespace(monotonic=monotonic))
    docs = tmp_path / "many"
    docs.mkdir()
    for i in range(33):
        (docs / f"n{i:02}.txt").write_text(f"note {i} on voles and otters", encoding="utf-8")
    sizes = batch_sizes(monkeypatch, Store)
    rep = library.add_folder(docs, embed=False)
    assert rep.added == 33 and sizes == wanted, sizes
    assert len(library.search("voles", mode="lexical", k=50).hits) == 33
