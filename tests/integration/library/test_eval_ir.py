"""`searchapp eval ir` through the real engine on a tiny BEIR folder the test writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import corpus
from searchapp.cli.main import main
from searchapp.evaluation.ir import evaluate_ir


@pytest.fixture
def beir_dir(tmp_path) -> Path:
    d = tmp_path / "beir"
    (d / "qrels").mkdir(parents=True)
    docs = {
        "d1": ("Sourdough", corpus.TOPICS["bread.txt"]),
        "d2": ("Containers", corpus.TOPICS["cluster.md"]),
        "d3": corpus.TOPICS["volcano.html"],
        "d4/x": ("Cells", " ".join(corpus.TOPICS["biology.pdf"])),  # an id that is not a safe file name
        "d5": ("Castles", " ".join(corpus.TOPICS["castles.docx"][1:])),
    }
    with open(d / "corpus.jsonl", "w") as fh:
        for i, (t, x) in docs.items():
            fh.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    queries = {
        "q1": "natural leavening for boules",  # shares no word (or stem, nor one a letter off) with its document
        "q2": "molten rock exploding out of a mountain",
        "q3": "which part of a cell makes energy",
        "q4": "moat and drawbridge",
        "q5": "a query without judgments",
    }
    with open(d / "queries.jsonl", "w") as fh:
        for i, t in queries.items():
            fh.write(json.dumps({"_id": i, "text": t}) + "\n")
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t2\nq3\td4/x\t1\nq4\td5\t1\n")
    return d


def test_evaluate_ir_scores_every_mode(beir_dir, make_config, packaged_encoder):
    res = evaluate_ir(beir_dir, make_config(), encoder=packaged_encoder, rerank=False)
    assert res["documents"] == 5 and res["queries"] == 4  # q5 has no judgments
    assert set(res["modes"]) == {"dense", "lexical", "hybrid"}
    assert res["modes"]["dense"]["ndcg@10"] == pytest.approx(1.0)
    assert res["modes"]["hybrid"]["mrr@10"] == pytest.approx(1.0)
    # Lexical misses paraphrases that share no word with the document.
    assert res["modes"]["lexical"]["ndcg@10"] < res["modes"]["dense"]["ndcg@10"]
    assert res["primary_metric"] == "ndcg@10"


def test_eval_ir_cli_json_with_tiny_reranker(beir_dir, tmp_path, capsys, tiny_cross_encoder_dir):
    code = main(["--data-dir", str(tmp_path / "unused"), "eval", "ir", str(beir_dir), "--json", "--modes", "dense",
                 "--reranker", str(tiny_cross_encoder_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    res = json.loads(out)
    assert set(res["modes"]) == {"dense", "dense+rerank"}
    for m in res["modes"].values():
        assert 0.0 <= m["ndcg@10"] <= 1.0 and 0.0 <= m["recall@100"] <= 1.0
    assert not (tmp_path / "unused" / "library.sqlite").exists()  # evaluation never touches the user's library


def test_eval_ir_rejects_a_missing_folder(tmp_path, capsys):
    code = main(["--data-dir", str(tmp_path), "eval", "ir", str(tmp_path / "nope")])
    assert code == 2 and "not a folder" in capsys.readouterr().err
