"""The main window: library on the left, query and results on the right, preview and score inspector below.

Library work that takes time (search, status, indexing, loading models, reading a file for the preview) runs on
a JobRunner pool; the GUI thread only opens and closes the Library and asks it cheap questions (is a reranker
loaded, why not). The window builds its parts, lends each what it needs (WindowTools and a few widgets) and lays
out their widgets: the search controller (query → results), the library session (open, reconfigure, close), the
write jobs (indexing and its progress), the search memory, the discover actions, the reranker notice and the
status labels. An operation announces what it changed (Changes, through `changed`); each part refreshes itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Optional

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (QAction, QCloseEvent, QDesktopServices, QDragMoveEvent, QDropEvent, QKeySequence,
                           QShortcut)
from PySide6.QtWidgets import QMainWindow, QSplitter, QToolButton, QVBoxLayout, QWidget

from ..base.config import Config
from ..base.types import Hit
from ..library import Library, LibraryStatus
from ..library.resources.lock import writer_holder
from ..library.shared import SharedLibrary
from .changes import Changes
from .discover_actions import DiscoverActions
from .empty_results import adding_text, ready_text
from .errors import show_error
from .filter_bar import FilterBar
from .inspector_toggle import InspectorToggle
from .library_panel import LibraryPanel
from .library_session import LibrarySession
from .folder_watch import FolderWatch
from .other_writers import OtherWriters
from .quit_guard import QuitGuard
from .model_download import ModelDownloads
from .preview import PreviewPane
from .progress_view import ProgressView, scans_waiting
from .query_chips import QueryChips
from .query_sync import QuerySync
from .reranker_notice import RerankerNotice
from .saved_panel import SavedPanel
from .score_inspector import ScoreInspector
from .search_controller import SearchController
from .search_memory import SearchMemory
from .window_tools import WindowTools
from .settings_dialog import SettingsDialog
from .shared_open import OpenSharedDialog
from .status_labels import StatusLabels
from .window_state import forget_query_unless_kept, open_ui_settings, restore_ui_state, save_ui_state
from .write_jobs import WriteJobs

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from ..library.warm.server import CommandRunner
    from ..models.hub import PulledModel
    from .model_download import DownloadDialog

__all__ = ["MainWindow"]


class MainWindow(QMainWindow):
    searchFinished = Signal(object)  # the SearchResult now shown
    statusRefreshed = Signal(object)  # LibraryStatus
    writesIdle = Signal()  # the last queued write finished and the library view shows its result
    previewShown = Signal(object)  # the Hit whose file text is now in the preview
    errorShown = Signal(object)  # the dialog
    changed = Signal(object)  # Changes: what an operation just changed; every part refreshes what it shows

    def __init__(self, config: Config, library: Optional[Library] = None, commands: Optional[CommandRunner] = None) -> None:
        super().__init__()
        from .workers import JobRunner

        self.runner = JobRunner(self)
        self.downloads = ModelDownloads(self)
        self.tools = WindowTools(parent=self, runner=self.runner, say=self._say, line=self.statusBar().currentMessage,
                                 report_error=self.report_error, changed=self.changed.emit,
                                 dialog_shown=self._dialog_shown)
        self.session = LibrarySession(self.tools, self.downloads, config, library, commands)
        self.status: Optional[LibraryStatus] = None
        self._status_asked = 0  # refresh_status calls so far: only the newest one's answer is shown
        self._status_reading = 0  # status reads not answered yet: a sync's count refresh never piles them up
        self._status_failure: Optional[str] = None  # the last status read's error, until one succeeds
        self._read_again = False  # the folders an older version's readers read were synced once (decision 0152)
        self.url_opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self.last_dialog: Optional[QWidget] = None
        self._ui = open_ui_settings(config.data_dir)

        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self._build_widgets()
        self._build_menu()
        self._show_library()
        self._build_shortcuts()
        self.other_writers = OtherWriters(self.tools, self.session)  # a sync in a terminal: shown here too
        for part in (self, self.search, self.memory, self.other_writers, self.writes.undo, self.folder_watch):  # the window's own part: the status and the models
            self.changed.connect(part.on_changes)
        restore_ui_state(self, self._ui)
        self.inspector_toggle.restore()
        # Startup work goes to the pools once the event loop runs, so the window paints first.
        QTimer.singleShot(0, self.start_background)

    @property
    def config(self) -> Config:
        return self.session.config

    @property
    def library(self) -> Library | SharedLibrary:
        """The desktop's library, or a shared one (`searchapp --library ADDRESS gui`: decision 0141)."""
        return self.session.library

    @property
    def models_ready(self) -> bool:
        """Whether a search by meaning, as the query row is set now, finds its models in memory (none loading)."""
        models = self.search.models
        return not models.loading and models.ready(self.search.rerank_box.isChecked())

    # -- layout -----------------------------------------------------------------
    def _build_widgets(self) -> None:
        tools, session = self.tools, self.session
        self.filter_bar = FilterBar()
        self.preview = PreviewPane()
        self.preview.openRequested.connect(self._open_from_preview)
        self.preview.browser.setAcceptDrops(False)
        self.inspector = ScoreInspector()
        search = self.search = SearchController(tools, session, self.filter_bar, self.preview)
        search.finished.connect(self.searchFinished)
        search.previewShown.connect(self.previewShown)
        search.resultShown.connect(self.inspector.set_result)
        search.noticeRaised.connect(self.show_reranker_notice)
        self.statusRefreshed.connect(search.meaning_moved)  # the meaning line follows the library's coverage
        self.query_chips = QueryChips()
        self.query_sync = QuerySync(search, self.filter_bar, self.query_chips)  # one query text, bar and chips follow
        self.syntax_button = QToolButton()
        self.syntax_button.setObjectName("syntaxButton")
        self.syntax_button.setText("?")
        self.syntax_button.setToolTip("Query syntax: \"phrase\", -word, OR, word*, in:, type:, name:, after:, before:, page:")
        search.bar.insertWidget(1, self.syntax_button)

        self.notice = RerankerNotice(self._ui)
        self.notice.chooseFolderRequested.connect(session.choose_reranker_folder)
        self.notice.downloadRequested.connect(lambda rid: self.download_model("reranker", rid))

        self.progress = ProgressView()
        self.progress.hide()
        self.writes = WriteJobs(tools, session, self.progress)
        self.writes.idle.connect(session.writes_idle)
        self.writes.countsDue.connect(self._refresh_counts)  # the pane follows a sync as it commits
        self.statusRefreshed.connect(self.writes.big_folders.show_status)  # a known folder is not asked about again
        self.quit_guard = QuitGuard(tools, self._ui, self.close, lambda title: self.writes.resync(None, title),
                                    lambda: writer_holder(self.config.data_dir) is not None, self.writes.add_paths)
        self.writes.addsWaiting.connect(self.quit_guard.adds_waiting)  # a folder dropped mid-sync survives a quit
        self.writes.addsWaiting.connect(lambda _: self._show_adding())  # listed at once, before its first files
        self.writes.syncStarted.connect(self.quit_guard.sync_started)  # a crash mid-sync resumes next time
        self.writes.idle.connect(self.quit_guard.writes_ended)
        self.folder_watch = FolderWatch(tools, session, self.writes, self._ui,  # a note saved: read a second later
                                        lambda: self.status is not None and bool(self.status.roots))
        self.library_panel = LibraryPanel()
        self.library_panel.addRequested.connect(self.add_paths)
        self.library_panel.removeRequested.connect(self.remove_root)
        self.library_panel.resyncRequested.connect(self.resync)
        self.library_panel.movedRequested.connect(self.writes.moved_root)
        self.library_panel.openRequested.connect(self._open_not_indexed)
        self.saved_panel = SavedPanel()
        self.library_panel.add_below(self.saved_panel)
        self.memory = SearchMemory(tools, session, search, self.filter_bar, self.saved_panel)  # history, saved searches
        self.syntax_button.clicked.connect(self.memory.show_help)
        self.discover = DiscoverActions(tools, session, search, self.filter_bar, self.open_url)  # Similar, Duplicates

        self.bottom_split = _splitter("bottomSplit", Qt.Orientation.Horizontal, (self.preview, self.inspector), [520, 560])
        self.inspector_toggle = InspectorToggle(self, self.inspector, self.bottom_split, self._ui,
                                                search.results_view)  # hidden at first; follows the selected result
        search.bar.insertWidget(search.bar.indexOf(self.syntax_button) + 1, self.inspector_toggle.button)
        self.discover.row_actions.append(("Why this rank?", self.inspector_toggle.why))
        # The results get the height: at 1280×800 ten two-line rows show above the preview.
        self.right_split = _splitter("rightSplit", Qt.Orientation.Vertical, (search.results_view, self.bottom_split),
                                     [460, 270])
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(search.bar)
        rl.addWidget(self.query_chips)
        rl.addWidget(self.filter_bar)
        rl.addWidget(self.notice)
        rl.addWidget(self.right_split, 1)
        self.main_split = _splitter("mainSplit", Qt.Orientation.Horizontal, (self.library_panel, right), [340, 940])

        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(6, 6, 6, 0)
        cl.addWidget(self.main_split, 1)
        cl.addWidget(self.progress)
        self.setCentralWidget(central)
        self.labels = StatusLabels(self.statusBar())
        self.labels.show_models(self.config, True)  # nothing loads at start: models load for the first search by meaning
        search.models.started.connect(self._models_changed)
        search.models.ended.connect(self._models_changed)
        self.statusBar().insertPermanentWidget(0, self.writes.undo.button)  # "Undo remove of NAME", after a Remove

    def _build_menu(self) -> None:
        m = self.menuBar().addMenu("&File")
        for text, key, slot in (("&Add Folder…", QKeySequence.StandardKey.Open, self.library_panel.ask_folder),
                                ("&Re-sync All", QKeySequence("F5"), lambda: self.resync(None)),
                                ("Re-&index Everything…", None, self.confirm_reindex),
                                ("Open S&hared Library…", None, self.ask_shared_library),
                                ("Use This &Computer's Library", None, self.use_desktop_library),
                                ("&Settings…", QKeySequence("Ctrl+,"), self.open_settings),
                                ("&Quit", QKeySequence.StandardKey.Quit, self.request_quit)):
            act = QAction(text, self)
            if slot == self.use_desktop_library:
                self.desktop_action = act  # enabled on a shared library only (_show_library)
            if key is not None:
                act.setShortcut(key)
            act.triggered.connect(slot)
            m.addAction(act)
            self.addAction(act)  # its shortcut works with the menu bar hidden or native (a global menu) too
            if slot == self.confirm_reindex:
                m.addAction(self.folder_watch.action)
        # Settings from any of the app's windows (the duplicates window, the files not indexed), as elsewhere.
        settings = next(a for a in m.actions() if a.text() == "&Settings…")
        keys = [QKeySequence("Ctrl+,")] + [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Preferences)
                                           if k != QKeySequence("Ctrl+,")]  # one binding per key: never ambiguous
        settings.setShortcuts(keys)
        settings.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        v = self.menuBar().addMenu("&View")
        act = QAction("Files Not Indexed…", self)
        act.triggered.connect(self.library_panel.show_problems)
        v.addAction(act)
        v.addAction(self.inspector_toggle.action)
        self.memory.install_menu(self.menuBar())
        self.discover.install_menu(m, v)

    def _build_shortcuts(self) -> None:
        for seq in ("Ctrl+L", "Ctrl+F"):
            QShortcut(QKeySequence(seq), self).activated.connect(self.search.focus)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self).activated.connect(self.search.clear)

    def save_ui_state(self) -> None:
        save_ui_state(self, self._ui)

    def _show_library(self) -> None:
        """A shared library says which, in the title: every search and write of this window goes to the server."""
        lib = self.library
        shared = isinstance(lib, SharedLibrary)
        self.setWindowTitle(f"searchapp — shared library {lib.store.path}" if shared else "searchapp")
        self.desktop_action.setEnabled(shared)

    def ask_shared_library(self) -> OpenSharedDialog:
        """File → Open Shared Library…: the address (the last one opened, else none), then the session opens it."""
        dlg = OpenSharedDialog(self.config.library.address or str(self._ui.value("shared/last", "", type=str)), self)
        dlg.accepted.connect(lambda: self._open_shared(dlg.address()))
        dlg.open()
        self._dialog_shown(dlg)
        return dlg

    def use_desktop_library(self) -> None:
        """File → Use This Computer's Library: back from a shared library to the data dir's own."""
        self.session.open_library("")

    def _open_shared(self, address: str) -> None:
        self._ui.setValue("shared/last", address)  # offered next time, after going back to this computer's
        self.session.open_library(address)

    # -- startup ----------------------------------------------------------------
    def start_background(self) -> None:
        """At startup: the status, the history and saved searches, the query restored from last time. No model:
        torch and the weights load when a search by meaning first needs them (model_load.py)."""
        self.refresh_status()
        self.memory.load_history()
        self.memory.refresh()
        if self.search.search_box.text().strip():
            self.search.run_search()  # the query restored from last time: at once, by words while the model loads
        self.other_writers.start()
        resumed = self.quit_guard.resume_if_asked()  # a Quit, or a crash, stopped indexing last time
        # What changed while the window was closed is read once it watches, unless the resumed sync reads it anyway
        self.folder_watch.start(catch_up=not resumed and not self.quit_guard.gave_up,
                                never_catch_up=self.quit_guard.gave_up)

    def on_changes(self, changes: Changes) -> None:
        """The window's own part: the library's status, the models, and a re-index the new settings call for."""
        if changes.settings:
            if changes.library:
                self._show_library()  # File → Open Shared Library…
            forget_query_unless_kept(self, self._ui)  # history just turned off: no query text stays in gui.ini
            self.search.models.forget_failure()  # other models, perhaps: they load at the next search by meaning
            self.refresh_status()
        elif changes.roots or changes.files or changes.elsewhere or changes.meaning:
            writes_done = (changes.roots or changes.files) and not changes.elsewhere
            self.refresh_status(then=self.writesIdle.emit if writes_done else None)
        if changes.stale_index and self.status is not None and self.status.chunks:
            self.writes.confirm_reindex()

    def _models_changed(self) -> None:
        """A load of the models started or ended: the labels say so (the search runs again by itself)."""
        self.labels.show_models(self.config, not self.search.models.loading)
        self._show_reranker_state()

    # -- status -----------------------------------------------------------------
    @property
    def reading_status(self) -> bool:
        """A status read is asked and not answered yet (its answer will still be shown)."""
        return self._status_reading > 0

    def refresh_status(self, then: Optional[Callable[[], None]] = None) -> None:
        lib = self.library
        self._status_asked += 1
        self._status_reading += 1
        asked = self._status_asked

        def done(st: LibraryStatus) -> None:
            self._status_failure = None
            # Two reads may finish out of order: one taken while the index was opening must not cover a newer one.
            if asked == self._status_asked:
                self._apply_status(st)
            if then:
                then()

        def failed(exc: BaseException, tb: str) -> None:
            # One dialog for one cause: a shared library's lost server fails every count refresh of a sync alike.
            if str(exc) != self._status_failure:
                self.report_error(exc, tb)
            self._status_failure = str(exc)
            if then:
                then()

        # Never waits for a vector index still opening (it would hold one of the two read threads a search typed
        # meanwhile needs, and the folders would look empty); Changes(meaning=True) asks again once it is open.
        def ended() -> None:  # however the read ends (answered, failed, cancelled): else counts stop refreshing
            self._status_reading -= 1

        self.runner.submit(lambda p, c: lib.status(wait_for_meaning=False), name="status", on_success=done,
                           on_error=failed, on_done=ended)

    def _refresh_counts(self) -> None:
        """During a write: the folders and their counts as committed so far (one read at a time)."""
        if not self._status_reading:
            self.refresh_status()

    def _apply_status(self, st: LibraryStatus) -> None:
        self.status = st
        self.search.models.passages = st.chunks  # none yet (a first start): a search by meaning loads nothing
        self.library_panel.set_status(st, self.writes.syncing)
        # A first start says how to begin; a desk joining a shared library other machines filled has no folder of
        # its own, and its searches find theirs.
        self.search.empty.show_welcome(not st.roots and not st.elsewhere)
        self._show_adding()
        searchable = st.files.get("indexed", 0)  # after a first sync: how many, and where to type
        self.search.empty.show_ready(ready_text(searchable) if searchable else None)
        self.labels.show_status(st)
        self.labels.show_models(self.config, not self.search.models.loading)
        self.progress.show_scans_waiting(scans_waiting(st))  # the strip names the OCR step still ahead by them
        self._show_reranker_state()
        self._read_again_once(st)
        self.statusRefreshed.emit(st)

    def _show_adding(self) -> None:
        """The folders added and not done yet: in the pane at once, and, while nothing is searchable yet, said in
        the results area (the first files of a large folder are committed seconds later)."""
        adding = list(self.writes.adds.values())
        self.library_panel.show_adding(adding, self.writes.syncing)
        st = self.status
        if adding and not (st is not None and (st.chunks or st.elsewhere)):  # a folder listed, 0 files in yet
            self.search.empty.show_welcome(True, adding_text(adding))

    def _read_again_once(self, st: LibraryStatus) -> None:
        """Folders an older version's readers read are read again, once a window, when no write is running and
        none is held: after the person's Cancel it waits for their next write (it began reading every file again
        right after a Cancel, and ended the hold the Cancel had put on the window's own writes)."""
        if st.read_by_older and not self._read_again and not self.library.read_only \
                and not self.runner.write_jobs() and not self.writes.on_hold:
            self._read_again = True
            self.writes.read_again(st.read_by_older)

    def _show_reranker_state(self) -> None:
        """"Reranker: on" only once a cross-encoder has really loaded; one that is there loads with the first
        search by meaning ("not loaded yet", then "loading…"); "none" when there is none or it failed to load."""
        rr = self.status.reranker if self.status is not None else {}
        lib = self.library
        loaded = lib.models.reranker_loaded()
        waiting = rr.get("available") == "yes" and not loaded and lib.models.reranker_notice() is None
        if loaded:
            self.labels.show_reranker("on")
            self.notice.hide()
        elif waiting:
            self.labels.show_reranker("loading…" if self.search.models.loading else "not loaded yet")
        else:
            self.labels.show_reranker("none")
            self.show_reranker_notice(lib.models.reranker_notice() or rr.get("message"))
        self.search.show_reranker(loaded or waiting, turned_off=not self.config.models.reranker)

    def show_reranker_notice(self, message: Optional[str]) -> None:
        refused = self.library.models.reranker_refused() or (self.status.reranker.get("refused") if self.status else None)
        st = self.status  # an empty library first says how to add a folder, not how to rank what it does not hold
        self.notice.explain(message, refused, bool(self.config.models.reranker),
                            searchable=st is not None and bool(st.chunks or st.elsewhere))

    # -- forwarded to the parts (menus, shortcuts, tests and other modules call these) --
    def add_paths(self, paths: list[str]) -> None:
        self.search.empty.show_welcome(False)  # the progress strip takes over from "Nothing is indexed yet"
        self.writes.add_paths(paths)

    def resync(self, roots: Optional[list[str]] = None) -> None:
        if roots is None:
            self.folder_watch.rearm()  # the person reads every folder: the catch-up at start may run again
        self.writes.resync(roots)

    def remove_root(self, path: str) -> None:
        self.writes.remove_root(path)

    def confirm_reindex(self) -> QMessageBox:
        return self.writes.confirm_reindex()

    def run_search(self) -> None:
        self.search.run_search()

    def selected_hit(self) -> Optional[Hit]:
        return self.search.selected_hit()

    def open_settings(self) -> SettingsDialog:
        dialog = self.session.open_settings()
        dialog.show_reranker_state(self.status.reranker if self.status is not None else None)  # installed or not
        return dialog

    def download_model(self, role: str, repo_id: str, on_success: Optional[Callable[[PulledModel], None]] = None,
                       parent: Optional[QWidget] = None) -> DownloadDialog:
        return self.session.download_model(role, repo_id, on_success, parent)

    def open_url(self, url: QUrl) -> bool:
        """Hand an indexed file (or its folder) to the desktop; False when the desktop could not open it."""
        # Only files that were indexed are handed to the system; nothing a document links to.
        if url.isLocalFile():
            return self.url_opener(url) is not False  # QDesktopServices.openUrl: False, and a line on stderr
        return True

    def _open_not_indexed(self, url: QUrl) -> None:
        """Open or Show in folder in the Not indexed list: a file the library lists (its ledger), not a link."""
        dialog = self.library_panel.problems_dialog
        if not self.open_url(url) and dialog is not None:
            dialog.open_failed(url)

    def _open_from_preview(self, url: QUrl) -> None:
        if not self.open_url(url):
            self.preview.open_failed(url)
        elif self.library is not None and self.preview.hit is not None:
            self.library.want(self.preview.hit.path)  # while meaning is unfinished, embedded next (issue 41)

    def report_error(self, exc: BaseException, tb: str) -> None:
        """Show `exc` in a dialog (kept as last_dialog) and emit errorShown."""
        self.last_dialog = show_error(self, exc, tb)
        self.errorShown.emit(self.last_dialog)

    def _say(self, message: str, ms: int = 8000) -> None:
        self.statusBar().showMessage(message, ms)

    def _dialog_shown(self, dialog: QWidget) -> None:
        self.last_dialog = dialog

    # -- drag and drop ----------------------------------------------------------
    @staticmethod
    def _local_paths(event: QDropEvent) -> list[str]:
        md = event.mimeData()
        if not md.hasUrls():
            return []
        return [u.toLocalFile() for u in md.urls() if u.isLocalFile() and u.toLocalFile()]

    def dragEnterEvent(self, event: QDragMoveEvent) -> None:  # QDragEnterEvent's base: dragMoveEvent passes its own
        if self._local_paths(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        paths = self._local_paths(event)
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.add_paths(paths)

    # -- shutdown ---------------------------------------------------------------
    def request_quit(self) -> None:
        """File → Quit: while indexing, ask first (quit and resume next time, or keep indexing)."""
        if self.quit_guard.should_ask():
            self.quit_guard.ask()
        else:
            self.close()

    def quit_now(self) -> bool:
        """Ctrl+C, `kill` or a closed terminal: as Quit and resume next time, without asking; True when that
        stopped a sync. A window already closed (Quit chosen meanwhile) has nothing left to do."""
        if not self.isVisible():
            return False
        return self.quit_guard.quit_now()

    def closeEvent(self, event: QCloseEvent) -> None:
        if event.spontaneous() and self.quit_guard.should_ask():  # the title bar's close button
            event.ignore()
            self.quit_guard.ask()
            return
        self.save_ui_state()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop at the next batch boundary, wait for the workers, and close what this window opened."""
        self.search.stop()
        self.writes.poll.stop()
        self.other_writers.stop()
        self.folder_watch.stop()  # no more updates queued; the one running stops with the runner
        self.downloads.shutdown()
        self.runner.shutdown()
        self.folder_watch.shutdown()  # a start that waited for the sync's lock has ended, its watcher with it
        self.session.close()


def _splitter(name: str, orientation: Qt.Orientation, widgets: Iterable[QWidget], sizes: list[int]) -> QSplitter:
    split = QSplitter(orientation)
    split.setObjectName(name)
    for w in widgets:
        split.addWidget(w)
    split.setSizes(sizes)
    return split
