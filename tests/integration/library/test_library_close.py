"""`Library.close()` waits for every read in flight, including the one the model load makes on a worker thread
(the library's meta and whether it holds passages, which decide the pooling a query is encoded with): closing a
SQLite connection under a running query crashed a window test's worker (the read went around the guard)."""

from __future__ import annotations

import threading

import pytest

from searchapp.base.errors import StoreError
from searchapp.library import Library
from searchapp.store import Store


def test_close_waits_for_the_model_load_s_read_of_the_library(make_config, tiny_encoder, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("A lighthouse keeper logs the storms of the winter.\n")
    lib = Library(make_config(), encoder=tiny_encoder)
    lib.add_folder(docs)
    inside, go = threading.Event(), threading.Event()
    real = Store.has_chunks

    def held(self):
        inside.set()
        assert go.wait(60)
        return real(self)

    monkeypatch.setattr(Store, "has_chunks", held)
    answer: list = []
    loader = threading.Thread(target=lambda: answer.append(lib.models.library_state()))
    loader.start()
    assert inside.wait(60)
    closer = threading.Thread(target=lib.close)
    closer.start()
    try:
        for _ in range(600):  # close() has begun: new reads are refused from here on
            if lib._connections._closed:
                break
            closer.join(0.05)
        assert lib._connections._closed
        # ...and it waits for the read in flight instead of closing its connection under it.
        assert lib._connections._in_flight == 1 and closer.is_alive()
    finally:
        go.set()
        loader.join(60)
        closer.join(60)
    meta, has = answer[0]
    assert has and meta  # the read finished on an open connection
    with pytest.raises(StoreError, match="closed"):
        lib.models.library_state()
