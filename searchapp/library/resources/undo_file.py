"""The command line's minute of Undo after Remove, as the window's: `searchapp remove` keeps the folder's rows in a
file in the data dir (store/removed_roots.save_removed), `searchapp undo` puts them back from it within
UNDO_SECONDS. Its process has ended by then, so the rows cannot wait in a connection as the window's do.

Decisions: one Undo, the last Remove (a second Remove replaces the file); a file past its minute is deleted by
the next `remove` or `undo` (it holds the removed folder's text); the file is private like the data dir.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Protocol

from ...base.errors import DataDirError, SearchAppError
from ...base.private import refuse_untrusted_file, write_private_text
from ...store.removed_roots import forget_removed, load_removed, save_removed

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["Rewrite", "UNDO_SECONDS", "FILE_NAME", "remove_undoable", "undo_last_remove", "drop_expired", "remember_move",
           "MoveUndo", "kept_move", "note_move_begun", "move_was_begun", "forget_move_begun", "moves_halfway"]


@dataclass(frozen=True)
class Rewrite:
    """A saved search's query as a move found it (`before`) and as it left it (`after`): said, and kept for Undo."""

    name: str
    before: str
    after: str

    def to_json(self) -> list[str]:
        return [self.name, self.before, self.after]

    @classmethod
    def from_json(cls, value: object) -> Optional["Rewrite"]:
        """One kept in an undo note (below), or None for anything else there."""
        if isinstance(value, list) and len(value) == 3 and all(isinstance(v, str) for v in value):
            return cls(*value)
        return None


UNDO_SECONDS = 60.0  # as the window's Undo (gui/undo_remove.py)
FILE_NAME = "undo-remove.sqlite"
# `searchapp moved` removed OLD after adding NEW: `undo` takes NEW out again, so the move is undone (put back alone,
# both stood in the library, every file twice), and puts back the saved searches it rewrote (decision 0196).
# {"old": …, "new": … or null, "saved": [[name, before, after], …]}, beside the kept Remove, replaced with it.
MOVED_NAME = "undo-moved.json"
_MOVED_MAX_BYTES = 4 << 20  # two paths and the saved searches' queries rewritten (each at most a query's length)
# A move whose sync stopped halfway left NEW in the library; the same move again finds NEW there already, and only
# this note says that the move added it (its Undo takes NEW out again, or both stand in the library).
BEGUN_NAME = "move-begun.json"
_BEGUN_MAX = 16  # moves stopped halfway remembered at once, the newest
_BEGUN_MAX_BYTES = 1 << 20  # their paths, JSON-escaped


@dataclass
class MoveUndo:
    """What the undo of a move does beside putting OLD back: `new`, the folder the move added (taken out again), or
    None when NEW was in the library before it; `saved`, the saved searches' queries it rewrote (decision 0196),
    put back as they were."""

    new: Optional[str] = None
    saved: list[Rewrite] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.new is not None or bool(self.saved)


def remember_move(data_dir: Path, old: str, undo: MoveUndo) -> None:
    """The kept Remove of `old` was a move's: an undo also does `undo` (kept_move)."""
    write_private_text(Path(data_dir) / MOVED_NAME, json.dumps(
        {"old": old, "new": undo.new, "saved": [r.to_json() for r in undo.saved]}))


def kept_move(data_dir: Path, old: str) -> Optional[MoveUndo]:
    """What the move whose Remove of `old` was just undone asks of its undo (remember_move); None when that Remove
    was no move's. The note is read once (deleted)."""
    file = Path(data_dir) / MOVED_NAME
    try:
        refuse_untrusted_file(file)
        with open(file, "rb") as fh:
            note = json.loads(fh.read(_MOVED_MAX_BYTES))
    except (OSError, ValueError, DataDirError):  # none, or not ours to read: a plain Remove's undo
        return None
    finally:
        with contextlib.suppress(OSError):
            _drop(file)
    if not isinstance(note, dict) or note.get("old") != old:
        return None
    new, saved = note.get("new"), note.get("saved")
    rewrites = [r for r in map(Rewrite.from_json, saved if isinstance(saved, list) else []) if r is not None]
    return MoveUndo(new if isinstance(new, str) else None, rewrites)


def note_move_begun(data_dir: Path, old: str, new: str) -> None:
    """A move is about to add `new` to the library (it held no folder of it): kept until that move has ended. One
    note per move ({new: old}): another move begun or ended meanwhile (a second folder renamed) leaves it alone."""
    begun = _begun(data_dir)
    begun.pop(new, None)
    begun[new] = old  # the newest last: the oldest go first past _BEGUN_MAX
    _write_begun(data_dir, dict(list(begun.items())[-_BEGUN_MAX:]))


def move_was_begun(data_dir: Path, old: str, new: str) -> bool:
    """Whether an earlier try of the move `old` -> `new`, stopped halfway, added `new` (note_move_begun)."""
    return _begun(data_dir).get(new) == old


def moves_halfway(data_dir: Path, roots: list[str]) -> dict[str, str]:
    """{NEW: OLD} of the moves stopped halfway: each added NEW and both are folders of the library (`roots`) now,
    NEW with what was read of it so far (an empty folder beside OLD, unexplained, after a Ctrl+C: a newcomer)."""
    held = set(roots)
    return {new: old for new, old in _begun(data_dir).items() if new in held and old in held}


