"""The asking side of the warm index: what `searchapp search` tries before it opens the library itself.

Decision: the socket is used only when its file is a socket of this user's, mode 0600 (nobody else could have
made or reach it), and only when the process answering is this user's too (SO_PEERCRED). Any doubt means the
command line searches directly: no socket (nothing serves), a stale file (connection refused: a killed server),
another user's or an open socket (said in one line), no answer within the time, or a reply that breaks the
protocol in any way (said in one line). The same search then runs here, so results never depend on which
way they came.

Imports stay light: no numpy, hnswlib or torch here (see library/__init__'s lazy names).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..search.result import SearchResult
from .sockets import LineTooLong, address, peer_uid, read_line
from .wire import MAX_REPLY, SOCKET_NAME, VERSION, WireError, encode, reply_history, reply_result

__all__ = ["Answer", "socket_problem", "ask", "ping", "CONNECT_SECONDS", "ANSWER_SECONDS"]

CONNECT_SECONDS = 0.3
ANSWER_SECONDS = 10.0  # a first search may load the reranker; a slower answer is searched again directly


@dataclass
class Answer:
    result: Optional[SearchResult] = None  # None: search directly
    marks: str = ""  # the text whose words the snippet marks (query.help.marked_text, computed by the server)
    note: Optional[str] = None  # one line to say why it was not served (only where something is wrong)
    history: Optional[str] = None  # the query was recorded by the server: "" kept, else why not (wire.reply_history)


def socket_problem(path: Path) -> tuple[bool, Optional[str]]:
    """(usable, note): whether `path` may be connected to; the note says why not when that is unexpected."""
    try:
        st = os.lstat(path)
    except OSError:
        return False, None  # nothing serves
    if not stat.S_ISSOCK(st.st_mode):
        return False, f"{path} is not a socket; ignored it"
    if os.name == "posix" and st.st_uid != os.geteuid():
        return False, f"{path} belongs to another user (uid {st.st_uid}); ignored it"
    if stat.S_IMODE(st.st_mode) & 0o077:
        return False, f"{path} can be reached by other users (mode {stat.S_IMODE(st.st_mode):o}); ignored it"
    return True, None


def _exchange(path: Path, request: dict[str, Any], answer_seconds: float) -> tuple[Any, Optional[str]]:
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
            return None, f"the process behind {path} is another user's (uid {uid}); ignored it"
        deadline = time.monotonic() + answer_seconds
        try:
            sock.sendall(encode(request))
            line = read_line(sock, MAX_REPLY, deadline)
        except LineTooLong:
            return None, f"the warm index's reply was over {MAX_REPLY // 2**20} MiB; ignored it"
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


def ask(data_dir: Path, request: dict[str, Any], *, answer_seconds: Optional[float] = None) -> Answer:
    """A search through the warm index of `data_dir` (a wire.py search request), or why not."""
    wait = ANSWER_SECONDS if answer_seconds is None else answer_seconds
    reply, note = _exchange(Path(data_dir) / SOCKET_NAME, request, wait)
    if reply is None:
        return Answer(note=note)
    try:
        result, marks, _reason = reply_result(reply)
        history = reply_history(reply) if result is not None else None
    except (WireError, TypeError, ValueError) as exc:
        return Answer(note=f"the warm index's reply broke the protocol ({exc}); ignored it")
    # a refusal (other settings, an error to say here): searched directly, unsaid
    return Answer(result, marks, history=history)


def ping(data_dir: Path) -> Optional[int]:
    """The process id of the process serving `data_dir`, or None."""
    reply, _ = _exchange(Path(data_dir) / SOCKET_NAME, {"v": VERSION, "op": "ping"}, 2.0)
    if isinstance(reply, dict) and reply.get("v") == VERSION and reply.get("ok") is True:
        pid = reply.get("pid")
        return pid if isinstance(pid, int) and not isinstance(pid, bool) else None
    return None
