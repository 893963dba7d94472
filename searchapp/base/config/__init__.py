"""One typed, frozen configuration tree: defaults -> TOML file -> SEARCHAPP_* environment -> explicit overrides.

schema: the dataclasses, each field with its help text and allowed values; checks: converting and
checking a value against them; load: the sources in order; toml: writing config.toml and listing the
settings in effect (`searchapp config`).
"""

from __future__ import annotations

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
from .toml import config_as_toml, config_to_dict, save_config, setting_sources, toml_value

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
    "check_setting",
    "allowed_values",
    "setting_sources",
    "config_as_toml",
    "toml_value",
]
