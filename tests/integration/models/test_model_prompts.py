"""A bi-encoder's declared prompts and pooling, applied on every path (issue 43, item 4; decision 0112): tiny
models built from config, each declaring them beside its weights, some served by the local test hub."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from tiny_models import declare_sentence_conventions

BGE_QUERY = "Represent this sentence for searching relevant passages: "


def _variant(src, dest, **declared):
    shutil.copytree(src, dest)
    return declare_sentence_conventions(dest, **declared)


@pytest.fixture(scope="module")
def cls_dir(tmp_path_factory, tiny_bi_encoder_dir):
    """bge / arctic style: CLS pooling, Normalize, a query instruction, no passage prompt."""
    return _variant(tiny_bi_encoder_dir, tmp_path_factory.mktemp("m") / "cls", pooling="cls",
                    prompts={"query": BGE_QUERY, "text": ""})


@pytest.fixture(scope="module")
def e5_dir(tmp_path_factory, tiny_bi_encoder_dir):
    """e5 style: mean pooling, "query: " / "passage: "."""
    return _variant(tiny_bi_encoder_dir, tmp_path_factory.mktemp("m") / "e5", pooling="mean",
                    prompts={"query": "query: ", "passage": "passage: "})


def _encoder(path, pooling="auto"):
    from searchapp.models import BiEncoder

    return BiEncoder(str(path), pooling=pooling, device="cpu", precision="fp32", threads=1)


def _fed_ids(encoder, call):
    """The input ids the encoder's forward actually received during `call()`."""
    seen: list[list[int]] = []
    forward = encoder._forward

    def spy(inputs, threads):
        seen.extend(row[mask.bool()].tolist() for row, mask in zip(inputs["input_ids"], inputs["attention_mask"], strict=True))
        return forward(inputs, threads)

    encoder._forward = spy
    try:
        out = call()
    finally:
        del encoder._forward
    return seen, out


def _hidden(encoder, text):
    """The tiny model's last hidden state for `text` as fed (the module's own forward, fp32)."""
    tok = {k: torch.tensor([v]) for k, v in encoder._tokenizer(text).items()}
    with torch.inference_mode():
        return encoder._model(**tok).last_hidden_state[0].float()


