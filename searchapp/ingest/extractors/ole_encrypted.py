"""Is this OLE compound file password-protected, and is its directory sound? Office encrypts a .docx/.xlsx/.pptx
by wrapping the whole package in an OLE compound file (magic D0 CF 11 E0 A1 B1 1A E1) holding an `EncryptedPackage`
stream (MS-OFFCRYPTO), so zipfile only says "File is not a zip file": read as corruption, which it is not. An
encrypted .ppt carries an `EncryptedSummary` stream; an encrypted .doc or .xls is told by its own reader (a flag of
Word's FIB, Excel's FILEPASS record). A compound file's names are compared case-insensitively (MS-CFB 2.6.4), and
some writers store them in capitals (Apache Tika's `protected_upper_case.docx`: `ENCRYPTEDPACKAGE`), so
`names_encrypted` compares them so too.

Only the compound file's directory is read (its header, the FAT sectors on the directory's chain, the directory
sectors): a few KB of a file of any size. `directory_names` is also the check the legacy readers (ole.py) run
before olefile parses a file: olefile follows a directory chain that loops up to the FAT's length, so a small
hostile file could make it read gigabytes; here a loop is found at its first repeat.
"""

from __future__ import annotations

import io
import os
import struct
from typing import BinaryIO, Iterable, Optional

__all__ = ["OLE_MAGIC", "ENCRYPTED", "RIGHTS_MANAGED", "OleStructureError", "is_encrypted_office", "names_encrypted",
           "directory_names"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED = "encrypted: password-protected, not indexed"
# Only the software of a rights-management server opens it (Microsoft IRM, Adobe LiveCycle): an Office file or a PDF
RIGHTS_MANAGED = "encrypted: rights-managed (IRM), not indexed"
_ENCRYPTED_STREAMS = frozenset({"ENCRYPTEDPACKAGE", "ENCRYPTEDSUMMARY"})  # upper case: see names_encrypted
_LAST = 0xFFFFFFFA  # sector numbers above this are markers (end of chain, free, FAT, DIFAT)
_MAX_SECTORS = 4096  # directory sectors followed: 16K entries at 512 bytes (a real Office file has ~10)
_HEADER_DIFAT = 109


class OleStructureError(ValueError):
    """The compound file's header or directory is malformed (the message says how)."""


def is_encrypted_office(src: str | os.PathLike[str] | bytes | BinaryIO) -> bool:
    """True for an OLE compound file (a path, bytes held in memory, or a file the caller has open: read from its
    start, left open) whose directory names an `EncryptedPackage` (or `EncryptedSummary`) stream; False for anything
    else, unreadable or malformed files included (the caller's own error then stands)."""
    try:
        if isinstance(src, (bytes, bytearray)):
            return _encrypted(io.BytesIO(src))
        if isinstance(src, (str, os.PathLike)):
            with open(src, "rb") as fh:
                return _encrypted(fh)
        src.seek(0)
        return _encrypted(src)
    except (OSError, struct.error, ValueError):
        return False


def _encrypted(fh: BinaryIO) -> bool:
    return names_encrypted(directory_names(fh, strict=False))


def names_encrypted(names: Iterable[str]) -> bool:
    """Whether a compound file's stream names (directory_names) hold an encrypted package or summary, in any
    case: the format compares names case-insensitively, so Office opens `ENCRYPTEDPACKAGE` as the package."""
    return any(name.upper() in _ENCRYPTED_STREAMS for name in names)


def directory_names(fh: BinaryIO, strict: bool = True) -> list[str]:
    """The names of the stream entries of the compound file open in `fh` (read from its start), in directory order.
    `strict`: a malformed header or directory chain (a loop, a sector past the end, a FAT count larger than the
    file) raises OleStructureError; otherwise the names read so far are returned."""
    fh.seek(0, os.SEEK_END)
    file_size = fh.tell()
    fh.seek(0)
    header = fh.read(512)
    if len(header) < 512 or header[:8] != OLE_MAGIC:
        return _fail(strict, "not an OLE compound file", [])
    shift = struct.unpack_from("<H", header, 0x1E)[0]
    if shift not in (9, 12):
        return _fail(strict, f"sector size 2^{shift} is not 512 or 4096", [])
    size = 1 << shift
    n_fat, first_dir = struct.unpack_from("<II", header, 0x2C)
    first_difat, n_difat = struct.unpack_from("<II", header, 0x44)
    max_sectors = file_size // size + 1
    if n_fat > max_sectors or n_difat > max_sectors:
        return _fail(strict, f"header claims {max(n_fat, n_difat):,} FAT sectors, more than the file holds", [])
    fat_sectors = list(struct.unpack_from(f"<{_HEADER_DIFAT}I", header, 0x4C))[:n_fat]
    fat_sectors += _difat_sectors(fh, size, first_difat, n_difat, n_fat - len(fat_sectors))
    per = size // 4
    names: list[str] = []
    sec, seen = first_dir, set[int]()
    while sec <= _LAST:
        if sec in seen:
            return _fail(strict, "the directory's sector chain loops", names)
        if len(seen) >= _MAX_SECTORS:
            return _fail(strict, f"directory longer than {_MAX_SECTORS:,} sectors", names)
        seen.add(sec)
        data = _sector(fh, size, sec)
        if data is None:
            return _fail(strict, "the directory runs past the end of the file", names)
        names += [n for at in range(0, size, 128) if (n := _entry_name(data, at))]
        if sec // per >= len(fat_sectors):
            return _fail(strict, "the directory's chain leaves the FAT", names)
        fat = _sector(fh, size, fat_sectors[sec // per])
        if fat is None:
            return _fail(strict, "a FAT sector lies past the end of the file", names)
        sec = struct.unpack_from("<I", fat, (sec % per) * 4)[0]
    return names


def _fail(strict: bool, why: str, names: list[str]) -> list[str]:
    if strict:
        raise OleStructureError(why)
    return names


def _sector(fh: BinaryIO, size: int, n: int) -> Optional[bytes]:
    fh.seek((n + 1) * size)
    data = fh.read(size)
    return data if len(data) == size else None


def _difat_sectors(fh: BinaryIO, size: int, first: int, count: int, wanted: int) -> list[int]:
    """The FAT sectors listed past the header's 109 (a compound file over ~7 MB at 512-byte sectors)."""
    out: list[int] = []
    sec, seen = first, set[int]()
    for _ in range(min(count, _MAX_SECTORS)):
        if sec > _LAST or len(out) >= wanted or sec in seen:
            break
        seen.add(sec)
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
