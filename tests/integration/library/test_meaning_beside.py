"""The meaning pass beside the words pass (library/sync/meaning_beside.py): on by default where the encoder wants
bulk batches (CUDA), forced here on the CPU with SEARCHAPP_MEANING_BESIDE_WORDS. Whatever runs beside, the
library a sync leaves is the one the words-then-meaning order leaves: every passage embedded once with its own
model input's vector, the vector index holding exactly the embedded passages, and a cancel, an error or a
deletion meanwhile leaving nothing half-written."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from searchapp.base.config import load_config
from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken, Progress
from searchapp.ingest.passage_context import model_input
from searchapp.library import Library
from searchapp.library.sync import meaning_beside
from searchapp.library.sync import read_groups
from searchapp.library.sync import words_pass as sync_module
from searchapp.library.sync.meaning_beside import MeaningBeside, beside_words

WORKER = "searchapp-meaning"
WORDS = "amber basil cedar dune ember fjord garnet heron iris jasper kelp lotus".split()


class ThreadRecordingEncoder:
    """The real tiny encoder; records which thread ran each encode, and can be slowed or made to fail."""

    def __init__(self, inner, delay: float = 0.0, fail_on: int | None = None) -> None:
        self._inner, self.delay, self.fail_on = inner, delay, fail_on
        self.threads: list[str] = []
        self.texts: list[str] = []
        self.done: list[str] = []

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def encode(self, texts, **kw):
        self.threads.append(threading.current_thread().name)
        if self.fail_on is not None and len(self.threads) == self.fail_on:
            raise RuntimeError("the encoder broke")
        time.sleep(self.delay)
        self.texts += list(texts)
        out = self._inner.encode(texts, **kw)
        self.done += list(texts)  # encoded to the end (an encode may stop at a cancel)
        return out


def make_folder(tmp_path, n: int = 30, name: str = "docs"):
    """n files of two passages; every fifth file repeats file 0's text (twins across batches)."""
    d = tmp_path / name
    d.mkdir()
    for i in range(n):
        body = 0 if i % 5 == 0 else i
        para = " ".join(f"{WORDS[(body + j) % len(WORDS)]}{body}" for j in range(40))
        (d / f"f{i:02d}.txt").write_text(f"Notes {body}: {para}.\n\nMore about day {body} and {para}.",
                                         encoding="utf-8")
    return d


def cfg(make_config):
    return make_config(models={"reranker": ""}, chunking={"max_tokens": 48})


def check_complete(lib: Library, encoder) -> dict[tuple[str, int], np.ndarray]:
    """Both directions: every passage has a vector and is in the index (nothing left out), the index holds only
    embedded passages and each vector is its own model input's (nothing wrong). Returns (path, ordinal) -> vector."""
    store = lib.store
    assert store.pending_count() == 0
    embedded = store.embedded_ids()
    assert embedded.tolist() == store.chunk_ids().tolist()
    assert sorted(lib.vectors.index().ids().tolist()) == embedded.tolist()
    rows = store.conn.execute("SELECT c.id, f.path, c.ordinal, c.text, coalesce(f.embed_title, '') FROM chunks c "
                              "JOIN files f ON f.id = c.file_id ORDER BY c.id").fetchall()
    found, vecs = store.vectors([r[0] for r in rows], encoder.dim)
    assert found.tolist() == [r[0] for r in rows]
    want = encoder._inner.encode([model_input(r[4], r[3]) for r in rows])
    np.testing.assert_allclose(vecs, want, atol=1e-5)
    return {(r[1], r[2]): v for r, v in zip(rows, vecs, strict=True)}


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 6)  # many words batches, so many encodes beside them
    monkeypatch.setattr(sync_module, "BATCH_FILES", 3)
    # groups read as small as the batches: a group reports each file as it starts reading it, before any is written
    monkeypatch.setattr(read_groups, "GROUP_FILES", 3)


