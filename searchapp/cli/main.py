"""`searchapp` command line: parse, call the library, print. Errors become one clean line and an exit code.

Exit codes: 0 ok, 1 error, 2 bad usage or config, 3 library database/index error, 4 model mismatch
(re-index needed), 5 model could not be loaded, 130 cancelled.

This module keeps the error -> exit code mapping and the dispatch; the parser is cli/parser.py, each command
lives in cli/commands/ and registers itself, and the `searchapp` command starts in cli/entry.py (a search a warm
process answers never gets here).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Optional, Sequence

from ..base.config import load_config
from ..base.errors import Cancelled, SearchAppError
from ..base.progress import CancelToken
from ..base.terminal import printable
from .parser import parse_command_line
from .options import check_options
from .abort import ABORTED_LINE, end_now, leave_unwaited
from .hang_up import leave_terminal
from .progress import TerminalProgress

__all__ = ["main"]


_SIGNALLED = threading.Event()  # a stop signal came during this command (its handler ran)


def main(argv: Optional[Sequence[str]] = None, *, ask_warm: bool = True) -> int:
    """The whole command line. `ask_warm`: False when the thin entry point (cli/entry.py) already asked a warm
    process with this very command and was declined (a search then opens the library here). A command a stop
    signal ended does not wait for a model still loading beside it (abort.leave_unwaited)."""
    _SIGNALLED.clear()
    code = _main(argv, ask_warm=ask_warm)
    return leave_unwaited(code) if _SIGNALLED.is_set() else code


def _main(argv: Optional[Sequence[str]], *, ask_warm: bool) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Each command parses with its own group's parser alone (cli/parser.py): the others' modules are neither
    # imported nor built (a tenth of a warm search's time; a third of a one-file `index --words-only`).
    args = parse_command_line(argv)
    args.skip_warm = not ask_warm
    args.argv = argv  # as typed: what a warm process is asked to run (commands/search.py)
    if args.command is None:
        from .commands.gui import cmd_gui

        args.command = "gui"  # a double-click or a bare `searchapp` opens the window
        args.handler = cmd_gui
    cancel = CancelToken()
    _install_stop_signals(cancel, args.command)
    progress = TerminalProgress()
    _explicit_model_paths(args)
    config = None
    try:
        check_options(args)
        overrides = {}
        if getattr(args, "reranker", None):
            overrides["models"] = {"reranker": args.reranker}
        if getattr(args, "model", None) or getattr(args, "pooling", None):  # eval's --model / --pooling
            from .commands.train_eval import model_overrides

            overrides = model_overrides(args, overrides)
        config = load_config(args.data_dir, args.config, overrides=overrides)
        address = _shared_address(args, config.library.address)
        if address is None and config.library.address:  # `--library local`: nothing below may read the config's
            config = config.replace(library={"address": ""})
        if address is not None:  # a library a team shares (library/shared.py, decision 0119)
            from .commands.shared import run_shared

            return run_shared(args, config, address, progress, cancel)
        code: int = args.handler(args, config, progress, cancel)  # each command's cmd_* returns its exit code
        return code
    except Cancelled:
        progress.close()
        print("searchapp: cancelled; nothing half-written was kept (finished sync batches stay indexed)", file=sys.stderr)
        return Cancelled.exit_code
    except SearchAppError as exc:
        progress.close()
        print(f"searchapp: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except _database_error() as exc:  # damage found mid-query (garbage pages behind a valid header)
        progress.close()
        from ..library.resources.data_dir import damaged_message, is_damage

        db = Path(config.data_dir if config else ".") / "library.sqlite"
        message = damaged_message(db, exc) if is_damage(exc) else f"library database error: {exc}"
        print(f"searchapp: error: {printable(message)}", file=sys.stderr)
        return 3
    except OSError as exc:  # a full or read-only disk outside the library's own checks: one line, not a traceback
        progress.close()
        print(printable(f"searchapp: error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")),
              file=sys.stderr)
        return 3
    finally:
        progress.close()


def _database_error() -> type[BaseException] | tuple[()]:
    """sqlite3.DatabaseError, once something has imported sqlite3; else nothing to catch, since no SQLite
    error can have been raised. A warm search never opens SQLite here, and importing it costs ~2 ms of start-up
    (an except clause is evaluated only when an exception reaches it)."""
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3.DatabaseError if sqlite3 is not None else ()


def _shared_address(args: argparse.Namespace, configured: str = "") -> Optional[str]:
    """The shared library's address (--library, else $SEARCHAPP_LIBRARY, else the config's library.address), or
    None: the data dir's library."""
    import os

    flag = getattr(args, "library", None)
    if flag is None and not os.environ.get("SEARCHAPP_LIBRARY") and not configured:
        return None
    from ..base.library_address import library_address

    return library_address(flag, configured)


def _explicit_model_paths(args: argparse.Namespace) -> None:
    """A model folder typed on the command line counts as a path even when named like a hub id
    (`--reranker models/x`); config files and defaults never do (see models/resolve.py)."""
    for name in ("reranker", "model", "base"):
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            from ..models.resolve import explicit_path  # no torch: resolve only reads files; only when named

            setattr(args, name, explicit_path(value))


# The commands that write the library and stop at a batch boundary when asked (they all check `cancel`): a
# `kill` or a closed terminal stops them as Ctrl+C does. The others keep the signals' default, ending at once:
# nothing of theirs is half-written, and one that never checks `cancel` (a search) must not outlive a `kill`.
# The window replaces these handlers with its own as it starts (cli/gui_signals.py): they close it as Quit does.
STOP_GENTLY = frozenset({"index", "reindex", "remove", "undo", "moved", "watch"})


def _install_stop_signals(cancel: CancelToken, command: str) -> None:
    """Ctrl+C (SIGINT) asks long jobs to stop at the next batch boundary; so do `kill` and service managers
    (SIGTERM) and a closed terminal (SIGHUP) for the commands that write (STOP_GENTLY): what is done is kept, and
    a `watch` stops its live update at its next batch, removes its socket and exits 0. Left to their default, these ended a
    `watch` at once: warm.sock stayed behind and its last update's line never came. A second signal ends the
    process at once, in one line and exit 130 (cli/abort.py)."""

    def handler(signum: int, frame: Optional[FrameType]) -> None:
        _SIGNALLED.set()
        if cancel.cancelled:
            end_now(f"\n{ABORTED_LINE if command in STOP_GENTLY else 'searchapp: aborted'}")  # after a bar
        cancel.cancel()
        if signum == getattr(signal, "SIGHUP", None):
            leave_terminal()
        try:
            again = "Ctrl+C again" if signum == signal.SIGINT else "a second signal"  # a `kill` has no keyboard
            print(f"\nsearchapp: stopping after the current batch ({again} to abort)", file=sys.stderr)
        except OSError:  # an output that is gone: stopping matters, the message does not
            pass

    names = ("SIGINT", "SIGTERM", "SIGHUP") if command in STOP_GENTLY else ("SIGINT",)
    for name in names:
        if hasattr(signal, name):  # Windows has no SIGHUP
            try:
                # A hang-up the caller ignores stays ignored: `nohup searchapp watch &` must outlive its terminal.
                # (Ctrl+C and `kill` are asked for by name; a shell's background job has SIGINT ignored anyway.)
                if name != "SIGHUP" or signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
                    signal.signal(getattr(signal, name), handler)
            except ValueError:  # not the main thread (e.g. embedded use)
                return
