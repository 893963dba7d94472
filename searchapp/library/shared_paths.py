"""library.path_map applied to a shared library (decision 0134): its answers name another machine's files at this
desktop's mount point, and a path this desktop names finds another machine's entry.

The search, similar and duplicates run on the stored keys (each machine's own paths) as they always do; only
what they hand back is renamed here, after they ran, so nothing inside them looks a mapped path up again. A hit
keeps the machine that indexed it and its path there (`Hit.machine`, `Hit.indexed_path`). Syncs never come
here: a machine syncs its own folders, by its own paths.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterator, Optional, cast

from ..base.member_paths import container_of, display_path, key_of, split_member
from ..base.path_map import PathMap
from ..store.rows import FileRow, RootRow

if TYPE_CHECKING:
    from ..base.config import Config
    from ..base.types import Hit
    from ..store import Store
    from ..store.postgres.pg_store import PgStore
    from .query.filters import SearchFilters
    from .search.duplicates import DuplicateReport

__all__ = ["held_elsewhere", "same_folder", "local_hits", "local_copies", "local_duplicates", "mark_duplicates", "local_ledger", "resolve", "explain_shared", "mapped_folders",
           "mapped_filters", "mounted_roots"]


def local_hits(store: PgStore, paths: PathMap, hits: list[Hit]) -> None:
    """Name each hit (and its other passages and copies) as this desktop does; say who indexed it."""
    every = [h for hit in hits for h in (hit, *hit.more)]
    origins = store.chunk_origins([h.chunk_id for h in every]) if every else {}
    for h in every:
        machine, key = origins.get(h.chunk_id, (store.machine, h.path))
        h.machine, h.indexed_path, h.path = machine, key, paths.to_local(machine, key)
    for hit in hits:
        hit.copies = local_copies(store, paths, hit.copies)
        near = local_copies(store, paths, [n.path for n in hit.near_copies])
        for n, local in zip(hit.near_copies, near, strict=True):
            n.path = local


def local_copies(store: PgStore, paths: PathMap, keys: list[str]) -> list[str]:
    """Stored paths of copies (a hit's, the source's of Similar files) as this desktop names them."""
    if not keys or not paths:
        return keys
    holders = store.path_machines(keys)
    # A copy at a path this machine holds is its own; else it is named by the (first) machine holding it.
    return [p if store.machine in holders.get(p, [store.machine]) else paths.to_local(holders[p][0], p) for p in keys]


class _LocalPaths:
    """A PgStore whose file_hashes and file_paths (what `duplicates` reports by) name files as this desktop does."""

    def __init__(self, store: PgStore, paths: PathMap) -> None:
        self._store, self._paths = store, paths
        self._machines: Optional[dict[int, str]] = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _local(self, file_id: int, path: str) -> str:
        if self._machines is None:
            self._machines = self._store.file_machines()
        return self._paths.to_local(self._machines.get(file_id, self._store.machine), path)

    def file_hashes(self) -> list[tuple[int, str, str]]:
        return sorted(((i, self._local(i, p), h) for i, p, h in self._store.file_hashes()), key=lambda t: t[1])

    def file_paths(self) -> dict[int, str]:
        return {i: self._local(i, p) for i, p in self._store.file_paths().items()}


def local_duplicates(store: PgStore, paths: PathMap) -> Any:
    """The store `find_duplicates` reads: `store` itself without a map."""
    return _LocalPaths(store, paths) if paths else store


def mark_duplicates(store: PgStore, paths: PathMap, rep: DuplicateReport, roots: Callable[[], list[str]]) -> None:
    """Say whose each file of `rep` (named as this desktop names it) is, when another machine's, and why one cannot
    be read here: as a search's and Similar's rows are marked (pipeline.mark_available, local_hits)."""
    from .search.availability import why_unavailable

    wanted = set(rep.paths())
    if not wanted:
        return
    machines = store.file_machines()
    whose: dict[str, str] = {}
    for fid, key in store.file_paths().items():
        machine = machines.get(fid, store.machine)
        local = paths.to_local(machine, key)
        if local in wanted and whose.get(local) != store.machine:  # one this machine holds too is its own
            whose[local] = machine
    rep.whose = {p: m for p, m in whose.items() if m != store.machine}
    rep.unavailable = {p: why for p, why in why_unavailable(rep.paths(), roots).items() if why}


def local_ledger(store: PgStore, paths: PathMap, rows: list[tuple[str, FileRow]]) -> list[tuple[str, FileRow]]:
    if not paths or not rows:
        return rows
    machines = store.file_machines([r.id for _, r in rows])
    return [(s, dataclasses.replace(r, path=paths.to_local(machines.get(r.id, store.machine), r.path)))
            for s, r in rows]


def resolve(store: PgStore, paths: PathMap, key: str) -> Optional[tuple[str, FileRow]]:
    """(machine, entry) that this desktop's `key` names: this machine's own entry there first, else the entry of
    another machine whose folder is mounted there (library.path_map), else another machine's entry at the very
    same path that no map entry moves (a share mounted at one place on every desktop: its hits show that path,
    so `explain` and `similar` of what a search showed find it); None when none holds one."""
    for machine, theirs in [(store.machine, key), *paths.to_theirs(key)]:
        row = store.entry_of(machine, theirs)
        if row is not None:
            return machine, row
    from .sync.roots import owning_root

    if owning_root(container_of(key), [r.path for r in store.roots()]) is not None:
        return None  # under a folder of this machine's: its own answer (excluded, not synced), never another's file
    for machine in store.path_machines([key]).get(key, []):
        row = store.entry_of(machine, key) if paths.mounted(machine, key) is None else None
        if row is not None:
            return machine, row
    return None


def _covering(store: PgStore, paths: PathMap, root: str) -> Iterator[tuple[str, RootRow, str]]:
    """(machine, its folder, where that is here) of the other machines' folders that are `root`, hold it or lie
    inside it, as this desktop names them (the path map)."""
    below = root.rstrip(os.sep) + os.sep
    for machine, theirs in store.all_roots():
        here = paths.to_local(machine, theirs.path)
        if machine != store.machine and (here == root or root.startswith(here.rstrip(os.sep) + os.sep)
                                         or here.startswith(below)):
            yield machine, theirs, here


def held_elsewhere(store: PgStore, paths: PathMap, root: str) -> list[str]:
    """Notes for a folder this machine adds where another machine's folder already is, as this desktop names it
    (the same folder, one around it or one inside it): its files would be in the library twice, each hit and each
    exact copy listed once per machine, with nothing to tell them apart."""
    notes = []
    for machine, theirs, here in _covering(store, paths, root):
        if here != theirs.path:  # the path map says it is that folder, mounted here
            notes.append(f"{machine} indexes {here} (its {theirs.path}) already: those files are now in the library "
                         f"twice, once per machine (`searchapp remove {root}` takes this machine's copy out)")
        else:  # the same path: a shared drive mounted alike, or each desktop's own ~/Documents (decision 0125)
            notes.append(f"{machine} indexes {here} too: if it is the same shared folder, its files are now in the "
                         "library twice, once per machine; if each computer has its own, nothing is wrong")
    return notes


SAME_SAMPLE = 20  # files of another machine's folder compared with the ones here to tell whether it is this folder
SAMPLE_MAX_BYTES = 8 * 2**20  # each read whole for its hash: 160 MB at most, not 20 files of scan.max_file_mb


def same_folder(store: PgStore, paths: PathMap, root: str, max_bytes: int, skip_dirs: Collection[str] = ()
                ) -> Optional[str]:
    """Why this machine should not add `root` (HeldElsewhere says it): another machine indexes it already, the very files (its folder
    mounted here by the path map, or at the same path with the same bytes in most of up to SAME_SAMPLE of its
    files); None where no other machine's folder covers it or the files differ (each desktop's own ~/Documents,
    decision 0125). Said before anything is read: a tester's desk indexed another's folder, every file then twice
    in the library, and was told so afterwards."""
    for machine, theirs, here in _covering(store, paths, root):
        their_part = theirs.path + root[len(here):] if root.startswith(here) else theirs.path
        sample = store.some_files(theirs.id, their_part, SAME_SAMPLE, min(max_bytes, SAMPLE_MAX_BYTES))
        alike = sum(1 for path, size, sha in sample if _same_bytes(paths.to_local(machine, path), size, sha, max_bytes))
        mapped = here != theirs.path
        if mapped or (sample and alike >= min(3, len(sample)) and 5 * alike >= 4 * len(sample)):
            how = f" (its {theirs.path}, mounted here)" if mapped else ""
            if os.path.isfile(root):  # one file, edited here perhaps: "1 of the 1 of its files … are" said nothing
                return (f"{root} is in {machine}'s folder {here}{how}: {machine}'s sync reads it, a change made here "
                        f"too; it is searchable here as {machine}'s")
            seen = f": {alike} of the {len(sample)} of its files looked at are the very files here" if sample else ""
            return f"{machine} indexes {here}{how} already{seen}; they are searchable here as {machine}'s"
    if os.path.isdir(root):  # the same share at another path, no map entry saying so (decision 0206)
        from .shared_mounts import mounted_elsewhere

        return mounted_elsewhere(store, root, min(max_bytes, SAMPLE_MAX_BYTES), skip_dirs)
    return None


def _same_bytes(path: str, size: int, sha: str, max_bytes: int) -> bool:
    """Whether the file at `path` here has `size` bytes and the hash `sha` (a file over `max_bytes` is not read)."""
    from pathlib import Path

    from ..base.hashing import file_sha256

    try:
        return os.stat(path).st_size == size <= max_bytes and file_sha256(Path(path)) == sha
    except OSError:
        return False


def mounted_roots(store: PgStore, paths: PathMap) -> list[tuple[str, str, str]]:
    """(machine, its folder, where it is mounted here) of every other machine's folder the map reaches."""
    out = []
    for machine, root in store.all_roots():
        here = paths.mounted(machine, root.path)
        if here is not None:
            out.append((machine, root.path, here))
    return out


