"""A plain BERT bi-encoder loads from its folder's files alone (models/plain_bert.py, tokenizer_file.FileTokenizer)
and gives what transformers' BertModel and AutoTokenizer give from the same folder; anything else still loads
through transformers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from searchapp.models import BiEncoder, plain_bert
from searchapp.models.tokenizer_file import FileTokenizer

# One torch thread for every forward here (conftest.one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

TEXTS = ["a short one", "Café crème, naïve façade — 東京の喫茶店 🦫 and a longer sentence about rivers and ocelots.",
         "", "Sentence about measuring things, 12,345.6 units. " * 60]


def transformers_vectors(folder: Path, texts: list[str], max_len: int) -> np.ndarray:
    """transformers' BertModel and AutoTokenizer, fp32, mean pooling, normalized: the reference."""
    from transformers import AutoTokenizer, BertModel

    tok = AutoTokenizer.from_pretrained(str(folder))
    model = BertModel.from_pretrained(str(folder), use_safetensors=True).eval()
    enc = tok(texts, truncation=True, max_length=max_len, padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**enc).last_hidden_state
    mask = enc["attention_mask"].unsqueeze(-1).float()
    mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(mean, dim=1).numpy()


@pytest.mark.parametrize("which", [pytest.param("tiny_encoder", id="tiny"), pytest.param("minilm_fp32", id="minilm")])
def test_a_plain_bert_loads_from_its_files_and_gives_transformers_vectors(which, request):
    # The session's fp32 encoders of the tiny BERT and MiniLM (conftest), loaded from their folders as this one
    # would load them: a second load here cost MiniLM's load and fused-forward check again.
    enc = request.getfixturevalue(which)
    assert enc.loaded_by == "files" and type(enc._model).__name__ == "PlainBert" and enc.dtype == torch.float32
    want = transformers_vectors(enc.resolved.path, TEXTS, enc.max_seq_length)
    # fp32 throughout: the same sums, in another order where the kernels block differently (AVX2 or AVX-512):
    # 1e-5 on unit vectors is ~100x float32's rounding over six layers; a wrong mask or a skipped bias is ~1e-2.
    np.testing.assert_allclose(enc.encode(TEXTS), want, atol=1e-5, rtol=0)
    lean, enc._lean = enc._lean, None  # plain_bert's own forward, not the packed one
    try:
        np.testing.assert_allclose(enc.encode(TEXTS), want, atol=1e-5, rtol=0)
    finally:
        enc._lean = lean
    np.testing.assert_allclose(enc.encode_query(TEXTS[1]), want[1], atol=1e-5, rtol=0)


def test_the_file_tokenizer_gives_auto_tokenizers_inputs(packaged_model_dir):
    from transformers import AutoTokenizer

    mine, ref = FileTokenizer.from_files(packaged_model_dir), AutoTokenizer.from_pretrained(str(packaged_model_dir))
    assert mine is not None
    for attr in ("pad_token_id", "pad_token_type_id", "padding_side", "truncation_side", "model_max_length"):
        assert getattr(mine, attr) == getattr(ref, attr), attr
    assert set(mine.model_input_names) == set(ref.model_input_names)
    for kwargs in ({}, {"truncation": True, "max_length": 16}, {"truncation": True, "max_length": 256}):
        got, want = mine(TEXTS, **kwargs), ref(TEXTS, **kwargs)
        assert {k: got[k] for k in want} == {k: list(map(list, v)) for k, v in want.items()}, kwargs
        assert mine(TEXTS[1], **kwargs)["input_ids"] == ref(TEXTS[1], **kwargs)["input_ids"]
    assert max(len(r) for r in mine(TEXTS, truncation=True, max_length=16)["input_ids"]) == 16


def test_a_tokenizer_transformers_would_change_loads_through_transformers(tmp_path, tiny_bi_encoder_dir,
                                                                            tiny_encoder):
    folder = Path(shutil.copytree(tiny_bi_encoder_dir, tmp_path / "cased"))
    cfg_file = folder / "tokenizer_config.json"
    cfg = json.loads(cfg_file.read_text(encoding="utf-8"))
    cfg_file.write_text(json.dumps({**cfg, "do_lower_case": False}), encoding="utf-8")  # tokenizer.json lowercases
    assert FileTokenizer.from_files(folder) is None
    enc = BiEncoder(str(folder), device="cpu", precision="fp32", threads=1)
    assert enc.loaded_by == "transformers"
    assert enc._tokenizer("ABC")["input_ids"] != tiny_encoder._tokenizer("ABC")["input_ids"]  # the folder's own


