"""`searchapp remove PATH` (forget a folder), `searchapp undo` (put it back within a minute), `searchapp moved OLD NEW`
(a folder renamed or moved on disk follows, its meaning kept) and `searchapp reindex` (rebuild every passage and
vector)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ...base.config import Config
from ...base.errors import ConfigError
from ...base.plural import counted
from ...base.terminal import printable
from ..open_library import open_library as _library
from ..open_library import open_local_library
from ..writer_wait import add_wait_option, wait_turn

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ...library import Library
    from ...library.shared import SharedLibrary
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_remove", "cmd_undo", "cmd_moved", "cmd_reindex"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("remove", help="forget an indexed folder and everything under it (asks first on a terminal; "
                                      "`searchapp undo` puts it back within a minute)")
    s.add_argument("path", metavar="PATH", help="an indexed folder (or file), as `searchapp status` lists it")
    s.add_argument("--yes", action="store_true", help="remove without asking (scripts: needed without a terminal)")
    add_wait_option(s)
    s.set_defaults(handler=cmd_remove)

    s = sub.add_parser("undo", help="put back the folder the last `searchapp remove` took out, within a minute")
    add_wait_option(s)
    s.set_defaults(handler=cmd_undo)

    s = sub.add_parser("moved", help="an indexed folder was renamed or moved (or its drive mounted elsewhere): the "
                                     "library reads it there and follows it, its meaning kept (only a file edited "
                                     "meanwhile is embedded again)")
    s.add_argument("old", metavar="OLD", help="the folder's place in the library (as `searchapp status` lists it)")
    s.add_argument("new", metavar="NEW", help="where that folder is now")
    add_wait_option(s)
    s.set_defaults(handler=cmd_moved)

    s = sub.add_parser("reindex", help="rebuild every passage and vector with the current model and chunking")
    s.add_argument("--json", action="store_true")
    s.add_argument("--words-only", action="store_true",
                   help="stop once every file is searchable by words; its meaning (vectors) is embedded by the "
                        "next `searchapp index` without --words-only")
    add_wait_option(s)
    s.set_defaults(handler=cmd_reindex)


def cmd_remove(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    import time

    from ...library.resources.undo_file import UNDO_SECONDS, drop_expired, remove_undoable

    root = os.path.abspath(os.path.expanduser(args.path))
    with _library(config, create=False) as lib:
        drop_expired(lib.data_dir, time.time())
        wait_turn(lib, args, cancel)  # a shared library's writes wait for its roots' locks the same way
        # One keystroke destroys nothing: a terminal is asked, a script says --yes. Not an indexed folder:
        # remove_undoable says so (and what it belongs to) before anything is asked or removed.
        if root in lib.roots() and not args.yes and not _confirmed(root):
            return 1
        n, no_undo = remove_undoable(lib, root)
    if no_undo:
        print(f"removed {printable(root)} ({counted(n, 'file')})")
        print(f"searchapp: note: {printable(no_undo)}", file=sys.stderr)
        return 0
    print(f"removed {printable(root)} ({counted(n, 'file')}); `searchapp undo` puts it back within {UNDO_SECONDS:.0f} s")
    return 0


def _confirmed(root: str) -> bool:
    """Ask on the terminal; without one, refuse (ConfigError, exit 2) and name --yes."""
    if not sys.stdin.isatty():
        raise ConfigError(f"remove asks before forgetting {root}; without a terminal to ask on, "
                          "pass --yes to remove it")
    print(f"Remove {printable(root)} and everything indexed under it from the library? "
          "(the files on disk are not touched) [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    if answer in ("y", "yes"):
        return True
    print("searchapp: nothing removed", file=sys.stderr)
    return False


def cmd_undo(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library.resources.undo_file import kept_move, undo_last_remove
    from ...library.sync.moved import undo_move

    # Either library (decision 0124): a shared one keeps the Remove in its database, the move's note here as well
    with _library(config, create=False) as lib:
        wait_turn(lib, args, cancel)
        path, n = undo_last_remove(lib)
        # a move's Remove: the move undone, its new place out again and its saved searches as they were (0196)
        done = undo_move(lib, kept_move(lib.data_dir, path))
    if done.taken_out is not None:
        print(f"put back {printable(path)} ({counted(n, 'file')}) and took {printable(done.taken_out)} out again: "
              "the move is undone")
    else:
        print(f"put back {printable(path)} ({counted(n, 'file')}), as it was before the remove"
              # after `moved` (or a folder gone meanwhile): the place put back is not there, and says so in status
              + ("" if os.path.exists(path) else "; it is not there on disk now: its files stay searchable, marked "
                 "unavailable, until it is back or removed"))
    for line in done.lines():
        print(printable(line))
    return 0


def cmd_moved(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...base.errors import Cancelled
    from ...library.resources.undo_file import UNDO_SECONDS
    from ...library.sync.moved import check_move, follow_move

    with _library(config, create=False) as lib:
        old, new = check_move(lib, args.old, args.new)  # refused before waiting for another writer's turn
        wait_turn(lib, args, cancel)
        try:
            moved = follow_move(lib, old, new, progress, cancel)
        except Cancelled:  # one line, this one: main's "cancelled; nothing half-written was kept" came after it
            progress.close()
            print(f"searchapp: {stopped_move_text(old, new, new in lib.roots())}", file=sys.stderr)
            return Cancelled.exit_code
        saved_there = _saved_there(lib, old)  # asked while the library is open (a shared one's connection too)
    progress.close()
    undo = ("" if moved.no_undo is not None else f"; `searchapp undo` undoes the move within {UNDO_SECONDS:.0f} s"
            if moved.added else f"; `searchapp undo` puts {printable(old)} back"
            f"{' and the saved searches as they were' if moved.saved else ''} within {UNDO_SECONDS:.0f} s")
    print(f"moved {printable(old)} -> {printable(new)}: {moved.summary()}{undo}")
    for line in moved.saved_lines():  # each saved search whose in: followed, as it was -> as it is (decision 0196)
        print(printable(line))
    for note in ([f"{moved.no_undo}"] if moved.no_undo else []) + moved.notes + moved.report.notes + saved_there:
        print(f"searchapp: note: {printable(note)}", file=sys.stderr)
    return 0


def _saved_there(lib: Library | SharedLibrary, old: str) -> list[str]:
    """A note naming the saved searches whose `in:` names the old place still: those the move could not rewrite (a
    new place that cannot be written in a query, a searches file that cannot be written); they find nothing there
    now."""
    from ...library.query.saved import SavedSearches

    named = SavedSearches(lib).naming(old)
    if not named:
        return []
    which = ", ".join(named)
    return [f"{counted(len(named), 'saved search', 'saved searches')} {'names' if len(named) == 1 else 'name'} "
            f"in:{old}, which holds nothing now ({which}): `searchapp saved add --replace NAME QUERY` with in: the "
            "new place points one there"]


def stopped_move_text(old: str, new: str, new_held: bool) -> str:
    """What a move stopped halfway (Ctrl+C, a `kill`) left; `new_held`: NEW is a folder of the library now, with the
    files read so far (status marks it: an empty folder beside OLD MISSING, said by nothing, puzzled a newcomer)."""
    again = f"`searchapp moved {printable(old)} {printable(new)}` again goes on where this stopped"
    held = (f"{printable(new)} is in it too, with the files read so far (`searchapp status` marks it); "
            if new_held else "")
    return f"stopped: {printable(old)} is still in the library, nothing lost; {held}{again}"


def cmd_reindex(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    with open_local_library(config, create=False) as lib:
        wait_turn(lib, args, cancel)
        rep = lib.reindex(progress=progress, cancel=cancel, embed=not args.words_only)
    progress.close()
    print(f"re-indexed {rep.added} files into {rep.chunks_added} passages")
    return 0
