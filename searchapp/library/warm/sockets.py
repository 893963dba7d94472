"""The socket file's address, the peer's user and reading one line: what server and client share.

A Unix socket's path may hold at most ~107 bytes; a longer data dir is reached through the folder's open
descriptor (/proc/self/fd/N/warm.sock on Linux), so the socket always lies in the data dir itself.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import time

TYPE_CHECKING = False  # typing and pathlib stay unloaded: the thin entry point (cli/entry.py) starts through here
if TYPE_CHECKING:
    from typing import Iterator, Optional

__all__ = ["address", "peer_uid", "read_line", "LineTooLong"]

_SUN_PATH_MAX = 100  # sun_path is 108 bytes on Linux, 104 on macOS; keep clear of both


class LineTooLong(ValueError):
    pass


@contextlib.contextmanager
def address(path: str | os.PathLike[str]) -> Iterator[str]:
    """An address bind() and connect() accept for `path` (a shorter alias while it is open when too long)."""
    text = os.fspath(path)
    if len(os.fsencode(text)) <= _SUN_PATH_MAX or not os.path.isdir("/proc/self/fd"):
        yield text
        return
    fd = os.open(os.path.dirname(text), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        yield f"/proc/self/fd/{fd}/{os.path.basename(text)}"
    finally:
        os.close(fd)


def peer_uid(sock: socket.socket) -> Optional[int]:
    """The user id of the process at the other end (Linux: SO_PEERCRED), None where it cannot be asked."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    raw = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    return int(struct.unpack("3i", raw)[1])


def read_line(sock: socket.socket, limit: int, deadline: float) -> bytes:
    """Bytes up to the first newline (excluded): LineTooLong past `limit`, TimeoutError past `deadline`
    (time.monotonic), ConnectionError when the other end closes first."""
    buf = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no full line in time")
        sock.settimeout(left)
        chunk = sock.recv(min(1 << 20, limit + 1 - len(buf)) or 1)
        if not chunk:
            raise ConnectionError("closed before a full line")
        end = chunk.find(b"\n")
        if end >= 0:
            buf += chunk[:end]
            if len(buf) > limit:
                raise LineTooLong(f"over {limit} bytes")
            return bytes(buf)
        buf += chunk
        if len(buf) > limit:
            raise LineTooLong(f"over {limit} bytes")
