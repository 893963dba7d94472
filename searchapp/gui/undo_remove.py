"""Undo after Remove: for UNDO_SECONDS a button in the status bar ("Undo remove of NAME") puts the folder back at
once (the library kept its rows: store/removed_roots.py), nothing read or embedded again. Other writes meanwhile
(another folder synced, a command-line index) keep the offer: the library refuses only where putting the folder
back would be wrong, and says so (decision 0147). The time running out drops what was kept."""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QPushButton

from ..base.errors import SearchAppError, StoreError
from .changes import Changes
from ..library import Library
from ..library.resources.undo_file import MoveUndo
from ..library.shared import SharedLibrary
from ..library.sync.moved import MoveUndone, undo_move
from .library_session import LibrarySession
from .plain import tooltip
from .window_tools import WindowTools
from .workers import Job, JobFn

__all__ = ["UndoRemove", "UNDO_SECONDS"]

UNDO_SECONDS = 60


class SubmitWrite(Protocol):
    """WriteJobs.submit (write_jobs imports this module, so it is named by its shape)."""

    def __call__(self, title: str, fn: JobFn, changes: Changes, on_success: Optional[Callable[[Any], None]] = None,
                 target: str = "", scope: Optional[tuple[str, ...]] = ()) -> Job: ...


class UndoRemove(QObject):
    def __init__(self, tools: WindowTools, session: LibrarySession, submit: SubmitWrite) -> None:
        super().__init__(tools.parent)
        self.tools, self.session, self.submit = tools, session, submit  # submit: WriteJobs.submit
        self.path: Optional[str] = None
        self.lib: Optional[Library | SharedLibrary] = None  # the library the folder was removed from
        self.move: Optional[MoveUndo] = None  # what Undo does beside, when the Remove was a move's (offer)
        self.button = QPushButton("Undo")
        self.button.setObjectName("undoRemove")
        self.button.setFlat(True)
        self.button.hide()
        self.button.clicked.connect(self.undo)
        self.timer = QTimer(self, singleShot=True, interval=UNDO_SECONDS * 1000)
        self.timer.timeout.connect(self.expire)

    def offer(self, path: str, move: Optional[MoveUndo] = None) -> None:
        """Offer to put `path` back. `move`: the Remove was a move's (Moved…): the folder it added in its place is
        taken out again by the Undo, so that the library is as before the move (put back alone, both stood in it,
        every file twice), and the saved searches it rewrote are put back (library/sync/moved.undo_move)."""
        self.path, self.lib, self.move = path, self.session.library, move
        moved_to = move.new if move is not None else None
        name = os.path.basename(path.rstrip(os.sep)) or path
        # plain: a QPushButton never reads its text as markup
        self.button.setText(f"Undo move of {name}" if move else f"Undo remove of {name}")
        self.button.setToolTip(tooltip(f"Put {path} back in the library as it was, at once"
                                       + (f", and take {moved_to} out" if moved_to else "")))
        self.button.show()
        self.timer.start()

    def expire(self) -> None:
        """The Undo is no longer offered; what the library kept for it is dropped (on the write queue)."""
        if self.path is None or self.lib is None:
            return
        lib = self.lib
        self._withdraw()
        self.tools.runner.submit(lambda p, c: lib.forget_removed(), write=True, name="forget removed",
                                    on_error=lambda exc, tb: None)  # a read-only or closed library kept nothing

    def on_changes(self, changes: Changes) -> None:
        """An Undo keeps to the library its folder was removed from: a shared library reopened under new settings
        takes the offer over; a desktop library keeps the removed rows on its own connection (temporary tables),
        so its reopening ends the offer, as another library chosen in the File menu does (what was kept is
        dropped there)."""
        if not changes.settings or self.path is None or self.lib is None or self.lib is self.session.library:
            return
        if isinstance(self.lib, SharedLibrary) and not changes.library:
            self.lib = self.session.library  # the server keeps the removed rows, not the connection
        else:
            self.expire()

    def _withdraw(self) -> None:
        self.path, self.lib, self.move = None, None, None
        self.timer.stop()
        self.button.hide()

    def undo(self) -> None:
        if self.path is None or self.lib is None:
            return
        path, lib, move, say = self.path, self.lib, self.move, self.tools.say
        self._withdraw()
        undone: list[MoveUndone] = []  # what the move's undo did beside, once put_back did it

        def put_back(p: object, c: object) -> Optional[tuple[str, int] | str]:
            try:
                got = lib.undo_remove()
                # the move undone as `searchapp undo` does it: its new place out again, its saved searches back
                if got is not None and move is not None:
                    undone.append(undo_move(lib, move))
                return got
            except SearchAppError as exc:
                if isinstance(exc, StoreError):
                    raise
                return str(exc)  # a shared library's why not (its minute passed, indexed again): a line, no dialog

        def done(got: Optional[tuple[str, int] | str]) -> None:
            if isinstance(got, str):
                say(got[:1].upper() + got[1:], 10000)
                return
            say(f"{got[0]} is back ({got[1]} file{'' if got[1] == 1 else 's'})"
                + "".join(f"; {u.taken_out} is out of the library again" for u in undone if u.taken_out)
                + "".join(f"; {line}" for u in undone for line in u.lines()) if got else
                f"Cannot undo: {path} was indexed again, or the library's model or chunking changed, since it was "
                "removed; add it again to index it.", 10000)

        self.submit(f"Putting back {os.path.basename(path)}", put_back, Changes(roots=True, files=True), done)
