"""`searchapp train ...` and `searchapp eval sts|rerank|ann|ir --model/--pooling` end to end on tiny models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from searchapp.cli.main import main
from tiny_models import build_tiny_bert

TRAIN = ["--batch-size", "4", "--lr", "1e-3", "--max-seq-length", "32", "--precision", "fp32", "--json"]
STS = "score\ts1\ts2\n5\ta cat sits on the mat\ta kitten rests on a rug\n0\ta cat sits on the mat\tstocks fell\n" \
      "4\tstocks fell\tshares dropped\n1\tshares dropped\tit rains\n3\tit rains\tshowers today\n"
QA = "label\tquestion\tanswer\n1\twho wrote hamlet\tshakespeare wrote hamlet\n0\twho wrote hamlet\tit rains today\n" \
     "0\twho wrote hamlet\tstocks fell\n1\twhere is paris\tparis is in france\n0\twhere is paris\tthe cat sleeps\n"


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, packaged_model_dir) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert-cli"), packaged_model_dir)


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch):
    monkeypatch.setenv("SEARCHAPP_MODELS__THREADS", "1")  # other tests may hold the second core


def run(capsys, *argv) -> tuple[int, dict | str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    try:
        return code, json.loads(out), err
    except ValueError:
        return code, out, err


def test_train_bi_encoder_then_eval_sts_with_its_saved_pooling(tiny_bert, tmp_path, capsys):
    sts = tmp_path / "sts.tsv"
    sts.write_text(STS)
    out = tmp_path / "bi"
    code, res, err = run(capsys, "--data-dir", tmp_path / "lib", "train", "bi-encoder", sts, "--objective",
                         "regression", "--base", tiny_bert, "--pooling", "cls", "--output", out, *TRAIN)
    assert code == 0, err
    assert res["objective"] == "regression" and res["examples"] == 5 and res["stats"]["steps"] == 2
    code, res, err = run(capsys, "--data-dir", tmp_path / "lib", "eval", "sts", sts, "--model", out, "--json")
    assert code == 0, err
    assert res["pooling"] == "cls" and res["primary_metric"] == "spearman" and res["pairs"] == 5
    assert -100 <= res["spearman"] <= 100 and "pearson" in res
    code, text, err = run(capsys, "--data-dir", tmp_path / "lib", "eval", "sts", sts, "--model", out, "--pooling", "wk")
    assert code == 0 and "Spearman x100" in text and "wk pooling" in text
    # an existing output folder is refused before any work
    code, _, err = run(capsys, "--data-dir", tmp_path / "lib", "train", "bi-encoder", sts, "--objective", "regression",
                       "--base", tiny_bert, "--output", out, *TRAIN)
    assert code == 2 and "--overwrite" in err


def test_bad_training_row_is_one_clean_error(tiny_bert, tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("score\ts1\ts2\n5\ta\tb\nfive\tc\td\n")
    code, _, err = run(capsys, "--data-dir", tmp_path / "lib", "train", "bi-encoder", bad, "--objective", "regression",
                       "--base", tiny_bert, "--output", tmp_path / "o", *TRAIN)
    assert code == 2 and f"{bad}:3: score 'five' is not a number" in err and not (tmp_path / "o").exists()


def test_train_cross_encoder_then_eval_rerank(tiny_bert, tmp_path, capsys):
    qa = tmp_path / "qa.tsv"
    qa.write_text(QA)
    out = tmp_path / "ce"
    code, res, err = run(capsys, "--data-dir", tmp_path / "lib", "train", "cross-encoder", qa, "--base", tiny_bert,
                         "--output", out, *TRAIN)
    assert code == 0, err
    assert res["loss"] == "bce" and res["num_labels"] == 1 and res["positives"] == 2
    code, res, err = run(capsys, "--data-dir", tmp_path / "lib", "eval", "rerank", qa, "--model", tiny_bert,
                         "--reranker", out, "--json")
    assert code == 0, err
    assert res["queries"] == 2 and res["primary_metric"] == "ndcg@10"
    assert set(res["before"]) >= {"ndcg@10", "mrr@10"} and set(res["gain"]) >= {"ndcg@10", "mrr@10"}
    assert res["gain"]["ndcg@10"] == pytest.approx(res["after"]["ndcg@10"] - res["before"]["ndcg@10"])


def test_eval_ir_takes_model_and_pooling(tiny_bert, tmp_path, capsys, monkeypatch):
    import searchapp.evaluation.ir as ir

    seen = {}

    def fake(directory, config, **kw):
        seen["models"] = config.models
        return {"collection": str(directory), "documents": 0, "chunks": 0, "index_seconds": 0.0, "queries": 0,
                "primary_metric": "ndcg@10", "reranker": "not requested", "modes": {},
                "judgement_problems": {"judgements_for_missing_documents": 0, "missing_documents": 0,
                                       "judged_queries_missing": 0, "judgements_for_missing_queries": 0}}

    monkeypatch.setattr(ir, "evaluate_ir", fake)
    code, res, err = run(capsys, "--data-dir", tmp_path, "eval", "ir", tmp_path, "--model", tiny_bert, "--pooling",
                         "wk", "--json")
    assert code == 0, err
    assert seen["models"].bi_encoder == str(tiny_bert) and seen["models"].pooling == "wk"


def _plain(text) -> str:
    """A corpus.TOPICS entry (a text, or the title, pages or chapters of a document) as one plain text."""
    return text if isinstance(text, str) else "\n\n".join(map(_plain, text))


def test_eval_ann_reports_recall_of_the_library_index(tiny_bert, tmp_path, capsys, make_config):
    from corpus import TOPICS, write_texts

    from searchapp.library import Library
    from searchapp.models import BiEncoder

    config = make_config()
    # The mixed corpus's texts as plain files: the recall is over the vectors, whatever the files' formats (writing
    # and reading its PDF, Office and EPUB files was most of this test's CPU).
    docs = write_texts(tmp_path / "docs", {name.split(".")[0] + ".txt": _plain(t) for name, t in TOPICS.items()})
    with Library(config, encoder=BiEncoder(str(tiny_bert), device="cpu", threads=1)) as lib:
        lib.add_folder(docs)
        direct = lib.ann_recall(k=5, sample=50)
        n = lib.status().chunks
    assert direct["recall@5"] >= 0.95 and direct["queries"] == min(50, n) and direct["backend"] == "hnsw"
    code, res, err = run(capsys, "--data-dir", config.data_dir, "eval", "ann", "--k", "5", "--sample", "50", "--json")
    assert code == 0, err
    assert res["primary_metric"] == "recall@5" and res["recall@5"] == direct["recall@5"] and res["vectors"] == n
    from searchapp.base.config import load_config

    Library(load_config(tmp_path / "empty", env={})).close()  # a library with nothing indexed yet
    code, res, err = run(capsys, "--data-dir", tmp_path / "empty", "eval", "ann", "--json")
    assert code == 0 and res["recall@10"] is None and res["vectors"] == 0
    code = main(["--data-dir", str(tmp_path / "typo"), "eval", "ann", "--json"])
    assert code == 2 and "no library at" in capsys.readouterr().err  # measures a library, never makes one
    assert not (tmp_path / "typo").exists()


def test_ann_recall_counts_misses_and_forgives_ties():
    from searchapp.ann import create_index
    from searchapp.base.config import IndexConfig
    from searchapp.library.report.ann_recall import measure_ann_recall

    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(300, 16)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[1] = vecs[0]  # a duplicate: either copy is a correct neighbour
    ids = np.arange(300, dtype=np.int64) * 7
    exact = create_index(IndexConfig(backend="exact"), 16)
    exact.add(ids, vecs)
    res = measure_ann_recall(exact, ids, vecs, k=10, sample=300, ef=10)
    # Queries are the 299 distinct vectors (the duplicate is asked once); the index still holds all 300.
    assert res["recall@10"] == 1.0 and res["queries"] == 299 and res["primary_metric"] == "recall@10"
    assert res["vectors"] == 300 and res["distinct_vectors"] == 299

    class Wrong:  # returns fixed far-away labels: recall must drop to (almost) nothing
        name = "wrong"

        def search(self, q, k, ef=None):
            return np.tile(ids[-k:], (len(q), 1)), None

    assert measure_ann_recall(Wrong(), ids, vecs, k=10, sample=50, ef=10)["recall@10"] < 0.2
