"""What the command line's helpers ask of an open library (a Library or a SharedLibrary, cli/open_library.py):
exactly the parts they use, as Protocols, so that they need not name either class. Its imports are for the type
checker alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..library.resources.lock import WriterWait

__all__ = ["WritingLibrary"]


class WritingLibrary(Protocol):
    """What cli/writer_wait.wait_turn sets: how the library's writes wait for another process's."""

    writer_wait: WriterWait
