"""Asking the warm process to run a command, and printing its answer: the thin entry point (cli/entry.py) and the
full command line's `search` (each line of `search -`, or a command the thin entry point could not ask) use the
same two calls. A module of its own, importing only os, sys and the socket's exchange: the search command must
reach it without importing the entry point, which falls back to the whole command line."""

from __future__ import annotations

import os
import sys

from .warm_note import say_warm_note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, Sequence, TextIO

__all__ = ["ask_command", "write_reply"]

_ENV = ("NO_COLOR", "TERM")  # besides SEARCHAPP_*: what the output's colour depends on (base/terminal.use_color)


def ask_command(argv: Sequence[str], data_dir: str, given: bool, line: Optional[dict[str, Any]] = None,
                out: Optional[TextIO] = None) -> tuple[Optional[dict[str, Any]], bool]:
    """The warm process's answer to the command `argv` (the one op a search goes by: library/warm/protocol.py) on
    the library in `data_dir` (`given`: named by --data-dir or $SEARCHAPP_DATA_DIR), or (None, whether the
    full command line may still ask: nothing serves there, or the data dir was read otherwise). `line`: one line
    of `search -` ({"n", "text", "said"}). `out`: the stream whose being a terminal colours the output."""
    from ..library.warm.exchange import ANSWER_SECONDS, MAX_REPLY, SOCKET_NAME, VERSION, context, exchange

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


def write_reply(reply: dict[str, Any], out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
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
