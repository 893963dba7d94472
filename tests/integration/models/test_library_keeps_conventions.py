"""A library built before searchapp read a model's own pooling and prompts keeps searching after the upgrade, as it
was built; `status` says what the model declares and that a reindex would use it (decision 0112, "Review mends")."""

from __future__ import annotations

import shutil
import sqlite3

import numpy as np
import pytest

from tiny_models import declare_sentence_conventions

BGE_QUERY = "Represent this sentence for searching relevant passages: "


def _pre_0112_library(make_config, model, docs):
    """A library as the old code left it: built under the old default pooling (mean), no passage prompt recorded
    (the fingerprint of mean pooling with no prompt is the same now as then)."""
    from searchapp.library import Library

    config = make_config(models={"reranker": "", "bi_encoder": str(model), "pooling": "mean", "threads": 1})
    from searchapp.library.resources.data_dir import DB_NAME

    with Library(config) as lib:
        lib.add_folder(docs)
        assert lib.store.meta()["pooling"] == "mean"
    with sqlite3.connect(config.data_dir / DB_NAME) as conn:  # the key the old code never wrote
        conn.execute("DELETE FROM meta WHERE key = 'passage_prompt'")
    return make_config(models={"reranker": "", "bi_encoder": str(model), "pooling": "auto", "threads": 1})


@pytest.fixture
def built(make_config, tiny_bi_encoder_dir, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Kelp forests grow fast in cold water.\n", encoding="utf-8")
    (docs / "b.txt").write_text("The tax return is due in April.\n", encoding="utf-8")
    model = tmp_path / "model"
    shutil.copytree(tiny_bi_encoder_dir, model)
    return _pre_0112_library(make_config, model, docs), model


def test_a_library_built_with_mean_keeps_searching_when_the_model_declares_cls(built, monkeypatch, capsys):
    from searchapp.cli.main import main
    from searchapp.library import Library
    from searchapp.models import BiEncoder

    config, model = built
    declare_sentence_conventions(model, pooling="cls", prompts={"query": BGE_QUERY})  # the upgrade reads these
    with Library(config) as lib:
        lib.check_model()  # no "pooling 'mean' (configured 'cls')"
        res = lib.search("kelp in cold water", mode="dense", rerank=False)
        assert res.hits  # a search by meaning is answered, not refused
        got = lib.models.encode_query("kelp in cold water")
    as_built = BiEncoder(str(model), pooling="mean", prompts=False, device="cpu", precision="fp32", threads=1)
    assert float(np.dot(got, as_built.encode_query("kelp in cold water"))) > 0.999  # mean, no query prompt

    monkeypatch.setenv("SEARCHAPP_MODELS__RERANKER", "")
    monkeypatch.setenv("SEARCHAPP_MODELS__BI_ENCODER", str(model))
    monkeypatch.setenv("SEARCHAPP_MODELS__THREADS", "1")
    data = str(config.data_dir)
    capsys.readouterr()
    assert main(["--data-dir", data, "status"]) == 0
    out = capsys.readouterr().out
    assert f"bi-encoder: {model} (mean pooling)" in out
    assert ('note: the model declares cls pooling and the query prompt "Represent this sentence for searching…"; '
            "this library, built before searchapp read them, keeps mean pooling and no prompts: `searchapp reindex` "
            "would use the model's\n") in out
    assert "reindex needed" not in out

    with Library(config) as lib:  # in a process that ran the library as built (the window): the model's own now
        lib.check_model()
        assert lib.models.encoder.pooling == "mean"
        lib.reindex()
        assert lib.models.encoder.pooling == "cls" and lib.store.meta()["pooling"] == "cls"
    capsys.readouterr()
    assert main(["--data-dir", data, "status"]) == 0
    out = capsys.readouterr().out
    assert f"bi-encoder: {model} (cls pooling)" in out and "note: the model declares" not in out
    with Library(config) as lib:
        meta = lib.store.meta()
        assert (meta["pooling"], meta["passage_prompt"]) == ("cls", "")
        lib.check_model()


def test_an_e5_library_built_without_prompts_keeps_searching_and_an_explicit_pooling_still_wins(built, make_config):
    from searchapp.base.errors import ModelMismatchError
    from searchapp.library import Library

    config, model = built
    declare_sentence_conventions(model, pooling="mean", prompts={"query": "query: ", "passage": "passage: "})
    with Library(config) as lib:
        lib.check_model()  # no "passage prompt none (the configured model puts "passage: " ...)"
        assert lib.search("tax return", mode="dense", rerank=False).hits
        lib.add_folder(config.data_dir.parent / "docs")  # a sync keeps the library as it was built
        assert "passage_prompt" not in lib.store.meta()
    explicit = make_config(models={"reranker": "", "bi_encoder": str(model), "pooling": "max", "threads": 1})
    with Library(explicit) as lib, pytest.raises(ModelMismatchError, match="pooling 'mean' \\(configured 'max'\\)"):
        lib.check_model()
    with Library(config) as window:  # a long-lived process runs it as built while another one reindexes it
        window.check_model()
        assert "passage_prompt" not in window.models.expected_meta()
        with Library(config) as other:
            other.reindex()
        window.check_model()  # not "passage prompt 'passage: ' (the configured model puts none …)"
        assert window.models.expected_meta()["passage_prompt"] == "passage: "
        assert window.search("tax return", mode="dense", rerank=False).hits


def test_a_new_library_takes_the_models_declared_pooling(make_config, tiny_bi_encoder_dir, tmp_path):
    from searchapp.library import Library

    model = declare_sentence_conventions(shutil.copytree(tiny_bi_encoder_dir, tmp_path / "model"), pooling="cls",
                                         prompts={"query": BGE_QUERY})
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("cats sit on mats\n", encoding="utf-8")
    with Library(make_config(models={"reranker": "", "bi_encoder": str(model), "threads": 1})) as lib:
        lib.add_folder(docs)
        meta = lib.store.meta()
    assert (meta["pooling"], meta["passage_prompt"]) == ("cls", "")
