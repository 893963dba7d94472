"""Indexed roots: whether one can be read right now, which root owns a path, which paths a root's scan covers.

Roots never nest: a folder added inside an indexed one is synced as part of it, and indexed folders inside a
new root move into it (`nested_inside`). Every "is this path under that folder" question goes through
ingest.fsnames.is_within.

A root that cannot be read (renamed away, an unplugged drive, an unmounted share) is kept with every
passage: losing a whole index because a drive was not plugged in is worse than showing stale hits marked
as unavailable. Only `remove` forgets a root.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from typing import TYPE_CHECKING, Optional, Sequence

from ...base.config.schema import DEFAULT_EXCLUDE
from ...base.errors import ConfigError
from ...ingest.exclude import in_scope  # the scan's rule, asked of one path (kept importable from here)
from ...base.member_paths import member_key, split_member
from ...base.stored_names import disk_path, stored_name
from ...ingest.fsnames import is_within

if TYPE_CHECKING:
    from ...base.config import ScanConfig
    from ...store import RootRow, Store

__all__ = ["missing_reason", "root_missing", "missing_advice", "readable_to_add", "refuse_missing_roots", "owning_root", "in_scope",
           "nested_inside", "paths_by_root", "outermost", "library_place", "places_to_add", "twin_roots", "linked_folders",
           "named_in_library"]


def missing_reason(path: str, has_files: bool, has_files_below: bool = False) -> Optional[str]:
    """Why the root at `path` cannot be synced now, or None when it can.

    `has_files_below`: the library holds files under `path/` (it was indexed as a folder). A folder that
    is there but completely empty while the library holds files of it is taken for an unmounted mount
    point (the two cannot be told apart): its files are kept until it has entries again or the user
    removes it. A folder replaced by a file, a FIFO or anything else that is not a folder is missing too:
    scanning it would drop every indexed file of the folder.
    """
    on_disk = disk_path(path)  # a root is stored as names are (base/stored_names.py)
    try:
        st = os.stat(on_disk)
    except FileNotFoundError:
        return "not found (renamed, deleted, or on a drive that is not connected)"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISREG(st.st_mode):
        if has_files_below:
            return "is a file now, not the folder that was indexed; its indexed files are kept"
        return None  # a single file as a root: the scan reads it (or says why not)
    if not stat.S_ISDIR(st.st_mode):  # a FIFO, socket or device: never read as a root (a FIFO would block)
        return "is not a folder or a regular file now; its indexed files are kept"
    try:
        with os.scandir(on_disk) as it:
            empty = next(it, None) is None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if empty and has_files:
        return "empty (not mounted?); its indexed files are kept"
    return None


def root_missing(store: Store, root: RootRow) -> Optional[str]:
    """missing_reason for an indexed root (a RootRow) of `store`."""
    return missing_reason(root.path, store.has_files(root.id), store.has_files_below(root.id, root.path))


def missing_advice(root: str) -> str:
    """What a person can do about an indexed folder that cannot be read, as every place that says it says it
    (status, index, watch, `index` of that folder): `moved` first, which keeps its meaning (a rename is the likely
    cause, and `remove` then `index` of the new place embeds every passage again), then `remove`. `index` once
    named `remove` alone, for a folder renamed Pictures -> Photos."""
    quoted = shlex.quote(root)  # pasted as it is: "/x/My Docs" unquoted moved the wrong folder, or none
    return (f"Moved? `searchapp moved {quoted} NEW` keeps its meaning (no embedding again); "
            f"`searchapp remove {quoted}` forgets it")


def readable_to_add(store: Store, root: str) -> None:
    """Raise ConfigError when `root` (absolute) cannot be added now: an indexed folder that cannot be read (its
    passages are kept) or no such file or folder. Both libraries' add_folder ask it first."""
    if os.path.exists(disk_path(root)):
        return
    if store.root_by_path(root) is not None:
        raise ConfigError(f"{root} is indexed but cannot be read now (renamed, or on a drive that is not "
                          f"connected); its passages are kept. {missing_advice(root)}")
    raise ConfigError(f"no such file or folder: {root}")


