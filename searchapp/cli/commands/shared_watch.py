"""`searchapp --library postgresql://… watch`: this machine's folders kept current in a shared library (decision
0138): catch up (waiting while another process syncs one of them), then sync every change under them until
Ctrl+C, with the desktop's watcher (library/sync/watch.py) and its lines. Each sync holds the writer locks of the
folders it writes, and lets them go when it ends; the server drops them with the connection however the process
ends. No warm process: a shared library's searches connect to the server themselves."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Optional

from ...base.terminal import printable
from ...library.shared import RootBusy, SharedLibrary
from .watch import now, print_change, print_failure

if TYPE_CHECKING:
    from argparse import Namespace

    from ...base.config import Config
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["watch_shared", "BUSY_RETRY_S"]

BUSY_RETRY_S = 5.0  # while another process syncs one of this machine's folders, how often the catch-up tries again


def watch_shared(args: Namespace, config: Config, address: str, progress: TerminalProgress,
                 cancel: CancelToken) -> int:
    from ...library.shared_sync import WatchedShared
    from ...library.sync.watch import LibraryWatcher

    with SharedLibrary(config, address, create=True) as lib:
        roots = lib.roots()
        if not roots:
            print("searchapp: nothing to watch on this machine; add a folder with `searchapp --library ADDRESS "
                  "index PATH`", file=sys.stderr)
            return 2
        _catch_up(lib, len(roots), progress, cancel)
        if cancel.cancelled:
            print("stopped watching", flush=True)
            return 0

        watcher = LibraryWatcher(WatchedShared(lib), on_change=print_change, on_error=print_failure,
                                 debounce=args.debounce, force_polling=args.poll)
        watcher.start()
        try:
            if watcher.note:
                print(f"searchapp: note: {printable(watcher.note)}", file=sys.stderr)
            print(f"watching {len(roots)} folder(s) of this machine in the shared library ({watcher.mode}); "
                  "Ctrl+C stops", flush=True)
            while not cancel.cancelled:
                time.sleep(0.2)
        finally:
            watcher.stop()  # a live update in flight stops at its next batch, its finished batches kept
    print("stopped watching", flush=True)
    return 0


def _catch_up(lib: SharedLibrary, n_roots: int, progress: TerminalProgress, cancel: CancelToken) -> None:
    """Sync what changed while nothing watched; while another process syncs one of these folders, wait for it
    (saying so once) and try again, until it is done or Ctrl+C."""
    print(f"{now()} catching up with {n_roots} folder(s)", flush=True)
    told: Optional[str] = None
    while True:
        try:
            rep = lib.sync(progress=progress, cancel=cancel)
            break
        except RootBusy as exc:
            if told is None:
                told = str(exc)
                print(f"searchapp: waiting: {printable(exc)}; this goes on when it is done (Ctrl+C stops)",
                      file=sys.stderr, flush=True)
            for _ in range(int(BUSY_RETRY_S / 0.2)):
                if cancel.cancelled:
                    return
                time.sleep(0.2)
    progress.close()
    print(f"{now()} caught up: {rep.said('added', 'updated', 'removed')}", flush=True)
    if rep.reread:
        print(f"{now()} {printable(rep.reread_note() or '')}", flush=True)
    for path, reason in rep.missing_roots:
        print(f"searchapp: {printable(path)}: {printable(reason)}; its passages are kept", file=sys.stderr, flush=True)
