"""The `searchapp` command's entry point: a search (or `status`) a warm process can answer is sent to it whole,
before anything else is imported.

A served search used to spend most of its time starting: argparse, the settings (dataclasses, inspect), the
result types and their JSON, ~35 ms of a ~55 ms command on a quiet machine, three times that on a busy one.
Like Mercurial's chg, this entry point sends the command as typed — its arguments, the SEARCHAPP_* settings and
colour variables of the environment, the folder and time zone it runs in, whether its output is a terminal —
to the process serving the library (library/warm/), which parses and runs it with the command line's own code
and sends back what to print and the exit code (cli/warm_run.py). Here: os, sys, json and a socket.

`status` is served the same way (the serving process's view: its index followed to the last commit; at a
million passages 0.2 s instead of opening the index, ~4 s). Everything else goes to the full command line
(cli/main.py): other commands, `search -` (one query per input line), `--direct`, `--`, `-h`, `status --files`,
and any command the warm process declines or cannot be trusted with (the socket's checks and notes are the full
command line's: library/warm/exchange.py). A declined command is not asked again, except where the data dir
was read differently here than argparse reads it ("data-dir"): the full command line then asks with the same
command (ask_command), as it does for each line of `search -`; the answer never depends on which way it came.
"""

from __future__ import annotations

import os
import sys

from .warm_argv import WARM_COMMANDS, command_word, data_dir_of
from .warm_ask import ask_command, write_reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Sequence

__all__ = ["main"]

# What the full command line alone handles (see above); "-" as any word, since only argparse knows which word
# is the query.
_FULL_ONLY = frozenset(("-", "--", "--direct", "-h", "--help", "--version"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        code, ask_again = _served(argv)
    except KeyboardInterrupt:  # Ctrl+C while the warm process answers: nothing was written, no traceback
        print("searchapp: cancelled", file=sys.stderr)
        return 130
    if code is not None:
        return code
    from .main import main as full

    return full(argv, ask_warm=ask_again)


def _served(argv: list[str]) -> tuple[Optional[int], bool]:
    """(exit code, when the warm process answered `argv`; whether the full command line may still ask it)."""
    if (command_word(argv) not in WARM_COMMANDS or _FULL_ONLY.intersection(argv)
            or os.environ.get("SEARCHAPP_NO_WARM", "") not in ("", "0")
            or os.environ.get("SEARCHAPP_LIBRARY") or any(a.startswith("--library") for a in argv)):  # shared: no warm
        return None, True
    data_dir, given = data_dir_of(argv, os.environ)
    reply, ask_again = ask_command(argv, data_dir, given)
    if reply is None:
        return None, ask_again
    return write_reply(reply), False
