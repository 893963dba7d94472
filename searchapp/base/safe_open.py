"""Open a file for reading only if it is a regular file, without ever blocking in open().

A plain open() of a FIFO waits for a writer forever, and of a device may never end; a file can be
replaced by one between the scan and the read. So: open with O_NONBLOCK (a FIFO or device opens at
once), then fstat what was actually opened and refuse anything but a regular file. Every file of a
library's data dir is opened this way too (the vector index and its sidecar, the lock files, the records):
a FIFO planted at `vectors.hnsw` hung `search`, `status` and `index` forever.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from typing import BinaryIO

from .errors import UnsupportedFileError

__all__ = ["open_regular", "open_regular_fd", "read_at_most", "NOT_REGULAR", "LINK"]

NOT_REGULAR = "not a regular file"
LINK = "a symbolic link"

_SAFE = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_regular_fd(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o600,
                    *, follow_links: bool = False) -> int:
    """A descriptor on `path` opened with `flags` (O_RDWR | O_CREAT for a lock file, say; a file created is
    `mode`), only if what was opened is a regular file; blocking from then on. Raises UnsupportedFileError
    (NOT_REGULAR, or LINK) for FIFOs, devices, sockets, folders and, unless `follow_links`, a symbolic link (a
    file of the data dir is never one: a link there to ~/.bashrc must not be truncated as a lock file); OSError
    as os.open would."""
    try:
        fd = os.open(path, flags | _SAFE | (0 if follow_links else _NOFOLLOW), mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and not follow_links and os.path.islink(path):
            raise UnsupportedFileError(LINK) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsupportedFileError(NOT_REGULAR)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # ordinary reads from here on
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """A buffered binary reader on `path`. Raises UnsupportedFileError(NOT_REGULAR) for FIFOs, devices,
    sockets and folders; OSError (FileNotFoundError, PermissionError, ...) as open() would. A link is followed
    (a document, a model's file in the hub's cache): the file it names is what is checked."""
    fd = open_regular_fd(path, follow_links=True)
    try:
        return io.open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def read_at_most(fh: BinaryIO, limit: int) -> bytes:
    """The bytes of `fh` from where it stands to its end, or the first `limit` of them when it holds more: a
    caller reads `limit + 1` to tell "too large". A buffered read(n) allocates n bytes before reading, so a
    cap of 100 MB cost a map and unmap per file of a few KB (a third of a small file's reading): the buffer is
    sized by what the file holds, and a file that grew since (or says 0 bytes, as procfs does) is read on."""
    try:
        left = os.fstat(fh.fileno()).st_size - fh.tell()
    except (OSError, ValueError, io.UnsupportedOperation):  # not a file on disk (BytesIO): no size to ask
        return fh.read(limit)
    want = min(max(left, 0) + 1, limit)
    data = fh.read(want)
    if len(data) < want or len(data) >= limit:
        return data
    parts, got = [data], len(data)  # it holds more than its size said
    while got < limit and (more := fh.read(min(1 << 20, limit - got))):
        parts.append(more)
        got += len(more)
    return b"".join(parts)
