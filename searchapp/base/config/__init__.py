"""One typed, frozen configuration tree: defaults -> TOML file -> SEARCHAPP_* environment -> explicit overrides.

schema: the dataclasses, each field with its help text and allowed values; checks: converting and
checking a value against them; load: the sources in order; toml: writing config.toml and listing the
settings in effect (`searchapp config`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports
from .load import load_config
from .schema import (
    DEFAULT_RERANKER,
    PACKAGED_BI_ENCODER,
    ChunkConfig,
    Config,
    IndexConfig,
    ModelConfig,
    ScanConfig,
    SearchConfig,
    allowed_values,
    check_setting,
    field_help,
    field_meta,
    setting_range,
)

if TYPE_CHECKING:
    from .toml import as_saved, config_as_toml, config_to_dict, save_config, setting_sources, toml_value

__all__ = [
    "ScanConfig",
    "ChunkConfig",
    "ModelConfig",
    "IndexConfig",
    "SearchConfig",
    "Config",
    "load_config",
    "field_help",
    "field_meta",
    "setting_range",
    "PACKAGED_BI_ENCODER",
    "DEFAULT_RERANKER",
    "config_to_dict",
    "save_config",
    "as_saved",
    "check_setting",
    "allowed_values",
    "setting_sources",
    "config_as_toml",
    "toml_value",
]

# Writing and listing settings load on first use: a search only reads them, and toml.py brings in tomllib and
# logging (~4 ms of every command's start-up).
_TOML = {name: "toml" for name in ("as_saved", "config_as_toml", "config_to_dict", "save_config", "setting_sources",
                                   "toml_value")}
__getattr__, __dir__ = lazy_exports(__name__, _TOML, globals())
