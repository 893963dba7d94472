"""A sync's words pass loads no model; a sync that embeds many passages loads the bi-encoder once, on a thread of its
own that starts once it has chunked enough and left enough passages waiting (a moved folder, whose vectors are all
found by hash, leaves none), so the words pass goes on meanwhile (issue 45); a meaning pass of a few
passages on a CPU embeds them by the query path and loads no model at all, storing the vectors the model gives
(library/resources/sync_encoder.py, decision 0164)."""

from __future__ import annotations

import shutil
import sqlite3
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from searchapp.library import Library
from searchapp.library.resources import sync_encoder
from searchapp.library.resources.data_dir import DB_NAME
from searchapp.models import bi_encoder


def _spy_loads(monkeypatch) -> list[str]:
    """The names of the threads each BiEncoder was built on (the real model is built)."""
    built: list[str] = []
    real_init = bi_encoder.BiEncoder.__init__

    def init(self, *args, **kw):
        built.append(threading.current_thread().name)
        real_init(self, *args, **kw)

    monkeypatch.setattr(bi_encoder.BiEncoder, "__init__", init)
    return built


def _docs(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(4):
        (docs / f"n{i}.txt").write_text(f"Note {i}: the heron waits by the reeds at dawn, day {i}.\n", encoding="utf-8")
    return docs


def _config(make_config, model_dir):
    return make_config(models={"bi_encoder": str(model_dir), "reranker": "", "precision": "fp32", "threads": 1})


def test_words_only_loads_no_model(make_config, tiny_bi_encoder_dir, tmp_path, monkeypatch):
    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        rep = lib.add_folder(_docs(tmp_path), embed=False)
        assert rep.added == 4 and lib.store.pending_count() == lib.store.chunk_count() > 0
        assert lib.search("heron", mode="lexical").hits
        assert built == [] and lib.models.loaded_encoder is None


def _stored_vectors(lib: Library) -> dict[str, np.ndarray]:
    """model input hash -> the vector stored for it, read from the library's database file."""
    with sqlite3.connect(Path(lib.data_dir) / DB_NAME) as db:
        rows = db.execute("SELECT text_hash, vector FROM chunks WHERE length(vector) > 0").fetchall()
    return {h: np.frombuffer(v, dtype=np.float32) for h, v in rows}


def test_a_small_meaning_pass_loads_no_model_and_stores_the_models_vectors(make_config, tiny_bi_encoder_dir,
                                                                           tmp_path, monkeypatch):
    built = _spy_loads(monkeypatch)
    docs = _docs(tmp_path)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lean:
        lean.add_folder(docs)
        assert lean.store.pending_count() == 0 and 0 < lean.store.chunk_count() <= sync_encoder.LEAN_PASSAGES
        assert built == [] and lean.models.loaded_encoder is None
        (docs / "n9.txt").write_text("A later note about the heron.\n", encoding="utf-8")
        lean.sync()  # an update of one file: still no model
        assert lean.store.pending_count() == 0 and built == []
        assert lean.search("heron at dawn", mode="dense").hits
        got = _stored_vectors(lean)
    # The same files embedded by the bi-encoder itself (loaded first, so every pass takes it)
    from searchapp.base.config import load_config

    config = load_config(tmp_path / "by-model", env={}, overrides={"models": {
        "bi_encoder": str(tiny_bi_encoder_dir), "reranker": "", "precision": "fp32", "threads": 1}})
    with Library(config) as full:
        assert full.models.encoder is not None
        full.add_folder(docs)
        want = _stored_vectors(full)
    assert sorted(got) == sorted(want) and len(got) > 1
    for h, vector in want.items():  # the tolerance the query paths keep against torch (decision 0117)
        assert np.abs(got[h] - vector).max() <= 1e-4 and float(got[h] @ vector) >= 1 - 1e-5


def test_a_passage_the_query_path_cannot_embed_goes_through_the_model(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                      monkeypatch):
    from searchapp.library.resources.model_set import ModelSet

    real = ModelSet.encode_passages_lean

    def first_declined(self, texts):
        vectors = real(self, texts)
        vectors[0] = np.nan  # what the path gives a passage it has no vector for
        return vectors

    monkeypatch.setattr(ModelSet, "encode_passages_lean", first_declined)
    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        lib.add_folder(_docs(tmp_path))
        assert lib.store.pending_count() == 0
        vectors = _stored_vectors(lib)
    assert built == ["MainThread"] and len(vectors) > 1  # loaded for that one passage, on the sync's thread
    assert all(np.isfinite(v).all() and abs(float(v @ v) - 1) < 1e-4 for v in vectors.values())


def test_a_sync_that_embeds_loads_the_model_once_beside_the_words(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                  monkeypatch):
    # More waiting than the lean path takes, and more text than the load ahead waits for
    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)
    monkeypatch.setattr(sync_encoder, "LOAD_AHEAD_CHARS", 10)
    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        docs = _docs(tmp_path)
        lib.add_folder(docs)
        assert lib.store.pending_count() == 0 and lib.store.chunk_count() > 0
        (docs / "n9.txt").write_text("A later note about the heron.\n", encoding="utf-8")
        lib.sync()
        assert lib.store.pending_count() == 0
    assert built == ["searchapp-load-bi-encoder"]  # once per process, not on the sync's thread


