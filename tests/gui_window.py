"""The real main window as the GUI tests open it."""

from __future__ import annotations

WAIT_MS = 60_000


def shown_window(qtbot, config, lib):
    """The window over `lib`, shown (offscreen) once its first status is in. URLs it would open are recorded in
    `win.opened` and never handed to the system's handler."""
    from searchapp.gui import build_main_window

    win = build_main_window(config, lib)
    qtbot.addWidget(win)
    win.opened = []
    win.url_opener = win.opened.append
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        win.show()
    return win


def close_window(win, lib) -> None:
    """Close the dialogs `win` left open, the window, then its library."""
    from PySide6.QtWidgets import QApplication

    for top in QApplication.topLevelWidgets():
        if top is not win and top.isVisible():
            top.close()
    win.close()
    lib.close()
