"""plain_bert builds its tree on the meta device and assigns the checkpoint's tensors: no table is randomly
initialized first. An Embedding's init on the meta device goes through torch._refs.normal_, whose first call
imports torch._dynamo: ~3 CPU s of every process that loads a model (a `searchapp index`, a watch, a worker)."""

from __future__ import annotations

import torch

from searchapp.models import plain_bert


def test_loading_a_plain_bert_initializes_no_table(tiny_bi_encoder_dir, tiny_cross_encoder_dir, monkeypatch):
    calls: list[tuple[int, ...]] = []
    real = torch.nn.init.normal_

    def counted(tensor, *args, **kwargs):
        calls.append(tuple(tensor.shape))
        return real(tensor, *args, **kwargs)

    monkeypatch.setattr(torch.nn.init, "normal_", counted)
    encoder = plain_bert.load(tiny_bi_encoder_dir)
    classifier = plain_bert.load_classifier(tiny_cross_encoder_dir)
    assert encoder is not None and classifier is not None
    assert calls == []
    # the tables are the checkpoint's, on the CPU
    table = encoder.embeddings.word_embeddings.weight
    assert table.device.type == "cpu" and table[0].abs().sum().item() == 0.0  # the saved zero padding row
    assert table[1:].abs().sum().item() > 0
