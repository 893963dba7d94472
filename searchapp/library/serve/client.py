"""The asking side of the warm index for the full command line: what `searchapp search` tries before it opens the
library itself (cli/fast.py's thin entry point asks with a whole command first; this asks with a search).

Any doubt about the socket or its reply (exchange.py) means the command line searches directly: no socket
(nothing serves), a stale file (connection refused: a killed server), another user's or an open socket (said in
one line), no answer within the time, or a reply that breaks the protocol in any way (said in one line). The same
search then runs here, so results never depend on which way they came.

Imports stay light: no numpy, hnswlib or torch here (see library/__init__'s lazy names).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..search.result import SearchResult
from .exchange import ANSWER_SECONDS, CONNECT_SECONDS, exchange, socket_problem
from .wire import MAX_REPLY, SOCKET_NAME, VERSION, WireError, reply_history, reply_result

__all__ = ["Answer", "socket_problem", "ask", "ping", "CONNECT_SECONDS", "ANSWER_SECONDS"]


@dataclass
class Answer:
    result: Optional[SearchResult] = None  # None: search directly
    marks: str = ""  # the text whose words the snippet marks (query.help.marked_text, computed by the server)
    note: Optional[str] = None  # one line to say why it was not served (only where something is wrong)
    history: Optional[str] = None  # the query was recorded by the server: "" kept, else why not (wire.reply_history)


def ask(data_dir: Path, request: dict[str, Any], *, answer_seconds: Optional[float] = None) -> Answer:
    """A search through the warm index of `data_dir` (a wire.py search request), or why not."""
    wait = ANSWER_SECONDS if answer_seconds is None else answer_seconds
    reply, note = exchange(Path(data_dir) / SOCKET_NAME, request, wait, MAX_REPLY)
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
    reply, _ = exchange(Path(data_dir) / SOCKET_NAME, {"v": VERSION, "op": "ping"}, 2.0, MAX_REPLY)
    if isinstance(reply, dict) and reply.get("v") == VERSION and reply.get("ok") is True:
        pid = reply.get("pid")
        return pid if isinstance(pid, int) and not isinstance(pid, bool) else None
    return None
