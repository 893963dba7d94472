"""A model folder's JSON files (config.json, tokenizer_config.json, modules.json, the sentence-transformers
files), read one way: a regular file only (a FIFO would block, a device never ends), at most `cap` bytes, of the
JSON kind expected; any other is one ModelLoadError naming the file. Nothing of the folder is imported or run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..base.errors import ModelLoadError, UnsupportedFileError
from ..base.safe_open import NOT_REGULAR, open_regular, read_at_most

__all__ = ["read_config_json", "MAX_CONFIG_BYTES"]

# config.json is a few KB (a tokenizer_config.json with its added tokens, some hundred); a bigger one is not a
# model config, and must not be read whole.
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def read_config_json(file: Path, kind: type = dict, *, cap: int = MAX_CONFIG_BYTES, missing_ok: bool = False) -> Any:
    """The JSON value in `file`, which must be a `kind` (dict or list; object: any); None when `missing_ok` and
    there is no such file. A file over `cap` bytes is not a config: it is refused unread past the cap."""
    if missing_ok and not file.is_file():
        return None
    try:
        with open_regular(file) as fh:  # is_file() may have been true of what was swapped for a FIFO since
            raw = read_at_most(fh, cap + 1)
        if len(raw) > cap:
            size = f"{cap // 2**20} MiB" if cap >= 2**20 else f"{cap // 1024} KiB"
            raise ModelLoadError(f"{file} is larger than {size}; not a model config")
        data = json.loads(raw.decode("utf-8"))
    except UnsupportedFileError:
        raise ModelLoadError(f"cannot read {file}: {NOT_REGULAR}") from None
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"cannot read {file}: {exc}") from None
    if not isinstance(data, kind):
        raise ModelLoadError(f"{file} is not a JSON {'list' if kind is list else 'object'}; not a model config")
    return data
