"""`eval ir` counts judgements for documents or queries that do not exist, and refuses them with --strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchapp.base.errors import ConfigError
from searchapp.cli.main import main
from searchapp.evaluation.ir import evaluate_ir


@pytest.fixture
def beir_with_dangling(tmp_path) -> Path:
    d = tmp_path / "beir"
    (d / "qrels").mkdir(parents=True)
    with open(d / "corpus.jsonl", "w") as fh:
        fh.write(json.dumps({"_id": "d1", "title": "Bread", "text": "Sourdough bread rises with wild yeast."}) + "\n")
        fh.write(json.dumps({"_id": "d2", "title": "Rock", "text": "Volcanoes erupt molten rock."}) + "\n")
    with open(d / "queries.jsonl", "w") as fh:
        fh.write(json.dumps({"_id": "q1", "text": "sourdough yeast"}) + "\n")
        fh.write(json.dumps({"_id": "q2", "text": "volcano rock"}) + "\n")
    (d / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\tgone\t1\nq2\td2\t1\nq2\tgone\t1\nq2\tlost\t1\nq9\td1\t1\n")
    return d


def test_dangling_judgements_are_counted(beir_with_dangling, make_config, tiny_encoder):
    res = evaluate_ir(beir_with_dangling, make_config(), modes=["lexical"], rerank=False, encoder=tiny_encoder)
    assert res["judgement_problems"] == {"judgements_for_missing_documents": 3, "missing_documents": 2,
                                         "judged_queries_missing": 1, "judgements_for_missing_queries": 1}


def test_strict_refuses_dangling_judgements(beir_with_dangling, make_config, tiny_encoder):
    with pytest.raises(ConfigError, match="2 documents that are not in corpus.jsonl"):
        evaluate_ir(beir_with_dangling, make_config(), modes=["lexical"], rerank=False, encoder=tiny_encoder,
                    strict=True)


def test_cli_warns_and_strict_exits_2(beir_with_dangling, tmp_path, capsys, tiny_bi_encoder_dir):
    args = ["--data-dir", str(tmp_path / "unused"), "eval", "ir", str(beir_with_dangling), "--modes", "lexical",
            "--no-rerank", "--model", str(tiny_bi_encoder_dir), "--json"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "warning: 3 judgements name 2 documents" in err and "1 judged queries are not in queries.jsonl" in err
    assert main(args + ["--strict"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--strict" in err
