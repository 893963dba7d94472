"""Hostile containers the trust tests build: a .tar.gz whose middle member is a gzip bomb (GiB of zeros in a
few hundred KB), made of concatenated gzip members so building it costs nothing."""

from __future__ import annotations

import gzip
import tarfile
from pathlib import Path

_CHUNK = 16 * 2**20


def _header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = size, 1_700_000_000
    return info.tobuf(format=tarfile.GNU_FORMAT)


def tar_entry(name: str, data: bytes) -> bytes:
    """One tar member as bytes: its header, its data, the padding to 512."""
    return _header(name, len(data)) + data + b"\0" * (-len(data) % 512)


def bomb_tar_gz(path: Path, mib: int, before: dict[str, bytes], after: dict[str, bytes]) -> Path:
    """`before` members, `bomb.bin` (`mib` MiB of zeros), `after` members, as one .tar.gz at `path`."""
    zeros = gzip.compress(b"\0" * _CHUNK, compresslevel=9)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(b"".join(tar_entry(n, d) for n, d in before.items())
                               + _header("bomb.bin", mib * 2**20)))
        for _ in range(mib * 2**20 // _CHUNK):
            fh.write(zeros)
        fh.write(gzip.compress(b"".join(tar_entry(n, d) for n, d in after.items()) + b"\0" * 1024))
    return path
