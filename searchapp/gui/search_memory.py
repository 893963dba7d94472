"""Recent queries and saved searches in the window (library/query/saved.py does the work, on the read pool).

History: a query counts as used when it is run with Enter or one of its results is opened (as-you-type searches
of half-typed words are not kept); recent ones are offered as completions in the query box. Saved searches
are listed in the library pane and counted again at startup and whenever an operation changed the index, the
settings or the saved searches (a count re-runs a search only when the library changed).
"""

from __future__ import annotations

from typing import Callable, Optional, TypeVar

from PySide6.QtCore import QObject, QStringListModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QCompleter, QInputDialog, QLineEdit, QMenuBar, QMessageBox

from ..library import SearchResult
from ..library.query.syntax import with_filters
from ..library.query.saved import SavedSearch, SavedSearches, SearchesError, SearchHistory
from .changes import Changes
from .filter_bar import FilterBar
from .library_session import LibrarySession
from .saved_panel import SavedPanel
from .search_controller import SearchController
from .window_tools import WindowTools
from .syntax_help import SyntaxHelp

__all__ = ["SearchMemory"]

_T = TypeVar("_T")


class SearchMemory(QObject):
    historyChanged = Signal(object)  # list[str]: the recent queries now offered
    savedChanged = Signal(object)  # list[SavedSearch]: the saved searches now listed

    def __init__(self, tools: WindowTools, session: LibrarySession, search: SearchController, filter_bar: FilterBar,
                 panel: SavedPanel) -> None:
        super().__init__(tools.parent)
        self.tools, self.session, self.search, self.filter_bar, self.panel = tools, session, search, filter_bar, panel
        self.history_model = QStringListModel(self)
        self.completer = QCompleter(self.history_model, self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        search.search_box.setCompleter(self.completer)
        search.search_box.returnPressed.connect(self.record_current)
        search.results_view.activated.connect(lambda *_: self.record_current())
        panel.openRequested.connect(self.open)
        panel.removeRequested.connect(self.remove)
        self.help: Optional[SyntaxHelp] = None

    def install_menu(self, menu_bar: QMenuBar) -> None:
        m = menu_bar.addMenu("&Search")
        for text, key, slot in (("&Save Search…", QKeySequence("Ctrl+S"), self.ask_save),
                                ("Clear Search &History", None, self.clear_history),
                                ("Query &Syntax…", QKeySequence("F1"), self.show_help)):
            act = QAction(text, m)
            if key is not None:
                act.setShortcut(key)
            act.triggered.connect(slot)
            m.addAction(act)

    def _submit(self, name: str, fn: Callable[[], _T], done: Optional[Callable[[_T], None]] = None,
                background: bool = False) -> None:
        """`background`: work the person did not ask for (completions, counts): a searches.sqlite that cannot be
        used is said in the status bar, not a dialog at every search."""
        on_error = self._background_error if background else self.tools.report_error
        self.tools.runner.submit(lambda p, c: fn(), name=name, on_success=done, on_error=on_error)

    def _background_error(self, exc: BaseException, tb: str) -> None:
        if isinstance(exc, SearchesError):  # names the file and what to do; the library and the search are fine
            self.panel.show_problem(str(exc))  # stays: a search's own status line would cover a status message
            self.tools.say(str(exc), 0)
        else:
            self.tools.report_error(exc, tb)

    def on_changes(self, changes: Changes) -> None:
        if changes.index or changes.searches:
            self.refresh()
        if changes.settings:
            self.load_history()

    # -- history ----------------------------------------------------------------
    def load_history(self) -> None:
        config = self.session.config
        self._submit("history", lambda: SearchHistory(config).queries(), self._show_history, background=True)

    def _show_history(self, queries: list[str]) -> None:
        self.panel.show_problem("")  # searches.sqlite answered: whatever was wrong with it is mended
        self.history_model.setStringList(queries)
        self.historyChanged.emit(queries)

    def record_current(self) -> None:
        query, mode, config = self.search.search_box.text().strip(), self.search.mode_box.mode(), self.session.config
        if not query or self.session.library.read_only:  # nothing is written beside a read-only library
            return

        def job() -> list[str]:
            history = SearchHistory(config)
            history.record(query, mode)
            return history.queries()

        self._submit("history", job, self._show_history, background=True)

    def clear_history(self) -> None:
        def done(n: int) -> None:
            self._show_history([])
            self.tools.say(f"Search history cleared ({n} queries).", 8000)

        config = self.session.config
        self._submit("clear history", lambda: SearchHistory(config).clear(), done)

    # -- saved searches ---------------------------------------------------------
    def _saved(self) -> SavedSearches[SearchResult]:
        return SavedSearches(self.session.library)

    def _show_saved(self, items: list[SavedSearch]) -> None:
        self.panel.show_problem("")
        self.panel.set_items(items)
        self.savedChanged.emit(items)

    def refresh(self) -> None:
        """Count new hits again where the library changed since they were counted (a no-op otherwise)."""
        saved = self._saved()
        self._submit("saved searches", saved.refresh, self._show_saved, background=True)

    def ask_save(self) -> None:
        query = self.search.search_box.text().strip()
        if not query:
            self.tools.say("Type a query to save it.", 8000)
            return
        name, ok = QInputDialog.getText(self.tools.parent, "Save search", "Name:", QLineEdit.EchoMode.Normal, query[:60])
        if not ok or not name.strip():
            return
        replace = False
        if name.strip() in self.panel.names():
            box = QMessageBox(QMessageBox.Icon.Question, "Save search", "", QMessageBox.StandardButton.NoButton,
                              self.tools.parent)
            box.setTextFormat(Qt.TextFormat.PlainText)  # the name is a person's text
            box.setText(f"Replace the saved search “{name.strip()}”?")
            box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            if box.exec() != QMessageBox.StandardButton.Yes:
                return
            replace = True
        self.save(name, replace=replace)

    def save(self, name: str, *, replace: bool = False) -> None:
        """Save the query as typed (its fields carry the filters), with the mode and k shown."""
        search = self.search
        query, mode, k = search.search_box.text().strip(), search.mode_box.mode(), search.k_box.value()
        bar = self.filter_bar.filters()
        if bar is not None:  # the bar mirrors the query's fields; one set without committing it is kept too
            query = with_filters(query, bar)
        saved = self._saved()

        def done(_: object) -> None:
            self.tools.say(f"Saved search “{name.strip()}”.", 8000)
            self.tools.changed(Changes(searches=True))

        self._submit("save search", lambda: saved.add(name, query, mode=mode, k=k, replace=replace), done)

    def open(self, name: str) -> None:
        """Show the saved search's list in the results; its new files are then no longer new."""
        item = next((s for s in self.panel.items if s.name == name), None)
        if item is None:
            return
        search = self.search
        search.mode_box.set_mode(item.mode)
        search.group_box.setChecked(True)  # a smart folder lists files
        search.k_box.setValue(min(max(item.k, search.k_box.minimum()), search.k_box.maximum()))
        search.search_box.setText(item.query)  # the chips and the filter bar follow (query_sync)
        saved = self._saved()
        # Opened, its files are no longer new: that changed the saved searches.
        search.finished.connect(lambda *_: self.tools.changed(Changes(searches=True)),
                                Qt.ConnectionType.SingleShotConnection)
        search.submit("saved search", lambda p, c: saved.run(name), item.k)  # stops the debounce the boxes started

    def remove(self, name: str) -> None:
        saved = self._saved()
        self._submit("remove saved search", lambda: saved.remove(name), lambda _: self.tools.changed(Changes(searches=True)))

    # -- help -------------------------------------------------------------------
    def show_help(self) -> SyntaxHelp:
        if self.help is None:
            self.help = SyntaxHelp(self.tools.parent)
        self.help.show()
        self.help.raise_()
        self.tools.dialog_shown(self.help)
        return self.help
