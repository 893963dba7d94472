"""A small writer of OLE compound files (MS-CFB, version 3, 512-byte sectors), for tests: the legacy Office files
(.doc, .xls, .ppt, .msg) the readers are tested on are made here, since olefile cannot write new files.

`cfb({"WordDocument": b"...", "__attach_version1.0_#00000000/__substg1.0_3707001F": b"..."})`: a path with "/"
makes the storages on its way. Streams under 4,096 bytes go to the mini stream, as Office writes them. `Layout`
says where things are, so a test can damage one (a FAT loop, a size that lies)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

END, FREE, FATSECT = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD
NOSTREAM = 0xFFFFFFFF
SECTOR, MINI, CUTOFF = 512, 64, 4096


@dataclass
class Layout:
    fat_sectors: list[int] = field(default_factory=list)
    dir_sectors: list[int] = field(default_factory=list)
    entries: dict[str, int] = field(default_factory=dict)  # path -> directory entry index


def _entry(name: str, kind: int, left: int = NOSTREAM, right: int = NOSTREAM, child: int = NOSTREAM,
           start: int = END, size: int = 0) -> bytes:
    raw = name.encode("utf-16-le") + b"\0\0"
    return (raw.ljust(64, b"\0") + struct.pack("<HBB", len(raw), kind, 1) + struct.pack("<III", left, right, child)
            + b"\0" * 16 + b"\0" * 4 + b"\0" * 16 + struct.pack("<II", start, size) + b"\0" * 4)


def _chain(first: int, n: int) -> list[int]:
    return [first + k + 1 for k in range(n - 1)] + [END] if n else []


def cfb(streams: dict[str, bytes], layout: Layout | None = None) -> bytes:
    layout = layout if layout is not None else Layout()
    # The tree: each storage's children, in order; siblings linked through "right" (a valid, if lopsided, tree).
    nodes: dict[str, list[str]] = {"": []}
    for path in streams:
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            node, parent = "/".join(parts[:depth]), "/".join(parts[:depth - 1])
            if node not in nodes.get(parent, []):
                nodes.setdefault(parent, []).append(node)
            if depth < len(parts):
                nodes.setdefault(node, [])
    order = [""] + [n for parent in nodes for n in nodes[parent]]
    index = {path: i for i, path in enumerate(order)}
    layout.entries = dict(index)
    small = {p: d for p, d in streams.items() if len(d) < CUTOFF}
    big = {p: d for p, d in streams.items() if len(d) >= CUTOFF}
    mini = b""
    mini_start: dict[str, int] = {}
    for path, data in small.items():
        mini_start[path] = len(mini) // MINI
        mini += data.ljust(-(-len(data) // MINI) * MINI, b"\0")
    minifat: list[int] = []
    for path, data in small.items():
        minifat += _chain(mini_start[path], -(-len(data) // MINI))
    n_dir = -(-len(order) // 4)
    n_minifat = -(-len(minifat) * 4 // SECTOR)
    n_mini = -(-len(mini) // SECTOR)
    n_big = {p: -(-len(d) // SECTOR) for p, d in big.items()}
    body = n_dir + n_minifat + n_mini + sum(n_big.values())
    n_fat = 1
    while n_fat * (SECTOR // 4) < n_fat + body:
        n_fat += 1
    assert n_fat <= 109, "past the header's DIFAT: not needed by the tests"
    at = n_fat
    fat = [FATSECT] * n_fat
    layout.fat_sectors = list(range(n_fat))
    layout.dir_sectors = list(range(at, at + n_dir))
    fat += _chain(at, n_dir)
    at += n_dir
    minifat_first = at if n_minifat else END
    fat += _chain(at, n_minifat)
    at += n_minifat
    mini_first = at if n_mini else END
    fat += _chain(at, n_mini)
    at += n_mini
    big_start: dict[str, int] = {}
    for path, n in n_big.items():
        big_start[path] = at
        fat += _chain(at, n)
        at += n
    entries = []
    for path in order:
        kids = nodes.get(path, [])
        child = index[kids[0]] if kids else NOSTREAM
        siblings = nodes["/".join(path.split("/")[:-1])] if path else []
        right = siblings[siblings.index(path) + 1] if path and siblings.index(path) + 1 < len(siblings) else None
        right_i = index[right] if right else NOSTREAM
        name = path.split("/")[-1] if path else "Root Entry"
        if not path:
            entries.append(_entry(name, 5, child=child, start=mini_first, size=len(mini)))
        elif path in streams:
            start = mini_start[path] if path in small else big_start[path]
            entries.append(_entry(name, 2, right=right_i, start=start if streams[path] else END,
                                  size=len(streams[path])))
        else:
            entries.append(_entry(name, 1, right=right_i, child=child))
    directory = b"".join(entries).ljust(n_dir * SECTOR, b"\0")
    fat_bytes = struct.pack(f"<{len(fat)}I", *fat).ljust(n_fat * SECTOR, b"\xff")
    minifat_bytes = struct.pack(f"<{len(minifat)}I", *minifat).ljust(n_minifat * SECTOR, b"\xff")
    header = (bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
              + b"\0" * 6 + struct.pack("<IIIIIIIII", 0, n_fat, layout.dir_sectors[0], 0, CUTOFF, minifat_first,
                                        n_minifat, END, 0)
              + struct.pack("<109I", *layout.fat_sectors, *([FREE] * (109 - n_fat))))
    out = header + fat_bytes + directory + minifat_bytes + mini.ljust(n_mini * SECTOR, b"\0")
    for path in big:
        out += streams[path].ljust(n_big[path] * SECTOR, b"\0")
    return out


def set_fat(data: bytes, sector: int, value: int) -> bytes:
    """`data` with the FAT entry of `sector` set to `value` (the FAT sectors are the first ones, as cfb writes)."""
    out = bytearray(data)
    struct.pack_into("<I", out, SECTOR + 4 * sector, value)
    return bytes(out)


def set_stream_size(data: bytes, entry: int, size: int) -> bytes:
    """`data` with directory entry `entry`'s stream size set to `size` (a size that lies)."""
    n_fat = struct.unpack_from("<I", data, 0x2C)[0]
    first_dir = struct.unpack_from("<I", data, 0x30)[0]
    assert first_dir == n_fat
    out = bytearray(data)
    struct.pack_into("<I", out, SECTOR * (1 + first_dir) + 128 * entry + 0x78, size)
    return bytes(out)
