"""The main window: library on the left, query and results on the right, preview and score inspector below.

Library work that takes time (search, status, indexing, loading models, reading a file for the preview) runs on
a JobRunner pool; the GUI thread only opens and closes the Library and asks it cheap questions (is a reranker
loaded, why not). The window lays out the widgets and composes the parts that do the work: the search
controller (query → results), the library session (open, reconfigure, close), the write jobs (indexing and its
progress), the reranker notice and the status labels.
"""

from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QSplitter, QToolButton, QVBoxLayout, QWidget

from ..base.config import Config
from ..base.types import Hit
from ..library import Library, LibraryStatus
from . import discover_actions
from .errors import show_error
from .filter_bar import FilterBar
from .library_panel import LibraryPanel
from .library_session import LibrarySession
from .model_download import ModelDownloads
from .preview import PreviewPane
from .progress_view import ProgressView
from .query_chips import QueryChips
from .query_sync import QuerySync
from .reranker_notice import RerankerNotice
from .saved_panel import SavedPanel
from .score_inspector import ScoreInspector
from .search_controller import SearchController
from .search_memory import SearchMemory
from .settings_dialog import SettingsDialog
from .status_labels import StatusLabels
from .window_state import open_ui_settings, restore_ui_state, save_ui_state
from .write_jobs import WriteJobs

__all__ = ["MainWindow"]


