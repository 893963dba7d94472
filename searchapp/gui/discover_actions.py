"""The main window's "Similar files" and "Duplicates" actions: menu entries, the results' context menu, and the
jobs behind them. Kept out of main_window.py, which only calls `install(window)`."""

from __future__ import annotations

import os
from typing import Optional

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from ..library.search.duplicates import DEFAULT_THRESHOLD
from .duplicates_window import DuplicatesWindow
from .results_model import HIT_ROLE

__all__ = ["install", "show_similar", "open_duplicates"]


def install(win) -> None:
    win.duplicates_window = None
    file_menu = win.menuBar().actions()[0].menu()
    act = QAction("Similar &Files…", win)
    act.setObjectName("similarFilesAction")
    act.triggered.connect(lambda: _ask_similar(win))
    file_menu.insertAction(file_menu.actions()[-1], act)
    view_menu = win.menuBar().actions()[1].menu()
    act = QAction("&Duplicates…", win)
    act.setObjectName("duplicatesAction")
    act.triggered.connect(lambda: open_duplicates(win))
    view_menu.addAction(act)
    view = win.results_view
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    view.customContextMenuRequested.connect(lambda pos: _context_menu(win, pos).popup(view.viewport().mapToGlobal(pos)))


def _context_menu(win, pos: QPoint) -> QMenu:
    menu = QMenu(win.results_view)
    hit = win.results_view.indexAt(pos).data(HIT_ROLE)
    if hit is not None:
        menu.addAction("Similar files", lambda: show_similar(win, hit.path))
        if hit.page:
            menu.addAction(f"Similar to page {hit.page}", lambda: show_similar(win, hit.path, hit.page))
        menu.addAction("Open", lambda: win.search.open_index(win.results_view.indexAt(pos)))
    return menu


def _ask_similar(win) -> None:
    path, _ = QFileDialog.getOpenFileName(win, "Files similar to…")
    if path:
        show_similar(win, path)


def show_similar(win, path: str, page: Optional[int] = None) -> None:
    """Show the files most like `path` in the results list, as a search would (filters apply)."""
    k, lib = win.k_box.value(), win.library
    filters = win.filter_bar.filters()
    win.statusBar().showMessage(f"Looking for files like {os.path.basename(path)}…")
    win.search.submit("similar", lambda p, c: lib.similar(path, page=page, k=k, filters=filters), k)


def open_duplicates(win, threshold: Optional[float] = None) -> DuplicatesWindow:
    if win.duplicates_window is None:
        dw = win.duplicates_window = DuplicatesWindow(DEFAULT_THRESHOLD if threshold is None else threshold, win)
        dw.openRequested.connect(win.open_url)
        dw.refreshRequested.connect(lambda t: _find_duplicates(win, t))
    elif threshold is not None:
        win.duplicates_window.threshold.setValue(threshold)
    win.duplicates_window.show()
    win.duplicates_window.raise_()
    _find_duplicates(win, win.duplicates_window.threshold.value())
    return win.duplicates_window


def _find_duplicates(win, threshold: float) -> None:
    dw, lib = win.duplicates_window, win.library
    dw.set_busy()
    win.runner.submit(lambda p, c: lib.duplicates(threshold, progress=p, cancel=c), name="duplicates",
                      on_success=dw.set_report,
                      on_error=lambda exc, tb: (dw.refresh_button.setEnabled(True), win.report_error(exc, tb)))
