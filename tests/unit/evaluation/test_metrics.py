"""Ranking metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from searchapp.evaluation.metrics import evaluate_run, mrr_at_k, ndcg_at_k, recall_at_k

L3 = math.log2(3)  # discount at rank 2; rank 3 divides by log2(4) = 2


def test_binary_relevance():
    ranking = ["d1", "d2", "d3"]
    qrels = {"d2": 1, "d4": 1}  # d4 is relevant but never retrieved
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx((1 / L3) / (1 + 1 / L3))
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx(0.386853, abs=1e-6)
    assert mrr_at_k(ranking, qrels, 10) == 0.5
    assert recall_at_k(ranking, qrels, 10) == 0.5
    assert recall_at_k(ranking, qrels, 1) == 0.0
    assert mrr_at_k(ranking, qrels, 1) == 0.0


def test_graded_relevance_uses_linear_gains_and_ideal_from_qrels():
    ranking = ["a", "b", "c", "d"]
    qrels = {"a": 1, "c": 3, "d": 2, "e": 0}
    # DCG@3 = 1/1 + 0/log2(3) + 3/2; ideal@3 = 3/1 + 2/log2(3) + 1/2
    assert ndcg_at_k(ranking, qrels, 3) == pytest.approx(2.5 / (3 + 2 / L3 + 0.5))
    assert ndcg_at_k(ranking, qrels, 3) == pytest.approx(0.525005, abs=1e-6)
    # the perfect order scores 1; a grade-0 judgment is not relevant
    assert ndcg_at_k(["c", "d", "a", "e"], qrels, 10) == pytest.approx(1.0)
    assert recall_at_k(ranking, qrels, 3) == pytest.approx(2 / 3)
    assert mrr_at_k(["e", "b", "d"], qrels, 10) == pytest.approx(1 / 3)


def test_negative_grades_are_not_relevant():
    qrels = {"a": -1, "b": 1}
    assert ndcg_at_k(["a", "b"], qrels, 10) == pytest.approx(1 / L3)
    assert mrr_at_k(["a", "b"], qrels, 10) == 0.5
    assert recall_at_k(["a"], qrels, 10) == 0.0


def test_duplicates_count_once_at_first_position():
    qrels = {"a": 1, "b": 1}
    # de-duplicated to [x, a, b]: b moves up into the top 3
    assert ndcg_at_k(["x", "a", "x", "b"], qrels, 3) == pytest.approx((1 / L3 + 1 / 2) / (1 + 1 / L3))
    assert recall_at_k(["x", "a", "x", "b"], qrels, 3) == 1.0
    # a repeated relevant document must not push nDCG past 1 or recall past its share
    assert ndcg_at_k(["a", "a", "a"], qrels, 10) == pytest.approx(1 / (1 + 1 / L3))
    assert recall_at_k(["a", "a", "a"], qrels, 10) == 0.5
    assert mrr_at_k(["x", "x", "a"], qrels, 2) == 0.5


def test_k_larger_than_ranking():
    qrels = {"a": 2, "b": 1}
    assert ndcg_at_k(["a"], qrels, 100) == pytest.approx(2 / (2 + 1 / L3))
    assert ndcg_at_k(["a"], qrels, 100) == pytest.approx(0.760188, abs=1e-6)
    assert recall_at_k(["a"], qrels, 100) == 0.5
    assert mrr_at_k(["a"], qrels, 100) == 1.0
    assert ndcg_at_k([], qrels, 10) == 0.0


def test_no_positive_judgments_is_zero():
    for qrels in ({}, {"a": 0}):
        assert ndcg_at_k(["a"], qrels, 10) == 0.0
        assert mrr_at_k(["a"], qrels, 10) == 0.0
        assert recall_at_k(["a"], qrels, 10) == 0.0


def test_relevant_just_past_the_cutoff():
    ranking = [f"n{i}" for i in range(10)] + ["hit"]
    assert mrr_at_k(ranking, {"hit": 1}, 10) == 0.0
    assert mrr_at_k(ranking, {"hit": 1}, 11) == pytest.approx(1 / 11)
    assert ndcg_at_k(ranking, {"hit": 1}, 10) == 0.0


def test_bad_k():
    for metric in (ndcg_at_k, mrr_at_k, recall_at_k):
        with pytest.raises(ValueError):
            metric(["a"], {"a": 1}, -1)
    assert ndcg_at_k(["a"], {"a": 1}, 0) == 0.0


def test_evaluate_run_means_over_judged_queries():
    qrels = {
        "q1": {"a": 1},             # found at rank 1
        "q2": {"b": 2, "c": 1},     # missing from the run: counts as 0
        "q3": {"x": 0},             # no positive judgment: left out of the mean
        "q4": {"d": 1, "e": 1},     # one of two found, at rank 2
    }
    run = {
        "q1": ["a", "z"],
        "q3": ["x"],
        "q4": ["z", "d"],
        "q9": ["a"],                # not judged: ignored
    }
    result = evaluate_run(run, qrels, ks=(10, 100))
    assert set(result) == {"ndcg@10", "mrr@10", "recall@10", "recall@100", "queries"}
    assert result["queries"] == 3
    q4_ndcg = (1 / L3) / (1 + 1 / L3)
    assert result["ndcg@10"] == pytest.approx((1.0 + 0.0 + q4_ndcg) / 3)
    assert result["mrr@10"] == pytest.approx((1.0 + 0.0 + 0.5) / 3)
    assert result["recall@10"] == pytest.approx((1.0 + 0.0 + 0.5) / 3)
    assert result["recall@100"] == result["recall@10"]


def test_evaluate_run_cutoffs_and_empty():
    qrels = {"q": {f"d{i}": 1 for i in range(20)}}
    run = {"q": [f"d{i}" for i in range(20)]}
    result = evaluate_run(run, qrels, ks=(5, 20))
    assert set(result) == {"ndcg@5", "mrr@5", "recall@5", "recall@20", "queries"}
    assert result["recall@5"] == 0.25 and result["recall@20"] == 1.0
    assert result["ndcg@5"] == pytest.approx(1.0)
    empty = evaluate_run({}, {}, ks=(10, 100))
    assert empty == {"ndcg@10": 0.0, "mrr@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "queries": 0}
    with pytest.raises(ValueError):
        evaluate_run(run, qrels, ks=())
