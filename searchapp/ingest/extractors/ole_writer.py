"""One storage of a compound file written out as a compound file of its own: a Word, Excel or PowerPoint document
embedded in a .doc (`ObjectPool/_1345470949`) or an .xls (`MBD0003271D`) is a storage holding the document's
streams, and the readers (and the program that opens a member) read whole files.

MS-CFB version 4 (4,096-byte sectors: the header's 109 FAT sectors address 457 MB, so no DIFAT sector is ever
written; the caller's cap is far below that). Streams under 4,096 bytes go to the mini stream, as the format
requires. Each storage's children are a balanced binary tree in the format's name order, its deepest level red, the
rest black: a valid red-black tree, which strict readers check. Only bytes are copied: nothing is run. The tests
write their Word, Excel, PowerPoint 97-2003 and .msg files with `compound_file` too (tests/legacy_office_files.py).
"""

from __future__ import annotations

import struct
import uuid
from typing import Optional

from ...base.errors import ExtractionError
from .ole import OleFile
from .ziputil import PartTooLarge

__all__ = ["storage_file", "compound_file"]

SECTOR, MINI, CUTOFF = 4096, 64, 4096
_END, _FREE, _FATSECT, _NONE = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
_PER_FAT = SECTOR // 4
_STORAGE, _STREAM, _ROOT = 1, 2, 5
_RED, _BLACK = 0, 1
MAX_ENTRIES = 4096  # streams and storages copied out of one storage (an embedded document holds a dozen)


def storage_file(ole: OleFile, storage: str, cap: int) -> bytes:
    """The storage `storage` of `ole` ("ObjectPool/_1345470949", as olefile lists it) as a compound file, its
    streams and storages below it copied, its class id kept. PartTooLarge when its streams together are over `cap`
    (told from the directory, before any is read)."""
    below = ole.below(storage)  # one listing of the directory for every object of the file
    if len(below) > MAX_ENTRIES:
        raise ExtractionError(f"embedded document holds more than {MAX_ENTRIES:,} streams")
    streams = {name for name in below if ole.ole.get_type(name) == 2}  # olefile.STGTY_STREAM
    if sum(ole.ole.get_size(name) for name in streams) > cap:
        raise PartTooLarge(storage, cap)
    entries: dict[str, Optional[bytes]] = {}
    clsids: dict[str, bytes] = {"": _clsid(ole, storage)}
    for full in below:
        inner = full[len(storage.rstrip("/")) + 1:]
        entries[inner] = ole.stream(full, cap) if full in streams else None
        if full not in streams:
            clsids[inner] = _clsid(ole, full)
    return compound_file(entries, clsids)


def _clsid(ole: OleFile, name: str) -> bytes:
    """A storage's class id as stored (olefile gives it as text, "" when none)."""
    try:
        text = ole.ole.getclsid(name)
        return uuid.UUID(text).bytes_le if text else bytes(16)
    except (OSError, ValueError, KeyError, AttributeError):
        return bytes(16)


