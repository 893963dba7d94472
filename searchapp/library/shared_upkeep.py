"""Remove with Undo, and reindex, on a shared library (decision 0135): the desktop's `remove`/`undo` and `reindex`
under the shared rules. A machine acts on its own folders only (an Undo finds its own machine's removal, never
another's; a reindex reads this machine's folders again); each holds the writer lock of the folders it writes
(decision 0125); each change is one transaction; a role that may not write is refused in one line before anything.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Optional, Protocol

from ..base.errors import ConfigError, ModelMismatchError, SearchAppError, StoreError
from ..base.member_paths import on_disk
from ..base.stored_names import stored_name
from ..store.postgres import pg_removed, pg_reread
from ..store.rows import RootRow
from .resources.undo_file import UNDO_SECONDS
from .sync.roots import refuse_missing_roots

if TYPE_CHECKING:
    from ..base.path_map import PathMap
    from ..base.progress import CancelToken, ProgressFn
    from ..store.db import Store
    from ..store.postgres.pg_store import PgStore
    from .resources.model_set import ModelSet
    from .sync.contract import SyncReport

__all__ = ["UNDO_SECONDS", "remove_folder", "undo_remove", "reindex", "refuse_read_only"]

UNDO_SCHEMA = 5  # the first schema with the removed_* tables (schema.py)


class SharedLibrary(Protocol):
    """What the upkeep asks of the shared library (library/shared.SharedLibrary, which calls it): declared here,
    not imported, so the two modules do not import each other."""

    read_only: bool
    store: PgStore
    paths: PathMap
    _as_store: Store
    models: ModelSet

    def _writing(self, roots: list[RootRow], check_model: bool = True) -> AbstractContextManager[None]: ...

    def _sync(self, paths: Optional[list[str]], progress: Optional[ProgressFn], cancel: Optional[CancelToken],
              embed: bool) -> SyncReport: ...


def refuse_read_only(lib: SharedLibrary, what: str) -> None:
    if lib.read_only:
        raise StoreError(f"this database role may not write the shared library {lib.store.path} (searches work; "
                         f"{what} needs write rights); nothing was changed")


def remove_folder(lib: SharedLibrary, path: str, undoable: bool) -> int:
    """Forget one of this machine's folders in one transaction; `undoable`: its rows are kept for `undo_remove`
    (a library of an older schema is brought up to date first: a Remove is a write). The files removed."""
    from .sync.roots import root_to_remove

    refuse_read_only(lib, "remove")
    folder = stored_name(os.path.abspath(os.path.expanduser(path)))  # as names are stored (decision 0179)
    if lib.store.root_by_path(folder) is None:  # this machine's own folder of that name comes first
        refuse_others(lib, folder, "removes")
    row = root_to_remove(lib._as_store, folder)
    if undoable and lib.store.schema_version < UNDO_SCHEMA:
        lib.store.upgrade()
    with lib._writing([row], check_model=False):
        n_files = on_disk(lib.store.files_of_root(row.id))
        with lib.store.atomic():
            if lib.store.schema_version >= UNDO_SCHEMA:
                pg_removed.drop_expired(lib.store, UNDO_SECONDS)
                if undoable:
                    pg_removed.keep_removal(lib.store, row.id)
                else:
                    pg_removed.drop_removal(lib.store)  # an older Remove's rows: gone for good now
            lib.store.delete_root(row.id)
            lib.store.bump_generation()
    return n_files


def refuse_others(lib: SharedLibrary, folder: str, does: str) -> None:
    """Another machine's folder (by its path there, or where library.path_map mounts it here) is that machine's to
    remove or move (`does`: "removes", "moves"): said so, rather than "not an indexed folder", which reads as if it
    were not in the library."""
    mounted = set(lib.paths.to_theirs(folder))  # (machine, its path) pairs the map reads `folder` as
    for machine, root in lib.store.all_roots():
        if machine != lib.store.machine and (root.path == folder or (machine, root.path) in mounted):
            raise ConfigError(f"{folder}: that folder is {machine}'s; only {machine} {does} it (nothing was changed)")


def undo_remove(lib: SharedLibrary) -> tuple[str, int]:
    """Put back this machine's folder its last Remove took out, within UNDO_SECONDS: (path, files), as it was. One
    line (SearchAppError, exit 1) when this machine kept none (another machine's removal is that machine's), its
    minute has passed, or the folder or one of its files was indexed again since; the kept rows are then dropped."""
    refuse_read_only(lib, "undo")
    store = lib.store
    none = SearchAppError(f"nothing to undo: no folder of this machine ({store.machine}) was removed from the "
                          "shared library in the last minute")
    if store.schema_version < UNDO_SCHEMA:
        raise none
    kept = pg_removed.kept_removal(store)
    if kept is None:
        with store.atomic():
            pg_removed.drop_expired(store, UNDO_SECONDS)  # decision 0135: any machine's Undo forgets expired text
        raise none
    with lib._writing([RootRow(kept.root_id, kept.path, kept.added_at, kept.last_sync)], check_model=False):
        with store.atomic():
            kept = pg_removed.kept_removal(store, lock=True)  # read again under its lock: another Undo took it?
            # Every machine's expired removal goes; this machine's own, read above, is still told "too late".
            pg_removed.drop_expired(store, UNDO_SECONDS)
            problem = None if kept is None else _why_not(store, kept)
            if kept is not None and problem is None:
                n = pg_removed.restore_removal(store, kept)
                store.bump_generation()
                return kept.path, n
            if kept is not None:
                pg_removed.drop_removal(store)  # refused for good: one Undo per Remove
    if kept is None:
        raise none
    raise SearchAppError(f"{problem}; `searchapp index {kept.path}` adds it again")


def forget_removed(lib: SharedLibrary) -> None:
    """Drop this machine's kept removal now (the window's Undo has expired), not at its next Remove."""
    store = lib.store
    if lib.read_only or store.schema_version < UNDO_SCHEMA:
        return
    with store.atomic():
        pg_removed.drop_removal(store)


def _why_not(store: PgStore, kept: pg_removed.KeptRemoval) -> Optional[str]:
    if kept.age_s > UNDO_SECONDS:
        return f"too late to undo the remove of {kept.path} (Undo lasts {UNDO_SECONDS:.0f} s)"
    now = store.get_meta("model_fingerprint")
    # Even with no passage left: a sync of another desktop names its model on an empty library, and the kept
    # vectors are the old model's.
    if kept.model_fingerprint and now and now != kept.model_fingerprint:
        return f"cannot undo: the shared library's model changed since {kept.path} was removed"
    if pg_removed.taken_since(store, kept):
        return f"cannot undo: {kept.path} or a file in it was indexed again since it was removed"
    return None


def reindex(lib: SharedLibrary, progress: Optional[ProgressFn], cancel: Optional[CancelToken], embed: bool
            ) -> SyncReport:
    """Read every file of this machine's folders again, with the library's model and chunking: the sync's
    report, its `resumed` the files a reindex begun earlier still had to read when this one went on with it."""
    refuse_read_only(lib, "reindex")
    store = lib.store
    roots = store.roots()
    if not roots:
        raise SearchAppError(f"nothing to reindex: this machine ({store.machine}) has no folder in the shared "
                             "library")
    refuse_missing_roots(lib._as_store, roots)
    try:
        with lib._writing(roots):
            resumed = pg_reread.files_left(store) if pg_reread.under_way(store) is not None else None
            if resumed is None:
                with store.atomic():
                    pg_reread.mark_all(store)
            rep = lib._sync(None, progress, cancel, embed)
            if not rep.missing_roots:
                with store.atomic():
                    pg_reread.finished(store)
            rep.resumed = resumed
            return rep
    except ModelMismatchError:  # its advice (run `searchapp reindex`) is what was just refused: said anew
        from ..models.identity import SET_BACK, built_with, reindex_reasons

        reasons = reindex_reasons(store.meta(), lib.models.expected_meta())
        if not reasons:
            raise
        raise ModelMismatchError(f"{built_with(reasons)}: a shared library keeps one model and chunking for every "
                                 f"machine's folders, and reindexing it with other ones is not there yet; nothing "
                                 f"was changed: {SET_BACK}") from None
