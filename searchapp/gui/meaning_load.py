"""The vector index opening in the background while the window is already usable.

A search typed meanwhile answers by its words (Library.search with a `meaning_wait`; its result carries a LOADING
notice the window shows in plain words); when the index is open, every part hears Changes(meaning=True) and the
search shown by words alone runs again. The load's end is reported on its own thread: it reaches the window
through a queued signal, never by calling into Qt from there.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from .changes import Changes
from .window_tools import WindowTools

__all__ = ["MeaningLoad", "MEANING_WAIT"]

# Seconds a search from the window waits for the index before answering by words: a small library's index opens
# within it, so its first search is hybrid as before, with no words-only flash.
MEANING_WAIT = 0.25


class MeaningLoad(QObject):
    _ended = Signal()  # emitted on the loading thread; delivered on this object's (the window's) thread

    def __init__(self, tools: WindowTools) -> None:
        super().__init__(tools.parent)
        self.tools = tools
        self.pending = 0  # loads started whose end the window has not announced yet
        self._ended.connect(self._announce)

    def start(self, library: Any) -> bool:
        """Open `library`'s vector index in the background; False when there is nothing to load."""
        started = bool(library.load_in_background(self._ended.emit))
        self.pending += started  # the end is announced on this thread, after this returns
        return started

    @Slot()
    def _announce(self) -> None:
        self.pending = max(0, self.pending - 1)
        self.tools.changed(Changes(meaning=True))
