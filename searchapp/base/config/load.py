"""Where settings come from: defaults -> TOML file -> SEARCHAPP_* environment -> explicit overrides.

Every value is converted and checked on the way in (checks.py); an unknown key is an error naming it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Optional

from ..errors import ConfigError, UnsupportedFileError
from ..paths import resolve_data_dir, user_config_file
from .checks import merge_checked
from .schema import Config

__all__ = ["load_config", "env_overrides"]


def env_overrides(env: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """SEARCHAPP_SEARCH__K=5 -> {"search": {"k": "5"}}. SEARCHAPP_DATA_DIR is handled by paths."""
    out: dict[str, dict[str, str]] = {}
    for name, value in env.items():
        if not name.startswith("SEARCHAPP_") or "__" not in name:
            continue
        section, _, key = name[len("SEARCHAPP_"):].lower().partition("__")
        out.setdefault(section, {})[key] = value
    return out


def load_config(
    data_dir: Optional[str | Path] = None,
    config_file: Optional[str | Path] = None,
    env: Mapping[str, str] = os.environ,
    overrides: Optional[Mapping[str, Mapping[str, Any]]] = None,
) -> Config:
    root = resolve_data_dir(data_dir, env)
    cfg = Config(data_dir=root)
    path = Path(config_file) if config_file else user_config_file(root)
    if config_file and not path.exists():  # a file named on purpose: a typo must not quietly mean the defaults
        raise ConfigError(f"{path}: no such config file")
    if path.exists():
        import tomllib  # only with a file to read: ~3 ms of every command's start-up otherwise

        from ..safe_open import open_regular

        try:  # a FIFO or folder there is refused in one line (a FIFO would block a plain open() forever)
            with open_regular(path) as fh:
                data = tomllib.load(fh)
        except (OSError, UnsupportedFileError, RecursionError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from None
        data.pop("data_dir", None)  # the data dir is chosen before the file is found
        cfg = merge_checked(cfg, data, str(path))
    cfg = merge_checked(cfg, env_overrides(env), "environment")
    if overrides:
        cfg = merge_checked(cfg, overrides, "override")
    return cfg.validate()
