"""Tiny BERT bi-encoders built from a config (hidden 32, 2 layers) with the packaged MiniLM's tokenizer."""

from __future__ import annotations

import shutil
from pathlib import Path

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def build_tiny_bert(folder: Path, packaged_dir: Path, seed: int = 0, max_position_embeddings: int = 128) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    save_random_bert(folder, seed=seed, max_position_embeddings=max_position_embeddings)
    for name in TOKENIZER_FILES:
        shutil.copy(packaged_dir / name, folder / name)
    return folder


def save_random_bert(folder: Path, *, seed: int = 0, max_position_embeddings: int = 512,
                     labels: int | None = None) -> None:
    """A 2-layer, 32-wide BERT encoder's config.json and model.safetensors (with `labels`: a sequence classifier,
    pooler and head, as BertForSequenceClassification saves one), initialized as transformers initializes one
    (normal(0, 0.02) weights, zero biases, LayerNorm 1 and 0, a zero padding row), written without importing
    transformers: every worker of the suite builds one, and that import alone costs each ~6 CPU s on a 2-core
    machine. transformers loads the folder as it loads its own (test_plain_bert.py)."""
    import json

    import torch
    from safetensors.torch import save_file

    from searchapp.models.plain_bert import PlainBert, PlainBertClassifier, PlainBertConfig

    config = {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 30522, "hidden_size": 32,
              "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
              "max_position_embeddings": max_position_embeddings, "type_vocab_size": 2, "initializer_range": 0.02,
              "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute"}
    if labels is not None:
        config = {**config, "architectures": ["BertForSequenceClassification"],
                  "id2label": {str(i): f"LABEL_{i}" for i in range(labels)},
                  "label2id": {f"LABEL_{i}": i for i in range(labels)}}
    cfg = PlainBertConfig(**config)
    model = PlainBert(cfg) if labels is None else PlainBertClassifier(cfg, labels)
    gen = torch.Generator().manual_seed(seed)
    tensors = {}
    for name, t in model.state_dict().items():
        if name.endswith("LayerNorm.weight"):
            tensors[name] = torch.ones_like(t)
        elif name.endswith("bias"):
            tensors[name] = torch.zeros_like(t)
        else:
            tensors[name] = torch.randn(t.shape, generator=gen) * 0.02
    words = "embeddings.word_embeddings.weight" if labels is None else "bert.embeddings.word_embeddings.weight"
    tensors[words][0] = 0  # the padding row, as nn.Embedding(padding_idx=0)
    (folder / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def declare_sentence_conventions(folder: Path, *, pooling: str = "mean", normalize: bool = True,
                                 prompts: dict | None = None, default_prompt_name: str | None = None) -> Path:
    """Write what sentence-transformers records beside a model (modules.json, 1_Pooling/config.json,
    config_sentence_transformers.json) into `folder`: the pooling, a Normalize module, the prompts."""
    import json

    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    (folder / "1_Pooling").mkdir(exist_ok=True)
    flags = {f"pooling_mode_{k}": pooling == v for k, v in
             (("cls_token", "cls"), ("mean_tokens", "mean"), ("max_tokens", "max"), ("lasttoken", "lasttoken"))}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 32, **flags}),
                                                      encoding="utf-8")
    st = {"prompts": prompts or {}, "default_prompt_name": default_prompt_name, "similarity_fn_name": "cosine"}
    (folder / "config_sentence_transformers.json").write_text(json.dumps(st), encoding="utf-8")
    return folder
