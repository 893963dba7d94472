"""An indexed folder renamed or moved on disk (~/Documents -> ~/Docs, a drive mounted elsewhere) follows to its new
place without embedding its passages again: `searchapp moved OLD NEW` and the window's Moved… (decision 0157).

The order is the whole point. NEW is indexed while OLD is still in the library, so each of NEW's passages finds the
stored vector of the very same model input and reuses it (sync/batches.Pending.hashes); only when that sync has
completed is OLD removed, the usual way (kept for Undo). Removed first, OLD's vectors would be gone and every
passage embedded again: hours on an ordinary laptop for a big folder. A sync that stops (Ctrl+C, Cancel, an error)
leaves OLD in the library untouched; what NEW got so far stays, and the same move again goes on from there.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Protocol, cast

from ...base.errors import ConfigError, SearchAppError
from ...base.stored_names import disk_path, stored_name
from ...base.plural import scanned_counts
from ...ingest.exclude import Excluder
from ...ingest.fsnames import is_within
from ..resources.undo_file import Rewrite
from ..resources.undo_file import (MoveUndo, forget_move_begun, move_was_begun, note_move_begun, remember_move,
                                   remove_undoable)
from .roots import library_place, linked_folders, owning_root

if TYPE_CHECKING:
    from ...base.config import Config
    from ...base.progress import CancelToken, ProgressFn
    from .contract import SyncReport

__all__ = ["Moved", "MoveUndone", "MovingLibrary", "check_move", "follow_move", "undo_move"]

log = logging.getLogger(__name__)


class MovingLibrary(Protocol):
    """What a move asks of the open library (Library, or a SharedLibrary for this machine's folders)."""

    @property
    def config(self) -> Config: ...

    def roots(self) -> list[str]: ...

    def add_folder(self, path: str, progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None, *,
                   embed: bool = True) -> SyncReport: ...

    def remove_folder(self, path: str, *, undoable: bool = False) -> int: ...

    def sync_changed(self, changed: list[str], progress: Optional[ProgressFn] = None,
                     cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport: ...


@dataclass
class Moved:
    """What a move did: OLD's files forgotten (`removed`), NEW's sync (`report`), and what a person is told."""

    old: str
    new: str
    report: SyncReport
    removed: int
    no_undo: Optional[str] = None  # why OLD's removal cannot be undone (it is removed all the same), or None
    notes: list[str] = field(default_factory=list)
    added: bool = False  # NEW became a folder of the library by this move (an Undo of the move takes it out again)
    saved: list[Rewrite] = field(default_factory=list)  # the saved searches whose in: followed (decision 0196)

    def undo(self) -> MoveUndo:
        """What an Undo of this move does beside putting OLD back (the window keeps it with its offer)."""
        return MoveUndo(self.new if self.added else None, list(self.saved))

    def saved_lines(self, arrow: str = "->") -> list[str]:
        """'saved search Ducks: volcano in:/a/Documents -> volcano in:/a/Docs', one a saved search rewritten."""
        return [f"saved search {r.name}: {r.before} {arrow} {r.after}" for r in self.saved]

    def saved_note(self) -> Optional[str]:
        """'2 saved searches follow it (Ducks, Roof)': the window's status line, one line for them all."""
        n = len(self.saved)
        if not n:
            return None
        return (f"{n} saved search{'es' if n != 1 else ''} follow{'s' if n == 1 else ''} it "
                f"({', '.join(r.name for r in self.saved)})")

    def summary(self) -> str:
        """"20 files, 0 passages embedded (meaning reused)": the line that says the move cost no embedding."""
        rep = self.report
        embedded = rep.chunks_embedded
        how = ("meaning reused" if embedded == 0 else
               "the rest reused" if rep.chunks_added > embedded else "none could be reused")
        # the files and, apart, the items in archives and mail (decision 0163), as status counts them
        return (f"{scanned_counts(rep.scanned, rep.members, grouped=True)}, {embedded:,} "
                f"passage{'s' if embedded != 1 else ''} embedded ({how})")


def _absolute(path: str) -> str:
    """`path` made absolute and stored as names are (base/stored_names.py)."""
    return stored_name(os.path.abspath(os.path.expanduser(path)))


def check_move(lib: MovingLibrary, old: str, new: str) -> tuple[str, str]:
    """(OLD, NEW) made absolute, or ConfigError (exit 2) saying why this move cannot be done, before anything is
    written: OLD is not one of the library's folders; NEW does not exist, is OLD, lies inside OLD, holds OLD, or is
    an empty folder. NEW already a folder of the library is allowed: a move stopped halfway goes on that way; so is
    NEW inside another folder of the library (a drive's folder moved into the indexed home): that part of it is
    synced instead of NEW added."""
    refuse = getattr(lib, "refuse_read_only", None)  # a desktop library on a read-only disk: said as a move
    if refuse is not None:
        refuse("moving a folder")
    roots = lib.roots()
    # typed through a link, each is where the library has or puts it, as `index` names a folder (decision 0192): OLD
    # the folder of the library it names, NEW its real place (as typed on a shared library, as its add_folder has it)
    shared = getattr(lib, "refuse_others", None) is not None
    old, new = _absolute(old), _absolute(new)
    linked = library_place(old, roots)
    old = linked if linked in roots else old
    new = library_place(new, roots, new_as_typed=shared) if os.path.exists(disk_path(new)) else new
    if old not in roots:
        owner = owning_root(old, roots)
        if owner is not None:
            raise ConfigError(f"{old} is not a folder of the library of its own: it belongs to {owner}; "
                              f"`searchapp moved {owner} NEW` moves that folder")
        others = getattr(lib, "refuse_others", None)  # a shared library: another machine's folder is its to move
        if others is not None:
            others(old, "moves")
        raise ConfigError(f"{old} is not a folder of the library (its folders: {', '.join(roots) or 'none'})")
    if new == old:
        raise ConfigError(f"{new} is the folder's own place: nothing to move")
    if not os.path.exists(disk_path(new)):
        raise ConfigError(f"no such folder: {new} (where is {os.path.basename(old) or old} now?)")
    owner = owning_root(new, [r for r in roots if r != new])
    if owner == old:  # OLD is still there, and removing it would take NEW's files with it
        raise ConfigError(f"{new} is inside {old}: removing {old} would remove it too; choose a place outside it")
    if is_within(old, new):
        raise ConfigError(f"{new} holds {old}, so it is not where {old} went: adding {new} to the library indexes "
                          "it with the indexed folders inside it")
    if _empty_folder(new):  # followed there, OLD would be removed with nothing in its place: its meaning lost
        raise ConfigError(f"{new} is empty (a drive not mounted there?): nothing of {old} is there to follow; "
                          f"{old} is kept as it is")
    return old, new


def _empty_folder(path: str) -> bool:
    """Whether `path` is a folder with nothing in it (an unplugged drive's mount point often is). One that cannot be
    listed is not called empty here: the sync says why it cannot be read."""
    try:
        with os.scandir(disk_path(path)) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _exclude_note(config: Config, old: str, new: str) -> Optional[str]:
    """Exclusions written for paths under OLD do not cover NEW (the only settings that name a folder: the roots
    table holds none); said, so that a person writes them for NEW."""
    under = [p for p in Excluder(config.scan.exclude).paths if is_within(p, old)]
    if not under:
        return None
    return (f"scan.exclude leaves out {', '.join(under)} under {old}; it does not cover {new}: write those paths "
            "for the new place in the config file, then `searchapp index`")


def follow_move(lib: MovingLibrary, old: str, new: str, progress: Optional[ProgressFn] = None,
                cancel: Optional[CancelToken] = None, *, undo_file: bool = True) -> Moved:
    """Index NEW with OLD still in the library (its vectors reused), then remove OLD as Remove does. `undo_file`:
    the removal is kept in the data dir's undo file for `searchapp undo` (the command line); False: the library
    keeps it for this process's undo_remove (the window's Undo). Cancelled, or any error in NEW's sync, leaves
    OLD in the library untouched."""
    old, new = check_move(lib, old, new)
    roots = lib.roots()
    data_dir = lib.config.data_dir
    inside = owning_root(new, [r for r in roots if r != new]) is not None
    # NEW is the move's to take out again on undo only when it held no folder of the library: adding it took such
    # a folder in (roots merge, sync/roots.absorb_nested), and taking NEW out took that folder out with it. A try
    # stopped halfway left NEW in the library: the note says it was this move's.
    added = not inside and new not in roots and not any(is_within(r, new) for r in roots)
    if added:
        note_move_begun(data_dir, old, new)
    else:
        added = new in roots and move_was_begun(data_dir, old, new)
    if inside:
        # inside an indexed folder: its files are that folder's, read by a sync of that part of it (nothing of
        # them may have been read yet, or a sync meanwhile read them with OLD there: reused either way)
        rep = lib.sync_changed([new], progress, cancel)
        if not rep.scanned:  # left out by the [scan] rules (a hidden or skipped folder): nothing followed OLD
            raise SearchAppError(f"nothing under {new} is indexed (its folder's [scan] rules leave it out: "
                                 f"`searchapp explain {new}` says why); {old} is kept in the library")
    else:
        rep = lib.add_folder(new, progress, cancel)  # Cancelled propagates: OLD is not touched
    if rep.missing_roots:
        raise SearchAppError(f"{new} could not be read ({rep.missing_roots[0][1]}); {old} is kept in the library")
    forget_move_begun(data_dir, new)
    if undo_file:
        removed, no_undo = remove_undoable(lib, old)
    else:
        removed, no_undo = lib.remove_folder(old, undoable=True), None
    # the move is done: the saved searches follow it now, and never before (a stopped move left OLD as it was)
    moved = Moved(old, new, rep, removed, no_undo, added=added, saved=_saved_searches_follow(lib, old, new))
    if undo_file and no_undo is None and moved.undo():  # `undo` undoes the move: NEW out, the saved searches back
        remember_move(data_dir, old, moved.undo())
    note = _exclude_note(lib.config, old, new)
    moved.notes += [note] if note else []
    return moved


def _saved_searches_follow(lib: MovingLibrary, old: str, new: str) -> list[Rewrite]:
    """The saved searches follow the move (SavedSearches.follow_move): their in: places, and the files they had
    seen, or every file of the folder read as new (a newcomer's "roof (2 new)" after Moved…, nothing new in it).
    Never fails the move: it is done."""
    from ..query.saved import SavedSearches

    try:
        # an in: typed through a link (~/link-to-docs/Work) is where the search looks (decision 0192): OLD, taken
        # out by the move just now, is counted among the folders for the link to land in it
        roots = [*lib.roots(), old]

        def place_of(place: str) -> str:
            return linked_folders((place,), roots)[-1]

        # a Library or SharedLibrary: SearchingLibrary
        return SavedSearches(cast(Any, lib)).follow_move(old, new, place_of)
    except SearchAppError as exc:  # a searches file that cannot be written: its counts are off, nothing lost
        log.warning("saved searches not told of the move %s -> %s: %s", old, new, exc)
        return []


@dataclass
class MoveUndone:
    """What an undo did beside putting OLD back: NEW taken out (`taken_out`), the saved searches' queries put back
    (`saved_back`), and those edited since the move, kept as edited (`saved_kept`)."""

    taken_out: Optional[str] = None
    saved_back: list[str] = field(default_factory=list)
    saved_kept: list[str] = field(default_factory=list)
    problem: Optional[str] = None  # why the saved searches could not be put back (a searches file not writable)

    def lines(self) -> list[str]:
        """What is said of the saved searches, beside the folder put back."""
        out = []
        if self.saved_back:
            out.append(f"saved search{'es' if len(self.saved_back) != 1 else ''} {', '.join(self.saved_back)} "
                       "put back as before the move")
        if self.saved_kept:
            out.append(f"saved search{'es' if len(self.saved_kept) != 1 else ''} {', '.join(self.saved_kept)} "
                       "edited since the move, kept as edited")
        if self.problem:
            out.append(f"saved searches not put back as before the move: {self.problem}")
        return out


def undo_move(lib: MovingLibrary, undo: Optional[MoveUndo]) -> MoveUndone:
    """The rest of a move's undo, once OLD is back (undo_last_remove, or the window's undo_remove): NEW taken out
    again while it is still a folder of its own (one added since that holds it took it in, and is the person's to
    keep), and the saved searches it rewrote put back. `undo`: the move's (Moved.undo, or kept_move for the
    command line); None for a plain Remove's undo, which does nothing more. The one way both front ends undo a
    move."""
    done = MoveUndone()
    if undo is None:
        return done
    if undo.new is not None and undo.new in lib.roots():
        lib.remove_folder(undo.new)
        done.taken_out = undo.new
    if undo.saved:
        from ..query.saved import SavedSearches

        try:
            done.saved_back, done.saved_kept = SavedSearches(cast(Any, lib)).put_back(undo.saved)
        except SearchAppError as exc:  # the folder is back; a searches file that cannot be written is said
            done.problem = str(exc)
    return done