def test_what_plain_bert_does_not_reproduce_is_declined(tmp_path, tiny_bi_encoder_dir):
    from safetensors.torch import load_file, save_file

    def variant(name: str, config: dict | None = None, drop: str = "", prefix: str = "") -> Path:
        folder = Path(shutil.copytree(tiny_bi_encoder_dir, tmp_path / name))
        if config is not None:
            cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            (folder / "config.json").write_text(json.dumps({**cfg, **config}), encoding="utf-8")
        tensors = load_file(str(folder / "model.safetensors"))
        tensors = {prefix + k: v for k, v in tensors.items() if not (drop and k == drop)}
        save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
        return folder

    assert plain_bert.load(tiny_bi_encoder_dir) is not None
    assert plain_bert.load(variant("relative", {"position_embedding_type": "relative_key"})) is None
    assert plain_bert.load(variant("distil", {"model_type": "distilbert"})) is None
    assert plain_bert.load(variant("swish", {"hidden_act": "silu"})) is None
    assert plain_bert.load(variant("heads", {"num_attention_heads": None})) is None  # transformers' default, or error
    assert plain_bert.load(variant("odd-heads", {"num_attention_heads": 3})) is None  # 32 is not a multiple of 3
    assert plain_bert.load(variant("no-bias", drop="encoder.layer.1.output.dense.bias")) is None
    wide = variant("wide", {"intermediate_size": 65})  # the tensors are 64 wide: a shape the config contradicts
    assert plain_bert.load(wide) is None
    prefixed = plain_bert.load(variant("prefixed", prefix="bert."))  # a classifier's checkpoint keeps "bert."
    assert prefixed is not None
    (tmp_path / "sharded").mkdir()
    shutil.copy(tiny_bi_encoder_dir / "config.json", tmp_path / "sharded" / "config.json")
    assert plain_bert.load(tmp_path / "sharded") is None  # no model.safetensors: transformers reads shards


