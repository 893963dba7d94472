"""The desktop app (PySide6). Only this package imports Qt; it reaches the core only through `Library`.

`build_main_window(config, library=None)` builds the real window (tests and the app use it);
`run_gui(config)` starts the application.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ..base.config import Config
    from ..library import Library
    from ..library.warm.server import CommandRunner
    from .main_window import MainWindow
    from .signal_stop import StopRequests

__all__ = ["build_main_window", "run_gui"]

def build_main_window(config: "Optional[Config]" = None, library: "Optional[Library]" = None,
                      commands: "Optional[CommandRunner]" = None) -> "MainWindow":
    """The main window on `config` (default: the user's), using `library` when given (it then stays the caller's to close).
    `commands`: what runs a terminal's whole search command in the window's warm index (cli/warm_run.run_command).

    A QApplication is created when none exists yet. The window is not shown.
    """
    from .app import build_main_window as _build

    return _build(config, library, commands)


def run_gui(config: "Optional[Config]" = None, commands: "Optional[CommandRunner]" = None,
            stop_requests: "Optional[StopRequests]" = None) -> int:
    """The desktop app until its window closes; `commands`: see build_main_window; `stop_requests`: what closes
    it from outside as Quit does (Ctrl+C, `kill`: cli/gui_signals.py)."""
    import sys

    from .platform_check import EXIT_MISSING_LIBRARIES, xcb_problem

    problem = xcb_problem()  # before Qt loads its platform plugin: Qt itself would only abort, unexplained
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_MISSING_LIBRARIES
    from .app import run_gui as _run

    return _run(config, commands, stop_requests)
