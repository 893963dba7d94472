"""Issue 11: one tokenization per passage, queries that never wait behind a sync, background priority for
indexing, and a searching process that sees another writer's commits without restarting."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from searchapp.base.types import Document
from searchapp.ingest.chunking import chunk_document
from searchapp.library import Library

REPO = Path(__file__).resolve().parents[3]

QUASAR = ("Quasars are the brilliant cores of distant galaxies. Gas spiralling into a supermassive black hole "
          "heats up and outshines every star of its galaxy, and radio telescopes see its jets across the universe.")


class CountingTokenizer:
    """Delegates to a tokenizer (Hugging Face's, or the tokenizers library's) and counts the calls that tokenize."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self._inner(*args, **kwargs)

    def encode_batch(self, *args, **kwargs):
        self.calls += 1
        return self._inner.encode_batch(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def test_encode_reuses_the_chunkers_token_ids(tiny_encoder, monkeypatch):
    texts = ["Sourdough starter feeds on flour and water. " * 12, "A short one.", "Magma rises from the mantle."]
    fresh = tiny_encoder.encode(texts)
    counting = CountingTokenizer(tiny_encoder._tokenizer)
    monkeypatch.setattr(tiny_encoder, "_tokenizer", counting)
    monkeypatch.setattr(tiny_encoder, "_bulk", CountingTokenizer(tiny_encoder._bulk))  # encode's own batch call
    tiny_encoder.token_offsets_batch(texts)  # what the chunker does when it verifies passages
    reused = tiny_encoder.encode(texts)
    assert counting.calls + tiny_encoder._bulk.calls == 0  # no second tokenization
    np.testing.assert_allclose(reused, fresh, atol=1e-6)
    tiny_encoder.encode(texts)  # ids are used once: a second encode tokenizes again (and still agrees)
    assert counting.calls + tiny_encoder._bulk.calls == 1


def test_reused_ids_are_truncated_like_the_tokenizer(tiny_encoder):
    long = "word " * (tiny_encoder.max_seq_length * 2)
    fresh = tiny_encoder.encode([long])
    tiny_encoder.token_offsets_batch([long])
    np.testing.assert_allclose(tiny_encoder.encode([long]), fresh, atol=1e-6)


def test_chunker_checks_passages_in_batches(tiny_encoder):
    text = "\n\n".join(f"Paragraph {i} about volcanoes, magma chambers and ash clouds. " * 6 for i in range(12))
    doc = Document(text=text)
    calls = {"single": 0, "batch": 0}

    def single(t):
        calls["single"] += 1
        return tiny_encoder.token_offsets(t)

    def batch(ts):
        calls["batch"] += 1
        return tiny_encoder.token_offsets_batch(ts)

    one_by_one = chunk_document(doc, tiny_encoder.token_offsets, 64, 0.2)
    batched = chunk_document(doc, single, 64, 0.2, token_offsets_batch=batch)
    assert [(c.start, c.end) for c in batched] == [(c.start, c.end) for c in one_by_one]
    assert len(batched) > 4
    assert calls["single"] == 1  # the whole text (one segment), for cancel checks between segments
    assert calls["batch"] <= 2  # then one call per round of passage checks, not one per passage


class RecordingTokenizer:
    """Delegates to a tokenizer (Hugging Face's, or the tokenizers library's) and records every text it reads."""

    def __init__(self, inner, seen: Counter) -> None:
        self._inner, self._seen = inner, seen

    def _record(self, texts) -> None:
        self._seen.update([texts] if isinstance(texts, str) else list(texts))

    def __call__(self, texts, *args, **kwargs):
        self._record(texts)
        return self._inner(texts, *args, **kwargs)

    def encode(self, text, *args, **kwargs):
        self._record(text)
        return self._inner.encode(text, *args, **kwargs)

    def encode_batch(self, texts, *args, **kwargs):
        self._record(texts)
        return self._inner.encode_batch(texts, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def test_sync_never_tokenizes_a_passage_twice(make_config, tiny_encoder, tmp_corpus, monkeypatch):
    """Whole texts are tokenized to cut them; each passage (the bi-encoder's input: title and text) then at
    most once more, by the chunker checking it (its ids reused by encode) or by encode."""
    from searchapp.ingest.passage_context import model_input

    seen: Counter = Counter()
    monkeypatch.setattr(tiny_encoder, "_tokenizer", RecordingTokenizer(tiny_encoder._tokenizer, seen))
    monkeypatch.setattr(tiny_encoder, "_offsets_tokenizer", RecordingTokenizer(tiny_encoder._offsets_tokenizer, seen))
    monkeypatch.setattr(tiny_encoder, "_bulk", RecordingTokenizer(tiny_encoder._bulk, seen))
    with Library(make_config(), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(tmp_corpus)
        data_dir = lib.config.data_dir
    db = sqlite3.connect(data_dir / "library.sqlite")
    passages = db.execute("SELECT c.text, f.embed_title FROM chunks c JOIN files f ON f.id = c.file_id").fetchall()
    assert rep.chunks_embedded > 0 and len(passages) > 3
    for text, title in passages:
        assert seen[text] + (seen[model_input(title, text)] if model_input(title, text) != text else 0) <= 1, text


def test_search_does_not_wait_for_the_bulk_encoder(make_config, packaged_encoder, tmp_corpus):
    with Library(make_config(), encoder=packaged_encoder) as lib:
        lib.add_folder(tmp_corpus)
        done = threading.Event()
        hits: list = []

        def search():
            hits.extend(lib.search("volcano magma", mode="dense", k=3).hits)
            done.set()

        # A sync's encode holds the bulk lane's lock while it tokenizes a batch; a query must not queue behind it.
        with packaged_encoder._lock:
            t = threading.Thread(target=search, daemon=True)
            t.start()
            finished = done.wait(timeout=120)
        t.join(timeout=120)
    assert finished and hits and Path(hits[0].path).name.startswith("volcano")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux behaviour")
def test_sync_runs_at_background_priority_on_its_own_thread(make_config, tiny_encoder, tmp_corpus, monkeypatch):
    monkeypatch.delenv("SEARCHAPP_NO_BACKGROUND_PRIORITY", raising=False)  # conftest turns it off for the suite
    main_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: dict[str, int] = {}

    def sync():
        with Library(make_config(), encoder=tiny_encoder) as lib:
            lib.add_folder(tmp_corpus)
        seen["sync"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    t = threading.Thread(target=sync)
    t.start()
    t.join()
    assert seen["sync"] >= 10
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_nice  # searches keep theirs


def _dense_names(lib: Library, query: str) -> list[str]:
    return [Path(h.path).name for h in lib.search(query, mode="dense", k=3).hits]


def test_second_library_sees_another_writers_passages(make_config, packaged_encoder, tmp_corpus):
    cfg = make_config()
    writer = Library(cfg, encoder=packaged_encoder)
    reader = Library(cfg, encoder=packaged_encoder)
    try:
        writer.add_folder(tmp_corpus)
        assert "quasar.txt" not in _dense_names(reader, "quasar black hole jets")  # the reader's index is loaded
        (tmp_corpus / "quasar.txt").write_text(QUASAR, encoding="utf-8")
        writer.sync()
        assert _dense_names(reader, "quasar black hole jets")[0] == "quasar.txt"
        (tmp_corpus / "quasar.txt").unlink()
        writer.sync()
        assert "quasar.txt" not in _dense_names(reader, "quasar black hole jets")
        st = reader.status()
        assert st.consistent and st.vectors == st.chunks
    finally:
        reader.close()
        writer.close()


def test_searching_process_sees_a_subprocess_writer_within_seconds(make_config, data_dir, tiny_bi_encoder_dir,
                                                                   tiny_encoder, tmp_corpus):
    # The tiny encoder, named in config.toml so the writer process loads it too (MiniLM's load was most of its
    # CPU); the query is the quasar passage itself, which only its own vector matches best under a random model.
    data_dir.mkdir(mode=0o700)
    (data_dir / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nprecision = "fp32"\n'
                                          'threads = 1\nreranker = ""\n', encoding="utf-8")
    cfg = make_config()
    with Library(cfg, encoder=tiny_encoder) as reader:
        with Library(cfg, encoder=tiny_encoder) as first:
            first.add_folder(tmp_corpus)
        assert "quasar.txt" not in _dense_names(reader, QUASAR)
        (tmp_corpus / "quasar.txt").write_text(QUASAR, encoding="utf-8")
        script = textwrap.dedent(f"""
            from searchapp.base.config import load_config
            from searchapp.library import Library
            with Library(load_config({str(cfg.data_dir)!r}, env={{}})) as lib:
                print(lib.sync().added)
        """)
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "1"
        deadline = time.monotonic() + 2.0  # the writer has committed and saved: 2 s is the promise
        names = _dense_names(reader, QUASAR)
        while names[:1] != ["quasar.txt"] and time.monotonic() < deadline:
            time.sleep(0.1)
            names = _dense_names(reader, QUASAR)
        assert names[0] == "quasar.txt"


@pytest.mark.gpu
def test_cuda_encode_matches_cpu(packaged_model_dir):
    import torch

    from searchapp.models import BiEncoder

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    texts = ["Magma rises from the mantle. " * 20, "short", "Sourdough needs a starter."]
    cpu = BiEncoder(str(packaged_model_dir), device="cpu", precision="fp32").encode(texts)
    gpu_enc = BiEncoder(str(packaged_model_dir), device="cuda", precision="fp16")
    gpu = gpu_enc.encode(texts)
    assert np.min(np.sum(cpu * gpu, axis=1)) > 0.9999
    assert float(np.dot(gpu_enc.encode_query("short"), cpu[1])) > 0.9999


@pytest.mark.gpu
def test_cuda_rerank_is_one_forward_and_matches_cpu(tiny_cross_encoder_dir):
    import torch

    from searchapp.models import CrossEncoder

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    passages = [f"passage {i} about magma and volcanoes " * (1 + i % 7) for i in range(50)]
    cpu = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu", precision="fp32").score("volcano", passages)
    gpu = CrossEncoder(str(tiny_cross_encoder_dir), device="cuda", precision="fp16")
    assert gpu.path == "cuda graphs"
    graphed, calls = gpu._graphed, []

    def counted(arrays):
        calls.append(arrays["input_ids"].shape[0])
        return graphed(arrays)

    gpu._graphed = counted
    logits = gpu.score("volcano", passages)
    gpu._graphed = graphed
    assert calls == [50]  # 50 candidates, one replay of one captured forward
    np.testing.assert_allclose(logits, cpu, atol=2e-2)
    gpu._graphed = None  # transformers' forward: one call too
    hooked = []
    handle = gpu._model.register_forward_hook(lambda *a: hooked.append(1))
    np.testing.assert_allclose(gpu.score("volcano", passages), cpu, atol=2e-2)
    handle.remove()
    assert len(hooked) == 1
