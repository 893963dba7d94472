"""The words pass's per-file work: a text file is read once for its hash and its text, and a batch looks up its
files' rows in one go (the same rows and passages as a file-by-file look-up, a path twice in a batch included)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from searchapp.base.hashing import file_sha256_and_bytes
from searchapp.base.types import ChunkSpan
from searchapp.ingest.extractors import extract, takes_data
from searchapp.ingest.scan import ScannedFile
from searchapp.library import Library
from searchapp.library.sync.batches import Batcher, Pending
from searchapp.library.sync.contract import SyncReport
from searchapp.store.ledger import set_ocr_state


class _NoIndex:
    def add(self, ids, vectors) -> None:
        raise AssertionError("no vectors in these batches")

    def remove(self, ids) -> None:
        pass


def test_a_text_file_is_opened_once_for_its_hash_and_its_text(make_config, tiny_encoder, tmp_path, opened_files):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "a.txt").write_text("Tidal notes on the estuary and its herons.", encoding="utf-8")
    (d / "b.html").write_text("<html><title>Moths</title><p>Moths of the lower meadow.</p></html>", encoding="utf-8")
    (d / "README").write_text("Plain words in a file without a suffix.", encoding="utf-8")
    opened = opened_files
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(d, embed=False)
        assert rep.added == 3
        for name in ("a.txt", "b.html", "README"):
            path = str((d / name).resolve())
            assert opened.count(path) == 1, name  # was twice: once to hash it, once to extract it
            row = lib.store.file_by_path(path)
            assert row.sha256 == hashlib.sha256((d / name).read_bytes()).hexdigest()


def test_the_bytes_read_for_the_hash_give_the_same_text_and_a_large_file_is_not_held(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes("Caf\u00e9 notes\r\nline two\n".encode("utf-8") * 50)
    whole = hashlib.sha256(p.read_bytes()).hexdigest()
    sha, data = file_sha256_and_bytes(p, 1 << 20)
    assert (sha, data) == (whole, p.read_bytes())
    assert takes_data(p) and extract(p, data=data) == extract(p)
    sha, data = file_sha256_and_bytes(p, 100)  # over the cap: hashed whole, its bytes not kept
    assert (sha, data) == (whole, None)
    assert not takes_data(tmp_path / "a.pdf") and not takes_data(tmp_path / "a.png")


def test_a_file_whose_size_on_disk_says_less_than_it_holds_is_read_whole(tmp_path):
    # The read asks for the size fstat gives (not the cap: a 100 MB buffer per small file). A file that grew
    # since, or one whose size says 0 (procfs), must still be read to its end or to the cap.
    status = Path("/proc/self/status")
    if not status.is_file() or status.stat().st_size != 0:
        pytest.skip("needs a procfs file that reports size 0")
    sha, data = file_sha256_and_bytes(status, 1 << 20)
    assert data is not None and len(data) > 100 and b"Name:" in data and sha == hashlib.sha256(data).hexdigest()
    sha, data = file_sha256_and_bytes(status, 10)  # over the cap when read on
    assert data is None and len(sha) == 64


def _pending(path: Path, texts: list[str], ocr=None) -> Pending:
    spans, pos = [], 0
    for i, t in enumerate(texts):
        spans.append(ChunkSpan(i, pos, pos + len(t), t))
        pos += len(t) + 1
    return Pending(ScannedFile(path, 10, 1), "sha-" + texts[0], "text", spans, "",
                   [hashlib.sha1(t.encode()).hexdigest() for t in texts], ocr=ocr)


def test_a_batch_stores_the_same_rows_with_one_look_up_a_path_twice_and_ocr_state_included(make_config, tmp_path):
    with Library(make_config(models={"reranker": ""})) as lib:
        store = lib.store
        root_id = store.add_root(str(tmp_path))
        root = store.root_by_path(str(tmp_path))
        assert root is not None and root.id == root_id
        old = tmp_path / "old.txt"
        with store.atomic():  # a stored entry waiting for OCR, with passages of its own
            fid = store.upsert_file(root_id, str(old), 1, 1, "x", "indexed", None, "text", 1)
            set_ocr_state(store, fid, "pending")
        rep = SyncReport()
        batcher = Batcher(store, root, _NoIndex(), rep, None, None, 1000, 1000)
        twice = tmp_path / "twice.txt"
        batcher.add(_pending(twice, ["first version", "of the file"]))
        batcher.add(_pending(old, ["now plain text"]))
        batcher.add(_pending(tmp_path / "new.txt", ["a new file"], ocr="done"))
        batcher.add(_pending(twice, ["second version"]))  # the later one wins, within the same batch
        batcher.flush()
        texts = {r[0]: r[1:] for r in store.conn.execute(
            "SELECT f.path, f.n_chunks, f.ocr, group_concat(c.text, '|') FROM files f JOIN chunks c ON c.file_id = f.id"
            " GROUP BY f.id")}
        assert texts == {str(twice): (1, None, "second version"), str(old): (1, None, "now plain text"),
                         str(tmp_path / "new.txt"): (1, "done", "a new file")}
        assert store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 3
        assert store.files_by_path([str(old), str(tmp_path / "gone.txt")]).keys() == {str(old)}
