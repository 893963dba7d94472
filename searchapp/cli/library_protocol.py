"""What the command line's helpers ask of an open library (a Library or a SharedLibrary, cli/open_library.py):
exactly the parts they use, as Protocols, so that they need not name either class. Its imports are for the type
checker alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Protocol, Sequence

if TYPE_CHECKING:
    from ..base.progress import CancelToken, ProgressFn
    from ..library.resources.lock import WriterWait
    from ..library.sync.contract import SyncReport
    from ..library.sync.watch import LibraryWatcher
    from ..library.warm.server import CommandRunner

__all__ = ["LedgerReader", "LedgerRow", "WatchedLibrary", "WritingLibrary"]


class LedgerRow(Protocol):
    """What `status --files` prints of a stored entry (the store's FileRow, named without the store layer)."""

    @property
    def path(self) -> str: ...

    @property
    def error(self) -> Optional[str]: ...

    @property
    def n_chunks(self) -> int: ...


class LedgerReader(Protocol):
    """What `status --files` (cli/commands/status.print_ledger) reads: the stored entries in a state."""

    def ledger(self, state: Optional[str] = None, limit: int = 100_000,
               under: Sequence[str] = ()) -> Sequence[tuple[str, LedgerRow]]: ...


class WritingLibrary(Protocol):
    """What cli/writer_wait.wait_turn sets: how the library's writes wait for another process's."""

    writer_wait: WriterWait


class WatchedLibrary(WritingLibrary, Protocol):
    """What `searchapp watch` (cli/commands/watch.py) calls while it catches up, watches and serves."""

    def roots(self) -> list[str]: ...

    def index(self, progress: Optional[ProgressFn] = None) -> object: ...  # opened ahead; its value is not used

    def sync(self, paths: Optional[list[str]] = None, progress: Optional[ProgressFn] = None,
             cancel: Optional[CancelToken] = None, *, embed: bool = True) -> SyncReport: ...

    def start_watching(self, on_change: Optional[Callable[[SyncReport, list[str]], None]] = None, *,
                       debounce: float = 1.0, on_error: Optional[Callable[[BaseException], None]] = None,
                       poll_interval: float = 30.0, force_polling: bool = False) -> LibraryWatcher: ...

    def serve(self, commands: Optional[CommandRunner] = None) -> Optional[str]: ...