def compound_file(entries: dict[str, Optional[bytes]], clsids: Optional[dict[str, bytes]] = None) -> bytes:
    """A compound file holding `entries`: path ("Package", "ObjectPool/_1/CONTENTS") -> a stream's bytes, or None
    for a storage (the storages on a stream's path are made too). `clsids`: a storage's path -> 16 bytes ("" the
    root's)."""
    kids: dict[str, list[str]] = {"": []}
    for path, data in entries.items():
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            node, parent = "/".join(parts[:n]), "/".join(parts[: n - 1])
            if node not in kids.setdefault(parent, []):
                kids[parent].append(node)
            if n < len(parts) or data is None:
                kids.setdefault(node, [])
    order = [""] + [node for parent in kids for node in kids[parent]]
    streams = {p: d for p, d in entries.items() if d is not None}
    mini, mini_at = b"", {}
    for path, data in streams.items():
        if len(data) < CUTOFF:
            mini_at[path] = len(mini) // MINI
            mini += data.ljust(-(-len(data) // MINI) * MINI, b"\0")
    minifat: list[int] = []
    for path, first in mini_at.items():
        minifat += _chain(first, -(-len(streams[path]) // MINI))
    # What follows the FAT, sector by sector: the directory, the mini FAT, the mini stream, each large stream.
    blocks = [b"", struct.pack(f"<{len(minifat)}I", *minifat), mini]
    large = [p for p in streams if p not in mini_at]
    blocks += [streams[p] for p in large]
    counts = [-(-len(order) * 128 // SECTOR)] + [-(-len(data) // SECTOR) for data in blocks[1:]]
    n_fat = 1
    while n_fat * _PER_FAT < n_fat + sum(counts):
        n_fat += 1
    if n_fat > 109:  # past what the header addresses (no caller's cap comes near)
        raise ExtractionError("embedded document too large to write out")
    fat, firsts, at = [_FATSECT] * n_fat, [], n_fat
    for n in counts:
        firsts.append(at if n else _END)
        fat += _chain(at, n)
        at += n
    starts = dict(zip(large, firsts[3:], strict=True))
    starts.update({p: mini_at[p] for p in mini_at})
    links = _links(kids, {path: i for i, path in enumerate(order)})
    directory = b"".join(_entry(path, links, streams, starts, firsts[2], len(mini), clsids or {}) for path in order)
    header = (bytes.fromhex("d0cf11e0a1b11ae1") + bytes(16) + struct.pack("<HHHHH", 0x3E, 4, 0xFFFE, 12, 6)
              + bytes(6) + struct.pack("<IIIIIIIII", counts[0], n_fat, firsts[0], 0, CUTOFF, firsts[1], counts[1],
                                       _END, 0)
              + struct.pack("<109I", *range(n_fat), *([_FREE] * (109 - n_fat))))
    out = [header.ljust(SECTOR, b"\0"), struct.pack(f"<{len(fat)}I", *fat).ljust(n_fat * SECTOR, b"\xff"),
           directory.ljust(counts[0] * SECTOR, b"\0")]
    out += [data.ljust(n * SECTOR, b"\0") for data, n in zip(blocks[1:], counts[1:], strict=True)]
    return b"".join(out)


def _chain(first: int, n: int) -> list[int]:
    return [first + k + 1 for k in range(n - 1)] + [_END] if n else []


def _key(path: str) -> tuple[int, str]:
    """The format's order of names in one storage: shorter first, then by their capitals (MS-CFB 2.6.4)."""
    name = path.rsplit("/", 1)[-1]
    return len(name), name.upper()


# path -> (left sibling, right sibling, child, colour), as directory entry numbers
_Links = dict[str, tuple[int, int, int, int]]


def _links(kids: dict[str, list[str]], index: dict[str, int]) -> _Links:
    """Each storage's children as a binary tree split at its middle (in the format's order), its deepest level red
    unless it is the tree's root, the rest black: every missing child of such a tree is on its two lowest levels,
    so every path from its root passes the same number of black entries and no red entry has a child (a valid
    red-black tree, which strict readers check)."""
    links: _Links = {}
    child: dict[str, int] = {}
    for parent, names in kids.items():
        if not names:  # an empty storage
            continue
        ordered = sorted(names, key=_key)
        tree: dict[str, tuple[int, int, int]] = {}  # name -> (left, right, depth)
        stack: list[tuple[int, int, int]] = [(0, len(ordered), 0)]
        while stack:
            lo, hi, depth = stack.pop()
            mid = (lo + hi) // 2
            left, right = (lo + mid) // 2 if lo < mid else -1, (mid + 1 + hi) // 2 if mid + 1 < hi else -1
            tree[ordered[mid]] = (left, right, depth)
            stack += [(lo, mid, depth + 1)] if lo < mid else []
            stack += [(mid + 1, hi, depth + 1)] if mid + 1 < hi else []
        child[parent] = index[ordered[len(ordered) // 2]]
        deepest = max(depth for _, _, depth in tree.values())
        for name, (left, right, depth) in tree.items():
            color = _RED if depth == deepest and depth > 0 else _BLACK
            links[name] = (index[ordered[left]] if left >= 0 else _NONE, index[ordered[right]] if right >= 0 else _NONE,
                           _NONE, color)
    for path, first in child.items():
        left, right, _, color = links.get(path, (_NONE, _NONE, _NONE, _BLACK))
        links[path] = (left, right, first, color)
    return links


def _entry(path: str, links: _Links, streams: dict[str, bytes], starts: dict[str, int], mini_first: int,
           mini_size: int, clsids: dict[str, bytes]) -> bytes:
    left, right, child, color = links.get(path, (_NONE, _NONE, _NONE, _BLACK))
    name = path.rsplit("/", 1)[-1]
    if not path:
        kind, name, start, size, color = _ROOT, "Root Entry", mini_first, mini_size, _BLACK
    elif path in streams:
        kind, start, size = _STREAM, starts[path] if streams[path] else _END, len(streams[path])
    else:
        kind, start, size = _STORAGE, 0, 0
    raw = name[:31].encode("utf-16-le") + b"\0\0"
    clsid = bytes(16) if kind == _STREAM else clsids.get(path, bytes(16)).ljust(16, b"\0")[:16]
    return (raw.ljust(64, b"\0") + struct.pack("<HBB", len(raw), kind, color) + struct.pack("<III", left, right, child)
            + clsid + bytes(4) + bytes(16) + struct.pack("<IQ", start, size))
