"""`searchapp status` names the pooling that runs and the prompts the bi-encoder's files declare (issue 43, item 4;
decision 0112)."""

from __future__ import annotations

import shutil

import pytest

from tiny_models import declare_sentence_conventions

BGE_QUERY = "Represent this sentence for searching relevant passages: "


@pytest.fixture(scope="module")
def cls_dir(tmp_path_factory, tiny_bi_encoder_dir):
    dest = tmp_path_factory.mktemp("m") / "cls"
    shutil.copytree(tiny_bi_encoder_dir, dest)
    return declare_sentence_conventions(dest, pooling="cls", prompts={"query": BGE_QUERY, "text": ""})


@pytest.fixture(scope="module")
def e5_dir(tmp_path_factory, tiny_bi_encoder_dir):
    dest = tmp_path_factory.mktemp("m") / "e5"
    shutil.copytree(tiny_bi_encoder_dir, dest)
    return declare_sentence_conventions(dest, pooling="mean", prompts={"query": "query: ", "passage": "passage: "})


def test_status_shows_the_pooling_and_prompts_the_model_declares(cls_dir, e5_dir, tmp_path, monkeypatch, capsys):
    import json

    from searchapp.cli.main import main

    monkeypatch.setenv("SEARCHAPP_MODELS__RERANKER", "")
    data = str(tmp_path / "lib")
    monkeypatch.setenv("SEARCHAPP_MODELS__BI_ENCODER", str(cls_dir))
    monkeypatch.setenv("SEARCHAPP_MODELS__THREADS", "1")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Kelp forests grow fast in cold water.", encoding="utf-8")
    assert main(["--data-dir", data, "index", str(docs), "--words-only"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "status"]) == 0
    out = capsys.readouterr().out
    assert f"bi-encoder: {cls_dir} (cls pooling)" in out
    assert ('  pooling: cls (the model\'s); query prompt: "Represent this sentence for searching…"; '
            "passage prompt: none; normalized\n") in out
    monkeypatch.setenv("SEARCHAPP_MODELS__BI_ENCODER", str(e5_dir))
    monkeypatch.setenv("SEARCHAPP_MODELS__POOLING", "cls")  # a setting by hand wins, and status says whose it is
    assert main(["--data-dir", data, "status", "--json"]) == 0
    b = json.loads(capsys.readouterr().out)["models"]["bi_encoder"]
    assert (b["pooling"], b["pooling_setting"], b["query_prompt"], b["passage_prompt"], b["declares_normalize"]) == \
        ("cls", "cls", "query: ", "passage: ", True)


def test_models_list_offers_the_small_bi_encoders_with_size_quality_and_speed(tmp_path, monkeypatch, capsys):
    from searchapp.cli.main import main

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))  # none of them installed
    assert main(["--data-dir", str(tmp_path / "lib"), "models", "list"]) == 0
    out = capsys.readouterr().out
    assert "\noffered (`searchapp models pull ID`, or the window's Download):\n" in out
    assert "bi-encoder     91 MB  Snowflake/snowflake-arctic-embed-xs\n" in out
    assert "MTEB retrieval 50.15 (default 41.95), 22 M parameters: as fast as the default; 8.8 passages per " \
           "CPU-second on the reference 2-core EPYC (the default: 9.1)" in out
    for repo in ("BAAI/bge-small-en-v1.5", "Snowflake/snowflake-arctic-embed-s", "intfloat/e5-small-v2",
                 "intfloat/multilingual-e5-small"):
        assert repo in out
