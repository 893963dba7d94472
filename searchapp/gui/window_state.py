"""What the main window remembers between runs (gui.ini in the data dir): geometry, splitter positions (those
of the current layout only), the last query and search mode. The last query only while search history is kept (`search.history` > 0):
with it off, no query text is written anywhere, and one written before is removed."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QByteArray, QSettings

from ..base.private import create_private_file

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLineEdit

    from .mode_box import ModeBox

    from ..base.config import Config

__all__ = ["open_ui_settings", "restore_ui_state", "save_ui_state", "forget_query_unless_kept", "RememberedWindow"]

SPLITTERS = ("main_split", "right_split", "bottom_split")  # the window's attribute names
# Bumped when the default arrangement changes: splitter positions saved for an older one are dropped, or a
# window saved with four result rows on screen would keep them after the update that made room for ten.
LAYOUT = 2


class _SearchBar(Protocol):
    @property
    def search_box(self) -> QLineEdit: ...

    @property
    def mode_box(self) -> ModeBox: ...


class RememberedWindow(Protocol):
    """What this module reads and sets on the main window (gui/main_window.py, which imports this module), and
    its splitters by name (SPLITTERS)."""

    @property
    def config(self) -> Config: ...

    @property
    def search(self) -> _SearchBar: ...

    def restoreGeometry(self, geometry: QByteArray) -> bool: ...

    def saveGeometry(self) -> QByteArray: ...

    def resize(self, w: int, h: int, /) -> None: ...


def open_ui_settings(data_dir: str | Path) -> QSettings:
    ini = Path(data_dir) / "gui.ini"
    with contextlib.suppress(OSError):  # 0600 before Qt writes it (it holds the last query); Qt keeps the mode
        create_private_file(ini)
    return QSettings(str(ini), QSettings.Format.IniFormat)


def restore_ui_state(win: RememberedWindow, s: QSettings) -> None:
    geo = s.value("geometry")
    if isinstance(geo, QByteArray) and not geo.isEmpty():
        win.restoreGeometry(geo)
    else:
        win.resize(1280, 800)
    same_layout = s.value("layout", 0, type=int) == LAYOUT
    for name in SPLITTERS:
        st = s.value(name)
        if isinstance(st, QByteArray) and same_layout:
            getattr(win, name).restoreState(st)
    if not forget_query_unless_kept(win, s):
        win.search.search_box.setText(str(s.value("last_query", "") or ""))
    win.search.mode_box.set_mode(str(s.value("mode", "") or ""))  # an unknown one leaves the configured mode


def save_ui_state(win: RememberedWindow, s: QSettings) -> None:
    s.setValue("geometry", win.saveGeometry())
    s.setValue("layout", LAYOUT)
    for name in SPLITTERS:
        s.setValue(name, getattr(win, name).saveState())
    if not forget_query_unless_kept(win, s):
        s.setValue("last_query", win.search.search_box.text())
    s.setValue("mode", win.search.mode_box.mode())
    s.sync()


def forget_query_unless_kept(win: RememberedWindow, s: QSettings) -> bool:
    """With search history off, remove the last query from gui.ini now; True when it is off."""
    if win.config.search.history > 0:
        return False
    if s.contains("last_query"):
        s.remove("last_query")
        s.sync()
    return True
