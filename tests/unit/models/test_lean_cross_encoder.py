"""The reranker's lean BERT forward and the CUDA-graph replay around it.

The arithmetic (lean_bert) and the padding the graphs add (cuda_graphs.bucket / padded_batch) are checked here
on the CPU against transformers' own forward; the capture and replay themselves need a GPU (`gpu` tests)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

from searchapp.models import CrossEncoder, plain_bert
from searchapp.models.cuda_graphs import WIDTH_STEP, bucket, padded_batch
from searchapp.models.lean_bert import LeanBertScorer

QUERY = "how do cats purr"
PASSAGES = [
    "Cats purr by vibrating the muscles of the larynx.",
    "A purr is a tonal fluttering sound.",
    "Dogs bark. " * 40,
    "Ünïcode — café 2024, with “quotes”.",
    "x",
]


@pytest.fixture(scope="module")
def reranker(tiny_cross_encoder_dir):
    """Loaded through transformers, as on a GPU (where the graphs run): its own forward is then transformers'
    module tree, not lean_bert's body (plain_bert's, on the CPU), so the checks below compare two arithmetics."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plain_bert, "load_classifier", lambda path: None)
        ce = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu", precision="fp32")
    assert ce.loaded_by == "transformers"
    return ce


def test_lean_forward_gives_transformers_logits_on_padded_rows(reranker):
    lean = LeanBertScorer.build(reranker._model)
    assert lean is not None
    want = reranker.score(QUERY, PASSAGES)  # transformers' forward, each batch padded to its own longest
    arrays = reranker.pair_arrays(QUERY, PASSAGES, "only_second")
    shape = bucket(len(PASSAGES), arrays["input_ids"].shape[1], max_rows=128, max_width=reranker.max_length)
    host = padded_batch(arrays, shape, reranker._pad_values)
    assert shape[0] > len(PASSAGES)  # padding rows are in the check
    with torch.inference_mode():
        got = lean(*(torch.from_numpy(host[k]) for k in ("input_ids", "attention_mask", "token_type_ids")))
    assert got.shape == (shape[0],)
    assert torch.isfinite(got).all()  # the padding rows too: they attend to one position
    np.testing.assert_allclose(got[: len(PASSAGES)].numpy(), want, atol=1e-5, rtol=0)
    assert np.ptp(want) > 1e-4  # the check would not see a forward that ignores its input


def test_lean_forward_refuses_what_it_does_not_cover(reranker, tiny_bi_encoder_dir):
    from transformers import BertModel

    assert LeanBertScorer.build(BertModel.from_pretrained(str(tiny_bi_encoder_dir))) is None  # no classifier head
    cpu_bf16 = CrossEncoder(str(reranker.resolved.path), device="cpu", precision="bf16")
    assert LeanBertScorer.build(cpu_bf16._model) is None  # mixed bf16 Linear beside fp32 LayerNorm, plain F.linear
    assert "cuda graphs" not in (cpu_bf16.path, reranker.path)  # the CPU never takes the graph path


def test_buckets_bound_the_shapes_and_cover_every_batch():
    seen = set()
    for rows in range(1, 129):
        for width in range(3, 257):
            r, w = bucket(rows, width, max_rows=128, max_width=256)
            assert r >= rows and w >= width and w % WIDTH_STEP == 0 and r & (r - 1) == 0
            seen.add((r, w))
    assert len(seen) == 5 * 8  # rows 8..128, widths 32..256: at most 40 graphs a reranker
    assert bucket(200, 300, max_rows=128, max_width=256) == (200, 300)  # past the caps: the exact shape


def test_padded_batch_keeps_rows_and_marks_padding():
    arrays = {"input_ids": np.array([[101, 7, 102], [101, 102, 0]]), "attention_mask": np.array([[1, 1, 1], [1, 1, 0]]),
              "token_type_ids": np.array([[0, 0, 1], [0, 1, 0]])}
    host = padded_batch(arrays, (8, 32), {"input_ids": 0, "attention_mask": 0, "token_type_ids": 0})
    assert host["input_ids"][0, :4].tolist() == [101, 7, 102, 0] and host["input_ids"][1, :3].tolist() == [101, 102, 0]
    assert host["attention_mask"][:2].sum() == 5
    assert host["attention_mask"][2:, 0].tolist() == [1] * 6 and host["attention_mask"][2:, 1:].sum() == 0
    assert host["token_type_ids"][0, 2] == 1 and host["token_type_ids"][1, 1] == 1


