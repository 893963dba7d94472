"""A folder this desktop adds that another machine of a shared library indexes already at another path: the same
share mounted elsewhere (/mnt/share there, /Volumes/share here) with no library.path_map entry saying so.

shared_paths.same_folder tells the very files at the same path, or at a mount the path map names. A tester's
desk-b indexed its own mount of desk-a's share (another path, no map): nothing was said, and every file was then in
the library twice. Told apart here before anything is read, by content: a sample of the files here whose bytes
are another machine's files at the same places under one folder of its (decision 0206).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Optional

if TYPE_CHECKING:
    from ..store.postgres.pg_store import PgStore

__all__ = ["mounted_elsewhere"]

SAMPLE = 20  # files of the folder here hashed (shared_paths.SAME_SAMPLE's number)
WALK_NAMES = 2000  # names looked at to choose them: the sample's spread, not a walk of a whole drive before a sync


def mounted_elsewhere(store: PgStore, root: str, max_bytes: int, skip_dirs: Collection[str] = ()) -> Optional[str]:
    """Why this machine should not add the folder `root`: most of a sample of its files (at least 3, and 4 in 5)
    are another machine's indexed files, the same bytes at the same places under one of its folders; None
    otherwise (a folder of other files, a few copies among them). `skip_dirs`: scan.skip_dirs, whose files the
    other machine's sync left out as this one's will."""
    # A library no other machine has a folder in (the first desk adding its folders) has nothing to compare with:
    # no walk, no file read (up to 160 MB on a network drive) before each of its adds
    roots = {(m, r.path) for m, r in store.all_roots() if m != store.machine}
    if not roots:
        return None
    sample = _sample(root, max_bytes, skip_dirs)
    if len(sample) < 3:
        return None
    theirs: dict[str, list[tuple[str, str]]] = {}
    for machine, path, sha in store.others_with_content(sorted({sha for _, sha in sample})):
        theirs.setdefault(sha, []).append((machine, path))
    votes: Counter[tuple[str, str]] = Counter()
    for rel, sha in sample:
        tail = "/" + rel
        votes.update({(machine, path[:-len(tail)]) for machine, path in theirs.get(sha, []) if path.endswith(tail)})
    if not votes:
        return None
    (machine, folder), alike = votes.most_common(1)[0]
    if 5 * alike < 4 * len(sample):
        return None
    entry = _map_entry(roots, machine, folder, root)
    map_entry = f"; to open them here, add {entry} to library.path_map in config.toml" if entry else ""
    return (f"{machine} indexes these files already, as {folder} (this folder mounted elsewhere?): {alike} of the "
            f"{len(sample)} files here looked at are its very files at the same places; they are searchable here "
            f"as {machine}'s{map_entry}")


def _map_entry(roots: Collection[tuple[str, str]], machine: str, folder: str, root: str) -> str:
    """The library.path_map entry that opens `machine`'s files of `folder` at `root`: the map names one of its
    folders (path_map.py), `folder` itself or the nearest above it, at the place here `root` says it is (a
    subfolder of its share added here: `root` ends as `folder` does below it); "" where none is."""
    for m, theirs in sorted(roots, key=lambda r: -len(r[1])):
        below = folder[len(theirs):]
        if m == machine and folder.startswith(theirs) and (not below or below.startswith("/")) \
                and root.endswith(below) and len(root) > len(below):
            return f'"{machine}:{theirs}={root[:len(root) - len(below)]}"'
    return ""


def _sample(root: str, max_bytes: int, skip_dirs: Collection[str]) -> list[tuple[str, str]]:
    """(path relative to `root` with "/", sha256) of up to SAMPLE of its files of 1..max_bytes bytes, spread over
    the first WALK_NAMES names a walk finds by a hash of their names: none hidden or in a skipped folder, as a
    sync's scan leaves them out (ingest/exclude.in_scope's rule); no links followed, no file unreadable."""
    names: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip_dirs)
        names += [os.path.relpath(os.path.join(folder, f), root) for f in sorted(files) if not f.startswith(".")]
        if len(names) >= WALK_NAMES:
            break
    # a spread, not a secret
    names.sort(key=lambda rel: hashlib.md5(rel.encode("utf-8", "surrogateescape"), usedforsecurity=False).digest())
    out = []
    for rel in names:
        sha = _hashed(os.path.join(root, rel), max_bytes)
        if sha is not None:
            out.append((rel.replace(os.sep, "/"), sha))
            if len(out) == SAMPLE:
                break
    return out


def _hashed(path: str, max_bytes: int) -> Optional[str]:
    from ..base.hashing import file_sha256

    try:
        if os.path.islink(path) or not 0 < os.stat(path).st_size <= max_bytes:
            return None
        return file_sha256(Path(path))
    except OSError:
        return None