def _cos(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_prompts_reach_the_tokens_fed_to_the_model(e5_dir):
    enc = _encoder(e5_dir)
    assert (enc.query_prompt, enc.passage_prompt, enc.pooling) == ("query: ", "passage: ", "mean")
    ids = enc._tokenizer
    passage, query = "the cat sat on the mat", "where did the cat sit"
    want_p = ids("passage: " + passage)["input_ids"]
    want_q = ids("query: " + query)["input_ids"]
    assert want_p != ids(passage)["input_ids"]
    fed, _ = _fed_ids(enc, lambda: enc.encode([passage]))  # tokenized in `encode`
    assert fed == [want_p]
    enc.token_offsets_batch([passage])  # the chunker's ids, kept for `encode`: the prompt is put in front of them
    assert passage in enc._ids_cache
    fed, _ = _fed_ids(enc, lambda: enc.encode([passage]))
    assert fed == [want_p]
    fed, _ = _fed_ids(enc, lambda: enc.encode_query(query))
    assert fed == [want_q]


def test_the_declared_pooling_runs_cls_is_the_first_token_mean_the_average(cls_dir, e5_dir):
    cls, mean = _encoder(cls_dir), _encoder(e5_dir)
    assert cls.pooling == "cls" and cls.passage_prompt == ""
    text = "a passage about tiny models and their pooling"
    v_cls = cls.encode([text])[0]
    v_mean = mean.encode([text])[0]
    h_cls = _hidden(cls, text)
    h_mean = _hidden(mean, "passage: " + text)
    assert _cos(v_cls, h_cls[0]) > 0.9999  # the [CLS] token's hidden state
    assert _cos(v_mean, h_mean.mean(dim=0)) > 0.9999  # the mean over the (prompted) tokens
    assert _cos(v_cls, h_cls.mean(dim=0)) < 0.99  # on the same model they differ: the test can tell them apart
    # Normalized as declared (and as the library's cosine needs): unit vectors.
    assert abs(float(np.linalg.norm(v_cls)) - 1) < 1e-5 and abs(float(np.linalg.norm(v_mean)) - 1) < 1e-5


def test_numpy_and_onnx_query_encoders_put_the_query_prompt_in_front(cls_dir, tmp_path):
    from searchapp.models.identity import bi_encoder_identity
    from searchapp.models.onnx_query import export_query_model, load_onnx_query_encoder
    from searchapp.models.query_encoder import load_query_encoder

    torch_enc = _encoder(cls_dir)
    ident = bi_encoder_identity(str(cls_dir), pooling="auto")
    assert ident.fingerprint == torch_enc.fingerprint and ident.pooling == "cls"
    want = torch_enc.encode_query("where is the cat")
    numpy_enc = load_query_encoder(cls_dir, pooling="auto", max_seq_length=ident.max_seq_length)
    assert numpy_enc is not None and numpy_enc.pooling == "cls"
    numpy_enc.tokenizer = spy = _TextSpy(numpy_enc.tokenizer)
    assert _cos(numpy_enc.encode_one("where is the cat"), want) > 0.9999
    assert spy.seen == [BGE_QUERY + "where is the cat"]
    pytest.importorskip("onnxruntime")
    cache = tmp_path / "cache"
    if export_query_model(cls_dir, pooling="auto", max_seq_length=ident.max_seq_length,
                          fingerprint=ident.fingerprint, cache_dir=cache) is None:
        pytest.skip("no ONNX export on this machine")
    ort = load_onnx_query_encoder(cache, ident.fingerprint, cls_dir, max_seq_length=ident.max_seq_length)
    assert ort is not None
    ort.tokenizer = spy = _TextSpy(ort.tokenizer)
    assert _cos(ort.encode_one("where is the cat"), want) > 0.9999
    assert spy.seen == [BGE_QUERY + "where is the cat"]


class _TextSpy:
    """A tokenizers.Tokenizer that records the texts it is asked to encode."""

    def __init__(self, tok) -> None:
        self.tok, self.seen = tok, []

    def encode(self, text):
        self.seen.append(text)
        return self.tok.encode(text)

    def encode_batch(self, texts):
        self.seen.extend(texts)
        return self.tok.encode_batch(texts)


def test_a_library_built_without_a_prompt_refuses_a_model_that_needs_one(make_config, tiny_encoder,
                                                                       tiny_bi_encoder_dir, tmp_path):
    from searchapp.base.errors import ModelMismatchError
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("cats sit on mats\n", encoding="utf-8")
    folder = tmp_path / "model"
    shutil.copytree(tiny_bi_encoder_dir, folder)
    config = make_config(models={"reranker": "", "bi_encoder": str(folder)})
    with Library(config) as lib:
        lib.add_folder(docs)
        assert lib.store.meta().get("passage_prompt") == ""
    # The same weights, now declaring e5's prompts: passage vectors would differ, so the library refuses.
    declare_sentence_conventions(folder, pooling="mean", prompts={"query": "query: ", "passage": "passage: "})
    with Library(config) as lib, pytest.raises(ModelMismatchError) as err:
        lib.check_model()
    msg = str(err.value)
    assert "\n" not in msg
    assert msg == ('the library was built with passage prompt none (the configured model puts "passage: " in front '
                   "of passages): run `searchapp reindex` to rebuild it with the current settings, or change them back")
    # A query prompt alone re-embeds nothing.
    declare_sentence_conventions(folder, pooling="mean", prompts={"query": "query: "})
    with Library(config) as lib:
        lib.check_model()


def test_a_pulled_model_brings_its_pooling_and_prompts_from_the_local_hub(cls_dir, tiny_bi_encoder_dir, tmp_path,
                                                                         monkeypatch):
    from hub_server import FakeHub
    from searchapp.models.hub import pull_model
    from searchapp.models.identity import bi_encoder_identity

    home = tmp_path / "hf-home"
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(home / "hub"))
    # An e5 upload whose files name no prompts: its model card's are used (sentence_conventions.MODEL_CARD_PROMPTS).
    bare_e5 = _variant(tiny_bi_encoder_dir, tmp_path / "e5", pooling="mean")
    with FakeHub() as hub:
        hub.add_repo("acme/tiny-bge", cls_dir)
        hub.add_repo("intfloat/e5-small-v2", bare_e5)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        bge = pull_model("acme/tiny-bge")
        e5 = pull_model("intfloat/e5-small-v2")
    assert (bge.path / "1_Pooling" / "config.json").is_file()  # one folder deep: fetched
    ident = bi_encoder_identity("acme/tiny-bge", pooling="auto")
    assert (ident.pooling, ident.query_prompt, ident.passage_prompt, ident.conventions.prompts_from) == \
        ("cls", BGE_QUERY, "", "model files")
    ident = bi_encoder_identity("intfloat/e5-small-v2", pooling="auto")
    assert (ident.pooling, ident.query_prompt, ident.passage_prompt, ident.conventions.prompts_from) == \
        ("mean", "query: ", "passage: ", "model card")
    assert e5.path == ident.resolved.path
