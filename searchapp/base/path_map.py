"""A shared library's path map (decision 0134): where another machine's indexed folder is mounted on this desktop.

Machine A indexes `/mnt/share/docs`; desktop B mounts the same drive at `/Volumes/share`. B's config says
`library.path_map = ["A:/mnt/share=/Volumes/share"]`, and B then sees A's `/mnt/share/docs/x.pdf` as
`/Volumes/share/docs/x.pdf`, and may name it so (`explain`, `similar`, `--in`). An entry is
MACHINE:THEIR_FOLDER=FOLDER_HERE: the machine's name as `status` lists it, its folder as it wrote it, this
desktop's folder. A prefix only ever replaces whole leading path components (`/mnt/share` maps
`/mnt/share/x`, never `/mnt/shared2/x`); the longest matching prefix wins. THEIR_FOLDER written as a Windows
path (`S:\\docs`, `\\\\server\\share`; `S:/docs` is read as `S:\\docs`, as Windows reads it) is split at
backslashes, any other at slashes, so a Windows machine's folders map onto a POSIX mount and back. This machine's
own entries are never mapped (its paths are its own).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from .errors import ConfigError

__all__ = ["PathMap", "MapEntry", "parse_path_map", "EXAMPLE"]

EXAMPLE = '"nas-a:/mnt/share=/Volumes/share"'
MAX_ENTRIES = 256
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


@dataclass(frozen=True)
class MapEntry:
    machine: str
    theirs: str  # THEIR_FOLDER, trailing separators dropped (but a root's own)
    ours: str  # FOLDER_HERE, likewise
    sep: str  # the other machine's path separator


def _sep_of(path: str) -> str:
    return "\\" if _WINDOWS.match(path) else "/"


def _trimmed(path: str, sep: str) -> str:
    """`path` without trailing separators, unless it is a root (`/`, `S:\\`)."""
    out = path.rstrip(sep)
    if not out or (sep == "\\" and re.fullmatch(r"[A-Za-z]:", out)):
        return out + sep
    return out


def _rest(path: str, prefix: str, sep: str) -> Optional[list[str]]:
    """The components of `path` below `prefix` ([] for the prefix itself), or None when `path` is not `prefix`
    or under it by whole components."""
    if path == prefix:
        return []
    if prefix.endswith(sep):  # a root: every path that starts with it
        below = path[len(prefix):] if path.startswith(prefix) else None
    else:
        below = path[len(prefix) + 1:] if path.startswith(prefix + sep) else None
    return None if below is None else [p for p in below.split(sep) if p]


def _join(prefix: str, parts: list[str], sep: str) -> str:
    if not parts:
        return prefix
    return prefix + ("" if prefix.endswith(sep) else sep) + sep.join(parts)


def _entry(text: object) -> MapEntry:
    bad = ConfigError(f"library.path_map: {text!r} is not MACHINE:THEIR_FOLDER=FOLDER_HERE (e.g. {EXAMPLE})")
    if not isinstance(text, str) or "\x00" in text:
        raise bad
    machine, colon, rest = text.partition(":")
    theirs, equals, ours = rest.partition("=")
    machine, theirs, ours = machine.strip(), theirs.strip(), ours.strip()
    if not (colon and equals and machine and theirs and ours) or "=" in machine:
        raise bad
    sep = _sep_of(theirs)
    if sep == "\\":  # Windows takes `S:/docs` for `S:\\docs`, and its keys are written with backslashes
        theirs = theirs.replace("/", "\\")
    if not (theirs.startswith(sep) or _WINDOWS.match(theirs)):
        raise ConfigError(f"library.path_map: {text!r}: {theirs!r} is not an absolute folder of {machine!r} "
                          f"(e.g. {EXAMPLE})")
    if not os.path.isabs(ours):
        raise ConfigError(f"library.path_map: {text!r}: {ours!r} is not an absolute folder here (e.g. {EXAMPLE})")
    return MapEntry(machine, _trimmed(theirs, sep), _trimmed(os.path.normpath(ours), os.sep), sep)


def parse_path_map(entries: Iterable[object]) -> tuple[MapEntry, ...]:
    """The entries of library.path_map, checked; ConfigError (one line, exit 2) names the first bad one."""
    out: list[MapEntry] = []
    for text in entries:
        e = _entry(text)
        if any(o.machine == e.machine and o.theirs == e.theirs for o in out):
            raise ConfigError(f"library.path_map: {e.machine}:{e.theirs} is mapped twice")
        out.append(e)
        if len(out) > MAX_ENTRIES:
            raise ConfigError(f"library.path_map: more than {MAX_ENTRIES} entries")
    return tuple(out)


class PathMap:
    """library.path_map as this machine (`machine`) reads it: another machine's keys to this desktop's and back.
    A key is a path, or a member's key (its container's path, two separators, the member's name): only the
    container's part is mapped."""

    def __init__(self, entries: Iterable[object], machine: str) -> None:
        parsed = parse_path_map(entries)
        self.machine = machine
        # Longest prefix first, so /mnt/share/docs=... wins over /mnt/share=... for a path under both.
        self.entries = sorted((e for e in parsed if e.machine != machine), key=lambda e: -len(e.theirs))
        self._here = sorted(self.entries, key=lambda e: -len(e.ours))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def to_local(self, machine: str, key: str) -> str:
        """How `machine`'s `key` is named on this desktop: mapped by the first entry it lies under, else as it is."""
        here = self.mounted(machine, key)
        return key if here is None else here

    def mounted(self, machine: str, key: str) -> Optional[str]:
        """Where `machine`'s `key` is on this desktop by the first entry it lies under; None when none maps it."""
        if machine == self.machine:
            return None
        for e in self.entries:
            if e.machine != machine:
                continue
            container, member = _split(key, e.sep)
            parts = _rest(container, e.theirs, e.sep)
            if parts is not None:
                local = _join(e.ours, parts, os.sep)
                if member is None:
                    return local
                return local + os.sep * 2 + member.replace(e.sep * 2, os.sep * 2)
        return None

    def unmatched(self, roots: Iterable[tuple[str, str]]) -> list[str]:
        """One line for each entry that maps none of `roots` ((machine, folder) of every machine's): a machine name
        no folder has (names are compared exactly, case and all) or a folder that is neither among that machine's
        folders nor holds or lies in one. Such an entry changes nothing, so it is easy to miss."""
        by_machine: dict[str, list[str]] = {}
        for machine, path in roots:
            by_machine.setdefault(machine, []).append(path)
        out = []
        for e in self.entries:
            theirs = by_machine.get(e.machine)
            if theirs and any(_rest(p, e.theirs, e.sep) is not None or _rest(e.theirs, p, e.sep) is not None
                              for p in theirs):
                continue
            known = (f"its folders: {', '.join(theirs)}" if theirs
                     else f"machines: {', '.join(sorted(by_machine)) or 'none yet'}")
            out.append(f"path_map entry '{e.machine}:{e.theirs}={e.ours}' matches no folder of machine "
                       f"'{e.machine}' ({known})")
        return out

    def to_theirs(self, key: str) -> list[tuple[str, str]]:
        """The (machine, key) pairs this desktop's `key` may stand for, by the entries whose FOLDER_HERE it lies
        under, longest first ([] when none)."""
        out = []
        for e in self._here:
            container, member = _split(key, os.sep)
            parts = _rest(container, e.ours, os.sep)
            if parts is None:
                continue
            theirs = _join(e.theirs, parts, e.sep)
            out.append((e.machine, theirs if member is None else theirs + e.sep * 2 + member.replace(os.sep * 2,
                                                                                                    e.sep * 2)))
        return out


def _split(key: str, sep: str) -> tuple[str, Optional[str]]:
    """(container, member) of a key written with `sep` (base/member_paths.split_member, for another machine's
    separator); a leading double separator (a POSIX `//` root, a UNC `\\\\server`) is not a member's."""
    i = key.find(sep * 2, 2 if sep == "\\" else 1)
    return (key, None) if i < 0 else (key[:i], key[i + 2:])
