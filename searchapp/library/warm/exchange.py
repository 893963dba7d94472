"""The asking side's one exchange with a warm process: is the socket trustworthy, one request line out, one reply
line back. What cli/warm_ask.ask_command sends a command through (the thin entry point, which imports this before
anything else, and the full command line alike), and `status`'s ping (ping.py): only the standard library's
socket, json and os here (no typing, no pathlib, no dataclasses: each costs a served command's start-up
milliseconds).

Decision: the socket is used only when its file is a socket of this user's, mode 0600 (nobody else could have
made or reach it), and only when the process answering is this user's too (SO_PEERCRED). Any doubt means "no
answer" with a note saying why when it is unexpected; the caller then searches directly.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import time

from .sockets import LineTooLong, address, peer_uid, read_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = ["VERSION", "SOCKET_NAME", "MAX_REPLY", "CONNECT_SECONDS", "ANSWER_SECONDS", "context", "socket_problem",
           "exchange", "encode"]

VERSION = 1
SOCKET_NAME = "warm.sock"
MAX_REPLY = 64 * 1024 * 1024  # hits carry passage text; k is capped by the search settings
CONNECT_SECONDS = 0.3
ANSWER_SECONDS = 10.0  # a first search may load the reranker; a slower answer is searched again directly


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"


def context() -> dict[str, Any]:
    """What a query's meaning may depend on besides its text: the folder relative `in:` paths start from, the
    home `~` names and the time zone dates are read in."""
    return {"cwd": os.getcwd(), "home": os.path.expanduser("~"),
            "tz": [time.timezone, time.altzone, time.daylight, list(time.tzname)]}


def socket_problem(path: str | os.PathLike[str]) -> tuple[bool, Optional[str]]:
    """(usable, note): whether `path` may be connected to; the note says why not when that is unexpected."""
    try:
        st = os.lstat(path)
    except OSError:
        return False, None  # nothing serves
    if not stat.S_ISSOCK(st.st_mode):
        return False, f"{os.fspath(path)} is not a socket; ignored it"
    if os.name == "posix" and st.st_uid != os.geteuid():
        return False, f"{os.fspath(path)} belongs to another user (uid {st.st_uid}); ignored it"
    if stat.S_IMODE(st.st_mode) & 0o077:
        return False, (f"{os.fspath(path)} can be reached by other users (mode {stat.S_IMODE(st.st_mode):o}); "
                       "ignored it")
    return True, None


def exchange(path: str | os.PathLike[str], request: dict[str, Any], answer_seconds: float,
             max_reply: int = MAX_REPLY) -> tuple[Any, Optional[str]]:
    """(decoded reply, note); reply None when there is none to use."""
    usable, note = socket_problem(path)
    if not usable:
        return None, note
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_SECONDS)
        try:
            with address(path) as where:
                sock.connect(where)
        except OSError:
            return None, None  # refused (a killed server's file), or too busy to accept: search directly
        uid = peer_uid(sock)
        if uid is not None and uid != os.geteuid():
            return None, f"the process behind {os.fspath(path)} is another user's (uid {uid}); ignored it"
        deadline = time.monotonic() + answer_seconds
        try:
            sock.sendall(encode(request))
            line = read_line(sock, max_reply, deadline)
        except LineTooLong:
            return None, f"the warm index's reply was over {max_reply // 2**20} MiB; ignored it"
        except TimeoutError:
            return None, f"the warm index did not answer within {answer_seconds:g} s"
        except OSError:
            return None, "the warm index closed the connection without an answer"
        try:
            return json.loads(line.decode("utf-8")), None
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None, "the warm index's reply was not JSON; ignored it"
    finally:
        sock.close()
