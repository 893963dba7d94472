"""Settings as TOML: saving the non-default ones (`save_config`), and `searchapp config`'s listing of
the settings in effect, each value commented with where it came from.

The listing can be pasted into a config.toml as is. Sources, in the order they win: default < file <
environment (SEARCHAPP_SECTION__KEY) < command line. The data dir is chosen before the file is read
(--data-dir, else $SEARCHAPP_DATA_DIR, else the per-user directory), so a data_dir in a file is ignored.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from pathlib import Path
from typing import Any, Mapping, Optional

from ..errors import UnsupportedFileError
from ..paths import user_config_file
from ..private import make_private_dir, write_private_text
from ..safe_open import open_regular
from ..terminal import printable
from .load import env_overrides
from .schema import Config, field_help

__all__ = ["setting_sources", "config_as_toml", "toml_value", "config_to_dict", "save_config", "as_saved"]


def config_to_dict(config: Config, *, only_changed: bool = True) -> dict[str, dict[str, Any]]:
    """The TOML tables of `config` (without data_dir); by default only values that differ from the defaults."""
    default = Config(data_dir=config.data_dir)
    out: dict[str, dict[str, Any]] = {}
    for top in dataclasses.fields(Config):
        section = getattr(config, top.name)
        if not dataclasses.is_dataclass(section):
            continue
        base = getattr(default, top.name)
        table = {f.name: getattr(section, f.name) for f in dataclasses.fields(section)
                 if not only_changed or getattr(section, f.name) != getattr(base, f.name)}
        table = {k: list(v) if isinstance(v, tuple) else v for k, v in table.items()}
        if table:
            out[top.name] = table
    return out


def save_config(config: Config, path: Optional[str | Path] = None) -> Path:
    """Write the non-default settings of `config` as TOML (default: the data dir's config.toml), atomically."""
    import tomli_w

    target = Path(path) if path else user_config_file(Path(config.data_dir))
    make_private_dir(target.parent)
    tmp = target.with_name(target.name + ".tmp")
    write_private_text(tmp, tomli_w.dumps(config_to_dict(config.validate())))  # 0600 whatever the umask
    os.replace(tmp, target)  # a crash mid-write never leaves half a config behind
    return target


def as_saved(new: Config) -> Config:
    """`new` as its config file keeps it: the library address is the file's. One given for this run alone
    (--library, $SEARCHAPP_LIBRARY, the window's menu for one window, `--library local`) stays out of the file, and
    one the file holds stays in it."""
    from .load import load_config
    from ..errors import ConfigError

    try:
        kept = load_config(new.data_dir, env={}).library.address
    except ConfigError:  # a broken file is replaced by this save: no address kept from it
        kept = ""
    return new if kept == new.library.address else new.replace(library={"address": kept})


def setting_sources(config: Config, *, data_dir: Optional[str] = None, config_file: Optional[str] = None,
                    env: Mapping[str, str] = os.environ,
                    overrides: Optional[Mapping[str, Mapping[str, Any]]] = None) -> dict[str, str]:
    """`section.key` -> "default" | "file PATH" | "environment NAME" | "command line"."""
    path = Path(config_file) if config_file else user_config_file(Path(config.data_dir))
    file_data: dict[str, Any] = {}
    if path.is_file():
        try:
            with open_regular(path) as fh:
                file_data = tomllib.load(fh)
        except (OSError, UnsupportedFileError, RecursionError, tomllib.TOMLDecodeError):
            file_data = {}  # load_config already reported it; never reached with a broken file
    env_data = env_overrides(env)
    out: dict[str, str] = {}
    for key in field_help():
        if key == "data_dir":
            out[key] = ("command line (--data-dir)" if data_dir else
                        "environment SEARCHAPP_DATA_DIR" if env.get("SEARCHAPP_DATA_DIR") else "default")
            continue
        section, name = key.split(".", 1)
        if name in (overrides or {}).get(section, {}):
            out[key] = "command line"
        elif name in env_data.get(section, {}):
            out[key] = f"environment SEARCHAPP_{section.upper()}__{name.upper()}"
        elif isinstance(file_data.get(section), dict) and name in file_data[section]:
            out[key] = f"file {path}"
        else:
            out[key] = "default"
    return out


def toml_value(value: Any) -> str:
    """One TOML value: strings quoted and escaped, paths as strings, tuples as arrays, booleans lower-case."""
    import tomli_w

    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, (tuple, list)):  # inline, so each setting stays one line
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return tomli_w.dumps({"v": value}).strip()[len("v = "):]


def config_as_toml(config: Config, sources: Mapping[str, str]) -> str:
    """Every setting with its meaning (a comment line above) and its source (a comment after the value)."""
    helps = field_help()
    lines = ["# searchapp settings in effect; each value says where it came from.",
             "# data_dir is chosen before any file is read (--data-dir, $SEARCHAPP_DATA_DIR or the default)."]
    current = None
    for key, help_text in helps.items():
        section, _, name = key.rpartition(".")
        if section != current and section:
            lines += ["", f"[{section}]"]
            current = section
        obj: Any = config
        for part in key.split("."):
            obj = getattr(obj, part)
        if dataclasses.is_dataclass(obj):
            continue
        lines.append(f"# {help_text}")
        lines.append(f"{name} = {toml_value(obj)}  # {_one_line(sources.get(key, 'default'))}")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    # A comment ends at a line break; a path with one must not break the TOML (nor drive the terminal).
    return printable(text)