def test_a_sync_of_little_text_starts_no_load_but_loads_when_many_passages_wait(make_config, tiny_bi_encoder_dir,
                                                                                tmp_path, monkeypatch):
    """A words-only index left more passages waiting than the lean path takes: the next sync chunks one small file
    (no load ahead for so little text) and its meaning pass loads the model on the sync's own thread."""
    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 2)
    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        docs = _docs(tmp_path)
        lib.add_folder(docs, embed=False)
        assert lib.store.pending_count() > 2
        (docs / "n9.txt").write_text("A later note about the heron.\n", encoding="utf-8")
        lib.sync()
        assert lib.store.pending_count() == 0
    assert built == ["MainThread"]


@pytest.mark.engines("sqlite")
@pytest.mark.parametrize("how", ["moved", "copy added"])
def test_a_sync_whose_passages_all_find_their_vectors_loads_no_model(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                     monkeypatch, how):
    """A moved folder (`searchapp moved`, decision 0157) or a copy of indexed text is read and chunked again, but
    every passage finds its vector by hash: nothing waits, so the load ahead never starts, however much text was
    chunked (thresholds set so that a sync that counted chunked text alone, as before 0.27.0, loads it)."""
    from searchapp.library.sync.moved import follow_move

    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        docs = _docs(tmp_path)
        lib.add_folder(docs)  # four notes: the query path's, no model
        assert lib.store.pending_count() == 0 and built == []
        monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)
        monkeypatch.setattr(sync_encoder, "LOAD_AHEAD_CHARS", 10)
        if how == "moved":
            docs.rename(tmp_path / "moved")
            rep = follow_move(lib, str(docs), str(tmp_path / "moved"), undo_file=False).report
        else:
            shutil.copytree(docs, tmp_path / "copy")
            rep = lib.add_folder(tmp_path / "copy")
        assert rep.scanned == 4 and rep.chunks_added > 0 and rep.chunks_embedded == 0
        assert lib.store.pending_count() == 0
        assert built == [] and lib.models.loaded_encoder is None


class _HeldLoad(threading.Thread):
    """The load-ahead thread, held at its start until the test lets it go: the moment in which a sync reaching
    for the model before the load has taken MODELS_LOCK built it a second time, on its own thread."""

    release = threading.Event()

    def run(self) -> None:
        if self.name == "searchapp-load-bi-encoder":
            self.release.wait(120)
        super().run()