def _real(path: str) -> str:
    """The real path of `path` (stored as names are), every link on the way resolved, stored as names are."""
    return stored_name(os.path.realpath(disk_path(path)))


def library_place(path: str, roots: Sequence[str], *, new_as_typed: bool = False) -> str:
    """Where the library has, or would put, `path` (absolute, stored as names are), `roots` its folders. Links are
    resolved (decision 0192): a path whose real location an indexed folder holds is named under that folder (the
    innermost), however it was reached (`links/notes -> docs/notes` is `docs/notes`, part of `docs`, never a second
    root, nor a second name of each file in it); a path that a folder holds only by name (through a link out of
    it) stays as named, for that folder's scan to follow or refuse as it does; any other is a new folder, named by
    its real path (one folder, one name, whichever link it was first added by), or as typed (`new_as_typed`: a
    shared library, whose path map names another machine's folders by where this one mounts them)."""
    real = _real(path)
    reals = sorted(((_real(r), r) for r in roots), key=lambda pair: -len(pair[0]))
    for root_real, root in reals:
        if is_within(real, root_real):
            return root if real == root_real else os.path.join(root, os.path.relpath(real, root_real))
    return path if new_as_typed or owning_root(path, list(roots)) is not None else real


def named_in_library(key: str, roots: Sequence[str]) -> str:
    """An entry's `key` (key_of's: a file, or a member of one) as the library names it, when the path was typed
    through a link to a place an indexed folder holds (`explain links/notes/a.md` is `docs/notes/a.md`); else as it
    is. Asking only: a path no folder holds stays as typed (library_place would name a new folder)."""
    container, member = split_member(key)
    place = library_place(container, roots)
    if place == container or owning_root(place, list(roots)) is None:
        return key
    return place if member is None else member_key(place, member)


def linked_folders(folders: tuple[str, ...], roots: Sequence[str]) -> tuple[str, ...]:
    """`folders` (as `--in` or a query's in: gives them) and, after them, the place each names in the library where
    it was typed through a link (decision 0192, one file one path: `in:~/links/notes` searches `~/docs/notes`, whose
    files the library holds under that name only). Links are read only for a place no folder holds by its name:
    the usual `in:` costs no disk access, and a drive that stopped answering is not asked for it."""
    linked = []
    for folder in folders:
        place = stored_name(os.path.abspath(os.path.expanduser(folder)))  # as filters_of reads it
        if owning_root(place, list(roots)) is not None or any(is_within(r, place) for r in roots):
            continue
        named = library_place(place, roots)
        if named != place and owning_root(named, list(roots)) is not None:
            linked.append(named)
    return tuple(dict.fromkeys((*folders, *linked))) if linked else folders


def places_to_add(store: Store, paths: Sequence[str | os.PathLike[str]], *, new_as_typed: bool = False
                  ) -> tuple[list[str], list[str]]:
    """The folders or files `index PATH...` adds or syncs, as library_place names them (each checked by
    readable_to_add first, as typed), and a note for each one a link named otherwise. Both libraries' add_folders."""
    typed = list(dict.fromkeys(stored_name(os.path.abspath(os.path.expanduser(os.fspath(p)))) for p in paths))
    for path in typed:
        readable_to_add(store, path)
    known = [r.path for r in store.roots()]
    places = [library_place(path, known, new_as_typed=new_as_typed) for path in typed]
    notes = [f"{path} is {place} (reached through a link)" for path, place in zip(typed, places, strict=True)
             if place != path]
    return list(dict.fromkeys(places)), notes


def twin_roots(roots: Sequence[str]) -> list[str]:
    """A note for each of `roots` whose real location another one holds: a folder added through a link before
    decision 0192, whose files the library holds twice (and `duplicates` listed as copies of themselves)."""
    reals = {r: _real(r) for r in roots}
    notes = []
    for root, real in reals.items():
        other = next((o for o, o_real in reals.items() if o != root and is_within(real, o_real)
                      and (real != o_real or len(o) < len(root) or (len(o) == len(root) and o < root))), None)
        if other is not None:
            notes.append(f"{root} is {real} (reached through a link), which the indexed folder {other} holds too: "
                         f"its files are in the library twice; `searchapp remove {shlex.quote(root)}` forgets the "
                         "second copy")
    return notes