def explain_shared(config: Config, store: PgStore, paths: PathMap, path: str) -> dict[str, Any]:
    """`explain PATH` on a shared library: this machine's entry as the desktop explains it; another machine's,
    found by the path map, with its state and text, and who indexed it where."""
    from ..store.ledger import entry_state
    from .report.explain import entry_fields, explain

    key = key_of(path)
    found = resolve(store, paths, key)
    as_store = cast("Store", store)  # a PgStore answers what explain and the ledger ask (pg_store.py)
    if found is None or found[0] == store.machine:
        out = explain(config, as_store, path, owner=store.machine)
        if out["known"]:
            out.update(machine=store.machine, indexed_path=out["path"])
        elif out["state"] == "outside":
            _not_synced_there(store, paths, key, out)
        return out
    machine, row = found
    container, member = split_member(key)
    out = {"path": key, "shown_as": display_path(key), "container": container if member else None,
           "member": member, "folder": _folder(store, paths, machine, key), "state": None, "reason": None,
           "rule": None, "kind": None, "passages": 0, "vectors": 0, "text": "", "date": None, "known": False,
           "machine": machine, "indexed_path": row.path}
    state = entry_state(as_store, row.path, machine)
    if state is not None:
        out.update(entry_fields(as_store, state))
    return out


