"""`searchapp gui` (and a bare `searchapp`): open the desktop app. Qt is imported only when it is wanted."""

from __future__ import annotations

import argparse
from ...base.config import Config
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_gui"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("gui", help="open the desktop app (also what `searchapp` with no command does)")
    s.set_defaults(handler=cmd_gui)


def cmd_gui(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ..gui_signals import WindowSignals

    # Before Qt loads (a second or more): a Ctrl+C or `kill` meanwhile closes the window as soon as it is shown.
    stops = WindowSignals(cancel)
    stops.install()
    try:
        from ...gui import run_gui  # Qt is imported only when the window is wanted
        from ..warm_run import run_command

        # The window answers the terminal's searches (cli/warm_run.py) and closes on a stop signal as Quit does.
        return run_gui(config, commands=run_command, stop_requests=stops)
    finally:
        stops.close()
