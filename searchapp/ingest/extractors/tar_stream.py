"""A tar archive opened for one walk, with a cap on what a compressed one may make us decompress.

A compressed tar (.tar.gz, .tgz, bz2, xz) has no index: reaching a member means decompressing every byte
before it, a skipped member's body included (tarfile "seeks" past it by reading). A few MB of gzip can hold
tens of GB of zeros, so every pass over such an archive (a sync, each OCR read, each Open) could cost
minutes. Here the decompressed stream is wrapped so that each step forward is charged to the pass's budget
*before* it is taken: a skip or a header that would cross the cap raises WalkCapReached without
decompressing anything. A plain tar seeks past a body for free, so it is read as it is.

A tar cut short (a download or a copy that stopped) is told apart from one broken inside (`cut_short`,
`ended_short`): tarfile ends its walk without a word where a header is missing or cut, as if the archive ended
there, and the members after the cut were lost unsaid.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zlib
from contextlib import contextmanager
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterator

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["open_tar", "WalkCapReached", "STREAM_ERRORS", "cut_short", "ended_short"]

_MAGIC = ((b"\x1f\x8b", lambda fh: gzip.GzipFile(fileobj=fh, mode="rb")), (b"BZh", lambda fh: bz2.BZ2File(fh, "rb")),
          (b"\xfd7zXZ\x00", lambda fh: lzma.LZMAFile(fh, "rb")))
# What a damaged compressed stream raises on the way (tarfile passes most of them on as they are).
STREAM_ERRORS = (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError)
# tarfile's words for bytes missing at the end: a body or a first header that runs past the file's end
_ENDED = frozenset({"unexpected end of data", "truncated header"})


class WalkCapReached(Exception):
    """The next step would decompress more than the pass may."""


class _Charged(io.RawIOBase):
    """A forward-only view of a decompressed stream; `spend(n)` is asked before n more bytes are produced."""

    def __init__(self, inner: io.BufferedIOBase, spend: Callable[[int], bool]) -> None:
        super().__init__()
        self.inner, self.spend, self.pos = inner, spend, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def _advance(self, n: int) -> None:
        if n > 0 and not self.spend(n):
            raise WalkCapReached()

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            raise ValueError("unbounded read of a compressed tar stream")
        self._advance(n)
        data = self.inner.read(n)
        self.pos += len(data)
        return data

    def readinto(self, b: WriteableBuffer) -> int:
        view = memoryview(b)  # what RawIOBase hands in (a memoryview or a bytearray), typed as any writable buffer
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self.pos + offset if whence == io.SEEK_CUR else None
        if target is None or target < self.pos:
            raise OSError("a compressed tar stream is only walked forward")  # rewinding decompresses it all again
        self._advance(target - self.pos)
        self.inner.seek(target)
        self.pos = target
        return target


def cut_short(exc: BaseException) -> bool:
    """Whether one of STREAM_ERRORS says the archive's end is missing, not that its bytes are broken: a body or a
    header running past the end of a plain tar, or a compressed stream ending before its end marker (gzip, bz2 and
    xz all raise EOFError for that)."""
    return isinstance(exc, EOFError) or isinstance(exc, tarfile.ReadError) and str(exc) in _ENDED


def ended_short(tf: tarfile.TarFile) -> bool:
    """After tf.next() gave None: whether the walk ended where a header's block was missing or cut, rather than at
    the block of zeros every tar writer puts last (tarfile takes both for the archive's end)."""
    fileobj = tf.fileobj
    return fileobj is not None and fileobj.tell() < tf.offset + tarfile.BLOCKSIZE


@contextmanager
def open_tar(fh: BinaryIO, spend: Callable[[int], bool]) -> Iterator[tarfile.TarFile]:
    """A TarFile over `fh` (plain or compressed, told by its first bytes). For a compressed one, every
    decompressed byte is first asked of `spend(n)`; WalkCapReached when it says no. Raises tarfile.TarError
    (or another of STREAM_ERRORS) when the archive cannot be read."""
    head = fh.read(6)
    fh.seek(0)
    opener = next((cls for magic, cls in _MAGIC if head.startswith(magic)), None)
    if opener is None:
        with tarfile.open(fileobj=fh, mode="r:") as tf:
            yield tf
        return
    inner = opener(fh)
    try:
        with tarfile.open(fileobj=_Charged(inner, spend), mode="r:") as tf:
            yield tf
    finally:
        inner.close()