def forget_move_begun(data_dir: Path, new: str) -> None:
    """The move that added `new` has ended: its note goes (the others' stay)."""
    begun = _begun(data_dir)
    if begun.pop(new, None) is not None:
        _write_begun(data_dir, begun)


def _begun(data_dir: Path) -> dict[str, str]:
    file = Path(data_dir) / BEGUN_NAME
    try:
        refuse_untrusted_file(file)
        with open(file, "rb") as fh:
            note = json.loads(fh.read(_BEGUN_MAX_BYTES))
    except (OSError, ValueError, DataDirError):  # none, or not ours to read: no move begun
        return {}
    if not isinstance(note, dict):
        return {}
    return {n: o for n, o in note.items() if isinstance(n, str) and isinstance(o, str)}


def _write_begun(data_dir: Path, begun: dict[str, str]) -> None:
    file = Path(data_dir) / BEGUN_NAME
    if begun:
        write_private_text(file, json.dumps(begun))
    else:
        with contextlib.suppress(OSError):
            _drop(file)


class UndoingLibrary(Protocol):
    """What undo_last_remove asks of a Library (a SharedLibrary, `keeps_undo` False, is asked its undo_remove
    alone: the database keeps its Remove, and its store is not SQLite's)."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def store(self) -> Store: ...

    def undo_remove(self) -> Optional[tuple[str, int]]: ...


def _drop(path: Path) -> None:
    path.unlink(missing_ok=True)


def drop_expired(data_dir: Path, now: float) -> None:
    """Delete a kept Remove past its minute without opening the library: its age is the file's."""
    file = Path(data_dir) / FILE_NAME
    try:
        if now - file.stat().st_mtime > UNDO_SECONDS:
            _drop(file)
    except FileNotFoundError:
        pass


def remove_undoable(lib: Any, path: str) -> tuple[int, Optional[str]]:
    """Forget the indexed folder `path` as Library.remove_folder does, keeping its rows for `undo_last_remove`:
    (the number of files removed, None, or why it cannot be undone: the folder is removed all the same)."""
    with contextlib.suppress(OSError):
        _drop(Path(lib.data_dir) / MOVED_NAME)  # an earlier move's: this Remove is the one an undo puts back
    if not getattr(lib, "keeps_undo", True):  # a shared library: the database keeps the rows, not a file here
        return lib.remove_folder(path, undoable=True), None
    n = lib.remove_folder(path, undoable=True)
    file = Path(lib.data_dir) / FILE_NAME
    tmp = file.with_name(FILE_NAME + ".part")
    try:
        _drop(tmp)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # private before SQLite writes a byte
        if save_removed(lib.store, str(tmp), time.time()):
            os.replace(tmp, file)
    except (OSError, sqlite3.Error) as exc:  # e.g. a full disk: the Remove is done, only its Undo is lost
        return n, f"cannot keep it for `searchapp undo`: {getattr(exc, 'strerror', None) or exc}"
    finally:
        with contextlib.suppress(OSError):
            _drop(tmp)
        forget_removed(lib.store)
    return n, None


# One Undo per Remove, the last one: a second `undo` after two removes, or one after an undo, finds nothing
NOTHING_TO_UNDO = "nothing to undo: `searchapp undo` puts back the last folder removed, once, within a minute"


def undo_last_remove(lib: UndoingLibrary | Any) -> tuple[str, int]:
    """Put back the folder the last `searchapp remove` took out: (its path, its files). SearchAppError (exit 1)
    when there is none, its minute has passed, or putting it back would be wrong (store/removed_roots.py): the kept
    file is then deleted (one
    Undo per Remove). A write that could not start (StoreError: another process holds the library, --no-wait),
    Cancelled or Ctrl+C while waiting its turn keep it, for an Undo within the minute still. A shared library
    keeps its Remove in the database (shared_upkeep.undo_remove says the same refusals)."""
    if not getattr(lib, "keeps_undo", True):
        got = lib.undo_remove()
        assert got is not None  # a shared library's refusals are raised, never None
        return got
    file = Path(lib.data_dir) / FILE_NAME
    try:
        refuse_untrusted_file(file)  # never a link followed, nor another user's file ATTACHed
    except FileNotFoundError:
        raise SearchAppError(NOTHING_TO_UNDO) from None
    except DataDirError as exc:
        raise SearchAppError(f"nothing to undo: {exc}") from None
    try:
        kept = load_removed(lib.store, str(file))
        if kept is None:
            _drop(file)
            raise SearchAppError(NOTHING_TO_UNDO)
        removed_at, path = kept
        if time.time() - removed_at > UNDO_SECONDS:
            _drop(file)
            raise SearchAppError(f"too late to undo the remove of {path} (Undo lasts {UNDO_SECONDS:.0f} s); "
                                 f"`searchapp index {path}` adds it again")
        got = lib.undo_remove()  # StoreError, Cancelled, KeyboardInterrupt: the file stays, for another try
        _drop(file)  # done, or refused for good: one Undo per Remove
        if got is None:
            raise SearchAppError(f"cannot undo: {path} was indexed again, or the library's model or chunking "
                                 f"changed, since it was removed; `searchapp index {path}` adds it again")
        return got
    finally:
        forget_removed(lib.store)