@pytest.mark.parametrize("strategy,max_length", [("only_second", 256), ("only_second", 40), ("longest_first", 24)])
def test_pair_arrays_are_the_tokenizers_pairs(reranker, strategy, max_length):
    """The graph path's tokenizing (the Rust tokenizer, padded there) gives what transformers' call gives."""
    words = (" ".join(PASSAGES) + " the of and purr 2024 naïve").split()
    rng = np.random.default_rng(3)
    passages = [" ".join(rng.choice(words, size=int(rng.integers(1, 260)))) for _ in range(40)]
    query = " ".join(rng.choice(words, size=30 if strategy == "longest_first" else 4))
    before = reranker.max_length
    reranker.max_length = max_length
    try:
        got = reranker.pair_arrays(query, passages, strategy)
    finally:
        reranker.max_length = before
    want = reranker._tokenizer([query] * len(passages), passages, truncation=strategy, max_length=max_length)
    longest = max(len(r) for r in want["input_ids"])
    assert got["input_ids"].shape == (len(passages), -(-longest // WIDTH_STEP) * WIDTH_STEP)
    for key in ("input_ids", "attention_mask", "token_type_ids"):
        for row, expected in zip(got[key], want[key], strict=True):
            assert row[:len(expected)].tolist() == list(expected)
            assert not row[len(expected):].any()  # padding: [PAD] is 0, mask 0, type 0
    assert got["attention_mask"].sum(axis=1).max() <= max_length


@pytest.mark.gpu
def test_cuda_graph_reranker_matches_transformers(tiny_cross_encoder_dir):
    graphed = CrossEncoder(str(tiny_cross_encoder_dir), device="cuda")
    plain = CrossEncoder(str(tiny_cross_encoder_dir), device="cuda", graphs=False)
    assert graphed.path == "cuda graphs" and plain.path == "transformers"
    many = [f"{p} number {i}" for i in range(60) for p in PASSAGES][:300]  # three batches of 128 and less
    np.testing.assert_allclose(graphed.score(QUERY, many), plain.score(QUERY, many), atol=0.02, rtol=0)
    np.testing.assert_allclose(graphed.score(QUERY, PASSAGES), plain.score(QUERY, PASSAGES), atol=0.02, rtol=0)
    # two searches reranking at once take turns on the shared buffers: each gets its own answer
    out: dict[int, np.ndarray] = {}
    threads = [threading.Thread(target=lambda i=i: out.__setitem__(i, graphed.score(QUERY, many[i * 50:][:50])))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        np.testing.assert_allclose(out[i], plain.score(QUERY, many[i * 50:][:50]), atol=0.02, rtol=0)


def test_a_graph_failure_falls_back_to_transformers_for_good(tiny_cross_encoder_dir, caplog):
    """Stands in for the GPU part (none here): a replay that raises, as capturing a new shape without GPU
    memory would. The search still gets transformers' scores, and later calls do not try the graphs again."""
    ce = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu", precision="fp32")
    ce._fused = None  # as on a GPU: the module's own forward is what the graphs fall back to
    want = ce.score(QUERY, PASSAGES)
    calls = []

    def failing(arrays):
        calls.append(arrays["input_ids"].shape)
        raise RuntimeError("CUDA out of memory")

    ce._graphed = failing
    assert ce.path == "cuda graphs"
    np.testing.assert_array_equal(ce.score(QUERY, PASSAGES), want)
    assert ce.path == "plain" and len(calls) == 1  # loaded from its files here; "transformers" on a GPU
    assert "CUDA graphs failed" in caplog.text
    np.testing.assert_array_equal(ce.score(QUERY, PASSAGES), want)
    assert len(calls) == 1


class _CpuGraphs:
    """Stands in for cuda_graphs.GraphedForward where there is no GPU: the same padding, the lean forward run
    eagerly on the CPU; `shift` makes it disagree with transformers, `fail` makes it raise as a capture could."""

    shift = 0.0
    fail = False

    def __init__(self, fn, device, *, max_rows, max_width, pad_values):
        self.fn, self.max_rows, self.max_width, self.pad = fn, max_rows, max_width, pad_values

    def __call__(self, arrays):
        if self.fail:
            raise RuntimeError("CUDA error: out of memory")
        n, width = arrays["input_ids"].shape
        host = padded_batch(arrays, bucket(n, width, max_rows=self.max_rows, max_width=self.max_width), self.pad)
        with torch.inference_mode():
            out = self.fn(*(torch.from_numpy(host[k]) for k in ("input_ids", "attention_mask", "token_type_ids")))
        return out[:n] + self.shift


@pytest.mark.parametrize("shift,fail,kept", [(0.0, False, True), (0.5, False, False), (0.0, True, False)])
def test_the_load_probe_keeps_graphs_only_when_they_agree(tiny_cross_encoder_dir, monkeypatch, shift, fail, kept):
    from searchapp.models import cuda_graphs

    monkeypatch.setattr(cuda_graphs, "GraphedForward", type("G", (_CpuGraphs,), {"shift": shift, "fail": fail}))
    ce = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu", precision="fp32")
    graphed = ce._graphed_forward()
    assert (graphed is not None) is kept
    assert ce._graphed is None  # the caller sets it from the return value
    if kept:
        ce._graphed = graphed
        np.testing.assert_allclose(ce.score(QUERY, PASSAGES),
                                   CrossEncoder(str(tiny_cross_encoder_dir), device="cpu",
                                                precision="fp32").score(QUERY, PASSAGES), atol=1e-5)
