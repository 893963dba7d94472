"""Tiny BERT bi-encoders built from a config (hidden 32, 2 layers) with the packaged MiniLM's tokenizer."""

from __future__ import annotations

import shutil
from pathlib import Path

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def build_tiny_bert(folder: Path, packaged_dir: Path, seed: int = 0) -> Path:
    import torch
    from transformers import BertConfig, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128)
    BertModel(cfg).save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copy(packaged_dir / name, folder / name)
    return folder


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
