"""The library's long-lived helpers, started and stopped on an open library: a watcher that syncs what
changes under the roots, and the warm server that answers the command line's searches (warm/). A mixin of
Library, which owns the lock, the config and the fields these read."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Optional, Protocol, TypedDict, Unpack

if TYPE_CHECKING:
    from .warm.library_protocol import ServedLibrary
    from .warm.server import CommandRunner, WarmServer
    from .sync.contract import SyncReport
    from .sync.watch import LibraryToWatch, LibraryWatcher

    class _Watching(LibraryToWatch, Protocol):
        """`start_watching`'s self: a Library (what the watcher calls on it, and the lock and watcher it keeps)."""

        _lock: threading.RLock
        _watcher: Optional[LibraryWatcher]

        def refuse_read_only(self, action: str) -> None: ...

    class _Serving(ServedLibrary, Protocol):
        """`serve`'s self: a Library (what the warm server calls on it, and the server it keeps)."""

        _server: Optional[WarmServer]

__all__ = ["WatchAndServe", "WatchOptions"]


class WatchOptions(TypedDict, total=False):
    """start_watching's further options, handed to LibraryWatcher as they are."""

    poll_interval: float  # seconds between scans when events are not available
    force_polling: bool
    handoff: Callable[[list[str]], None]  # each batch handed over instead of synced here (the window's write queue)


class WatchAndServe:
    """Needs `_lock`, `_watcher`, `_server` and `refuse_read_only` of Library."""

    _lock: threading.RLock
    _watcher: Optional[LibraryWatcher]
    _server: Optional[WarmServer]
    refuse_read_only: Callable[[str], None]

    # -- live updates -------------------------------------------------------
    def start_watching(self: _Watching, on_change: Optional[Callable[[SyncReport, list[str]], None]] = None, *,
                       debounce: float = 1.0, on_error: Optional[Callable[[BaseException], None]] = None,
                       **options: Unpack[WatchOptions]) -> LibraryWatcher:
        """Keep the library current: watch every root and sync what changes, `debounce` seconds after the
        last event of a burst. `on_change(report, paths)` and `on_error(exc)` run on the watcher's thread.
        Call `sync()` first to catch up with changes made while nothing was watching. Returns the watcher
        (its `mode` is "events" or "polling" and `note` says why it fell back). `options`: poll_interval,
        force_polling."""
        from .sync.watch import LibraryWatcher  # watchdog is imported only when watching

        self.refuse_read_only("watching")
        with self._lock:
            if self._watcher is None:
                watcher = LibraryWatcher(self, on_change=on_change, on_error=on_error, debounce=debounce, **options)
                try:
                    watcher.start()
                except BaseException:  # kept only once it runs: a failed start is tried again from the start
                    watcher.stop()
                    raise
                self._watcher = watcher
            return self._watcher

    def stop_watching(self) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()

    # -- the warm index: this process answers the command line's searches (warm/) --
    def serve(self: _Serving, commands: Optional[CommandRunner] = None) -> Optional[str]:
        """Answer `searchapp search` from this open library over a private socket in the data dir, until
        `stop_serving` or close. None when serving; else why not (another process serves it, read-only, ...).
        `commands`: what runs a whole search command sent by the thin entry point (cli/warm_run.run_command; see
        warm/server.CommandRunner); without it only searches are answered."""
        from .warm.server import WarmServer

        if self._server is None:
            server = WarmServer(self, commands)
            if not server.start():
                return server.note
            self._server = server
        return None

    def stop_serving(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()
