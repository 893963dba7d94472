"""Whether a warm process serves a library, and which (`status`'s warm_pid): a ping over the private socket.

A search is asked as a whole command (the one op: protocol.py), by the thin entry point and the full command line
alike (cli/warm_ask.ask_command). Imports stay light: no numpy, hnswlib or torch here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .exchange import exchange
from .protocol import MAX_REPLY, SOCKET_NAME, VERSION

__all__ = ["ping"]


def ping(data_dir: Path) -> Optional[int]:
    """The process id of the process serving `data_dir`, or None."""
    reply, _ = exchange(Path(data_dir) / SOCKET_NAME, {"v": VERSION, "op": "ping"}, 2.0, MAX_REPLY)
    if isinstance(reply, dict) and reply.get("v") == VERSION and reply.get("ok") is True:
        pid = reply.get("pid")
        return pid if isinstance(pid, int) and not isinstance(pid, bool) else None
    return None
