"""The main window's "Similar files" and "Duplicates" actions: menu entries, the results' context menu, and the
jobs behind them. Kept out of main_window.py, which only builds this part and lends it what it needs."""

from __future__ import annotations

import os
from functools import partial
from typing import Callable, Optional

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from ..base.page_names import page_label
from ..base.types import Hit
from ..library.search.duplicates import DEFAULT_THRESHOLD
from .duplicates_window import DuplicatesWindow
from .filter_bar import FilterBar
from .library_session import LibrarySession
from .results_model import HIT_ROLE
from .search_controller import SearchController
from .window_tools import WindowTools

__all__ = ["DiscoverActions"]


class DiscoverActions:
    def __init__(self, tools: WindowTools, session: LibrarySession, search: SearchController,
                 filter_bar: FilterBar, open_url: Callable[[QUrl], bool]) -> None:
        self.tools, self.session, self.search, self.filter_bar = tools, session, search, filter_bar
        self.open_url = open_url  # indexed paths only, as the results' own opener; False: it could not
        self.duplicates_window: Optional[DuplicatesWindow] = None
        self.row_actions: list[tuple[str, Callable[[Hit], object]]] = []  # (text, slot(hit)) other parts add to a result's menu
        view = search.results_view
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(lambda pos: self.context_menu(pos).popup(view.viewport().mapToGlobal(pos)))

    def install_menu(self, file_menu: QMenu, view_menu: QMenu) -> None:
        act = QAction("Similar &Files…", file_menu)
        act.setObjectName("similarFilesAction")
        act.triggered.connect(self._ask_similar)
        file_menu.insertAction(file_menu.actions()[-1], act)
        act = QAction("&Duplicates…", view_menu)
        act.setObjectName("duplicatesAction")
        act.triggered.connect(lambda: self.open_duplicates())
        view_menu.addAction(act)

    def context_menu(self, pos: QPoint) -> QMenu:
        view = self.search.results_view
        menu = QMenu(view)
        hit = view.indexAt(pos).data(HIT_ROLE)
        if hit is not None:
            menu.addAction("Similar files", lambda: self.show_similar(hit.path))
            if hit.page:
                menu.addAction(f"Similar to {page_label(hit.path, hit.page)}", lambda: self.show_similar(hit.path, hit.page))
            menu.addAction("Open", lambda: self.search.open_index(view.indexAt(pos)))
            for text, slot in self.row_actions:
                menu.addAction(text, partial(slot, hit))
        return menu

    def _ask_similar(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.tools.parent, "Files similar to…")
        if path:
            self.show_similar(path)

    def show_similar(self, path: str, page: Optional[int] = None) -> None:
        """Show the files most like `path` in the results list, as a search would (filters apply)."""
        k, session, filters = self.search.k_box.value(), self.session, self.filter_bar.filters()
        self.tools.say(f"Looking for files like {os.path.basename(path)}…", 0)
        # The library in use when it runs: run again (a changed index, Back) after a settings change reopened it,
        # the one it was made on may be closed (LibrarySession._close_retired).
        self.search.show_similar(path, page, lambda p, c: session.library.similar(path, page=page, k=k,
                                                                                   filters=filters), k)

    def open_duplicates(self, threshold: Optional[float] = None) -> DuplicatesWindow:
        dw = self.duplicates_window
        if dw is None:
            dw = self.duplicates_window = DuplicatesWindow(DEFAULT_THRESHOLD if threshold is None else threshold,
                                                           self.tools.parent)
            dw.openRequested.connect(partial(self._open_duplicate, dw))
            dw.refreshRequested.connect(self._find_duplicates)
        elif threshold is not None:
            dw.threshold.setValue(threshold)
        dw.show()
        dw.raise_()
        self._find_duplicates(dw.threshold.value())
        return dw

    def _open_duplicate(self, dw: DuplicatesWindow, url: QUrl) -> None:
        if not self.open_url(url):
            dw.open_failed(url)

    def _find_duplicates(self, threshold: float) -> None:
        dw, lib, report_error = self.duplicates_window, self.session.library, self.tools.report_error
        if dw is None:  # asked by the window it opens
            return

        def failed(exc: BaseException, tb: str) -> None:
            dw.refresh_button.setEnabled(True)
            report_error(exc, tb)

        dw.set_busy()
        self.tools.runner.submit(lambda p, c: lib.duplicates(threshold, progress=p, cancel=c), name="duplicates",
                                    on_success=dw.set_report,
                                    on_error=failed)
