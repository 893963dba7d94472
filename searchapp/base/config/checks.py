"""What a setting may hold: its type (values from TOML or the environment are converted to it) and its
allowed values, declared beside each field in schema.py (`min`/`max` inclusive, or `choices`).

These functions take a field's metadata, not its key, so they sit below the schema: the schema, the
loader and the CLI's option checks (cli/options.py) all call them, and no range is written twice.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, TypeVar

from ..errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Section = TypeVar("_Section", bound="DataclassInstance")

__all__ = ["describe_allowed", "check_value", "check_device", "check_names", "coerce", "merge_checked", "format_number"]

# Settings that are gone: a config file (or environment) that still names one loads and the value is ignored.
# models.allow_download: models arrive only by `searchapp models pull` or the window's Download, never by a setting.
RETIRED = frozenset({("models", "allow_download")})


def describe_allowed(meta: Mapping[str, Any]) -> Optional[str]:
    """The allowed values in words ("between 1 and 1000", "mean, cls, max or wk"), or None."""
    if "choices" in meta:
        c = [str(x) for x in meta["choices"]]
        return ", ".join(c[:-1]) + " or " + c[-1] if len(c) > 1 else c[0]
    if "min" in meta and "max" in meta:
        return f"between {format_number(meta['min'])} and {format_number(meta['max'])}"
    if "min" in meta:
        return f"at least {format_number(meta['min'])}"
    return None


def format_number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def check_value(key: str, value: Any, meta: Optional[Mapping[str, Any]]) -> Any:
    """Raise ConfigError (exit 2) unless `value` is allowed by `meta`; returns it."""
    if meta is None:
        return value
    allowed = describe_allowed(meta)
    bad = False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        bad = ("min" in meta or "max" in meta) or ("choices" in meta and value not in meta["choices"])
    else:
        bad = (not math.isfinite(value) or ("min" in meta and value < meta["min"])
               or ("max" in meta and value > meta["max"]))
    if bad:
        raise ConfigError(f"{key}: {value!r} is not allowed ({allowed})")
    return value


def check_device(device: str) -> str:
    """models.device: a choice list cannot say cuda:N, so it has its own check."""
    if device not in ("auto", "cpu", "cuda") and not re.fullmatch(r"cuda:\d{1,3}", device):
        raise ConfigError(f"models.device: {device!r} is not allowed (auto, cpu, cuda or cuda:N)")
    return device


def check_names(key: str, patterns: tuple[str, ...]) -> tuple[str, ...]:
    """A list of file-name patterns (scan.secret_files): a path in it would never match a name, and leave the
    person believing a file left out that is read."""
    for p in patterns:
        if "/" in p or "\\" in p:
            raise ConfigError(f"{key}: {p!r} is not allowed (names only, without a / : `exclude` takes paths)")
    return patterns


def coerce(value: Any, current: Any, where: str, meta: Mapping[str, Any]) -> Any:
    """Convert TOML/env values to the type of the current value; strings from env are parsed."""
    typ = type(current)
    try:
        if isinstance(current, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError(value)
            if isinstance(value, bool):
                return value
            raise ValueError(value)
        if isinstance(current, tuple):
            if isinstance(value, str):
                return tuple(s.strip() for s in value.split(",") if s.strip())
            return tuple(str(v) for v in value)
        if isinstance(current, Path):
            return Path(value).expanduser()
        if isinstance(current, (int, float)) and isinstance(value, bool):
            raise ValueError(value)
        if isinstance(current, int):
            # 1.9 must not silently become 1; 10.0 is fine. Strings (environment) parse as whole numbers.
            if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
                raise ValueError(value)
            return int(value) if not isinstance(value, str) else int(value.strip())
        if isinstance(current, float):
            out = float(value)
            if not math.isfinite(out):
                raise ValueError(value)
            return out
        return typ(value)
    except (TypeError, ValueError, OverflowError):
        allowed = describe_allowed(meta)
        kind = {"int": "a whole number", "float": "a finite number", "bool": "true or false"}.get(typ.__name__, typ.__name__)
        raise ConfigError(f"{where}: cannot use {value!r} (expected {kind}"
                          + (f" {allowed}" if allowed and allowed.startswith(("between", "at least")) else "") + ")") from None


def merge_checked(cfg: _Section, data: Mapping[str, Any], origin: str) -> _Section:
    """A copy of the config `cfg` with the sections/keys in `data` changed, each value converted and checked.

    Unknown keys raise ConfigError: a typo must never be silently ignored."""
    changes: dict[str, Any] = {}
    known = {f.name for f in fields(cfg)}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{origin}: unknown setting {key!r} (known: {', '.join(sorted(known))})")
        current = getattr(cfg, key)
        if dataclasses.is_dataclass(current) and not isinstance(current, type):
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: [{key}] must be a table")
            metas = {f.name: f.metadata for f in fields(current)}
            sub_changes = {}
            for sk, sv in value.items():
                if (key, sk) in RETIRED:
                    continue
                if sk not in metas:
                    raise ConfigError(f"{origin}: unknown setting {key}.{sk} (known: {', '.join(sorted(metas))})")
                value_ = coerce(sv, getattr(current, sk), f"{origin}: {key}.{sk}", metas[sk])
                try:
                    sub_changes[sk] = check_value(f"{key}.{sk}", value_, metas[sk])
                except ConfigError as exc:  # say where the bad value came from
                    raise ConfigError(f"{origin}: {exc}") from None
            changes[key] = dataclasses.replace(current, **sub_changes)
        else:
            meta = next(f.metadata for f in fields(cfg) if f.name == key)
            changes[key] = coerce(value, current, f"{origin}: {key}", meta)
    return dataclasses.replace(cfg, **changes)
