"""Opening the library for a command, with its one-time notice (e.g. permissions tightened) on stderr."""

from __future__ import annotations

import sys

from ..base.config import Config
from ..base.terminal import printable

__all__ = ["open_library"]


def open_library(config: Config, *, create: bool = True):
    """create=False for commands that only read: a mistyped --data-dir is "no library at DIR", not a new one.
    A shared library when the config names one (library.address, set from --library too: cli/commands/shared.py):
    the same commands run over it (decision 0124)."""
    if config.library.address:
        from ..library.shared import SharedLibrary

        return SharedLibrary(config, config.library.address, create=create)
    from ..library import Library

    lib = Library(config, create=create)
    notice = lib.open_notice()
    if notice:
        print(f"searchapp: note: {printable(notice)}", file=sys.stderr)
    return lib
