"""`searchapp watch`: answer `searchapp search` from its first second (the warm index: library/warm/), catch up
(waiting its turn while another process writes), then sync every change under the indexed folders until Ctrl+C."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Optional

from ...base.config import Config
from ...base.member_paths import display_path
from ...base.stored_names import disk_path
from ...base.terminal import printable
from ..open_library import open_local_library as _library
from ..warm_run import run_command
from ..writer_wait import wait_turn
from .index import print_stopped_before, reason_changed_lines

if TYPE_CHECKING:
    from ...base.progress import Progress
    from ...library.sync.contract import SyncReport
    from ..library_protocol import WatchedLibrary
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_watch", "print_change", "print_failure", "now"]

SHOWN_PROBLEMS = 5  # files newly left out, each with its reason, under a live update's line
RETRY_SERVE_S = 5.0  # while another process serves the library, how often to try taking over


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("watch", help="keep the library current: sync every change under the indexed folders until Ctrl+C")
    s.add_argument("--debounce", type=float, default=1.0, metavar="SECONDS",
                   help="quiet time after the last change before it is indexed (default 1)")
    s.add_argument("--poll", action="store_true", help="poll for changes instead of using file-system events")
    s.set_defaults(handler=cmd_watch)


def cmd_watch(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library.resources.watch_lock import WATCH, watching

    with _library(config, create=False) as lib, watching(lib.data_dir, WATCH):
        if not lib.roots():
            print("searchapp: nothing to watch; add a folder with `searchapp index PATH`", file=sys.stderr)
            return 2
        # Serving first: searches are answered from the first second (by words at once, by meaning as the
        # catch-up fills it), while the catch-up waits its turn or runs.
        why_not = lib.serve(commands=run_command)
        if why_not is None:
            print(f"{now()} searches from the command line are answered here (by words now, by meaning as it "
                  "fills)", flush=True)
        try:
            _catch_up(lib, args, progress, cancel)
            _watch(lib, args, cancel, why_not)
        finally:
            lib.stop_serving()
            lib.stop_watching()
    print("stopped watching", flush=True)
    return 0


def now() -> str:
    import time

    return time.strftime("%H:%M:%S")


def _catch_up(lib: WatchedLibrary, args: argparse.Namespace, progress: TerminalProgress, cancel: CancelToken) -> None:
    """Sync what changed while nothing watched, waiting its turn if another process writes, saying what it does."""
    from ...library.resources.lock import WriterWait

    print(f"{now()} catching up with {len(lib.roots())} folder(s)", flush=True)
    lib.index()  # opened before the sync holds the write lane: a search meanwhile never waits for it
    wait_turn(lib, args, cancel)

    def told(p: Progress) -> None:
        if p.stage == "searchable":  # the words are in: say so on standard output, terminal or not
            print(f"{now()} {printable(p.message)}; embedding their meaning now", flush=True)
        progress(p)

    try:
        rep = lib.sync(progress=told, cancel=cancel)
    finally:
        lib.writer_wait = WriterWait()  # live updates retry on their own (library/sync/watch.py)
    progress.close()
    print(f"{now()} caught up: {rep.said('added', 'updated', 'removed')}", flush=True)
    print_stopped_before(rep)  # a sync stopped before (a kill, the window closed): what it could not read
    if rep.reread:
        print(f"{now()} {printable(rep.reread_note() or '')}", flush=True)
    from ...library.sync.roots import missing_advice

    for path, reason in rep.missing_roots:  # as status and index say it
        print(f"searchapp: {printable(display_path(path))}: {printable(reason)}; its passages are kept. "
              f"{printable(missing_advice(path))}", file=sys.stderr, flush=True)


def print_change(rep: SyncReport, paths: list[str]) -> None:
    """A live update's line (the watcher's on_change): what it did, to which paths, a file there named first (a
    tester's line named the folder of a checkout, or an editor's temporary file already gone); then why each file
    newly left out was, as `index` says it."""
    files = rep.files_changed()
    if files:
        what = rep.said("added", "updated", "removed", "skipped", "failed", zeros=False)
        print(f"{now()} {what}: {_named(paths, files)}", flush=True)
        for path, reason in rep.problems[:SHOWN_PROBLEMS]:  # a member as every command shows it: `a.zip › x`
            print(f"  {printable(display_path(path))}: {printable(reason)}", flush=True)
        if len(rep.problems) > SHOWN_PROBLEMS:
            print(f"  ... and {len(rep.problems) - SHOWN_PROBLEMS} more (`searchapp status` lists them)", flush=True)
        for line in reason_changed_lines(rep, SHOWN_PROBLEMS):  # not indexed before either: "now skipped: why"
            print(line, flush=True)
        for path, reason in rep.left_out[:SHOWN_PROBLEMS]:  # a key saved into a watched folder: why it stays out
            print(f"  {printable(display_path(path))}: {printable(reason)}", flush=True)
    print_stopped_before(rep)


def _named(paths: list[str], files: int) -> str:
    """A live update's paths as its line names them: one file "and N more", N counting files, never the event
    paths (a folder moved within the indexed ones came as the folder, its files and repeated events: 3 files
    moved read "3 added, 3 removed: …/impots.md and 7 more"). A file still there is named; else (all removed) a
    path none other lies under, counting at most one file for each such path: a folder moved away is named
    alone."""
    first = next((p for p in paths if os.path.isfile(disk_path(p))), None)  # stored names (decision 0179)
    if first is not None:
        more = files - 1
    else:
        holding = _ancestors(paths)
        leaves = [p for p in paths if p not in holding] or paths
        first, more = leaves[0], min(files, len(leaves)) - 1
    return printable(display_path(first)) + (f" and {more} more" if more > 0 else "")


def _ancestors(paths: list[str]) -> set[str]:
    """Every folder above one of `paths` (lexically: the paths of removed files no longer exist)."""
    found: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent and parent not in found and parent != path:
            found.add(parent)
            path, parent = parent, os.path.dirname(parent)
    return found


def print_failure(exc: BaseException) -> None:
    """A live update that failed (the watcher's on_error): it keeps its paths and tries again. One stopped by
    Ctrl+C or a `kill` (Cancelled) is not retried: said with how far it got."""
    from ...base.errors import Cancelled, ConnectionLost

    if isinstance(exc, Cancelled):
        rep = exc.report
        done = (f" ({rep.said('added', 'updated', 'removed')} by then)"
                if rep is not None and (rep.added or rep.updated or rep.removed) else "")
        print(f"{now()} the live update in progress stopped part way{done}; the next `searchapp watch` or "
              "`searchapp index` reads the rest", flush=True)
        return
    said = exc.retried if isinstance(exc, ConnectionLost) else str(exc)  # not "run it again": it retries itself
    print(f"searchapp: live update failed (will retry): {printable(said)}", file=sys.stderr, flush=True)


def _watch(lib: WatchedLibrary, args: argparse.Namespace, cancel: CancelToken, why_not: Optional[str]) -> None:
    """Sync every change until Ctrl+C; take over serving when the process that served has gone."""
    import time

    watcher = lib.start_watching(print_change, debounce=args.debounce, on_error=print_failure,
                                 force_polling=args.poll)
    if watcher.note:
        print(f"searchapp: note: {printable(watcher.note)}", file=sys.stderr)
    # `searchapp search` asks this process first (library/warm/, cli/warm_run.py): no start-up, no model load
    print(f"watching {len(lib.roots())} folder(s) ({watcher.mode}); "
          + ("searches from the command line are answered here; " if why_not is None else "")
          + "Ctrl+C stops", flush=True)
    if why_not:
        print(f"searchapp: note: not answering searches from the command line: {printable(why_not)}",
              file=sys.stderr, flush=True)
    next_try = time.monotonic() + RETRY_SERVE_S
    while not cancel.cancelled:
        time.sleep(0.2)
        if why_not and time.monotonic() >= next_try:  # e.g. the window that served it has closed
            next_try = time.monotonic() + RETRY_SERVE_S
            why_not = lib.serve(commands=run_command)
            if why_not is None:
                print(f"{now()} searches from the command line are answered here now", flush=True)
