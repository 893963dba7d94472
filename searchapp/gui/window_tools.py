"""What the window lends its parts, and nothing else of it: the job pools, a line in the status bar, the error
dialog, the change signal. A part gets this and the few widgets it works on; it never holds the window."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtWidgets import QWidget

from .changes import Changes
from .workers import JobRunner

__all__ = ["WindowTools"]


@dataclass(frozen=True)
class WindowTools:
    parent: QWidget  # what dialogs open over; not to be reached through
    runner: JobRunner
    say: Callable[[str, int], None]  # a line in the status bar for that many ms (0: until the next)
    line: Callable[[], str]  # the status bar's line now ("" when none): whether what a part said is still shown
    report_error: Callable[[BaseException, str], None]
    changed: Callable[[Changes], None]  # an operation's changes, to every part
    dialog_shown: Callable[[QWidget], None]  # the dialog now open (the window keeps the last one for tests)
