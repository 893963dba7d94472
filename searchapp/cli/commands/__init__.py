"""One module per command group; each `register(subparsers)` adds its parser(s) and sets `handler`.

A handler is `handler(args, config, progress, cancel) -> exit code`. The order below is the order of
`searchapp --help`. Modules import their heavy parts (library, torch, Qt) inside the handler, so that
`status` and a lexical `search` start without torch (tests/e2e/test_fast_start.py).
"""

from __future__ import annotations

from . import config, discover, evaluate, gui, index, maintain, models, saved, search, status, train_eval, watch

__all__ = ["register_all"]

_GROUPS = (index, search, discover, saved, watch, status, maintain, evaluate, train_eval, models, config, gui)


def register_all(sub) -> None:
    for group in _GROUPS:
        group.register(sub)