def test_beside_leaves_the_library_words_then_meaning_leaves(tiny_encoder, tmp_path, monkeypatch, small_batches):
    folder = make_folder(tmp_path)
    got = {}
    for beside in ("0", "1"):
        monkeypatch.setenv(meaning_beside.ENV, beside)
        enc = ThreadRecordingEncoder(tiny_encoder)
        config = load_config(tmp_path / f"lib{beside}", env={},
                             overrides={"models": {"reranker": ""}, "chunking": {"max_tokens": 48}})
        events: list[Progress] = []
        with Library(config, encoder=enc) as lib:
            rep = lib.add_folder(folder, progress=events.append)
            got[beside] = check_complete(lib, enc)
            assert rep.chunks_embedded == len(enc.texts) == len(set(enc.texts))  # each model input once
            assert rep.chunks_pending == 0
            on_worker = [t for t in enc.threads if t.startswith(WORKER)]
            if beside == "1":
                assert len(on_worker) >= 3
                # What the worker declined when it was behind is embedded after the words, as without it.
                after = [p for p in events if p.stage == "embedding"]
                assert bool(after) == (len(on_worker) < len(enc.threads))
            else:
                assert not on_worker and [p for p in events if p.stage == "embedding"]
            assert lib.search("amber3 basil3").hits  # both kinds of search work on it
    assert got["0"].keys() == got["1"].keys()
    for key, vec in got["0"].items():
        np.testing.assert_allclose(got["1"][key], vec, atol=1e-6)
    assert not any(t.name.startswith(WORKER) for t in threading.enumerate())  # each sync's worker is gone


