"""The BEIR reader on tiny folders written to tmp_path (never /work/shared: CI may not have it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchapp.base.errors import ConfigError
from searchapp.datasets.beir import BeirCollection, load_beir


def write_beir(root: Path, corpus=None, queries=None, qrels=None, split: str = "test") -> Path:
    corpus = corpus if corpus is not None else [
        json.dumps({"_id": "d1", "title": "Wings", "text": "Lift on a wing in a slipstream."}),
        "",  # blank lines are skipped
        json.dumps({"_id": 2, "text": "Boundary layers, no title."}),
        json.dumps({"_id": "d3", "title": "Überschall", "text": "Supersonic flow. ✈"}),
    ]
    queries = queries if queries is not None else [
        json.dumps({"_id": "q1", "text": "how does a slipstream change lift?"}),
        json.dumps({"_id": "q2", "text": "supersonic"}),
    ]
    qrels = qrels if qrels is not None else ["query-id\tcorpus-id\tscore", "q1\td1\t2", "q1\t2\t1", "q2\td3\t1", "q2\td1\t0"]
    root.mkdir(parents=True, exist_ok=True)
    (root / "qrels").mkdir(exist_ok=True)
    (root / "corpus.jsonl").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    (root / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (root / "qrels" / f"{split}.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    return root


def test_load_tiny_collection(tmp_path):
    collection = load_beir(write_beir(tmp_path / "tiny"))
    assert isinstance(collection, BeirCollection)
    assert collection.corpus == {
        "d1": ("Wings", "Lift on a wing in a slipstream."),
        "2": ("", "Boundary layers, no title."),
        "d3": ("Überschall", "Supersonic flow. ✈"),
    }
    assert collection.queries == {"q1": "how does a slipstream change lift?", "q2": "supersonic"}
    assert collection.qrels == {"q1": {"d1": 2, "2": 1}, "q2": {"d3": 1, "d1": 0}}


def test_other_split_crlf_bom_and_headerless(tmp_path):
    root = write_beir(tmp_path / "c", qrels=["q1\td1\t1", "q2\td3\t3"], split="dev")
    data = (root / "qrels" / "dev.tsv").read_text().replace("\n", "\r\n")
    (root / "qrels" / "dev.tsv").write_bytes(b"\xef\xbb\xbf" + data.encode())
    (root / "corpus.jsonl").write_bytes(b"\xef\xbb\xbf" + (root / "corpus.jsonl").read_bytes())
    collection = load_beir(root, split="dev")
    assert collection.qrels == {"q1": {"d1": 1}, "q2": {"d3": 3}}
    assert "d1" in collection.corpus


@pytest.mark.parametrize(
    "part, lines, where, reason",
    [
        ("corpus", ['{"_id": "a", "text": "x"}', "", '{"_id": "b", "text": '], "corpus.jsonl:3:", "invalid JSON"),
        ("corpus", ['{"_id": "a", "text": "x"}', '{"text": "no id"}'], "corpus.jsonl:2:", "_id"),
        ("corpus", ['{"_id": "a", "text": "x"}', '{"_id": "a", "text": "y"}'], "corpus.jsonl:2:", "duplicate"),
        ("corpus", ['["not", "an", "object"]'], "corpus.jsonl:1:", "JSON object"),
        ("corpus", ['{"_id": "a", "text": null}'], "corpus.jsonl:1:", "text"),
        ("queries", ['{"_id": "q1", "text": "ok"}', '{"_id": "q2"}'], "queries.jsonl:2:", "text"),
        ("qrels", ["query-id\tcorpus-id\tscore", "q1\td1\t1", "q1\td2\thigh"], "test.tsv:3:", "not an integer"),
        ("qrels", ["query-id\tcorpus-id\tscore", "q1 d1 1"], "test.tsv:2:", "3 tab-separated"),
        ("qrels", ["q1\t0\td1\t1"], "test.tsv:1:", "3 tab-separated"),
        ("qrels", ["q1\t\t1"], "test.tsv:1:", "empty"),
    ],
)
def test_malformed_line_reports_file_and_line(tmp_path, part, lines, where, reason):
    root = write_beir(tmp_path / "bad", **{part: lines})
    with pytest.raises(ConfigError, match=reason) as info:
        load_beir(root)
    assert where in str(info.value)


def test_bad_utf8_reports_line(tmp_path):
    root = write_beir(tmp_path / "bad")
    (root / "queries.jsonl").write_bytes(b'{"_id": "q1", "text": "ok"}\n{"_id": "q2", "text": "\xff"}\n')
    with pytest.raises(ConfigError, match=r"queries\.jsonl:2: not UTF-8"):
        load_beir(root)


def test_missing_files_and_splits(tmp_path):
    root = write_beir(tmp_path / "c")
    with pytest.raises(ConfigError, match=r"no 'train' split \(available: test\)"):
        load_beir(root, split="train")
    (root / "queries.jsonl").unlink()
    with pytest.raises(ConfigError, match="queries.jsonl: not found"):
        load_beir(root)
    with pytest.raises(ConfigError, match="not found"):
        load_beir(tmp_path / "nowhere")
