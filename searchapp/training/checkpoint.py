"""Trained models on disk: a normal Hugging Face folder (config.json, model.safetensors, tokenizer files).

A bi-encoder folder also carries its pooling, twice: `searchapp_pooling.json` (any mode, "wk" included) and,
for mean / cls / max, sentence-transformers' modules.json + 1_Pooling/config.json, so that both
`searchapp --model PATH` and `sentence_transformers.SentenceTransformer(PATH)` load it as trained.
A folder is written under a temporary name beside the target and renamed at the end: a cancelled or
crashed run leaves no half-written model where the user expects one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator, Optional

from ..base.errors import ConfigError, ModelLoadError
from ..models.transformer import quiet_transformers  # re-exported for the trainers

__all__ = ["atomic_folder", "check_output", "write_pooling_files", "read_saved_pooling", "quiet_transformers",
           "POOLING_FILE"]

POOLING_FILE = "searchapp_pooling.json"
_ST_FLAGS = {"mean": "pooling_mode_mean_tokens", "cls": "pooling_mode_cls_token", "max": "pooling_mode_max_tokens"}


def check_output(output: Path, overwrite: bool) -> Path:
    """Refuse to replace a non-empty folder unless asked; called before training so no time is wasted."""
    output = Path(output).expanduser().resolve()
    if output.exists() and not output.is_dir():
        raise ConfigError(f"{output} exists and is not a folder")
    if output.is_dir() and any(output.iterdir()) and not overwrite:
        raise ConfigError(f"{output} already exists and is not empty (use --overwrite to replace it)")
    return output


@contextlib.contextmanager
def atomic_folder(output: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary folder beside `output`; on success it replaces `output`, on any error it is deleted."""
    output = check_output(output, overwrite)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{output.name}.partial-", dir=output.parent))
    try:
        yield tmp
        old = None
        if output.exists():
            old = output.with_name(f".{output.name}.old-{os.getpid()}")
            os.replace(output, old)
        os.replace(tmp, output)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def write_pooling_files(folder: Path, pooling: str, dim: int, max_seq_length: int, extra: Optional[dict[str, Any]] = None) -> None:
    folder = Path(folder)
    info: dict[str, Any] = {"pooling": pooling, **(extra or {})}
    if pooling == "wk":
        from ..models.sbert_wk import LAYER_START, OMEGA, WINDOW

        info.update({"layer_start": LAYER_START, "window": WINDOW, "omega": OMEGA})
    _write_json(folder / POOLING_FILE, info)
    _write_json(folder / "sentence_bert_config.json", {"max_seq_length": int(max_seq_length), "do_lower_case": False})
    if pooling not in _ST_FLAGS:
        return  # sentence-transformers has no SBERT-WK module; it would load this folder with mean pooling
    (folder / "1_Pooling").mkdir(exist_ok=True)
    flags = {flag: name == pooling for name, flag in _ST_FLAGS.items()}
    _write_json(folder / "1_Pooling" / "config.json", {"word_embedding_dimension": int(dim), **flags,
                                                       "pooling_mode_mean_sqrt_len_tokens": False})
    (folder / "2_Normalize").mkdir(exist_ok=True)
    _write_json(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])


def read_saved_pooling(folder: Path) -> Optional[str]:
    """The pooling a model folder was trained with: searchapp_pooling.json, else 1_Pooling/config.json."""
    folder = Path(folder)
    candidates = [folder, folder.parent]  # a sentence-transformers transformer module may sit one level down
    for base in candidates:
        ours = base / POOLING_FILE
        if ours.is_file():
            return str(_read_json(ours).get("pooling") or "") or None
    for base in candidates:
        st = base / "1_Pooling" / "config.json"
        if st.is_file():
            cfg = _read_json(st)
            chosen = [name for name, flag in _ST_FLAGS.items() if cfg.get(flag)]
            return chosen[0] if len(chosen) == 1 else None
    return None


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"{path}: {exc}") from None
    return data if isinstance(data, dict) else {}