def test_the_model_is_waited_for_not_built_again_while_it_loads_ahead(make_config, tiny_bi_encoder_dir,
                                                                    monkeypatch):
    from searchapp.library.resources import model_set

    built = _spy_loads(monkeypatch)
    _HeldLoad.release = threading.Event()
    monkeypatch.setattr(model_set.threading, "Thread", _HeldLoad)
    models = model_set.ModelSet(_config(make_config, tiny_bi_encoder_dir))
    models.load_encoder_ahead()
    got: list = []
    sync = _HeldLoad(target=lambda: got.append(models.encoder), name="sync")
    sync.start()
    sync.join(2.0)  # time for a sync that does not wait to build the model itself (none needed when it waits)
    _HeldLoad.release.set()
    sync.join(120)
    assert got and got[0] is models.loaded_encoder
    assert built == ["searchapp-load-bi-encoder"]  # built once, by the load started ahead


def test_the_progress_says_so_while_a_pass_waits_for_the_model(make_config, tiny_bi_encoder_dir, tmp_path,
                                                               monkeypatch):
    """The first embedding report of a pass that loads the model says it loads (the bar sat at 0 for seconds with
    no word of why); a pass the query path embeds, or one after the model is in memory, does not say it."""
    from searchapp.base.progress import LOADING_NOTE

    def notes(lib: Library, folder) -> list[str]:
        said: list = []
        lib.add_folder(folder, progress=said.append)
        return [p.message for p in said if p.stage == "embedding"]

    docs = _docs(tmp_path)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        lean = notes(lib, docs)  # four notes: the query path's
        assert lean and not any(LOADING_NOTE in m for m in lean)
    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)
    more = tmp_path / "more"
    more.mkdir()
    (more / "n.txt").write_text("A note about the kingfisher on the willow branch.\n", encoding="utf-8")
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        loading = notes(lib, more)
        assert LOADING_NOTE in loading[0] and not any(LOADING_NOTE in m for m in loading[1:])
        (more / "m.txt").write_text("The heron again, at dusk.\n", encoding="utf-8")
        assert not any(LOADING_NOTE in m for m in notes(lib, more))  # loaded now



def _joining(ident: int) -> bool:
    """Whether the thread `ident` is inside a Thread.join (its stack looked at, not timed)."""
    frame = sys._current_frames().get(ident)
    while frame is not None:
        if frame.f_code.co_name == "join" and frame.f_code.co_filename == threading.__file__:
            return True
        frame = frame.f_back
    return False


def test_a_stop_while_the_model_loads_ahead_does_not_wait_for_it(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                 monkeypatch):
    """After a first Ctrl+C the model is not needed: the meaning pass waited for the whole load (`encoder`'s join)
    before it looked at the stop (decision 0203). The load is held on an event the test sets only afterwards; the
    stop comes once the meaning pass has begun and waits for it."""
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken

    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)
    monkeypatch.setattr(sync_encoder, "LOAD_AHEAD_CHARS", 10)
    started, release, embedding = threading.Event(), threading.Event(), threading.Event()
    real_init = bi_encoder.BiEncoder.__init__

    def slow(self, *args, **kw):
        started.set()
        release.wait(30)  # past it, the load goes on: a pass that waited for it fails below
        real_init(self, *args, **kw)

    def stop(sync_thread: int) -> None:
        started.wait(60)
        embedding.wait(60)
        while not release.is_set() and not _joining(sync_thread):
            release.wait(0.01)
        cancel.cancel()

    monkeypatch.setattr(bi_encoder.BiEncoder, "__init__", slow)
    cancel = CancelToken()
    stopper = threading.Thread(target=stop, args=(threading.get_ident(),))
    stopper.start()
    try:
        with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
            with pytest.raises(Cancelled):
                lib.add_folder(_docs(tmp_path), cancel=cancel,
                               progress=lambda p: embedding.set() if p.stage == "embedding" else None)
            assert lib.models.loaded_encoder is None  # returned with the load still held
            assert lib.store.chunk_count() > 0 and lib.store.pending_count() > 0  # its words kept, no vector
    finally:
        release.set()
        stopper.join(60)
        lib.models.wait_for_load(None)