class MainWindow(QMainWindow):
    searchFinished = Signal(object)  # the SearchResult now shown
    statusRefreshed = Signal(object)  # LibraryStatus
    writesIdle = Signal()  # the last queued write finished and the library view shows its result
    previewShown = Signal(object)  # the Hit whose file text is now in the preview
    errorShown = Signal(object)  # the dialog

    def __init__(self, config: Config, library: Optional[Library] = None) -> None:
        super().__init__()
        from .workers import JobRunner

        self.session = LibrarySession(self, config, library)
        self.runner = JobRunner(self)
        self.downloads = ModelDownloads(self)
        self.status: Optional[LibraryStatus] = None
        self.url_opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self.last_dialog = None
        self.models_ready = False
        self._ui = open_ui_settings(config.data_dir)

        self.setWindowTitle("searchapp")
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self._build_widgets()
        self._build_menu()
        self.memory = SearchMemory(self, self.saved_panel)  # history, saved searches, the syntax help
        self.memory.install_menu()
        self.syntax_button.clicked.connect(self.memory.show_help)
        discover_actions.install(self)  # Similar files, Duplicates
        self._build_shortcuts()
        restore_ui_state(self, self._ui)
        # Startup work goes to the pools once the event loop runs, so the window paints first.
        QTimer.singleShot(0, self.start_background)

    # -- the parts, as tests and discover_actions reach them -------------------
    config = property(lambda self: self.session.config)
    library = property(lambda self: self.session.library)
    result = property(lambda self: self.search.result)  # the SearchResult shown, or None
    stale_dropped = property(lambda self: self.search.stale_dropped)

    # -- layout -----------------------------------------------------------------
    def _build_widgets(self) -> None:
        search = self.search = SearchController(self)
        self.search_box, self.mode_box, self.rerank_box = search.search_box, search.mode_box, search.rerank_box
        self.group_box, self.k_box = search.group_box, search.k_box
        self.results_model, self.results_view = search.results_model, search.results_view
        self.filter_bar = FilterBar()
        self.query_chips = QueryChips()
        self.query_sync = QuerySync(search, self.filter_bar, self.query_chips)  # one query text, bar and chips follow
        self.syntax_button = QToolButton()
        self.syntax_button.setObjectName("syntaxButton")
        self.syntax_button.setText("?")
        self.syntax_button.setToolTip("Query syntax: \"phrase\", -word, OR, word*, in:, type:, name:, after:, before:, page:")
        search.bar.insertWidget(1, self.syntax_button)

        self.notice = RerankerNotice()
        self.notice_label, self.notice_button = self.notice.label, self.notice.choose_button
        self.notice.chooseFolderRequested.connect(self.session.choose_reranker_folder)
        self.notice.downloadRequested.connect(lambda rid: self.download_model("reranker", rid))

        self.library_panel = LibraryPanel()
        self.writes = WriteJobs(self)
        self.library_panel.addRequested.connect(self.add_paths)
        self.library_panel.removeRequested.connect(self.remove_root)
        self.library_panel.resyncRequested.connect(self.resync)
        self.saved_panel = SavedPanel()
        self.library_panel.layout().addWidget(self.saved_panel)

        self.preview = PreviewPane()
        self.preview.openRequested.connect(self.open_url)
        self.preview.browser.setAcceptDrops(False)
        self.inspector = ScoreInspector()

        self.bottom_split = _splitter("bottomSplit", Qt.Orientation.Horizontal, (self.preview, self.inspector), [520, 560])
        self.right_split = _splitter("rightSplit", Qt.Orientation.Vertical, (self.results_view, self.bottom_split),
                                     [330, 400])
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(search.bar)
        rl.addWidget(self.query_chips)
        rl.addWidget(self.filter_bar)
        rl.addWidget(self.notice)
        rl.addWidget(self.right_split, 1)
        self.main_split = _splitter("mainSplit", Qt.Orientation.Horizontal, (self.library_panel, right), [330, 950])

        self.progress = ProgressView()
        self.progress.cancel_button.clicked.connect(self.writes.cancel)
        self.progress.hide()
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(6, 6, 6, 0)
        cl.addWidget(self.main_split, 1)
        cl.addWidget(self.progress)
        self.setCentralWidget(central)

        self.labels = StatusLabels(self.statusBar())
        self.device_label, self.models_label = self.labels.device, self.labels.models
        self.index_label, self.reranker_label = self.labels.index, self.labels.reranker

    def _build_menu(self) -> None:
        m = self.menuBar().addMenu("&File")
        for text, key, slot in (("&Add Folder…", QKeySequence.StandardKey.Open, self.library_panel.ask_folder),
                                ("&Re-sync All", QKeySequence("F5"), lambda: self.resync(None)),
                                ("Re-&index Everything…", None, self.confirm_reindex),
                                ("&Settings…", QKeySequence("Ctrl+,"), self.open_settings),
                                ("&Quit", QKeySequence.StandardKey.Quit, self.close)):
            act = QAction(text, self)
            if key is not None:
                act.setShortcut(key)
            act.triggered.connect(slot)
            m.addAction(act)
        v = self.menuBar().addMenu("&View")
        act = QAction("Files Not Indexed…", self)
        act.triggered.connect(self.library_panel.show_problems)
        v.addAction(act)

    def _build_shortcuts(self) -> None:
        for seq in ("Ctrl+L", "Ctrl+F"):
            QShortcut(QKeySequence(seq), self, activated=self.search.focus)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.search.clear)

    def save_ui_state(self) -> None:
        save_ui_state(self, self._ui)

    # -- startup ----------------------------------------------------------------
    def start_background(self) -> None:
        """Refresh the status and load the models on the pools (at startup and after a settings change)."""
        self.refresh_status()
        lib = self.library

        def warm(progress, cancel):  # lazy models, loaded before the first query needs them
            lib.encoder
            return lib.reranker() is not None

        self.runner.submit(warm, name="loading models", on_success=self._models_loaded, on_error=self.report_error)
        self.memory.load_history()
        if self.search_box.text().strip():
            self.search.debounce.start()

    def _models_loaded(self, has_reranker: bool) -> None:
        self.models_ready = True
        self.labels.show_models(self.config, self.models_ready)
        self._show_reranker_state()

    # -- status -----------------------------------------------------------------
    def refresh_status(self, then: Optional[Callable[[], None]] = None) -> None:
        lib = self.library

        def done(st: LibraryStatus) -> None:
            self._apply_status(st)
            if then:
                then()

        def failed(exc, tb) -> None:
            self.report_error(exc, tb)
            if then:
                then()

        self.runner.submit(lambda p, c: lib.status(), name="status", on_success=done, on_error=failed)

    def _apply_status(self, st: LibraryStatus) -> None:
        self.status = st
        self.library_panel.set_status(st)
        self.labels.show_status(st)
        self.labels.show_models(self.config, self.models_ready)
        self._show_reranker_state()
        self.statusRefreshed.emit(st)

    def _show_reranker_state(self) -> None:
        """"Reranker: on" only once a cross-encoder has really loaded; until then "loading…"."""
        rr = self.status.reranker if self.status is not None else {}
        loaded = self.models_ready and self.library.reranker_loaded()
        if loaded:
            self.labels.show_reranker("on")
            self.notice.hide()
        elif rr.get("available") == "yes" and not self.models_ready:
            self.labels.show_reranker("loading…")
        else:
            self.labels.show_reranker("none")
            self.show_reranker_notice(self.library.reranker_notice() or rr.get("message"))

    def show_reranker_notice(self, message: Optional[str]) -> None:
        refused = self.library.reranker_refused() or (self.status.reranker.get("refused") if self.status else None)
        self.notice.explain(message, refused, bool(self.config.models.reranker))

    # -- forwarded to the parts (menus, shortcuts, tests and other modules call these) --
    def add_paths(self, paths: list[str]) -> None:
        self.writes.add_paths(paths)

    def resync(self, roots: Optional[list[str]] = None) -> None:
        self.writes.resync(roots)

    def remove_root(self, path: str) -> None:
        self.writes.remove_root(path)

    def confirm_reindex(self):
        return self.writes.confirm_reindex()

    def run_search(self) -> None:
        self.search.run_search()

    def selected_hit(self) -> Optional[Hit]:
        return self.search.selected_hit()

    def open_settings(self) -> SettingsDialog:
        return self.session.open_settings()

    def download_model(self, role: str, repo_id: str, on_success: Optional[Callable] = None,
                       parent: Optional[QWidget] = None):
        return self.session.download_model(role, repo_id, on_success, parent)

    def open_url(self, url: QUrl) -> None:
        # Only files that were indexed are handed to the system; nothing a document links to.
        if url.isLocalFile():
            self.url_opener(url)

    def report_error(self, exc: BaseException, tb: str) -> None:
        """Show `exc` in a dialog (kept as last_dialog) and emit errorShown."""
        self.last_dialog = show_error(self, exc, tb)
        self.errorShown.emit(self.last_dialog)

    # -- drag and drop ----------------------------------------------------------
    @staticmethod
    def _local_paths(event) -> list[str]:
        md = event.mimeData()
        if not md.hasUrls():
            return []
        return [u.toLocalFile() for u in md.urls() if u.isLocalFile() and u.toLocalFile()]

    def dragEnterEvent(self, event) -> None:
        if self._local_paths(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event) -> None:
        paths = self._local_paths(event)
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.add_paths(paths)

    # -- shutdown ---------------------------------------------------------------
    def closeEvent(self, event) -> None:
        self.save_ui_state()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop at the next batch boundary, wait for the workers, and close what this window opened."""
        self.search.stop()
        self.writes.poll.stop()
        self.downloads.shutdown()
        self.runner.shutdown()
        self.session.close()


def _splitter(name: str, orientation: Qt.Orientation, widgets, sizes: list[int]) -> QSplitter:
    split = QSplitter(orientation)
    split.setObjectName(name)
    for w in widgets:
        split.addWidget(w)
    split.setSizes(sizes)
    return split
