"""One module per command group; each `register(subparsers)` adds its parser(s) and sets `handler`.

A handler is `handler(args, config, progress, cancel) -> exit code`. The order below is the order of
`searchapp --help`. Modules import their heavy parts (library, torch, Qt) inside the handler, so that
`status` and a lexical `search` start without torch (tests/e2e/test_fast_start.py).
"""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import Optional, Sequence

__all__ = ["register_all", "GROUPS", "GROUP_OF"]

GROUPS = ("index", "search", "discover", "saved", "watch", "status", "maintain", "evaluate", "train_eval", "models",
          "config", "gui")

# Command word -> the group that registers it: a command's parser is built from its own group's module alone
# (cli/parser.parse_command_line), so `index --words-only` never imports `status`'s numpy or `explain`'s
# extractors. Checked against every group's parsers by tests/unit/cli/test_cli_parsing.py.
GROUP_OF = {"index": "index", "search": "search", "similar": "discover", "duplicates": "discover", "saved": "saved",
            "history": "saved", "watch": "watch", "status": "status", "explain": "status", "remove": "maintain",
            "undo": "maintain", "moved": "maintain", "reindex": "maintain", "eval": "evaluate", "train": "train_eval", "models": "models",
            "config": "config", "gui": "gui"}


def register_all(sub: argparse._SubParsersAction[argparse.ArgumentParser], only: Optional[Sequence[str]] = None) -> None:
    """Every group's parsers, or only the groups named in `only` (a `searchapp search` builds its own parser
    alone: the others' modules are neither imported nor built)."""
    for name in GROUPS:
        if only is None or name in only:
            import_module(f"{__name__}.{name}").register(sub)
