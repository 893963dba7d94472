"""Training and evaluation data: TSV and BEIR layouts, malformed rows, hard-negative mining."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from searchapp.base.errors import ConfigError, SearchAppError
from searchapp.datasets.beir import BeirCollection
from searchapp.datasets.pairs import read_labeled_pairs, read_scored_pairs, read_triplets
from searchapp.training.data import cross_encoder_data, regression_data, softmax_data, triplet_data
from searchapp.training.mining import mine_hard_negatives


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_scored_pairs_skip_header_unquote_and_scale(tmp_path):
    f = write(tmp_path, "sts.tsv", 'score\tsentence1\tsentence2\n5.000\tA plane.\tAn "air" plane.\n'
                                   '\n2.5\t"He said ""hi"""\tb\n0\tc\td\n')
    pairs = read_scored_pairs(f)
    assert [p.score for p in pairs] == [5.0, 2.5, 0.0]
    assert pairs[1].text1 == 'He said "hi"' and pairs[0].text2 == 'An "air" plane.'
    data = regression_data([f], max_score=5.0)
    assert data.labels == [1.0, 0.5, 0.0] and len(data) == 3 and data.kind == "regression"


@pytest.mark.parametrize("body, reason", [
    ("5\tonly two\n", "expected 3 tab-separated fields, got 2"),
    ("5\ta\tb\textra\n", "expected 3 tab-separated fields, got 4"),
    ("high\ta\tb\n", "score 'high' is not a number"),
    ("nan\ta\tb\n", "not finite"),
    ("7\ta\tb\n", "outside 0..5"),
    ("3\t\tb\n", "field 2 is empty"),
])
def test_malformed_rows_name_file_line_and_reason(tmp_path, body, reason):
    f = write(tmp_path, "bad.tsv", "score\ts1\ts2\n1\tfine\tfine\n" + body)
    with pytest.raises(ConfigError) as exc:
        regression_data([f])
    assert f"{f}:3: " in str(exc.value) and reason in str(exc.value)
    assert isinstance(exc.value, SearchAppError) and exc.value.exit_code == 2


def test_other_malformed_inputs(tmp_path):
    bad_utf8 = write(tmp_path, "bin.tsv", b"1\ta\tb\n1\t\xff\xfe\tb\n")
    with pytest.raises(ConfigError, match=r"bin.tsv:2: not UTF-8"):
        read_scored_pairs(bad_utf8)
    nli = write(tmp_path, "nli.tsv", "label\ts1\ts2\nentailment\ta\tb\nmaybe\tc\td\n")
    with pytest.raises(ConfigError, match=r"nli.tsv:3: label 'maybe' is not one of"):
        read_labeled_pairs(nli, labels=["entailment", "neutral", "contradiction"])
    with pytest.raises(ConfigError, match="no pairs"):
        read_scored_pairs(write(tmp_path, "empty.tsv", "score\ts1\ts2\n"))
    with pytest.raises(ConfigError, match="not found"):
        read_triplets(tmp_path / "missing.tsv")
    with pytest.raises(ConfigError, match="reads a TSV file, not a folder"):
        regression_data([tmp_path])
    with pytest.raises(ConfigError, match="at least 2 labels"):
        softmax_data([write(tmp_path, "one.tsv", "same\ta\tb\nsame\tc\td\n")])


def test_softmax_and_cross_encoder_label_kinds(tmp_path):
    nli = write(tmp_path, "nli.tsv", "label\ts1\ts2\nneutral\ta\tb\nentailment\tc\td\ncontradiction\te\tf\n")
    data = softmax_data([nli])
    assert data.label_names == ["contradiction", "entailment", "neutral"] and data.labels == [2.0, 1.0, 0.0]
    binary = cross_encoder_data([write(tmp_path, "qa.tsv", "label\tq\ta\n1\tq\ta\n0\tq\tb\n")])
    assert binary.kind == "binary" and binary.labels == [1.0, 0.0]
    graded = cross_encoder_data([write(tmp_path, "g.tsv", "4\tq\ta\n2\tq\tb\n0\tq\tc\n")])
    assert graded.kind == "graded" and graded.labels == [1.0, 0.5, 0.0]
    with pytest.raises(ConfigError, match=r"g.tsv:1: score '4' is outside 0..3"):
        cross_encoder_data([tmp_path / "g.tsv"], max_score=3)
    with pytest.raises(ConfigError, match="maximum above 0"):
        cross_encoder_data([write(tmp_path, "zeros.tsv", "0.0\tq\ta\n0.0\tq\tb\n")])
    classes = cross_encoder_data([nli])
    assert classes.kind == "classes" and classes.label_names == ["contradiction", "entailment", "neutral"]
    with pytest.raises(ConfigError, match=r"mixed.tsv:2: numeric label '1'"):
        cross_encoder_data([write(tmp_path, "mixed.tsv", "neutral\ta\tb\n1\tc\td\n")])
    trip = triplet_data([write(tmp_path, "t.tsv", "anchor\tpositive\tnegative\na\tb\tc\n")])
    assert trip.columns == [["a"], ["b"], ["c"]] and trip.labels is None
    sub = graded.subsample(2, seed=0)
    assert len(sub) == 2 and sub.kind == "graded" and graded.subsample(None, 0) is graded


class _TableEncoder:
    def __init__(self, table):
        self.table = table

    def encode(self, texts, **kw):
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def test_mined_negatives_are_close_but_never_judged_relevant():
    corpus = {"d1": ("", "alpha"), "d2": ("", "beta"), "d3": ("", "gamma"), "d4": ("", "delta")}
    c = BeirCollection(corpus=corpus, queries={"q": "query", "q2": "unjudged"}, qrels={"q": {"d1": 1, "d3": 0}})
    vec = {"alpha": [1, 0], "beta": [0.9, 0.1], "gamma": [0.95, 0.05], "delta": [-1, 0], "query": [1, 0],
           "unjudged": [0, 1]}
    ex = mine_hard_negatives(_TableEncoder(vec), c, negatives=1, pool=1)
    assert len(ex) == 1 and ex[0].query == "query" and ex[0].positive == "alpha"
    # gamma is closest but judged (grade 0 counts as judged not relevant: still a fine negative) -> the pool
    # of 1 is the top non-relevant document, gamma
    assert ex[0].negatives == ("gamma",)
    ex = mine_hard_negatives(_TableEncoder(vec), c, negatives=3, pool=2, seed=1)
    assert set(ex[0].negatives) == {"gamma", "beta"}  # never alpha (relevant), never beyond the pool


def test_beir_folder_trains_triplets_through_a_miner(tmp_path):
    d = tmp_path / "beir"
    (d / "qrels").mkdir(parents=True)
    (d / "corpus.jsonl").write_text("\n".join(json.dumps({"_id": i, "title": "", "text": t})
                                              for i, t in [("d1", "alpha"), ("d2", "beta")]) + "\n")
    (d / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "query"}) + "\n")
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\td1\t1\n")
    enc = _TableEncoder({"alpha": [1, 0], "beta": [0, 1], "query": [1, 0]})
    data = triplet_data([d], lambda: enc)
    assert data.columns == [["query"], ["alpha"], ["beta"]]
    pairs = cross_encoder_data([d], lambda: enc, negatives=1)
    assert pairs.columns == [["query", "query"], ["alpha", "beta"]] and pairs.labels == [1.0, 0.0]
    with pytest.raises(ConfigError, match="needs a bi-encoder"):
        triplet_data([d], None)