def test_a_passage_deleted_while_its_vector_is_on_the_way_is_not_indexed(make_config, tiny_encoder, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv(meaning_beside.ENV, "1")
    folder = make_folder(tmp_path, 6)
    with Library(cfg(make_config), encoder=tiny_encoder) as lib:
        lib.add_folder(folder, embed=False)
        store = lib.store
        rows = store.pending_rows(store.pending_order())
        gone = store.file_by_path(str(folder / "f01.txt"))
        with lib._writing("indexing", check_model=False):
            beside = MeaningBeside(store, tiny_encoder, lib.vectors, None, batch=4)
            try:
                beside.offer({h: model_input(title, text) for _, h, text, title in rows})
                with store.atomic():  # the file goes while its passages' vectors are being encoded
                    lib.vectors.remove(store.delete_file(gone.id))
                    store.bump_generation()
                beside.finish()
            finally:
                beside.close()
            assert beside.encoded == len({h for _, h, _, _ in rows})
        check_complete(lib, ThreadRecordingEncoder(tiny_encoder))
        assert not store.files_by_path([str(folder / "f01.txt")])


def test_cancel_mid_words_leaves_a_consistent_library_the_next_sync_completes(make_config, tiny_encoder, tmp_path,
                                                                              monkeypatch, small_batches):
    monkeypatch.setenv(meaning_beside.ENV, "1")
    folder = make_folder(tmp_path)
    token = CancelToken()

    def progress(p: Progress) -> None:
        if p.stage == "extracting" and p.done == 25:
            deadline = time.monotonic() + 30
            while not enc.done and time.monotonic() < deadline:  # some meaning encoded, not yet written
                time.sleep(0.01)
            token.cancel()

    enc = ThreadRecordingEncoder(tiny_encoder)
    with Library(cfg(make_config), encoder=enc) as lib:
        with pytest.raises(Cancelled) as info:
            lib.add_folder(folder, progress=progress, cancel=token)
        assert not any(t.name.startswith(WORKER) for t in threading.enumerate())  # the worker is gone
        store = lib.store
        rep = info.value.report  # what the sync did by then, for the person who cancelled it
        assert rep is not None and rep.added >= 24 and rep.chunks_added == store.chunk_count() > 0
        # What was encoded to the end is kept: none of its passages waits (twins were filled with them).
        assert enc.done and rep.chunks_embedded == len(enc.done)
        waiting = {r[0] for r in store.conn.execute(
            "SELECT c.text FROM chunks c WHERE length(c.vector) = 0")}
        assert not waiting & set(enc.done)
        assert 0 < len(enc.done) <= store.chunk_count() - store.pending_count()
        assert sorted(lib.vectors.index().ids().tolist()) == store.embedded_ids().tolist()
        lib.sync()
        check_complete(lib, enc)


def test_an_encode_failing_beside_the_words_loses_nothing(make_config, tiny_encoder, tmp_path, monkeypatch,
                                                          small_batches):
    """An encode that raises beside the words is dropped there, not written and not the sync's end (the
    per-file boundary, file_boundary.py): its passages wait, and the meaning pass after the words encodes them
    (one file's passages that break the encoder alone fail that file: test_file_boundary.py)."""
    monkeypatch.setenv(meaning_beside.ENV, "1")
    folder = make_folder(tmp_path)
    broken = ThreadRecordingEncoder(tiny_encoder, fail_on=2)
    with Library(cfg(make_config), encoder=broken) as lib:
        rep = lib.add_folder(folder)
        assert broken.threads[1].startswith(WORKER)
        assert rep.failed == 0 and rep.added == 30
        check_complete(lib, broken)
        assert len(lib.store.files_of_root(lib.store.roots()[0].id)) == 30


def test_a_slow_encoder_never_holds_the_words_back(make_config, tiny_encoder, tmp_path, monkeypatch, small_batches):
    """Past its queue the words pass leaves passages to the meaning pass after it, which embeds them."""
    monkeypatch.setenv(meaning_beside.ENV, "1")
    monkeypatch.setattr(meaning_beside, "_IN_FLIGHT", 1)
    folder = make_folder(tmp_path)
    slow = ThreadRecordingEncoder(tiny_encoder, delay=0.3)
    events: list[Progress] = []
    with Library(cfg(make_config), encoder=slow) as lib:
        rep = lib.add_folder(folder, progress=events.append)
        check_complete(lib, slow)
    beside = [t for t in slow.threads if t.startswith(WORKER)]
    assert beside and len(beside) < len(slow.threads)  # some beside, the rest after the words
    assert [p for p in events if p.stage == "embedding"]
    assert rep.chunks_embedded == len(slow.texts) == len(set(slow.texts))


def test_beside_is_the_default_only_for_an_encoder_that_wants_bulk_batches(tiny_encoder, monkeypatch):
    class Gpu:
        bulk_batch = 512

    monkeypatch.delenv(meaning_beside.ENV, raising=False)
    assert beside_words(Gpu()) and not beside_words(tiny_encoder)
    monkeypatch.setenv(meaning_beside.ENV, "0")
    assert not beside_words(Gpu())
    monkeypatch.setenv(meaning_beside.ENV, "1")
    assert beside_words(tiny_encoder)


@pytest.mark.parametrize("keep_done", [True, False])
def test_close_keeping_what_is_done_writes_the_encodes_that_finished(make_config, tiny_encoder, tmp_path,
                                                                      monkeypatch, keep_done):
    """A cancel closes with keep_done: an encode that finished but was not yet written (no words batch came after
    it to write it) is written then, and its passages leave the queue; closed without it, they all still wait."""
    monkeypatch.setenv(meaning_beside.ENV, "1")
    folder = make_folder(tmp_path, 6)
    enc = ThreadRecordingEncoder(tiny_encoder)
    with Library(cfg(make_config), encoder=enc) as lib:
        lib.add_folder(folder, embed=False)
        store = lib.store
        waiting = store.pending_count()
        rows = store.pending_rows(store.pending_order())
        inputs = {h: model_input(title, text) for _, h, text, title in rows}
        assert waiting > 0 and store.embedded_ids().size == 0
        with lib._writing("indexing", check_model=False):
            beside = MeaningBeside(store, enc, lib.vectors, None, batch=len(inputs))
            try:
                beside.offer(inputs)  # one batch, handed to the worker; nothing after it writes it
                deadline = time.monotonic() + 60
                while len(enc.done) < len(inputs) and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert sorted(enc.done) == sorted(inputs.values())  # encoded to the end, not yet written
                assert store.pending_count() == waiting
            finally:
                beside.close(keep_done=keep_done)
        if keep_done:
            assert beside.encoded == len(inputs)
            check_complete(lib, enc)
        else:
            assert beside.encoded == 0 and store.pending_count() == waiting
            assert len(lib.vectors.index()) == 0
