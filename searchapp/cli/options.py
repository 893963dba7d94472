"""Command-line values are checked like config values: a bad one is one line naming the option, exit 2.

Without this, `--k 0` silently meant "the default" and `--k -3` sliced the hit list from the end. An option
that stands for a setting (--k for search.k, --ef for index.ef_search) takes its range from that setting's
field (base/config/schema.py), so the two can never disagree; the rest have no setting and are bounded here.
"""

from __future__ import annotations

import argparse
import math
from typing import Optional

from ..base.config import setting_range
from ..base.errors import ConfigError

__all__ = ["check_options", "query_may_start_with_a_dash"]

# option attribute -> (flag, lowest, highest)
_INT_RANGES = {
    "k": ("--k", *setting_range("search.k")),
    "candidates": ("--candidates", *setting_range("search.candidates")),
    "max_queries": ("--max-queries", 1, 10_000_000),
    "sample": ("--sample", 1, 10_000_000),
    "ef": ("--ef", *setting_range("index.ef_search")),
    "batch_size": ("--batch-size", 1, 65_536),
    "epochs": ("--epochs", 1, 10_000),
    "max_examples": ("--max-examples", 1, 1_000_000_000),
    "max_steps": ("--max-steps", 1, 1_000_000_000),
    "max_seq_length": ("--max-seq-length", 2, 8192),
    "max_length": ("--max-length", 2, 8192),
    "negatives": ("--negatives", 0, 1000),
    "negative_pool": ("--negative-pool", 1, 100_000),
}


def check_options(args: argparse.Namespace) -> None:
    """Raise ConfigError for the first out-of-range numeric option in the parsed `args`."""
    for attr, (flag, low, high) in _INT_RANGES.items():
        value = getattr(args, attr, None)
        if value is not None and not (low <= value <= high):
            raise ConfigError(f"{flag} must be a whole number from {low} to {high} (got {value})")
    for attr, flag, low, high in (("lr", "--lr", 0.0, 1.0), ("warmup", "--warmup", 0.0, 1.0)):
        value = getattr(args, attr, None)
        if value is not None and not (math.isfinite(value) and low <= value <= high and (attr != "lr" or value > 0)):
            raise ConfigError(f"{flag} must be a number in ({low}, {high}] (got {value})" if attr == "lr"
                              else f"{flag} must be a number from {low} to {high} (got {value})")
    _check_paths(args)
    debounce = getattr(args, "debounce", None)
    if debounce is not None and not (math.isfinite(debounce) and 0 <= debounce <= 3600):
        raise ConfigError(f"--debounce must be a number of seconds from 0 to 3600 (got {debounce})")


# option attribute -> how a message names it: the paths a command reads or forgets
_PATHS = {"paths": "PATH", "path": "PATH", "within": "--in"}


def _check_paths(args: argparse.Namespace) -> None:
    """An empty path is refused, not read as the current folder: `index "$DIR"` with DIR unset indexed the whole
    folder it ran in (and `remove ""` forgot it); `.` still names the current folder."""
    for attr, flag in _PATHS.items():
        value = getattr(args, attr, None)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise ConfigError(f"{flag} is empty (an unset variable?): name a folder or file, or `.` for this one")


def query_may_start_with_a_dash(parser: argparse.ArgumentParser) -> None:
    """A lone `-word` given to `parser` that is not exactly one of its options is its QUERY (`searchapp search
    -draft`: the query language's exclusion), not an unknown option. Left to argparse, `-draft` was an unknown
    option and `-holiday` was `-h` with the argument "oliday". A real option, `-h` and any `--option` (an
    abbreviation too) are still options; `--` still ends the options."""
    parse_optional = parser._parse_optional  # argparse has no public hook for this

    def dash_word_is_positional(arg: str) -> Optional[tuple[Optional[argparse.Action], str, Optional[str]]]:
        if len(arg) > 1 and arg[0] == "-" and arg[1] != "-" and arg not in parser._option_string_actions:
            return None  # argparse's "a positional" (as it answers for "-3" and "-a b")
        return parse_optional(arg)

    vars(parser)["_parse_optional"] = dash_word_is_positional  # this parser's own, shadowing argparse's method
