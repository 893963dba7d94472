"""What the command line's words say before argparse reads them: the command word, and the data dir (the thin
entry point needs both before it imports anything: cli/entry.py). Only `os` here."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping, Optional, Sequence

__all__ = ["command_word", "data_dir_of", "WARM_COMMANDS"]

# The commands a warm process runs whole for the thin entry point (cli/entry.py, cli/warm_run.py) -> their command
# group (cli/commands/).
WARM_COMMANDS = {"search": "search", "status": "status", "similar": "discover"}


def command_word(argv: Sequence[str]) -> Optional[str]:
    """The command word of `argv` (after the global options and their values), or None."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("--data-dir", "--config"):
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            return word
    return None


def data_dir_of(argv: Sequence[str], env: Mapping[str, str]) -> tuple[str, bool]:
    """(the data dir `argv` names, absolute; whether it was named: --data-dir or $SEARCHAPP_DATA_DIR). As
    base/paths.resolve_data_dir reads it; the server checks the reading against argparse's (cli/warm_run.py)."""
    named = None
    for i, word in enumerate(argv):  # the last one given counts, as in argparse
        if word == "--data-dir" and i + 1 < len(argv):
            named = argv[i + 1]
        elif word.startswith("--data-dir="):
            named = word.partition("=")[2]
    named = named or env.get("SEARCHAPP_DATA_DIR") or None
    if named is None:
        from ..base.paths import default_data_dir

        return str(default_data_dir()), False
    return os.path.abspath(os.path.expanduser(named)), True
