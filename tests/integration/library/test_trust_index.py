"""Issue 18, the index and settings items: HNSW ef per call (no shared ef state between reader threads), the
one "needs reindex" rule, and a FIFO among a cached model's files."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from searchapp.ann import HnswIndex
from searchapp.base.config import IndexConfig

# ---- 10a: ef is per call ------------------------------------------------------------------------------


def _random_hnsw(n: int = 3000, dim: int = 32, seed: int = 3) -> tuple[HnswIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(n, dim)).astype(np.float32)  # unclustered: a low ef is visibly approximate
    index = HnswIndex(dim, IndexConfig(backend="hnsw", m=4, ef_construction=10, ef_search=10))
    index.add(np.arange(n), data)
    queries = rng.normal(size=(64, dim)).astype(np.float32)
    return index, queries


def test_two_threads_searching_with_different_ef_each_get_their_own():
    index, queries = _random_hnsw()
    k = 10
    low = index.search(queries, k, ef=k)[0]
    high = index.search(queries, k, ef=3000)[0]
    assert not np.array_equal(low, high)  # the two ef values give different answers on this index
    assert index.params()["ef_search"] == 10  # and neither changed the index's default
    wrong: list[str] = []
    start = threading.Barrier(2)

    def hammer(ef: int, want: np.ndarray) -> None:
        start.wait()
        for _ in range(60):
            got = index.search(queries, k, ef=ef)[0]
            if not np.array_equal(got, want):
                wrong.append(f"ef={ef}")
                return

    threads = [threading.Thread(target=hammer, args=(k, low)), threading.Thread(target=hammer, args=(3000, high))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


class _EfSpy:
    """The real hnswlib index, recording the ef in effect (hnswlib's own `ef`) at every knn_query."""

    def __init__(self, raw) -> None:
        self._raw = raw
        self.calls: list[tuple[int, int]] = []  # (thread id, ef)

    def __getattr__(self, name):
        return getattr(self._raw, name)

    def knn_query(self, q, k):
        self.calls.append((threading.get_ident(), int(self._raw.ef)))
        return self._raw.knn_query(q, k=k)


def test_duplicates_keep_their_ef_while_a_search_and_similar_run_beside_them(tmp_path, make_config, tiny_encoder,
                                                                            monkeypatch):
    """The GUI's two reader threads: `similar` and a dense search start while `duplicates` is between two
    batches. Each knn_query must run with its own call's ef (the old code set a shared one and reset it)."""
    from searchapp.library import Library
    from searchapp.library.search import duplicates

    docs = tmp_path / "docs"
    docs.mkdir()
    for i, text in enumerate(["Kelp forests grow fast in cold water.", "Volcanoes erupt molten rock and ash.",
                              "Bees pollinate flowers in spring.", "Glaciers carve deep valleys over time.",
                              "Owls hunt mice at night.", "Tides follow the moon's pull."]):
        (docs / f"d{i}.txt").write_text(text, encoding="utf-8")
    monkeypatch.setattr(duplicates, "BATCH", 2)  # several batches from a small library
    with Library(make_config(models={"reranker": ""}, index={"ef_search": 20}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        index = lib.index()
        spy = _EfSpy(index._index)
        index._index = spy
        other: list[int] = []

        def beside(*_args) -> None:
            if other:
                return

            def run() -> None:
                other.append(threading.get_ident())
                lib.similar(str(docs / "d0.txt"))
                lib.search("kelp", mode="dense")

            t = threading.Thread(target=run)
            t.start()
            t.join()

        lib.duplicates(progress=beside)
        me = threading.get_ident()
        dup_efs = {ef for tid, ef in spy.calls if tid == me}
        other_efs = [ef for tid, ef in spy.calls if tid == other[0]]
        n = len(index)
        assert dup_efs == {max(duplicates.SEARCH_EF, min(duplicates.NEIGHBOURS + 1, n))}
        assert len(other_efs) >= 2 and other_efs[0] == 20  # similar: the configured ef_search
        assert other_efs[-1] == max(20, lib.config.search.candidates * 4)  # search: its candidate pool
        assert index.params()["ef_search"] == 20


# ---- 10c: one "needs reindex" rule ----------------------------------------------------------------------


def test_settings_dialog_status_and_check_model_agree_on_what_needs_a_reindex(tmp_path, make_config, tiny_encoder,
                                                                             tiny_bi_encoder_dir, packaged_model_dir):
    """Built under `old`; for each change the GUI's needs_reindex (config vs config), `status`
    (settings_mismatch: meta vs config by name) and check_model (meta vs the model's fingerprint) must agree.
    title_context is soft (docs/design-notes.md, Passage context): it alone never needs a reindex."""
    import json
    import shutil

    from searchapp.base.errors import ModelMismatchError
    from searchapp.library import Library
    from searchapp.library.reconfigure import needs_reindex
    from searchapp.library.report.settings_check import settings_mismatch

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Kelp forests grow fast in cold water.", encoding="utf-8")
    base = {"models": {"bi_encoder": str(tiny_bi_encoder_dir), "reranker": ""}, "chunking": {"max_tokens": 48}}
    old = make_config(**base)
    with Library(old, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        meta = lib.reader().meta()
    alias = tmp_path / "alias"
    alias.symlink_to(tiny_bi_encoder_dir, target_is_directory=True)  # the same model named another way
    window = tmp_path / "short-window"
    shutil.copytree(tiny_bi_encoder_dir, window)  # the same weights read through a shorter window
    (window / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 64}), encoding="utf-8")

    def with_(section: str, **values):
        return make_config(**{**base, section: {**base.get(section, {}), **values}})

    cases = {
        "nothing": (make_config(**base), False),
        "k and ef_search": (make_config(**base, search={"k": 3}, index={"ef_search": 7}), False),
        "title_context": (with_("chunking", title_context=not old.chunking.title_context), False),
        "model alias": (with_("models", bi_encoder=str(alias)), False),
        "model": (with_("models", bi_encoder=str(packaged_model_dir)), True),
        "max_seq_length": (with_("models", bi_encoder=str(window)), True),
        "pooling": (with_("models", pooling="cls"), True),
        "chunk size": (with_("chunking", max_tokens=64), True),
        "overlap": (with_("chunking", overlap=0.1), True),
    }
    verdicts = {}
    for name, (new, _want) in cases.items():
        dialog = needs_reindex(old, new)
        status = settings_mismatch(new, meta) is not None
        with Library(new) as lib:  # no encoder: check_model reads the model's identity from its files
            try:
                lib.check_model()
                checked = False
            except ModelMismatchError as exc:
                checked = True
                assert "searchapp reindex" in str(exc)
        verdicts[name] = (dialog, status, checked)
    assert verdicts == {name: (want, want, want) for name, (_, want) in cases.items()}


# ---- 11 (part): a FIFO among a cached model's files ---------------------------------------------------


def _fifo_cache(root):
    """A hub cache with two broken repos: a snapshot whose weights are a FIFO, and one whose refs/main and
    config.json are FIFOs (opening any of them for reading waits for a writer forever)."""
    import os

    cache = root / "hub"
    snap = cache / "models--org--fifo-weights" / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    (cache / "models--org--fifo-weights" / "refs").mkdir()
    (cache / "models--org--fifo-weights" / "refs" / "main").write_text("a" * 40, encoding="ascii")
    (snap / "config.json").write_text('{"hidden_size": 32}', encoding="utf-8")
    os.mkfifo(snap / "model.safetensors")
    other = cache / "models--org--fifo-refs"
    (other / "refs").mkdir(parents=True)
    os.mkfifo(other / "refs" / "main")
    snap2 = other / "snapshots" / ("b" * 40)
    snap2.mkdir(parents=True)
    os.mkfifo(snap2 / "config.json")
    (snap2 / "model.safetensors").write_bytes(b"\0" * 16)
    return cache


def test_models_list_never_opens_a_fifo(tmp_path):
    import json
    import os
    import subprocess
    import sys

    cache = _fifo_cache(tmp_path)
    data = tmp_path / "lib"
    data.mkdir()
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "SEARCHAPP_MODELS__RERANKER": ""}
    try:
        proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), "models", "list", "--json"],
                              env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("`models list` hung on a FIFO in the model cache")
    assert proc.returncode == 0, proc.stderr
    entries = {e["id"]: e for e in json.loads(proc.stdout)}
    weights = entries["org/fifo-weights"]
    assert weights["sha256"] is None and "not a regular file" in weights["problem"]
    assert "org/fifo-refs" in entries  # listed from its snapshot folder; its role guessed without config.json


# ---- 10b: declared lower bounds ------------------------------------------------------------------------


def test_the_declared_sqlite_utils_bound_has_what_the_store_uses():
    """4.0 is the bound pyproject declares (3.37, once declared, had no Database.atomic(), which the store used
    until decision 0126; the OCR cache's table API now needs Database(execute_plugins=...)); `make test-lowest`
    installs exactly this bound and runs the store tests on it."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    pins = subprocess.run([sys.executable, str(root / ".ci" / "lowest_versions.py")], capture_output=True,
                          text=True, check=True).stdout.split()
    version = next(p.split("==")[1] for p in pins if p.startswith("sqlite-utils=="))
    assert tuple(int(x) for x in version.split(".")[:2]) >= (4, 0)
    assert "test-lowest" in (root / "Makefile").read_text(encoding="utf-8").split("\ntest:")[1].splitlines()[0]
