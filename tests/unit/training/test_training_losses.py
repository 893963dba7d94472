"""Every training objective against values computed by hand on tiny tensors."""

from __future__ import annotations

import math

import pytest
import torch

from searchapp.training.losses import (
    BinaryCrossEntropyLoss,
    CosineSimilarityLoss,
    CrossEntropyLoss,
    ScoreMSELoss,
    SoftmaxLoss,
    TripletLoss,
)


def test_softmax_loss_concatenates_u_v_and_abs_difference():
    loss = SoftmaxLoss(dim=2, num_labels=2)
    with torch.no_grad():
        # Class 0 reads u only; class 1 reads |u - v| only.
        loss.classifier.weight.copy_(torch.tensor([[1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]]))
        loss.classifier.bias.zero_()
    u = torch.tensor([[1.0, 0.0]])
    v = torch.tensor([[0.0, 2.0]])
    # features = [1, 0, 0, 2, 1, 2] -> logits [1, 3]; cross-entropy for label 1 = log(e^1 + e^3) - 3
    assert loss.logits(u, v).tolist() == [[1.0, 3.0]]
    want = math.log(math.e + math.e**3) - 3.0
    assert loss([u, v], torch.tensor([1])).item() == pytest.approx(want, abs=1e-6)
    assert loss([u, v], torch.tensor([0])).item() == pytest.approx(want + 2.0, abs=1e-6)
    assert loss.classifier.in_features == 6
    with pytest.raises(ValueError):
        SoftmaxLoss(4, 1)


def test_cosine_similarity_loss_is_mse_of_cosine_against_scaled_score():
    u = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    v = torch.tensor([[1.0, 1.0], [-2.0, 0.0]])
    # cosines: 1/sqrt(2) and -1; gold 0.5 and 0.0 -> ((0.70711 - 0.5)^2 + 1) / 2
    want = ((1 / math.sqrt(2) - 0.5) ** 2 + 1.0) / 2
    assert CosineSimilarityLoss()([u, v], torch.tensor([0.5, 0.0])).item() == pytest.approx(want, abs=1e-6)
    assert want == pytest.approx(0.521447, abs=1e-6)


def test_triplet_loss_euclidean_with_margin_one_by_default():
    a = torch.tensor([[0.0, 0.0], [0.0, 0.0]])
    p = torch.tensor([[3.0, 4.0], [1.0, 0.0]])  # distances 5 and 1
    n = torch.tensor([[0.0, 1.0], [0.0, 3.0]])  # distances 1 and 3
    # max(5 - 1 + 1, 0) = 5 and max(1 - 3 + 1, 0) = 0
    assert TripletLoss()([a, p, n]).item() == pytest.approx(2.5)
    assert TripletLoss(margin=0.0)([a, p, n]).item() == pytest.approx(2.0)
    assert TripletLoss(margin=5.0)([a, p, n]).item() == pytest.approx((9.0 + 3.0) / 2)
    with pytest.raises(ValueError):
        TripletLoss(-1.0)


def test_cross_encoder_losses():
    logits = torch.tensor([[0.0], [math.log(3.0)]])  # sigmoid: 0.5 and 0.75
    assert ScoreMSELoss()(logits, torch.tensor([1.0, 0.75])).item() == pytest.approx(0.125)
    # BCE: -log(0.5) for label 1 and -log(1 - 0.75) for label 0
    assert BinaryCrossEntropyLoss()(logits, torch.tensor([1.0, 0.0])).item() == pytest.approx(
        (math.log(2) + math.log(4)) / 2, abs=1e-6)
    # pos_weight multiplies the positive term only
    assert BinaryCrossEntropyLoss(pos_weight=3.0)(logits, torch.tensor([1.0, 0.0])).item() == pytest.approx(
        (3 * math.log(2) + math.log(4)) / 2, abs=1e-6)
    three = torch.tensor([[0.0, 0.0, 0.0], [0.0, math.log(2.0), 0.0]])
    # uniform: log 3; second row: softmax = [1/4, 1/2, 1/4] -> -log(1/4) for label 2
    assert CrossEntropyLoss()(three, torch.tensor([1, 2])).item() == pytest.approx((math.log(3) + math.log(4)) / 2)


def test_losses_are_float32_under_bf16_inputs():
    u = torch.randn(4, 8).to(torch.bfloat16)
    v = torch.randn(4, 8).to(torch.bfloat16)
    assert CosineSimilarityLoss()([u, v], torch.rand(4)).dtype == torch.float32
    assert TripletLoss()([u, v, u]).dtype == torch.float32