def _folder(store: PgStore, paths: PathMap, machine: str, key: str) -> Optional[str]:
    """The folder of `machine` that holds this desktop's `key`, as named here (the innermost): where the map
    mounts it, else its own path (resolve's same-path case)."""
    from .sync.roots import owning_root

    here = [paths.to_local(m, root.path) for m, root in store.all_roots() if m == machine]
    return owning_root(container_of(key), here)


def _not_synced_there(store: PgStore, paths: PathMap, key: str, out: dict[str, Any]) -> None:
    """A path under another machine's folder (mounted here by the map, or at the very same path where no map entry
    moves that folder elsewhere: a share mounted alike everywhere) that holds no entry: that machine's sync reads
    it. It was said as "outside … `searchapp index FOLDER` adds one"; a newcomer did so from here, and every file
    of that folder was in the library twice."""
    from .sync.roots import owning_root

    found = [(machine, theirs, _folder(store, paths, machine, key)) for machine, theirs in paths.to_theirs(key)]
    found += [(machine, key, root.path) for machine, root in store.all_roots()
              if machine != store.machine and paths.mounted(machine, root.path) is None
              and owning_root(container_of(key), [root.path]) is not None]
    for machine, theirs, folder in found:
        if folder is None:
            continue
        there = os.path.lexists(container_of(key))
        out.update(folder=folder, machine=machine, indexed_path=theirs, state="not_synced" if there else "missing",
                   reason=(f"not indexed yet: {machine}'s sync reads it (an `index` of its folder here would put its "
                           "files in the library twice)" if there else f"no such file (under {machine}'s folder)"))
        return


def mapped_folders(folders: tuple[str, ...], paths: PathMap) -> tuple[str, ...]:
    """`folders` (absolute, or as a query's in: types them) and, after them, the other machines' folders that
    those named at this desktop's mount points map to; `folders` itself without a map."""
    if not folders or not paths:
        return folders
    theirs = [t for f in folders for _, t in paths.to_theirs(os.path.abspath(os.path.expanduser(f)))]
    return tuple(dict.fromkeys((*folders, *theirs)))


def mapped_filters(filters: Optional[SearchFilters], paths: PathMap) -> Optional[SearchFilters]:
    """`--in` folders named at this desktop's mount points also cover the other machines' folders they map to."""
    if filters is None or not filters.folders or not paths:
        return filters
    return dataclasses.replace(filters, folders=mapped_folders(filters.folders, paths))
