"""Correlation metrics and `eval sts` against hand-computed values; extra ranking-metric edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from searchapp.evaluation.correlation import average_ranks, pearson, spearman
from searchapp.evaluation.metrics import evaluate_run, mrr_at_k, ndcg_at_k
from searchapp.datasets.pairs import ScoredPair
from searchapp.evaluation.sts import evaluate_sts


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 30]).tolist() == [1.0, 2.5, 2.5, 4.0]
    assert average_ranks([3, 1, 3, 3]).tolist() == [3.0, 1.0, 3.0, 3.0]
    assert average_ranks([]).tolist() == []


def test_pearson_and_spearman_by_hand():
    x, y = [1, 2, 3, 4], [2, 4, 5, 9]
    # means 2.5 and 5; deviations (-1.5, -.5, .5, 1.5) and (-3, -1, 0, 4): cross products sum to 11, squares to 5 and 26
    assert pearson(x, y) == pytest.approx(11 / math.sqrt(5 * 26))
    assert spearman(x, y) == pytest.approx(1.0)  # monotone
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ties: ranks of y = (1, 2.5, 2.5, 4); Pearson of (1,2,3,4) with that = 4.5 / sqrt(5 * 4.5)
    assert spearman([1, 2, 3, 4], [5, 7, 7, 9]) == pytest.approx(4.5 / math.sqrt(5 * 4.5))
    assert pearson([1, 1, 1], [1, 2, 3]) == 0.0  # constant side: 0, not NaN
    with pytest.raises(ValueError):
        pearson([1], [1])
    with pytest.raises(ValueError):
        spearman([1, 2], [1, 2, 3])


def test_spearman_agrees_with_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 50).astype(float)  # many ties
    y = x + rng.normal(size=50)
    assert spearman(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic, abs=1e-12)
    assert pearson(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)


class _TableEncoder:
    """Fixed vectors per text: the evaluator's arithmetic, without a model."""

    def __init__(self, table):
        self.table = table
        self.calls = 0

    def encode(self, texts, **kw):
        self.calls += 1
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def test_evaluate_sts_scores_cosine_against_gold():
    enc = _TableEncoder({"a": [1, 0], "b": [1, 1], "c": [0, 1], "d": [-1, 0]})
    pairs = [ScoredPair("a", "a", 5.0), ScoredPair("a", "b", 3.0), ScoredPair("a", "c", 1.0), ScoredPair("a", "d", 0.0)]
    res = evaluate_sts(enc, pairs)
    assert res["primary_metric"] == "spearman" and res["pairs"] == 4
    assert res["spearman"] == pytest.approx(100.0)
    cos = [1.0, 1 / math.sqrt(2), 0.0, -1.0]
    assert res["pearson"] == pytest.approx(100 * pearson(cos, [5, 3, 1, 0]))
    assert enc.calls == 1  # every distinct sentence encoded once, in one call


def test_ndcg_ties_in_grades_and_unjudged_documents():
    qrels = {"a": 2, "b": 2, "c": 1}
    # a and b share a grade: either order is ideal
    assert ndcg_at_k(["a", "b", "c"], qrels, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["b", "a", "c"], qrels, 10) == pytest.approx(1.0)
    # an unjudged document ("x") counts as not relevant, it is not skipped
    assert ndcg_at_k(["x", "a", "b", "c"], qrels, 10) < 1.0
    assert mrr_at_k(["x", "y", "c"], qrels, 10) == pytest.approx(1 / 3)
    # queries judged only with grade 0 are left out; a query absent from the qrels is ignored
    res = evaluate_run({"q1": ["a"], "q2": ["z"], "q3": ["a"]}, {"q1": {"a": 1}, "q2": {"z": 0}})
    assert res["queries"] == 1 and res["ndcg@10"] == pytest.approx(1.0)