def test_an_index_and_a_reranked_search_never_import_transformers(tmp_path, tiny_bi_encoder_dir,
                                                                    tiny_cross_encoder_dir):
    """The point of plain_bert: a process that loads a plain BERT and embeds, or one that reranks, does not pay
    transformers' import (~6 s on a 2-core CPU). The query export after a sync loads the same way. The tiny
    models take the same path as MiniLM (test above) for a fraction of the CPU."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Otters hold hands while they sleep on the river.", encoding="utf-8")
    lib, docs = str(tmp_path / "lib"), str(tmp_path / "docs")
    (tmp_path / "lib").mkdir(mode=0o700)
    (tmp_path / "lib" / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\n',
                                                  encoding="utf-8")
    # One fresh process runs both commands (starting Python with torch was most of this test's CPU): neither the
    # index with its query export nor the reranked search may import transformers.
    code = textwrap.dedent(f"""
        import os, sys
        os.environ.pop("SEARCHAPP_NO_QUERY_EXPORT", None)
        from searchapp.library.resources import sync_encoder
        sync_encoder.LEAN_PASSAGES = 0  # an index that loads the model (a small one embeds without it: 0164)
        from searchapp.cli.entry import main
        rc = main(["--data-dir", {lib!r}, "index", {docs!r}])
        print("RC", rc, "TRANSFORMERS", "transformers" in sys.modules, flush=True)
        rc = main(["--data-dir", {lib!r}, "search", "sleeping otters", "--reranker", {str(tiny_cross_encoder_dir)!r},
                   "--json"])
        print("RC", rc, "TRANSFORMERS", "transformers" in sys.modules)
    """)
    # One torch thread (torch reads OMP_NUM_THREADS at start): two spin against each other when other tests hold a
    # core, and what the process imports is the same on any count.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert out.stdout.count("RC 0 TRANSFORMERS False") == 2, out.stdout + out.stderr
    assert '"reranked": true' in out.stdout  # the search did rerank
    assert list((tmp_path / "lib" / "model-cache").glob("query-*.onnx"))  # the export ran, on plain_bert


QUERY = "what do otters eat"
PASSAGES = ["Otters eat fish, crabs and sea urchins, holding them on their bellies.", "",
            "Ünïcödé 東京 🦦 " * 3, "A very long passage about rivers and the animals in them. " * 40]


@pytest.mark.parametrize("which", ["tiny", "minilm"])
def test_a_plain_bert_reranker_loads_from_its_files_and_gives_transformers_logits(which, tiny_cross_encoder_dir,
                                                                                 minilm_reranker_dir):
    from transformers import AutoTokenizer, BertForSequenceClassification

    from searchapp.models import CrossEncoder

    folder = str(tiny_cross_encoder_dir if which == "tiny" else minilm_reranker_dir)
    ce = CrossEncoder(folder, device="cpu", precision="fp32", max_length=64)
    assert ce.loaded_by == "files" and type(ce._model).__name__ == "PlainBertClassifier"
    tok = AutoTokenizer.from_pretrained(folder)
    model = BertForSequenceClassification.from_pretrained(folder, use_safetensors=True).eval()
    enc = tok([QUERY] * len(PASSAGES), PASSAGES, truncation="only_second", max_length=64, padding=True,
              return_tensors="pt")
    with torch.inference_mode():
        want = model(**enc).logits.reshape(-1).numpy()
    # fp32 both ways: MiniLM's logits of a few units agree to ~1e-6 (oneDNN's or F.linear's sums against MKL's),
    # and differ by > 0.1 between these pairs, so a mix-up of rows, a wrong mask or a missing bias would show. The
    # tiny random head's logits sit ~1e-5 apart: it checks the loading, MiniLM the arithmetic.
    atol = 1e-4 if which == "minilm" else 1e-6
    assert which == "tiny" or np.ptp(want) > 0.1
    np.testing.assert_allclose(ce.score(QUERY, PASSAGES), want, atol=atol, rtol=0)  # fused, as a search runs it
    fused, ce._fused = ce._fused, None  # plain_bert's own forward
    try:
        assert ce.path == "plain"
        np.testing.assert_allclose(ce.score(QUERY, PASSAGES), want, atol=atol, rtol=0)
    finally:
        ce._fused = fused


@pytest.mark.parametrize("strategy", ["only_second", "longest_first", True])
def test_the_file_tokenizer_cuts_pairs_as_auto_tokenizer(packaged_model_dir, strategy):
    from transformers import AutoTokenizer

    mine, ref = FileTokenizer.from_files(packaged_model_dir), AutoTokenizer.from_pretrained(str(packaged_model_dir))
    assert mine is not None and mine.num_special_tokens_to_add(pair=True) == ref.num_special_tokens_to_add(pair=True)
    # A query of ~16 pieces in a window of 24: "only_second" keeps it whole, "longest_first" cuts it too.
    queries = [QUERY + " when they live in cold rivers far from the coast"] * len(PASSAGES)
    got = mine(queries, PASSAGES, truncation=strategy, max_length=24)
    want = ref(queries, PASSAGES, truncation=strategy, max_length=24)
    assert {k: got[k] for k in want} == {k: list(map(list, v)) for k, v in want.items()}
    assert max(len(r) for r in got["input_ids"]) == 24 and {0, 1} <= set(sum(got["token_type_ids"], []))


def _tokenizer_variant(tmp_path: Path, source: Path, name: str, file_edit=None, config: dict | None = None) -> Path:
    folder = Path(shutil.copytree(source, tmp_path / name))
    if file_edit is not None:
        data = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
        file_edit(data)
        (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    if config:
        cfg = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        (folder / "tokenizer_config.json").write_text(json.dumps({**cfg, **config}), encoding="utf-8")
    return folder


def test_a_tokenizer_json_that_transformers_5_would_rebuild_otherwise_is_declined(tmp_path, tiny_bi_encoder_dir):
    """transformers 5's BertTokenizer keeps only tokenizer.json's vocabulary and builds the rest from
    tokenizer_config.json: a file whose other parts differ from that is not used alone."""
    def extra_added(d: dict) -> None:
        d["added_tokens"].append({"id": 1, "content": "[unused0]", "single_word": False, "lstrip": False,
                                  "rstrip": False, "normalized": False, "special": True})

    decoder = {str(i): {"content": c, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
                        "special": True} for i, c in ((0, "[PAD]"), (100, "[UNK]"), (101, "[CLS]"), (102, "[SEP]"),
                                                      (103, "[MASK]"))}
    declined = {
        "no-post-processor": (lambda d: d.update(post_processor=None), None),
        "no-cleaning": (lambda d: d["normalizer"].update(clean_text=False), None),
        "whitespace-split": (lambda d: d.update(pre_tokenizer={"type": "Whitespace"}), None),
        "long-words": (lambda d: d["model"].update(max_input_chars_per_word=200), None),
        "an-added-token-unlisted": (extra_added, {"added_tokens_decoder": decoder}),
        "other-inputs": (None, {"model_input_names": ["input_ids", "attention_mask"]}),
    }
    assert FileTokenizer.from_files(_tokenizer_variant(tmp_path, tiny_bi_encoder_dir, "listed", None,
                                                       {"added_tokens_decoder": decoder})) is not None
    for name, (edit, config) in declined.items():
        assert FileTokenizer.from_files(_tokenizer_variant(tmp_path, tiny_bi_encoder_dir, name, edit, config)) is None, name


def test_the_file_s_own_truncation_side_is_transformers_default(tmp_path, tiny_bi_encoder_dir):
    from transformers import AutoTokenizer

    def left(d: dict) -> None:
        d["truncation"] = {"direction": "Left", "max_length": 128, "strategy": "LongestFirst", "stride": 0}

    folder = _tokenizer_variant(tmp_path, tiny_bi_encoder_dir, "left", left)
    mine, ref = FileTokenizer.from_files(folder), AutoTokenizer.from_pretrained(str(folder))
    assert mine is not None and mine.truncation_side == ref.truncation_side == "left"
    text = "the first words go, the last words stay " * 10
    assert mine(text, truncation=True, max_length=12)["input_ids"] == ref(text, truncation=True, max_length=12)["input_ids"]


def test_damaged_weights_are_declined_and_the_load_says_so(tmp_path, tiny_bi_encoder_dir):
    from searchapp.base.errors import ModelLoadError

    folder = Path(shutil.copytree(tiny_bi_encoder_dir, tmp_path / "damaged"))
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:4096])  # cut short, as an interrupted copy leaves it
    assert plain_bert.load(folder) is None
    with pytest.raises(ModelLoadError):
        BiEncoder(str(folder), device="cpu", precision="fp32", threads=1)
