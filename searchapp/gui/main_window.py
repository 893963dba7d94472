"""The main window: library on the left, query and results on the right, preview and score inspector below.

Every Library call runs on a JobRunner pool; this module only wires widgets to jobs and back.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Callable, Optional

from PySide6.QtCore import QByteArray, QEvent, QModelIndex, QObject, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QFrame, QHBoxLayout, QLabel,
                               QLineEdit, QMainWindow, QMessageBox, QPushButton, QSpinBox, QSplitter, QTableView,
                               QVBoxLayout, QWidget)

from ..base.config import DEFAULT_RERANKER, Config, save_config
from ..base.private import create_private_file
from ..base.types import Hit
from ..library import Library, LibraryStatus, SearchResult
from ..library.preview import file_text
from ..library.reconfigure import needs_reindex, reopen_library
from . import discover_actions
from .errors import show_error
from .filter_bar import FilterBar
from .highlight import query_terms
from .library_panel import LibraryPanel
from .model_download import ModelDownloads
from .plain import make_plain, plain_label, tooltip
from .preview import PreviewPane, file_url
from .progress_view import ProgressView
from .results_model import HIT_ROLE, HtmlDelegate, ResultsModel
from .score_inspector import ScoreInspector
from .settings_dialog import SettingsDialog

__all__ = ["MainWindow"]

SEARCH_DELAY_MS = 350  # as-you-type: wait for a pause in typing before searching
POLL_MS = 100  # how often the newest progress report is shown


class MainWindow(QMainWindow):
    searchFinished = Signal(object)  # the SearchResult now shown
    statusRefreshed = Signal(object)  # LibraryStatus
    writesIdle = Signal()  # the last queued write finished and the library view shows its result
    previewShown = Signal(object)  # the Hit whose file text is now in the preview
    errorShown = Signal(object)  # the dialog

    def __init__(self, config: Config, library: Optional[Library] = None) -> None:
        super().__init__()
        from .workers import JobRunner

        self.config = config
        self._owns_library = library is None
        self.library = library if library is not None else Library(config)
        self._retired: list[Library] = []  # replaced by a settings change; closed on exit
        self.runner = JobRunner(self)
        self.downloads = ModelDownloads(self)
        self.status: Optional[LibraryStatus] = None
        self.result: Optional[SearchResult] = None
        self.url_opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self.last_dialog = None
        self.stale_dropped = 0  # search results that arrived after a newer query was sent
        self.models_ready = False
        self._seq = 0
        self._terms: list[str] = []
        ini = Path(config.data_dir) / "gui.ini"
        with contextlib.suppress(OSError):  # 0600 before Qt writes it (it holds the last query); Qt keeps the mode
            create_private_file(ini)
        self._ui = QSettings(str(ini), QSettings.Format.IniFormat)

        self.setWindowTitle("searchapp")
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self._build_widgets()
        self._build_menu()
        discover_actions.install(self)  # Similar files, Duplicates
        self._build_shortcuts()
        self._restore_ui_state()

        self._debounce = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self._debounce.timeout.connect(self.run_search)
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self._poll_progress)
        self.search_box.textEdited.connect(lambda _: self._debounce.start())
        self.search_box.returnPressed.connect(self.run_search)
        # Startup work goes to the pools once the event loop runs, so the window paints first.
        QTimer.singleShot(0, self._start_background)

    # -- layout -----------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.search_box = QLineEdit()
        self.search_box.setObjectName("searchBox")
        self.search_box.setPlaceholderText("Search your files by meaning…  (Ctrl+L)")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setAcceptDrops(False)  # a dropped folder is for the library, not the query
        self.search_box.installEventFilter(self)
        self.mode_box = QComboBox()
        self.mode_box.setObjectName("modeBox")
        self.mode_box.addItems(["hybrid", "dense", "lexical"])
        self.mode_box.setCurrentText(self.config.search.mode)
        self.mode_box.setToolTip("hybrid: meaning and words fused; dense: meaning only; lexical: words only (BM25)")
        self.rerank_box = QCheckBox("Rerank")
        self.rerank_box.setObjectName("rerankBox")
        self.rerank_box.setChecked(self.config.search.rerank)
        self.group_box = QCheckBox("By file")
        self.group_box.setObjectName("groupBox")
        self.group_box.setChecked(self.config.search.group == "file")
        self.group_box.setToolTip("Each file once, its best passage first (the More column lists its other matches); "
                                  "off: every matching passage is a row")
        self.k_box = QSpinBox()
        self.k_box.setObjectName("kBox")
        self.k_box.setRange(1, 200)
        self.k_box.setValue(self.config.search.k)
        self.k_box.setPrefix("k = ")
        for w in (self.mode_box, self.rerank_box, self.group_box, self.k_box):
            sig = getattr(w, "currentTextChanged", None) or getattr(w, "toggled", None) or w.valueChanged
            sig.connect(lambda *_: self.search_box.text().strip() and self._debounce.start())
        bar = QHBoxLayout()
        bar.addWidget(self.search_box, 1)
        bar.addWidget(self.mode_box)
        bar.addWidget(self.rerank_box)
        bar.addWidget(self.group_box)
        bar.addWidget(self.k_box)
        self.filter_bar = FilterBar()
        self.filter_bar.changed.connect(lambda: self.search_box.text().strip() and self._debounce.start())

        self.notice = QFrame()
        self.notice.setObjectName("rerankerNotice")
        self.notice.setStyleSheet("#rerankerNotice{background:#fff4d6;border:1px solid #e0c070;border-radius:4px;}")
        self.notice_label = plain_label("")  # quotes a model folder and the reason it was refused
        self.notice_label.setWordWrap(True)
        self.notice_button = QPushButton("Choose model folder…")
        self.notice_button.clicked.connect(self.choose_reranker_folder)
        self.notice_download = QPushButton(f"Download reranker ({DEFAULT_RERANKER}, about 90 MB)")
        self.notice_download.setObjectName("downloadRerankerButton")
        self.notice_download.clicked.connect(lambda: self.download_model("reranker", DEFAULT_RERANKER))
        hide = QPushButton("Dismiss")
        hide.clicked.connect(self.notice.hide)
        # The long Download button gets a row of its own: beside the others it made the window's minimum
        # width larger than a small screen (and the 800-px offscreen one) whenever the notice showed.
        nl = QVBoxLayout(self.notice)
        nl.setContentsMargins(8, 4, 8, 4)
        top = QHBoxLayout()
        top.addWidget(self.notice_label, 1)
        top.addWidget(self.notice_button)
        top.addWidget(hide)
        nl.addLayout(top)
        bottom = QHBoxLayout()
        bottom.addWidget(self.notice_download)
        bottom.addStretch(1)
        nl.addLayout(bottom)
        self.notice.hide()

        self.library_panel = LibraryPanel()
        self.library_panel.addRequested.connect(self.add_paths)
        self.library_panel.removeRequested.connect(self.remove_root)
        self.library_panel.resyncRequested.connect(self.resync)

        self.results_model = ResultsModel(self)
        self.results_view = QTableView()
        self.results_view.setObjectName("resultsView")
        self.results_view.setAccessibleName("Results")
        self.results_view.setModel(self.results_model)
        self.results_view.setItemDelegateForColumn(ResultsModel.COLUMNS.index("Passage"), HtmlDelegate(self.results_view))
        self.results_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.results_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results_view.setWordWrap(True)
        self.results_view.verticalHeader().setVisible(False)
        self.results_view.horizontalHeader().setStretchLastSection(False)
        self.results_view.setAlternatingRowColors(True)
        self.results_view.activated.connect(self._open_index)
        self.results_view.selectionModel().currentRowChanged.connect(self._row_changed)

        self.preview = PreviewPane()
        self.preview.openRequested.connect(self.open_url)
        self.preview.browser.setAcceptDrops(False)
        self.inspector = ScoreInspector()

        self.bottom_split = QSplitter(Qt.Orientation.Horizontal)
        self.bottom_split.setObjectName("bottomSplit")
        self.bottom_split.addWidget(self.preview)
        self.bottom_split.addWidget(self.inspector)
        self.bottom_split.setSizes([520, 560])
        self.right_split = QSplitter(Qt.Orientation.Vertical)
        self.right_split.setObjectName("rightSplit")
        self.right_split.addWidget(self.results_view)
        self.right_split.addWidget(self.bottom_split)
        self.right_split.setSizes([330, 400])
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(bar)
        rl.addWidget(self.filter_bar)
        rl.addWidget(self.notice)
        rl.addWidget(self.right_split, 1)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.setObjectName("mainSplit")
        self.main_split.addWidget(self.library_panel)
        self.main_split.addWidget(right)
        self.main_split.setSizes([330, 950])

        self.progress = ProgressView()
        self.progress.cancel_button.clicked.connect(self.cancel_indexing)
        self.progress.hide()
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(6, 6, 6, 0)
        cl.addWidget(self.main_split, 1)
        cl.addWidget(self.progress)
        self.setCentralWidget(central)

        sb = self.statusBar()
        self.device_label, self.models_label, self.index_label, self.reranker_label = (QLabel() for _ in range(4))
        for name, lab in (("deviceLabel", self.device_label), ("modelsLabel", self.models_label),
                          ("indexLabel", self.index_label), ("rerankerLabel", self.reranker_label)):
            lab.setObjectName(name)
            make_plain(lab)  # the model label shows a folder name
            sb.addPermanentWidget(lab)
        self.models_label.setText("Loading models…")

    def _build_menu(self) -> None:
        m = self.menuBar().addMenu("&File")
        for text, key, slot in (("&Add Folder…", QKeySequence.StandardKey.Open, self.library_panel._ask_folder),
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
            QShortcut(QKeySequence(seq), self, activated=self.focus_search)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.clear_search)

    # -- persistent UI state ----------------------------------------------------
    def _restore_ui_state(self) -> None:
        s = self._ui
        geo = s.value("geometry")
        if isinstance(geo, QByteArray) and not geo.isEmpty():
            self.restoreGeometry(geo)
        else:
            self.resize(1280, 800)
        for name in ("main_split", "right_split", "bottom_split"):
            st = s.value(name)
            if isinstance(st, QByteArray):
                getattr(self, name).restoreState(st)
        self.search_box.setText(str(s.value("last_query", "") or ""))
        mode = str(s.value("mode", "") or "")
        if mode in ("hybrid", "dense", "lexical"):
            self.mode_box.setCurrentText(mode)

    def save_ui_state(self) -> None:
        s = self._ui
        s.setValue("geometry", self.saveGeometry())
        for name in ("main_split", "right_split", "bottom_split"):
            s.setValue(name, getattr(self, name).saveState())
        s.setValue("last_query", self.search_box.text())
        s.setValue("mode", self.mode_box.currentText())
        s.sync()

    # -- startup ----------------------------------------------------------------
    def _start_background(self) -> None:
        self.refresh_status()
        lib = self.library

        def warm(progress, cancel):  # lazy models, loaded before the first query needs them
            lib.encoder
            return lib.reranker() is not None

        self.runner.submit(warm, name="loading models", on_success=self._models_loaded, on_error=self._on_error)
        if self.search_box.text().strip():
            self._debounce.start()

    def _models_loaded(self, has_reranker: bool) -> None:
        self.models_ready = True
        self._show_models()
        self._show_reranker_state()

    # -- status -----------------------------------------------------------------
    def refresh_status(self, then: Optional[Callable[[], None]] = None) -> None:
        lib = self.library

        def done(st: LibraryStatus) -> None:
            self._apply_status(st)
            if then:
                then()

        def failed(exc, tb) -> None:
            self._on_error(exc, tb)
            if then:
                then()

        self.runner.submit(lambda p, c: lib.status(), name="status", on_success=done, on_error=failed)

    def _apply_status(self, st: LibraryStatus) -> None:
        self.status = st
        self.library_panel.set_status(st)
        self.device_label.setText(f"Device: {st.device}")
        files = sum(st.files.values())
        self.index_label.setText(f"{st.chunks:,} passages in {files:,} files" + ("" if st.consistent else " — index not consistent"))
        self._show_models()
        self._show_reranker_state()
        self.statusRefreshed.emit(st)

    def _show_reranker_state(self) -> None:
        """"Reranker: on" only once a cross-encoder has really loaded; until then "loading…"."""
        rr = self.status.reranker if self.status is not None else {}
        loaded = self.models_ready and self.library.reranker_loaded()
        if loaded:
            self.reranker_label.setText("Reranker: on")
            self.notice.hide()
        elif rr.get("available") == "yes" and not self.models_ready:
            self.reranker_label.setText("Reranker: loading…")
        else:
            self.reranker_label.setText("Reranker: none")
            self.show_reranker_notice(self.library.reranker_notice() or rr.get("message"))

    def _show_models(self) -> None:
        m = self.config.models
        state = "" if self.models_ready else " (loading…)"
        self.models_label.setText(f"Model: {os.path.basename(m.bi_encoder.rstrip('/')) or m.bi_encoder} ({m.pooling}){state}")

    def show_reranker_notice(self, message: Optional[str]) -> None:
        refused = self.library.reranker_refused() or (self.status.reranker.get("refused") if self.status else None)
        if not self.config.models.reranker:
            why = "reranking is turned off in the settings"
        elif refused:  # the real reason in the notice itself, not only in its tooltip (plain text: it holds a path)
            # a zero-width space after each "/" lets a long path wrap instead of widening the window
            why = f"the model folder was refused: {refused.replace('/', '/' + chr(0x200B))}"
        else:
            why = "no cross-encoder weights were found"
        self.notice_label.setText(
            f"No reranker: {why}, so results keep their first-stage order. "
            "Download one, or choose a local cross-encoder model folder (config.json, model.safetensors, tokenizer).")
        self.notice_label.setToolTip(tooltip(message or ""))
        self.notice.show()

    # -- writes -----------------------------------------------------------------
    def _submit_write(self, title: str, fn, on_success: Optional[Callable] = None):
        return self.runner.submit(fn, write=True, name=title, on_success=on_success, on_error=self._on_error,
                                  on_cancel=self._on_cancelled, on_started=self._write_started,
                                  on_done=self._write_done)

    def add_paths(self, paths: list[str]) -> None:
        lib = self.library
        for p in paths:
            name = os.path.basename(os.path.normpath(p)) or p
            self._submit_write(f"Indexing {name}", lambda prog, c, p=p: lib.add_folder(p, prog, c), self._sync_done)

    def resync(self, roots: Optional[list[str]] = None) -> None:
        lib = self.library
        self._submit_write("Re-syncing", lambda prog, c: lib.sync(roots, prog, c), self._sync_done)

    def remove_root(self, path: str) -> None:
        lib = self.library
        self._submit_write(f"Removing {os.path.basename(path)}", lambda prog, c: lib.remove_folder(path),
                           lambda n: self.statusBar().showMessage(f"Removed {path} ({n} files)", 8000))

    def reindex(self) -> None:
        lib = self.library
        self._submit_write("Re-indexing", lambda prog, c: lib.reindex(prog, c), self._sync_done)

    def confirm_reindex(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Re-index",
                          "Rebuild every passage and vector with the current model and chunking settings? "
                          "Search keeps working on what is indexed as the rebuild proceeds.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("reindexPrompt")
        box.button(QMessageBox.StandardButton.Yes).clicked.connect(self.reindex)
        box.open()
        self.last_dialog = box
        return box

    def _sync_done(self, rep) -> None:
        bad = rep.skipped + rep.failed
        self.statusBar().showMessage(
            f"{rep.scanned} files scanned: {rep.added} added, {rep.updated} updated, {rep.removed} removed"
            + (f", {bad} not indexed" if bad else "") + f"; {rep.chunks_embedded} passages embedded"
            + (f"; {len(rep.missing_roots)} folder(s) missing, kept as they were" if rep.missing_roots else ""), 15000)

    def _write_started(self) -> None:
        job = self._active_write()
        self.progress.start(job.name if job else "Working")
        self._poll.start()

    def _write_done(self) -> None:
        if self.runner.busy_writing():
            return
        self._poll.stop()
        self.progress.hide()
        self.refresh_status(then=self.writesIdle.emit)
        if self.search_box.text().strip():
            self.run_search()  # the library changed: show what is there now

    def _active_write(self):
        return next((j for j in self.runner.write_jobs() if j.running), None)

    def _poll_progress(self) -> None:
        job = self._active_write()
        if job is not None:
            self.progress.show_progress(job.name, job.progress, time.monotonic())

    def cancel_indexing(self) -> None:
        self.progress.cancel_button.setEnabled(False)
        self.progress.label.setText("Stopping…")  # within seconds, keeping every finished file
        self.runner.cancel_writes()

    def _on_cancelled(self) -> None:
        # Cancelling is the user's own wish: no dialog, just say what state things are in.
        self.statusBar().showMessage("Cancelled; everything indexed so far is kept.", 10000)

    # -- search -----------------------------------------------------------------
    def run_search(self) -> None:
        self._debounce.stop()
        query = self.search_box.text().strip()
        self._seq += 1
        seq = self._seq
        if not query:
            self._show_result(None)
            return
        k, mode, rerank = self.k_box.value(), self.mode_box.currentText(), self.rerank_box.isChecked()
        group = "file" if self.group_box.isChecked() else "passage"
        depth = max(self.config.search.candidates, k)
        lib, filters = self.library, self.filter_bar.filters()
        # Ask for every candidate (k = depth) so the inspector sees them all; the results list shows the top k.
        self.runner.submit(lambda p, c: lib.search(query, k=depth, mode=mode, rerank=rerank, candidates=depth,
                                                   filters=filters, group=group),
                           name="search", on_success=lambda res, s=seq: self._search_done(s, res, k),
                           on_error=lambda exc, tb, s=seq: s == self._seq and self._on_error(exc, tb))

    def _search_done(self, seq: int, result: SearchResult, k: int) -> None:
        if seq != self._seq:
            self.stale_dropped += 1  # a newer query is on its way; never flash old results
            return
        self._show_result(result, k)
        t = result.timings_ms.get("total")
        message = (f"{min(k, len(result.hits))} results" + (f" in {t:.0f} ms" if t else "")
                   + (" (reranked)" if result.reranked else ""))
        if result.reindex_notice:  # otherwise a search during a reindex looks like "nothing matches"
            message += f" · {result.reindex_notice}"
        self.statusBar().showMessage(message, 0 if result.reindex_notice else 8000)
        if result.notice and self.rerank_box.isChecked():
            self.show_reranker_notice(result.notice)
        self.searchFinished.emit(result)

    def _show_result(self, result: Optional[SearchResult], k: int = 0) -> None:
        self.result = result
        self._terms = query_terms(result.query) if result else []
        self.results_model.set_hits(result.hits[:k] if result else [], self._terms)
        self.results_view.resizeColumnsToContents()
        self.results_view.setColumnWidth(ResultsModel.COLUMNS.index("Folder"), 160)
        self.results_view.setColumnWidth(ResultsModel.COLUMNS.index("Passage"), 420)
        self.results_view.resizeRowsToContents()
        self.inspector.set_result(result)
        self.preview.clear()

    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def clear_search(self) -> None:
        self.search_box.clear()
        self._seq += 1  # drops any search still running
        self._show_result(None)
        self.focus_search()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # Down in the query field moves into the results, like a browser's address bar.
        if obj is self.search_box and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Down:
            if self.results_model.rowCount():
                self.results_view.setFocus()
                self.results_view.setCurrentIndex(self.results_model.index(0, 0))
                return True
        return super().eventFilter(obj, event)

    # -- preview and opening ----------------------------------------------------
    def selected_hit(self) -> Optional[Hit]:
        idx = self.results_view.currentIndex()
        return idx.data(HIT_ROLE) if idx.isValid() else None

    def _row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        hit = current.data(HIT_ROLE) if current.isValid() else None
        if hit is None:
            return
        terms, config = self._terms, self.config
        self.preview.show_hit(hit, terms)  # the stored passage at once; its context when the file is read

        def done(ft) -> None:
            if self.preview.hit is hit:
                self.preview.show_hit(hit, terms, ft.text, "changed since it was indexed" if ft.changed else "")
                self.previewShown.emit(hit)

        def failed(exc, tb) -> None:
            if self.preview.hit is hit:
                self.preview.show_hit(hit, terms, None, f"cannot read the file now: {exc}")
                self.previewShown.emit(hit)

        self.runner.submit(lambda p, c: file_text(hit.path, config, hit.text, hit.start, hit.end), name="preview",
                           on_success=done, on_error=failed)

    def _open_index(self, index: QModelIndex) -> None:
        hit = index.data(HIT_ROLE)
        if hit is not None:
            self.open_url(file_url(hit))

    def open_url(self, url: QUrl) -> None:
        # Only files that were indexed are handed to the system; nothing a document links to.
        if url.isLocalFile():
            self.url_opener(url)

    # -- settings ---------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        # A download started from the settings opens over them and fills their field (Save applies it).
        dlg = SettingsDialog(self.config, self, download=lambda role, rid, done: self.download_model(role, rid, done, dlg))
        dlg.accepted.connect(lambda: self.apply_config(dlg.config()))
        dlg.open()
        self.last_dialog = dlg
        return dlg

    def download_model(self, role: str, repo_id: str, on_success: Optional[Callable] = None,
                       parent: Optional[QWidget] = None):
        """Offer to download `repo_id`; by default it becomes the model for `role` at once (no restart)."""
        dlg = self.downloads.offer(parent or self, repo_id, role,
                                   on_success or (lambda got: self.use_model(got.role, got.repo_id)))
        self.last_dialog = dlg
        return dlg

    def use_model(self, role: str, model_id: str) -> None:
        new = self.config.replace(models={"reranker" if role == "reranker" else "bi_encoder": model_id})
        if self.runner.busy_writing():  # the library is reopened under the new model once indexing is done
            self.writesIdle.connect(lambda: self.use_model(role, model_id), Qt.ConnectionType.SingleShotConnection)
            self.statusBar().showMessage(f"{model_id} is ready; it is used once indexing has finished.", 10000)
            return
        self.apply_config(new)
        self.statusBar().showMessage(f"Using {model_id} as the {role}.", 10000)

    def choose_reranker_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Choose a cross-encoder model folder")
        if path:
            self.apply_config(self.config.replace(models={"reranker": path}))

    def apply_config(self, new: Config) -> bool:
        """Save `new`, reopen the library under it (keeping loaded models that still fit) and offer a re-index."""
        if self.runner.busy_writing():
            self._on_error(_busy_error(), "")
            return False
        try:
            save_config(new)
        except OSError as exc:
            self._on_error(exc, "")
            return False
        reindex = needs_reindex(self.config, new) and bool(self.status and self.status.chunks)
        old = self.library
        self.library = reopen_library(old, new)
        if self._owns_library:
            self._retired.append(old)  # searches may still be running on it; closed on exit
        self._owns_library = True
        self.config = new
        self.k_box.setValue(new.search.k)
        self.models_ready = False
        self._start_background()
        if reindex:
            self.confirm_reindex()
        return True

    # -- errors -----------------------------------------------------------------
    def _on_error(self, exc: BaseException, tb: str) -> None:
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
        self._debounce.stop()
        self._poll.stop()
        self.downloads.shutdown()
        self.runner.shutdown()
        for lib in self._retired:
            lib.close()
        self._retired.clear()
        if self._owns_library:
            self.library.close()
            self._owns_library = False


def _busy_error():
    from ..base.errors import SearchAppError

    return SearchAppError("Please wait until indexing has finished (or cancel it) before changing settings.")
