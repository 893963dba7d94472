"""A sync's small meaning pass runs on the query path (decision 0164), which in the window is also what its searches'
queries run on: a search asked while that pass runs is answered after the passages under way, not after the pass
(library/resources/sync_encoder.py). The pass hands the query path a few passages at a time and checks its cancel
token between, which steps aside while a search runs (resources/in_flight.YieldingCancel)."""

from __future__ import annotations

import threading

from searchapp.library import Library
from searchapp.library.resources import in_flight
from searchapp.models import query_encoder


def _twenty_notes(make_config, model_dir, tmp_path):
    """(a folder of twenty one-passage notes, a config over the tiny bi-encoder): a pass the query path takes."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(20):
        (docs / f"n{i}.txt").write_text(f"Note {i}: the heron waits by the reeds at dawn, day {i}.\n", encoding="utf-8")
    return docs, make_config(models={"bi_encoder": str(model_dir), "reranker": "", "precision": "fp32", "threads": 1})


def test_a_search_during_a_small_meaning_pass_waits_for_a_few_passages_not_the_pass(make_config, tiny_bi_encoder_dir,
                                                                                    tmp_path, monkeypatch):
    monkeypatch.setattr(in_flight, "MIN_WORK", 0.0)  # the sync steps aside at its first check, however young
    docs, config = _twenty_notes(make_config, tiny_bi_encoder_dir, tmp_path)
    calls: list[tuple[str, int]] = []  # (thread, passages) of each pass through the NumPy query path, in order
    asked = threading.Event()
    sync_in = threading.Event()
    real = query_encoder.NumpyQueryEncoder._encode

    def spy(self, encs):
        name = threading.current_thread().name
        calls.append((name, len(encs)))
        if name == "sync" and not sync_in.is_set():
            sync_in.set()
            asked.wait(30)  # the search is asked while the pass's first call is under way
        return real(self, encs)

    with Library(config) as lib:
        lib.add_folder(docs, embed=False)
        waiting = lib.store.pending_count()
        assert 4 < waiting <= 24  # a pass the query path takes, of more passages than it is handed at once
        lib.models.load_for_search(rerank=False)  # the window's warm-up: NumPy (this library has no export)
        monkeypatch.setattr(query_encoder.NumpyQueryEncoder, "_encode", spy)
        sync = threading.Thread(target=lib.sync, name="sync")
        sync.start()
        assert sync_in.wait(60)

        def search() -> None:
            with lib._in_flight.running():  # as Library.search announces itself
                asked.set()
                lib.models.encode_query("heron at dawn")

        searcher = threading.Thread(target=search, name="search")
        searcher.start()
        searcher.join(60)
        sync.join(60)
        assert lib.store.pending_count() == 0 and lib.models.loaded_encoder is None
    first_query = calls.index(("search", 1))
    before = sum(n for name, n in calls[:first_query] if name == "sync")
    assert before <= 4, f"the query waited for {before} passages of the sync: {calls}"
    assert sum(n for name, n in calls if name == "sync") == waiting


def test_a_cancel_during_a_small_meaning_pass_keeps_its_batch_then_stops(make_config, tiny_bi_encoder_dir,
                                                                         tmp_path, monkeypatch):
    """Cancelled while the query path embeds the pass's first passages: the batch under way (here the whole small
    pass) is finished and kept, as "stopping after the current batch" says, then the pass raises Cancelled (decision
    0193: it wrote nothing of its batch, which the bar had counted)."""
    import pytest

    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken

    docs, config = _twenty_notes(make_config, tiny_bi_encoder_dir, tmp_path)
    cancel = CancelToken()
    embedded: list[int] = []
    real = query_encoder.NumpyQueryEncoder._encode

    def cancelled_at_the_first(self, encs):
        embedded.append(len(encs))
        cancel.cancel()  # the person presses Stop while these are embedded
        return real(self, encs)

    with Library(config) as lib:
        lib.add_folder(docs, embed=False)
        waiting = lib.store.pending_count()
        assert 4 < waiting <= 24
        lib.models.load_for_search(rerank=False)  # the query path loaded (its probe is no passage of the pass)
        monkeypatch.setattr(query_encoder.NumpyQueryEncoder, "_encode", cancelled_at_the_first)
        with pytest.raises(Cancelled):
            lib.sync(cancel=cancel)
        assert sum(embedded) == waiting and lib.store.pending_count() == 0
        assert lib.status().vectors == waiting and lib.models.loaded_encoder is None
