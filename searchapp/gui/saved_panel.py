"""Saved searches in the library pane: each a "smart folder" with how many new files it lists since it was last
opened. Names and queries are a person's text and may quote file names: list items are plain text, tooltips
escaped."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ..library.query.saved import SavedSearch
from .mode_box import mode_name
from .plain import tooltip

__all__ = ["SavedPanel", "item_text", "EMPTY_HINT", "READING_HINT"]

EMPTY_HINT = "Search → Save Search… keeps the query here; it shows new matching files."
READING_HINT = "Reading saved searches…"


def item_text(s: SavedSearch) -> str:
    return s.name + (f"  ({s.new_hits} new)" if s.new_hits else "")


class SavedPanel(QWidget):
    openRequested = Signal(str)  # a saved search's name
    removeRequested = Signal(str)

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.items: list[SavedSearch] = []
        self.list = QListWidget()
        self.list.setObjectName("savedSearches")
        self.list.setAccessibleName("Saved searches")
        self.list.itemActivated.connect(lambda it: self.openRequested.emit(it.data(Qt.ItemDataRole.UserRole)))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        remove = QAction("Remove Saved Search", self.list)
        remove.triggered.connect(self._remove_current)
        self.list.addAction(remove)
        # Until the searches are read (in the background: counting new files runs each search), the hint says so: the
        # empty list's hint told a newcomer with two saved searches that there were none, for seconds.
        self.hint = QLabel(READING_HINT)
        self.hint.setWordWrap(True)
        # Two lines from the start: the reading hint is one, the empty list's two at the pane's width, and the pane
        # grew under the library's buttons as the searches were read (they jumped 14 px a moment after opening).
        self.hint.setMinimumHeight(2 * self.hint.fontMetrics().lineSpacing())
        self.problem = QLabel()  # searches.sqlite unusable: said here until it is fixed, not over every search
        self.problem.setObjectName("searchesProblem")
        self.problem.setTextFormat(Qt.TextFormat.PlainText)  # holds a path and SQLite's words
        self.problem.setWordWrap(True)
        self.problem.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 6, 0, 0)
        lay.addWidget(QLabel("<b>Saved searches</b>"))
        lay.addWidget(self.list)
        lay.addWidget(self.hint)
        lay.addWidget(self.problem)
        self.list.setMaximumHeight(160)
        self.list.setVisible(False)

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def set_items(self, items: list[SavedSearch]) -> None:
        current = self.current_name()
        self.items = list(items)
        self.list.clear()
        for s in self.items:
            it = QListWidgetItem(item_text(s))  # a list item's text is never markup
            it.setData(Qt.ItemDataRole.UserRole, s.name)
            it.setToolTip(tooltip(f"{s.query}\n{mode_name(s.mode)} · {s.hits} files" + (f" · {s.new_hits} new since last opened"
                                                                              if s.new_hits else "")))
            if s.new_hits:
                font = QFont(it.font())
                font.setBold(True)
                it.setFont(font)
            self.list.addItem(it)
            if s.name == current:
                self.list.setCurrentItem(it)
        self.list.setVisible(bool(self.items))
        self.hint.setText(EMPTY_HINT)
        self.hint.setVisible(not self.items)

    def names(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def texts(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def current_name(self) -> Optional[str]:
        it = self.list.currentItem()
        name: Optional[str] = it.data(Qt.ItemDataRole.UserRole) if it is not None else None  # set_items stored the name
        return name

    def _remove_current(self) -> None:
        name = self.current_name()
        if name is not None:
            self.removeRequested.emit(name)
