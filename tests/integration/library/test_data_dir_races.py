"""Opening a library while another process closes its connection: SQLite deletes the -wal and -shm files then,
possibly between the data dir's listing and the look at each entry in it."""

from __future__ import annotations

import os

from conftest import build_tiny_library
from searchapp.library.resources import data_dir
from searchapp.library.resources.data_dir import open_data_dir

TEXTS = {"note.txt": "The lighthouse keeper logs every passing ship."}


def test_an_entry_gone_since_the_listing_is_passed_over(tmp_path, tiny_bi_encoder_dir, tiny_encoder, monkeypatch):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    shm = data / "library.sqlite-shm"
    real, calls = os.scandir, []

    def listed_then_closed(path):
        if calls:
            return real(path)
        calls.append(path)
        shm.write_bytes(b"")  # another process's open connection keeps it ...
        entries = list(real(path))
        shm.unlink()  # ... and its last close removes it, right after this listing
        return iter(entries)

    monkeypatch.setattr(data_dir.os, "scandir", listed_then_closed)
    state = open_data_dir(data, create=False)  # before: FileNotFoundError out of the trust check
    assert calls and not state.read_only and not shm.exists()
