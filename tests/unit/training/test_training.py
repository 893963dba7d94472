"""Training on a tiny BERT built from a config (hidden 32, 2 layers): every objective lowers its loss,
checkpoints load back as the app's bi-encoder / reranker with identical outputs, cancel writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from searchapp.base.errors import Cancelled, ConfigError
from searchapp.base.progress import CancelToken
from searchapp.training import TrainingArgs, load_sentence_model, run_training, train_bi_encoder, train_cross_encoder
from searchapp.training.batching import bucketed_batches
from searchapp.training.bi_encoder import make_loss
from searchapp.training.checkpoint import read_saved_pooling
from searchapp.training.data import TextColumns
from tiny_models import build_tiny_bert

# One torch thread for every forward here (conftest.one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

FAST = dict(batch_size=4, learning_rate=2e-3, epochs=4, precision="fp32", device="cpu", seed=3, max_seq_length=32,
            threads=1)  # one thread: 2-thread torch collapses when other tests hold a core

TOPICS = [
    ("a cat sits on the mat", "a kitten rests on a rug", "the cat sleeps by the fire"),
    ("the stock market fell sharply", "shares dropped on wall street", "investors sold their bonds"),
    ("heavy rain is expected tomorrow", "storms will bring showers tomorrow", "the forecast says wet weather"),
    ("the team won the football match", "they scored and won the game", "the striker kicked the ball"),
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, packaged_model_dir) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert-train"), packaged_model_dir)


def synthetic(objective: str) -> TextColumns:
    """Sentences about 4 topics: same topic = related, other topic = unrelated."""
    a, b, c, y = [], [], [], []
    for i, (s1, s2, s3) in enumerate(TOPICS):
        other = TOPICS[(i + 1) % len(TOPICS)]
        for x, related in ((s2, True), (s3, True), (other[0], False), (other[1], False)):
            a.append(s1)
            b.append(x)
            y.append(1.0 if related else 0.0)
            c.append(other[2])
    if objective == "regression":
        return TextColumns([a, b], y, kind="regression")
    if objective == "softmax":
        # entailment for the paraphrase, neutral for the same-topic sentence, contradiction across topics
        labels = [0.0 if r and i % 4 == 0 else (1.0 if r else 2.0) for i, r in enumerate(y)]
        return TextColumns([a, b], labels, ["entailment", "neutral", "contradiction"], "softmax")
    keep = [i for i, r in enumerate(y) if r]
    return TextColumns([[a[i] for i in keep], [b[i] for i in keep], [c[i] for i in keep]], None, kind="triplet")


def full_loss(model, loss_fn, data: TextColumns) -> float:
    model.eval()
    feats = [model.tokenize(col) for col in data.columns]
    idx = list(range(len(data)))
    with torch.no_grad():
        emb = [model(f, idx) for f in feats]
        labels = torch.tensor(data.labels) if data.labels is not None else None
        return float(loss_fn(emb, labels))


@pytest.mark.parametrize("objective", ["regression", "softmax", "triplet"])
def test_each_objective_lowers_its_loss(tiny_bert, objective):
    args = TrainingArgs(**FAST)
    torch.manual_seed(args.seed)
    model = load_sentence_model(str(tiny_bert), device=torch.device("cpu"), max_seq_length=32)
    data = synthetic(objective)
    loss_fn = make_loss(objective, model, data, margin=1.0)
    before = full_loss(model, loss_fn, data)
    feats = [model.tokenize(col) for col in data.columns]
    labels = torch.tensor(data.labels) if data.labels is not None else None

    def step(batch):
        return loss_fn([model(f, batch) for f in feats], labels[batch] if labels is not None else None)

    lengths = [len(x) for x in data.columns[0]]
    stats = run_training([model, loss_fn], step, lambda e: bucketed_batches(lengths, 4, seed=e), args,
                         torch.device("cpu"))
    after = full_loss(model, loss_fn, data)
    assert stats.steps == 4 * -(-len(data) // 4)
    assert after < 0.85 * before, (objective, before, after)


def test_bi_encoder_checkpoint_loads_back_with_identical_embeddings(tiny_bert, tmp_path):
    from searchapp.models import BiEncoder

    out = tmp_path / "trained"
    seen = []
    res = train_bi_encoder(str(tiny_bert), "regression", synthetic("regression"), out, pooling="max",
                           args=TrainingArgs(**{**FAST, "epochs": 1}), progress=seen.append)
    assert res["output"] == str(out.resolve()) and res["objective"] == "regression"
    steps = [p for p in seen if p.stage == "training"]
    assert steps[-1].done == steps[-1].total == res["stats"]["steps"] and steps[-1].message.startswith("loss ")
    for name in ("config.json", "model.safetensors", "tokenizer.json", "searchapp_pooling.json", "modules.json",
                 "1_Pooling/config.json", "sentence_bert_config.json", "training_info.json"):
        assert (out / name).is_file(), name
    assert not list(out.glob("*.bin")) and read_saved_pooling(out) == "max"
    assert json.loads((out / "1_Pooling" / "config.json").read_text())["pooling_mode_max_tokens"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left

    texts = ["a cat sits on the mat", "storms will bring showers tomorrow", "x"]
    trained = load_sentence_model(str(out), device=torch.device("cpu"))
    assert trained.pooling == "max" and trained.max_seq_length == 32
    with torch.no_grad():
        want = torch.nn.functional.normalize(trained(trained.tokenize(texts), [0, 1, 2]), dim=1).numpy()
    got = BiEncoder(str(out), pooling="max", device="cpu", precision="fp32").encode(texts)
    np.testing.assert_allclose(got, want, atol=1e-5)
    with pytest.raises(ConfigError, match="not empty"):
        train_bi_encoder(str(tiny_bert), "regression", synthetic("regression"), out, args=TrainingArgs(**FAST))


def test_wk_pooling_trains_and_records_itself(tiny_bert, tmp_path):
    out = tmp_path / "wk"
    train_bi_encoder(str(tiny_bert), "triplet", synthetic("triplet"), out, pooling="wk",
                     args=TrainingArgs(**{**FAST, "epochs": 1, "max_steps": 2}))
    assert read_saved_pooling(out) == "wk" and not (out / "modules.json").exists()


def test_cross_encoder_trains_and_serves_as_reranker(tiny_bert, tmp_path):
    from searchapp.models import CrossEncoder

    data = synthetic("regression")
    pairs = TextColumns(data.columns, data.labels, ["not relevant", "relevant"], "binary")
    out = tmp_path / "reranker"
    res = train_cross_encoder(str(tiny_bert), pairs, out, args=TrainingArgs(**{**FAST, "epochs": 6}))
    assert res["loss"] == "bce" and res["num_labels"] == 1
    assert res["stats"]["loss_last"] < res["stats"]["loss_first"]
    assert "classifier.weight" in res["initialized_randomly"]
    rr = CrossEncoder(str(out), device="cpu", precision="fp32")
    scores = rr.score("a cat sits on the mat", ["a kitten rests on a rug", "shares dropped on wall street"])
    assert scores.shape == (2,) and np.isfinite(scores).all()

    # k labels with cross-entropy: a classifier, which the app refuses as a reranker
    classes = TextColumns(data.columns, synthetic("softmax").labels, ["entailment", "neutral", "contradiction"],
                          "classes")
    res = train_cross_encoder(str(tiny_bert), classes, tmp_path / "nli", args=TrainingArgs(**{**FAST, "epochs": 1}))
    assert res["loss"] == "ce" and res["num_labels"] == 3
    with pytest.raises(ConfigError, match="bce"):
        train_cross_encoder(str(tiny_bert), classes, tmp_path / "bad", loss="bce", args=TrainingArgs(**FAST))


def test_cancel_saves_nothing(tiny_bert, tmp_path):
    cancel = CancelToken()

    def progress(p):
        if p.stage == "training" and p.done == 2:
            cancel.cancel()

    with pytest.raises(Cancelled):
        train_bi_encoder(str(tiny_bert), "regression", synthetic("regression"), tmp_path / "out",
                         args=TrainingArgs(**FAST), progress=progress, cancel=cancel)
    assert list(tmp_path.iterdir()) == []


def test_bucketed_batches_cover_everything_and_group_lengths():
    lengths = [5, 50, 6, 49, 7, 48, 8, 47] * 4
    batches = bucketed_batches(lengths, 4, seed=0)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    spreads = [max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches]
    assert max(spreads) <= 3  # short with short, long with long
    assert batches != bucketed_batches(lengths, 4, seed=1)
    assert batches == bucketed_batches(lengths, 4, seed=0)


def test_sentence_transformers_loads_a_trained_folder_identically(tiny_bert, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    from searchapp.models import BiEncoder

    out = tmp_path / "st"
    train_bi_encoder(str(tiny_bert), "regression", synthetic("regression"), out,
                     args=TrainingArgs(**{**FAST, "epochs": 1, "max_steps": 2}))
    texts = ["a cat sits on the mat", "shares dropped on wall street"]
    want = BiEncoder(str(out), device="cpu", precision="fp32").encode(texts)
    got = st.SentenceTransformer(str(out), device="cpu").encode(texts, normalize_embeddings=True)
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.gpu
def test_cuda_training_uses_fp16_autocast_with_loss_scaling(tiny_bert, tmp_path):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    res = train_bi_encoder(str(tiny_bert), "regression", synthetic("regression"), tmp_path / "gpu",
                           args=TrainingArgs(**{**FAST, "device": "cuda", "precision": "auto"}))
    assert res["stats"]["precision"] == "fp16" and res["stats"]["device"].startswith("cuda")
    assert res["stats"]["loss_last"] < res["stats"]["loss_first"]
