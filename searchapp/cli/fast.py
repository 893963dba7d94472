"""The `searchapp` command's entry point: a search (or `status`) a warm process can answer is sent to it whole,
before anything else is imported.

A served search used to spend most of its time starting: argparse, the settings (dataclasses, inspect), the
result types and their JSON, ~35 ms of a ~55 ms command on a quiet machine, three times that on a busy one.
Like Mercurial's chg, this entry point sends the command as typed — its arguments, the SEARCHAPP_* settings and
colour variables of the environment, the folder and time zone it runs in, whether its output is a terminal —
to the process serving the library (library/serve/), which parses and runs it with the command line's own code
and sends back what to print and the exit code (cli/served.py). Here: os, sys, json and a socket.

`status` is served the same way (the serving process's view: its index followed to the last commit; at a
million passages 0.2 s instead of opening the index, ~4 s). Everything else goes to the full command line
(cli/main.py): other commands, `search -` (one query per input line), `--direct`, `--`, `-h`, `status --files`,
and any command the warm process declines or cannot be trusted with (the socket's checks and notes are the full
command line's: library/serve/exchange.py). A declined command is not asked again, except where the data dir
was read differently here than argparse reads it ("data-dir"): the full command line then asks with the same
command (ask_command), as it does for each line of `search -`; the answer never depends on which way it came.
"""

from __future__ import annotations

import os
import sys

from .argv import SERVED, command_word, data_dir_of
from .warm_note import say_warm_note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, Sequence

__all__ = ["main", "ask_command", "write_reply"]

# What the full command line alone handles (see above); "-" as any word, since only argparse knows which word
# is the query.
_FULL_ONLY = frozenset(("-", "--", "--direct", "-h", "--help", "--version"))
_ENV = ("NO_COLOR", "TERM")  # besides SEARCHAPP_*: what the output's colour depends on (base/terminal.use_color)


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
    if (command_word(argv) not in SERVED or _FULL_ONLY.intersection(argv)
            or os.environ.get("SEARCHAPP_NO_WARM", "") not in ("", "0")
            or os.environ.get("SEARCHAPP_LIBRARY") or any(a.startswith("--library") for a in argv)):  # shared: no warm
        return None, True
    data_dir, given = data_dir_of(argv, os.environ)
    reply, ask_again = ask_command(argv, data_dir, given)
    if reply is None:
        return None, ask_again
    return write_reply(reply), False


def ask_command(argv: Sequence[str], data_dir: str, given: bool, line: Optional[dict] = None,
                out: Any = None) -> tuple[Optional[dict], bool]:
    """The warm process's answer to the command `argv` (the one op a search goes by: library/serve/wire.py) on
    the library in `data_dir` (`given`: named by --data-dir or $SEARCHAPP_DATA_DIR), or (None, whether the
    full command line may still ask: nothing serves there, or the data dir was read otherwise). `line`: one line
    of `search -` ({"n", "text", "said"}). `out`: the stream whose being a terminal colours the output."""
    from ..library.serve.exchange import ANSWER_SECONDS, MAX_REPLY, SOCKET_NAME, VERSION, context, exchange

    try:
        tty = (sys.stdout if out is None else out).isatty()
    except (AttributeError, ValueError):
        tty = False
    env = {k: v for k, v in os.environ.items() if k.startswith("SEARCHAPP_") or k in _ENV}
    request = {"v": VERSION, "op": "command", "argv": list(argv), "data_dir": data_dir, "data_dir_given": given,
               "env": env, "context": context(), "tty": tty}
    if line is not None:
        request["line"] = line
    reply, note = exchange(os.path.join(data_dir, SOCKET_NAME), request, ANSWER_SECONDS, MAX_REPLY)
    if reply is None:  # nothing serves here (the full command line looks again, where argparse reads the data
        say_warm_note(note)  # dir), or something that cannot be trusted (said once, not asked again)
        return None, note is None
    if not (isinstance(reply, dict) and reply.get("v") == VERSION and isinstance(reply.get("ok"), bool)):
        say_warm_note("the warm index's reply broke the protocol (not a version 1 reply); ignored it")
        return None, False
    if not reply["ok"]:
        return None, reply.get("reason") == "data-dir"  # read otherwise here than by argparse: asked again there
    out_text, err, code = reply.get("stdout"), reply.get("stderr"), reply.get("code")
    if not (isinstance(out_text, str) and isinstance(err, str) and isinstance(code, int)
            and not isinstance(code, bool) and 0 <= code <= 255 and isinstance(reply.get("said", False), bool)):
        say_warm_note("the warm index's reply broke the protocol (a command's output); ignored it")
        return None, False
    return reply, False


def write_reply(reply: dict, out: Any = None, err: Any = None) -> int:
    """Print a command's answer (its stderr, then its stdout) and return its exit code."""
    out, err = sys.stdout if out is None else out, sys.stderr if err is None else err
    try:
        err.write(reply["stderr"])
        err.flush()
        out.write(reply["stdout"])
        out.flush()
    except BrokenPipeError:  # `searchapp search q | head -1`: as the full command line, not an error
        return 0
    return int(reply["code"])