def refuse_missing_roots(store: Store, roots: Sequence[RootRow]) -> None:
    """Before a reindex of `roots`: raise SearchAppError when one cannot be read now. The desktop's reindex drops
    every passage first, and a shared one would leave that folder's files marked to be read again for ever."""
    from ...base.errors import SearchAppError

    missing = [r.path for r in roots if root_missing(store, r)]
    if missing:
        raise SearchAppError(f"cannot reindex while {', '.join(missing)} cannot be read (a reindex reads every file "
                             "again; its passages are kept meanwhile): reconnect it, or forget it with "
                             "`searchapp remove`")


def owning_root(path: str, roots: list[str]) -> Optional[str]:
    """The innermost of `roots` that `path` is, or lies under; None when there is none."""
    owners = [r for r in roots if is_within(path, r)]
    return max(owners, key=len) if owners else None


def nested_inside(outer: RootRow, roots: Sequence[RootRow], scan: ScanConfig) -> list[RootRow]:
    """The roots (RootRows) strictly inside `outer` that its scan reaches (not hidden, skipped or excluded)."""
    return [r for r in roots if r.id != outer.id and r.path != outer.path and is_within(r.path, outer.path)
            and in_scope(outer.path, r.path, scan.skip_dirs, scan.exclude)]


def absorb_nested(store: Store, outer: Optional[RootRow], scan: ScanConfig) -> None:
    """Indexed folders inside `outer` (a RootRow of `store`) that its scan reaches become part of it: their files
    move over with their passages and vectors, so nothing is embedded again. Ones its scan skips (hidden,
    skip_dirs, exclude) stay roots of their own. Either store (SQLite's or a shared library's)."""
    # Optional: both callers pass root_by_path of the root they have just added, never None then.
    assert outer is not None
    if missing_reason(outer.path, True) is not None:
        return  # its scan could not reach them now
    inner = nested_inside(outer, store.roots(), scan)
    if inner:
        with store.atomic():
            store.absorb_roots(outer.id, [r.id for r in inner])


def root_to_remove(store: Store, root: str) -> RootRow:
    """The RootRow of `store` that `remove` forgets for the path `root`; ConfigError (exit 2) naming what it is
    instead (a folder inside an indexed one, or not indexed). Either store."""
    row = store.root_by_path(root) or store.root_by_path(library_place(root, [r.path for r in store.roots()]))
    if row is not None:  # as typed, or through a link (`remove ~/Documents`, added as its real path: decision 0192)
        return row
    owner = owning_root(root, [r.path for r in store.roots()])
    if owner is not None:
        raise ConfigError(
            f"{root} is not an indexed folder of its own: it belongs to {owner} and is synced with it. "
            f"To leave it out, add it to `exclude` under [scan] in the config file (exclude = "
            f"[{', '.join(json.dumps(p) for p in (*DEFAULT_EXCLUDE, root))}]: a list written there replaces the "
            f"default one) and run `searchapp index`; `searchapp remove {owner}` forgets the whole folder")
    known = ", ".join(r.path for r in store.roots()) or "none"
    raise ConfigError(f"{root} is not an indexed folder (indexed: {known})")


def paths_by_root(paths: Sequence[str], roots: Sequence[RootRow]) -> list[tuple[RootRow, list[str]]]:
    """(root, its paths, stored as names are) for each root (RootRow) that owns one of `paths` (as on disk, or
    stored); the innermost root owns a path."""
    by_root: dict[int, list[str]] = {}
    for p in paths:
        p = stored_name(os.path.abspath(p))
        owners = [r for r in roots if is_within(p, r.path)]
        if owners:
            by_root.setdefault(max(owners, key=lambda r: len(r.path)).id, []).append(p)
    return [(r, by_root[r.id]) for r in roots if r.id in by_root]


def outermost(paths: Sequence[str]) -> list[str]:
    """Sorted `paths` without those inside another one of them (the outer one's scan covers them)."""
    scope = sorted(set(paths))
    return [p for i, p in enumerate(scope) if not any(is_within(p, q) for q in scope[:i])]
