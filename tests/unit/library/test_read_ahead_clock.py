"""The read-ahead worker's budget clock (library/sync/read_ahead_worker.py) runs while a file is extracted, and
only then: the same span FileBudget measures in the sync's own process. Hashing the file and chunking its text
are outside it, so a slow first chunking (lazy imports in a freshly spawned worker) cannot get a file killed."""

from __future__ import annotations

import multiprocessing

from searchapp.base import hashing
from searchapp.base.config import Config
from searchapp.base.types import Document
from searchapp.ingest import extractors
from searchapp.ingest import passages
from searchapp.library.sync import read_ahead_worker


def test_the_workers_clock_runs_around_the_extraction_only(tmp_path, monkeypatch):
    now = multiprocessing.get_context("spawn").Array("d", 2)
    seen: dict[str, tuple[float, float]] = {}

    def when(step: str) -> None:
        with now.get_lock():
            seen[step] = (now[0], now[1])

    def sha(path, *a, **kw):
        when("hash")
        return "0" * 64, b"text"

    def extract(path, *a, **kw):
        when("extract")
        return Document("Some text of the file.", kind="text")

    def passages_of(doc, encoder, config, batcher, bounds=None):
        when("chunk")
        return "", [], []

    monkeypatch.setattr(hashing, "file_sha256_and_bytes", sha)
    monkeypatch.setattr(hashing, "file_sha256", lambda path: sha(path)[0])
    monkeypatch.setattr(extractors, "extract", extract)
    monkeypatch.setattr(passages, "passages_of", passages_of)
    monkeypatch.setitem(read_ahead_worker._STATE, "config", Config())
    monkeypatch.setitem(read_ahead_worker._STATE, "encoder", None)
    monkeypatch.setitem(read_ahead_worker._STATE, "now", now)
    (tmp_path / "a.txt").write_text("Some text of the file.", encoding="utf-8")
    out, learned = read_ahead_worker.read_group([str(tmp_path / "a.txt")], [None], first=7)
    assert learned == {}  # no tokenizer here to learn words
    assert out[0] is not None and out[0].failed is None
    assert seen["hash"][1] == 0.0  # not yet running
    assert seen["extract"][0] == 7 and seen["extract"][1] > 0.0  # file number 7's clock runs
    assert seen["chunk"][1] == 0.0  # stopped right after the extraction
    assert now[1] == 0.0


def test_a_file_that_fails_in_the_worker_keeps_its_bytes_hash(tmp_path):
    """The sync stores a failed entry's hash, so that the same broken file renamed is one move, not a removal and a
    new failure (library/sync/vanished.py): the worker's failure hands it on too."""
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n1 0 obj garbage\n")
    got = read_ahead_worker._extract(str(broken), None, Config(), None, None)
    assert isinstance(got, read_ahead_worker.Read) and got.failed, got
    assert got.sha == hashing.file_sha256(broken)
