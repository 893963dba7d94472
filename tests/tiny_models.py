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
