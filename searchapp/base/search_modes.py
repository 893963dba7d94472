"""The three ways a search ranks, named in one place: by meaning and words fused, by meaning alone, by words alone.

Every list of them (the setting's choices, --mode, the window's menu, the warm socket's check, a saved search's
check, `eval ir`) reads this tuple."""

from __future__ import annotations

from .errors import ConfigError

__all__ = ["SEARCH_MODES", "SIDES_THEN_FUSED", "check_mode"]

SEARCH_MODES = ("hybrid", "dense", "lexical")  # the default first: the order the menu and --mode offer them
SIDES_THEN_FUSED = (*SEARCH_MODES[1:], SEARCH_MODES[0])  # `eval ir`'s order: each side alone, then the two fused


def check_mode(mode: str) -> str:
    """`mode` when it is one of SEARCH_MODES, else ConfigError (one line a user can read)."""
    if mode not in SEARCH_MODES:
        raise ConfigError(f"unknown search mode {mode!r} (hybrid, dense or lexical)")
    return mode
