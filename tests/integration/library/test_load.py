"""Under load: searches from several threads interleave with sync batches from another thread. Nothing may
raise, every result must be well formed, and the hnswlib index must never be read while it is written or
resized (hnswlib's add_items/resize_index are not safe beside knn_query)."""

from __future__ import annotations

import math
import random
import threading
import time
from pathlib import Path

import pytest

import searchapp.ann.hnsw as hnsw_module
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.library import Library
from searchapp.library.resources import in_flight
from searchapp.library.sync import words_pass as sync_module

from test_crash_safety import tiny_config, write_corpus

_WRITES = ("add_items", "resize_index", "mark_deleted", "unmark_deleted", "load_index", "init_index")
_READS = ("knn_query", "get_items")


class Guard:
    """Counts overlapping reads and writes on the real hnswlib indexes it wraps."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reading = 0
        self.writing = 0
        self.violations: list[str] = []
        self.calls = {name: 0 for name in _WRITES + _READS}


def guarded_index_class(guard: Guard, real_class):
    class GuardedIndex:
        """A real hnswlib.Index; every read and write is checked against the others in flight."""

        def __init__(self, *args, **kwargs) -> None:
            object.__setattr__(self, "_real", real_class(*args, **kwargs))

        def __getattr__(self, name):
            attr = getattr(self._real, name)
            if name not in _WRITES + _READS:
                return attr

            def call(*args, **kwargs):
                write = name in _WRITES
                with guard.lock:
                    guard.calls[name] += 1
                    if guard.writing or (write and guard.reading):
                        guard.violations.append(f"{name} while {'a write' if guard.writing else 'a read'} was running")
                    if write:
                        guard.writing += 1
                    else:
                        guard.reading += 1
                try:
                    return attr(*args, **kwargs)
                finally:
                    with guard.lock:
                        if write:
                            guard.writing -= 1
                        else:
                            guard.reading -= 1

            return call

        def __setattr__(self, name, value):
            setattr(self._real, name, value)

    return GuardedIndex


def test_searches_interleaved_with_sync_batches(tmp_path, tiny_bi_encoder_dir, tiny_encoder, monkeypatch):
    guard = Guard()
    monkeypatch.setattr(hnsw_module.hnswlib, "Index", guarded_index_class(guard, hnsw_module.hnswlib.Index))
    monkeypatch.setattr(hnsw_module, "_MIN_CAPACITY", 16)  # resize often: every resize is a chance to collide
    monkeypatch.setattr(sync_module, "BATCH_FILES", 4)  # many small batches, each an index update
    # The sync steps aside for searches (test_sync_yields_to_search.py): here its pauses are cut short so that
    # its batches run beside the searches instead of waiting them out (more overlap, less time spent waiting).
    monkeypatch.setattr(in_flight, "PAUSE_CAP", 0.02)
    docs = write_corpus(tmp_path / "docs", 20)
    lib = Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder)
    lib.add_folder(docs)

    errors: list[BaseException] = []
    searches = {"n": 0, "hits": 0, "during_sync": 0}
    done, syncing = threading.Event(), threading.Event()

    def writer() -> None:
        try:
            rng = random.Random(1)
            # 4 rounds (was 6): the index still resizes 5 times (6 rounds: 6), and ~64 searches overlap a sync
            for round_ in range(4):
                write_corpus(docs / f"round{round_}", 25, seed=100 + round_)
                for p in rng.sample(sorted(docs.glob("*.txt")), 3):
                    p.unlink()  # deletions too: mark_deleted and, past 20%, compaction
                # every round runs beside searches however the threads are scheduled (> 20 in all, asserted)
                deadline = time.monotonic() + 60
                while searches["n"] < 6 * (round_ + 1) and not errors and time.monotonic() < deadline:
                    time.sleep(0.01)
                syncing.set()
                try:
                    lib.sync()
                finally:
                    syncing.clear()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            done.set()

    def searcher(seed: int) -> None:
        rng = random.Random(seed)
        try:
            # a pause between searches: searchers that spin burn CPU without adding overlaps the writer's
            # batches would not meet anyway (three threads, each pausing at random moments)
            while not done.wait(0.02):
                mode = rng.choice(SEARCH_MODES)
                k = rng.choice([1, 5, 20])
                searches["during_sync"] += syncing.is_set()  # the overlaps the guard below is about
                res = lib.search(rng.choice(["apple river", "copper lantern glacier", "violin"]), mode=mode, k=k)
                assert len(res.hits) <= k
                assert [h.ranks.final for h in res.hits] == list(range(1, len(res.hits) + 1))
                for h in res.hits:
                    assert h.text and Path(h.path).is_relative_to(docs) and 0 <= h.start < h.end
                    if mode == "dense":
                        assert h.scores.dense is not None and math.isfinite(h.scores.dense)
                    elif mode == "hybrid":  # a passage still waiting for its vector is found by its words only
                        assert h.scores.dense is None or math.isfinite(h.scores.dense)
                searches["n"] += 1
                searches["hits"] += len(res.hits)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=searcher, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    try:
        assert not any(t.is_alive() for t in threads)
        assert not errors, errors
        assert searches["n"] > 20 and searches["hits"] > 0 and searches["during_sync"] > 0
        assert guard.calls["resize_index"] > 0 and guard.calls["knn_query"] > 0
        assert guard.violations == []
        st = lib.status()
        assert st.consistent and st.vectors == st.chunks
    finally:
        lib.close()


def test_guard_sees_an_unlocked_collision():
    """The guard itself can fail: a read that overlaps a write is reported."""
    guard = Guard()
    cls = guarded_index_class(guard, hnsw_module.hnswlib.Index)
    index = cls(space="cosine", dim=4)
    index.init_index(max_elements=8)
    with guard.lock:
        guard.writing += 1  # as if add_items were running on another thread
    with pytest.raises(RuntimeError):
        index.knn_query([[1.0, 0, 0, 0]], k=1)  # empty index: hnswlib raises, but the overlap is recorded first
    assert guard.violations == ["knn_query while a write was running"]
