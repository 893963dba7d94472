"""Is this "zip" a password-protected Office file? Office encrypts a .docx/.xlsx/.pptx by wrapping the whole
package in an OLE compound file (magic D0 CF 11 E0 A1 B1 1A E1) holding an `EncryptedPackage` stream (MS-OFFCRYPTO),
so zipfile only says "File is not a zip file": read as corruption, which it is not.

Only the compound file's directory is read (its header, the FAT sectors on the directory's chain, the directory
sectors): a few KB of a file of any size, and no dependency (olefile would do, but is not installed).
"""

from __future__ import annotations

import io
import os
import struct
from typing import BinaryIO, Optional

__all__ = ["OLE_MAGIC", "ENCRYPTED", "is_encrypted_office"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED = "encrypted: password-protected, not indexed"
_STREAM_NAME = "EncryptedPackage"
_LAST = 0xFFFFFFFA  # sector numbers above this are markers (end of chain, free, FAT, DIFAT)
_MAX_SECTORS = 4096  # directory sectors followed: 16K entries at 512 bytes (a real Office file has ~10)
_HEADER_DIFAT = 109


def is_encrypted_office(src: str | os.PathLike | bytes | BinaryIO) -> bool:
    """True for an OLE compound file (a path, bytes held in memory, or a file the caller has open: read from its
    start, left open) whose directory names an `EncryptedPackage` stream; False for anything else, unreadable or
    malformed files included (the caller's own error then stands)."""
    try:
        if isinstance(src, (bytes, bytearray)):
            return _has_encrypted_package(io.BytesIO(src))
        if isinstance(src, (str, os.PathLike)):
            with open(src, "rb") as fh:
                return _has_encrypted_package(fh)
        src.seek(0)
        return _has_encrypted_package(src)
    except (OSError, struct.error, ValueError):
        return False


def _has_encrypted_package(fh: BinaryIO) -> bool:
    header = fh.read(512)
    if len(header) < 512 or header[:8] != OLE_MAGIC:
        return False
    shift = struct.unpack_from("<H", header, 0x1E)[0]
    if shift not in (9, 12):
        return False
    size = 1 << shift
    n_fat, first_dir = struct.unpack_from("<II", header, 0x2C)
    first_difat, n_difat = struct.unpack_from("<II", header, 0x44)
    fat_sectors = list(struct.unpack_from(f"<{_HEADER_DIFAT}I", header, 0x4C))[:n_fat]
    fat_sectors += _difat_sectors(fh, size, first_difat, n_difat, n_fat - len(fat_sectors))

    def sector(n: int) -> Optional[bytes]:
        fh.seek((n + 1) * size)
        data = fh.read(size)
        return data if len(data) == size else None

    per = size // 4
    sec, seen = first_dir, set[int]()
    while sec <= _LAST and sec not in seen and len(seen) < _MAX_SECTORS:
        seen.add(sec)
        data = sector(sec)
        if data is None:
            return False
        if any(_entry_name(data, at) == _STREAM_NAME for at in range(0, size, 128)):
            return True
        if sec // per >= len(fat_sectors):
            return False
        fat = sector(fat_sectors[sec // per])
        if fat is None:
            return False
        sec = struct.unpack_from("<I", fat, (sec % per) * 4)[0]
    return False


def _difat_sectors(fh: BinaryIO, size: int, first: int, count: int, wanted: int) -> list[int]:
    """The FAT sectors listed past the header's 109 (a compound file over ~7 MB at 512-byte sectors)."""
    out: list[int] = []
    sec = first
    for _ in range(min(count, _MAX_SECTORS)):
        if sec > _LAST or len(out) >= wanted:
            break
        fh.seek((sec + 1) * size)
        data = fh.read(size)
        if len(data) < size:
            break
        entries = struct.unpack_from(f"<{size // 4}I", data)
        out += entries[:-1]
        sec = entries[-1]
    return out[:max(wanted, 0)]


def _entry_name(data: bytes, at: int) -> str:
    """The name of the directory entry at `at` if it is a stream (type 2), else ""."""
    n = struct.unpack_from("<H", data, at + 0x40)[0]
    if data[at + 0x42] != 2 or not 2 <= n <= 64:
        return ""
    return data[at:at + n - 2].decode("utf-16-le", "replace")
