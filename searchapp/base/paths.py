"""Where user data lives: --data-dir, else $SEARCHAPP_DATA_DIR, else the per-user data directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Optional

__all__ = ["default_data_dir", "resolve_data_dir", "user_config_file"]

APP_NAME = "searchapp"


def default_data_dir() -> Path:
    import platformdirs  # only here: a command given --data-dir or $SEARCHAPP_DATA_DIR starts without it

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def resolve_data_dir(explicit: Optional[str | Path] = None, env: Mapping[str, str] = os.environ) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    if env.get("SEARCHAPP_DATA_DIR"):
        return Path(env["SEARCHAPP_DATA_DIR"]).expanduser()
    return default_data_dir()


def user_config_file(data_dir: Path) -> Path:
    """The config file lives beside the library it configures, so a data dir is self-contained."""
    return data_dir / "config.toml"
