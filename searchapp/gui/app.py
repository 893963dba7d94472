"""Starting the application: the QApplication, its icon, the main window, and a last-resort error hook."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Optional

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from ..base.config import Config
from ..base.errors import SearchAppError

if TYPE_CHECKING:
    from ..library import Library
    from ..library.warm.server import CommandRunner
    from .main_window import MainWindow
    from .signal_stop import StopRequests

__all__ = ["ensure_application", "run_gui", "resource_path"]

_APP: Optional[QApplication] = None


def resource_path(name: str) -> Path:
    """A file from resources/: beside the package in a checkout, inside the bundle when frozen by PyInstaller."""
    base = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[2]))
    return base / "resources" / name


def ensure_application() -> QApplication:
    global _APP
    app = QApplication.instance()
    if app is None:
        app = _APP = QApplication(sys.argv[:1])
        app.setApplicationName("searchapp")
        app.setOrganizationName("searchapp")
        app.setDesktopFileName("searchapp")
        icon = resource_path("searchapp.png")
        if icon.is_file():
            app.setWindowIcon(QIcon(str(icon)))
    return app  # type: ignore[return-value]


def _no_display() -> bool:
    return (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"))


def build_main_window(config: Optional[Config] = None, library: Optional[Library] = None,
                      commands: Optional[CommandRunner] = None) -> MainWindow:
    """See searchapp.gui.build_main_window (the package re-exports this without importing Qt itself).
    `commands`: what runs a terminal's whole search command in this window's warm index (the command line's
    cli/warm_run.run_command, handed in by `searchapp gui`; library/warm/server.CommandRunner)."""
    from .main_window import MainWindow

    ensure_application()
    if config is None:
        from ..base.config import load_config

        config = load_config()
    return MainWindow(config, library, commands)


def _say_not_opened(exc: SearchAppError, shared: bool) -> None:
    """The window started from a desktop menu, whose library cannot be opened: nobody reads the terminal's line
    there, so a dialog says it (the window never showed, nothing else did)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    advice = ("Start searchapp again once the server can be reached; `searchapp --library local gui` opens this "
              "computer's own library meanwhile." if shared else "")
    text = f"The library could not be opened:\n{exc}\n\n{advice}".strip()
    box = QMessageBox(QMessageBox.Icon.Warning, "searchapp", text, QMessageBox.StandardButton.Ok)
    box.setObjectName("notOpenedDialog")
    box.setTextFormat(Qt.TextFormat.PlainText)
    if not os.environ.get("SEARCHAPP_SMOKE_TEST"):  # the packaged-build check waits for no one
        box.exec()


def run_gui(config: Optional[Config] = None, commands: Optional[CommandRunner] = None,
            stop_requests: Optional[StopRequests] = None) -> int:
    """The application until its window closes; its exit code. `stop_requests`: what asks it to close as Quit
    does, from outside (`searchapp gui`: Ctrl+C, `kill`, a closed terminal; cli/gui_signals.py)."""
    if _no_display():
        # Qt would abort the process; say what to do instead.
        print("searchapp: no display found; use the command line (`searchapp --help`) or set QT_QPA_PLATFORM",
              file=sys.stderr)
        return 2
    from .errors import show_error

    app = ensure_application()
    try:
        win = build_main_window(config, commands=commands)
    except SearchAppError as exc:  # a shared library out of reach (the server down, a refused password)
        _say_not_opened(exc, shared=config is not None and bool(config.library.address))
        raise  # the command line's one line and exit code, for a terminal

    def hook(etype: type[BaseException], value: BaseException, tb: Optional[TracebackType]) -> None:  # a bug in a slot: show it and keep running, nothing is lost
        text = "".join(traceback.format_exception(etype, value, tb))
        sys.stderr.write(text)
        show_error(win, value, text)

    sys.excepthook = hook
    if stop_requests is not None:
        from .signal_stop import SignalStop

        SignalStop(app, win).listen(stop_requests)
    win.show()
    if os.environ.get("SEARCHAPP_SMOKE_TEST"):
        # Used by the packaged-build check: prove a window opened, then quit.
        from PySide6.QtCore import QTimer

        def report() -> None:
            print(f"searchapp: window shown: {win.isVisible()} {win.objectName()}", flush=True)
            win.close()
            app.quit()

        QTimer.singleShot(int(os.environ.get("SEARCHAPP_SMOKE_TEST_MS", "1500")), report)
    return app.exec()
