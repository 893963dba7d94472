"""Opening the library for a command, with its one-time notice (e.g. permissions tightened) on stderr."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..base.config import Config
from ..base.terminal import printable

if TYPE_CHECKING:
    from ..library import Library
    from ..library.shared import SharedLibrary

__all__ = ["open_library", "open_local_library"]


def open_library(config: Config, *, create: bool = True) -> Library | SharedLibrary:
    """create=False for commands that only read: a mistyped --data-dir is "no library at DIR", not a new one.
    A shared library when the config names one (library.address, set from --library too: cli/commands/shared.py):
    the same commands run over it (decision 0124)."""
    from ..library.reconfigure import library_for

    lib = library_for(config, create=create)
    notice = lib.open_notice()
    if notice:
        print(f"searchapp: note: {printable(notice)}", file=sys.stderr)
    return lib


def open_local_library(config: Config, *, create: bool = True) -> Library:
    """open_library for the commands a shared library never reaches: run_shared (cli/commands/shared.py) runs
    their shared forms itself or refuses them before anything connects. The check makes that a type."""
    from ..library import Library

    lib = open_library(config, create=create)
    if not isinstance(lib, Library):
        from ..library.shared import NotShared

        lib.close()
        raise NotShared("this command")
    return lib
