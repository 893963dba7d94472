"""Query → worker → results: the query row, as-you-type searching, the results list and the preview it drives.

Every search (and "Similar files") gets a sequence number; an answer to an older one is dropped, so a slow
search never replaces the results of the query typed after it. The controller owns the query row and the
results list, drives the preview it is given, and says what it shows through its own signals.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Optional, Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView, QCheckBox, QComboBox, QHBoxLayout, QLineEdit, QSpinBox, QTableView

from ..base.config import Config
from ..base.errors import QueryError, SecretFileError
from ..base.types import Hit
from ..library import LibraryStatus, SearchResult
from ..library.search.preview import FileText, file_text
from ..library.query.help import marked_text
from ..library.sync.meaning_pass import meaning_percent
from ..library.search.result import (COMMON, DID_YOU_MEAN, LISTING, LOADING, MEANING, MEMBERS, NAMED, NEAR,
                                     PLACE, REINDEX, RERANKER, RESPELLED, SAME, TYPO, UNSEARCHABLE, WEAK, Notice)
from .changes import Changes
from .empty_results import EmptyResults
from .filter_bar import FilterBar
from .highlight import query_terms
from .library_session import LibrarySession
from .meaning_load import MEANING_WAIT
from .mode_box import ModeBox
from .model_load import ModelLoad
from .preview import PreviewPane
from .results_model import HIT_ROLE, ResultsModel, words_only
from .results_view import fit_columns, setup_results_view
from .window_tools import WindowTools
from .similar_chip import SimilarChip, back_button
from .workers import JobFn

__all__ = ["SearchController", "SEARCH_DELAY_MS"]

Similar = tuple[str, Optional[int], JobFn, int]  # the file, its page (None: the whole file), its search, k

SEARCH_DELAY_MS = 350  # as-you-type: wait for a pause in typing before searching
BACK_DEPTH = 20  # searches Back can return to
RERANK_TIP = "Reorder the best candidates with the cross-encoder: slower, and closer to what the query asks"
NO_RERANKER_TIP = ("No reranker is installed. Get one with Download reranker in the yellow notice above, or "
                   "Settings… (Ctrl+,) → Reranker model: Download, or Choose… a local cross-encoder folder.")
MODEL_LOADING = "meaning loads… — word matches only; by meaning once it is loaded"
RERANK_OFF_TIP = ("Reranking is turned off in the settings. Settings… (Ctrl+,) → Reranker model: "
                  "Download one, or Choose… a local cross-encoder folder.")
MEANING_STEP = 10  # points the library's meaning must move before the line about the shown search says so


@dataclass
class MeaningLine:
    """The status line said for the search shown while meaning was partial: its count part, the share of
    passages with meaning it was found with, and the share the line last said it has now."""
    seq: int
    head: str
    found_with: int
    said_now: int


class SearchController(QObject):
    finished = Signal(object)  # the SearchResult now shown, once its search is done
    resultShown = Signal(object)  # the SearchResult in the list now, or None when it was cleared
    previewShown = Signal(object)  # the Hit whose file text is now in the preview
    noticeRaised = Signal(str)  # why a search asked to rerank was not reranked

    def __init__(self, tools: WindowTools, session: LibrarySession, filter_bar: FilterBar,
                 preview: PreviewPane) -> None:
        super().__init__(tools.parent)
        self.tools, self.session, self.filter_bar, self.preview = tools, session, filter_bar, preview
        self.seq = 0  # the newest search sent; answers to older ones are dropped
        self.quiet_seq = -1  # a search sent because the library changed: its count is not said (run_search)
        self.owed_seq = -1  # a search sent that says its count, until its answer comes (_owed)
        self.again_seq = -1  # a search the window ran again by itself: its answer keeps the selected result (submit)
        self._keeping = False  # the selected result is being selected again in a new list: its preview stays
        self.stale_dropped = 0  # search results that arrived after a newer query was sent
        self.result: Optional[SearchResult] = None
        self.terms: list[str] = []
        self.shown_k = 0
        self.similar: Optional[Similar] = None  # (path, page, job, k) of the "Similar files" search shown, else None
        self.back_stack: list[tuple[str, Optional[SearchResult], int, Optional[Similar]]] = []  # (query text, result, k, similar) for Back, newest last
        # The models a search by meaning uses load when the first one is asked for; a hybrid search would wait
        # for them (seconds on a small CPU): it is answered by its words meanwhile and runs again after.
        self.models = ModelLoad(tools, session)
        self.models.ended.connect(self.models_loaded)
        self.by_words = False  # the result shown was answered by words while the model loaded
        self.meaning_line: Optional[MeaningLine] = None  # the line said for the search shown, meaning partial
        self.embedded = 0  # passages with meaning, as the library's last status read counted them
        self.complete_seq = -1  # the search sent because meaning completed: sent once, never again for its answer
        self.list_line = ""  # what the status line last said about the list shown ("10 results in 70 ms")
        self._build_query_row(session.config)
        self._build_results()
        self.debounce = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self.debounce.timeout.connect(self.run_search)
        self.search_box.textEdited.connect(lambda _: self.debounce.start())
        self.search_box.returnPressed.connect(self.run_search)
        QShortcut(QKeySequence("Alt+Left"), tools.parent).activated.connect(self.back)

    # -- widgets ----------------------------------------------------------------
    def _build_query_row(self, config: Config) -> None:
        self.search_box = QLineEdit()
        self.search_box.setObjectName("searchBox")
        self.search_box.setPlaceholderText("Search your files by meaning…  (Ctrl+L)")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setAcceptDrops(False)  # a dropped folder is for the library, not the query
        self.search_box.installEventFilter(self)
        self.mode_box = ModeBox(config.search.mode)
        self.mode_box.setObjectName("modeBox")
        self.rerank_box = QCheckBox("Rerank")
        self.rerank_box.setObjectName("rerankBox")
        self.rerank_box.setChecked(config.search.rerank)
        self.rerank_box.setToolTip(RERANK_TIP)
        self.rerank_wanted = config.search.rerank  # the person's choice, kept while no reranker can honour it
        self.group_box = QCheckBox("By file")
        self.group_box.setObjectName("groupBox")
        self.group_box.setChecked(config.search.group == "file")
        self.group_box.setToolTip("Each file once, its best passage first (the More column lists its other matches); "
                                  "off: every matching passage is a row")
        self.k_box = QSpinBox()
        self.k_box.setObjectName("kBox")
        self.k_box.setRange(1, 200)
        self.k_box.setValue(config.search.k)
        self.k_box.setPrefix("Top ")
        self.k_box.setToolTip("How many results are shown: files, or passages with By file off")
        for w in (self.mode_box, self.rerank_box, self.group_box, self.k_box):
            sig = (w.currentIndexChanged if isinstance(w, QComboBox) else w.toggled if isinstance(w, QCheckBox)
                   else w.valueChanged)
            sig.connect(lambda *_: self.search_soon())
        self.back_button = back_button()
        self.back_button.clicked.connect(self.back)
        self.similar_chip = SimilarChip()  # "Similar to NAME" in place of the query, ✕ goes Back
        self.similar_chip.closeRequested.connect(self.back)
        query = QHBoxLayout()  # one item of the bar, so the window's widgets keep their places after it
        query.addWidget(self.back_button)
        query.addWidget(self.similar_chip)
        query.addWidget(self.search_box, 1)
        self.bar = QHBoxLayout()
        self.bar.addLayout(query, 1)
        for w in (self.mode_box, self.rerank_box, self.group_box, self.k_box):
            self.bar.addWidget(w)

    def _build_results(self) -> None:
        self.results_model = ResultsModel(self)
        view = self.results_view = QTableView()
        view.setObjectName("resultsView")
        view.setAccessibleName("Results")
        view.setModel(self.results_model)
        setup_results_view(view)  # compact two-line rows, the score always on screen
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setAlternatingRowColors(True)
        view.activated.connect(self.open_index)
        view.selectionModel().currentRowChanged.connect(self._row_changed)
        self.empty = EmptyResults(view)  # "No results for …" and what to try, over the empty list

    # -- searching --------------------------------------------------------------
    def search_soon(self) -> None:
        """Search again after the typing pause, when there is a query (a changed option or filter)."""
        if self.search_box.text().strip():
            self.debounce.start()

    def run_search(self, quiet: bool = False, again: bool = False) -> None:
        """`quiet`: the library changed under the shown query (a sync ended, an Undo): the rows follow, but the
        status line keeps what the change said (its summary, "… is back") instead of "N results in X ms".
        Quiet only for the list shown: a search of the person's still on its way (or a query typed and not yet
        searched) is taken up by this one, and its count is theirs to read.
        `again`: the window runs the shown query again by itself (meaning loaded, a sync ended): the person did
        not ask for a new list, so the result they selected stays selected in it (show_result)."""
        self.debounce.stop()
        query = self.search_box.text().strip()
        quiet = quiet and not self._owed() and self.result is not None and self.result.query == query
        if not query and self.similar is not None:
            return  # the similar files stay until Back, Escape or a new query
        self._set_similar(None)
        if not query:
            self.seq += 1  # the answer of any search still running is dropped
            self.show_result(None)
            return
        k, mode, rerank = self.k_box.value(), self.mode_box.mode(), self.rerank_box.isChecked()
        group = "file" if self.group_box.isChecked() else "passage"
        depth = max(self.session.config.search.candidates, k)
        lib, filters = self.session.library, self.filter_bar.filters()
        loading = mode != "lexical" and self.models.need(rerank)  # dense waits for them, hybrid does not
        if loading and mode == "hybrid":
            self.submit("search", lambda p, c: _by_words(lib.search(query, k=depth, mode="lexical", rerank=False,
                                                                    candidates=depth, filters=filters, group=group)),
                        k, again)
            self._sent(quiet)
            return
        # Ask for every candidate (k = depth) so the inspector sees them all; the results list shows the top k.
        self.submit("search", lambda p, c: lib.search(query, k=depth, mode=mode, rerank=rerank, candidates=depth,
                                                      filters=filters, group=group, meaning_wait=MEANING_WAIT),
                    k, again)
        self._sent(quiet)

    def _sent(self, quiet: bool) -> None:
        """The search just sent is quiet (its count not said), or one whose count is owed (_owed)."""
        self.quiet_seq = self.seq if quiet else -1
        self.owed_seq = -1 if quiet else self.seq

    def _owed(self) -> bool:
        """Whether the newest search sent is one of run_search's that says its count, not answered yet."""
        return self.owed_seq == self.seq

    def meaning_moved(self, st: LibraryStatus) -> None:
        """The library's status was read again (every few seconds while a sync runs): the line about a search found
        while meaning was partial must not keep claiming its old share (4% said for minutes after embedding ended).
        When meaning is complete the search runs again: what the person asked, now by meaning over every passage,
        as a sync's end runs it again (OCR may go on for many minutes after). Before that, a share that moved by
        MEANING_STEP is said beside the old one, and the rows stay: a search again every few seconds would clear the
        preview being read and move the rows under the mouse; Enter searches again when the person wants to."""
        self.embedded = st.embedded
        line = self.meaning_line
        if line is None or line.seq != self.seq or self.similar is not None or not st.chunks:
            return
        if st.embedded >= st.chunks:
            self.meaning_line = None
            self.run_search(again=True)
            self.complete_seq = self.seq  # its answer still partial (counted otherwise): not searched again and again
            return
        now = meaning_percent(st.embedded, st.chunks)
        if abs(now - line.said_now) < MEANING_STEP:
            return
        line.said_now = now
        self._say_of_list(f"{line.head} · found when meaning covered {_share(line.found_with, True)} of passages; "
                          f"it covers {_share(now, True)} now: press Enter to search again", 0)

    def models_loaded(self) -> None:
        """The models are loaded (or failed to): a result answered by words meanwhile is searched again."""
        if self.by_words and self.similar is None and self.search_box.text().strip():
            self.run_search(again=True)

    def submit(self, name: str, job: JobFn, k: int, again: bool = False) -> None:
        """Run `job` (returning a SearchResult) as the newest search; its top `k` hits are shown unless a newer
        search was sent meanwhile. "Similar files" goes through here too. `again`: see run_search."""
        self.debounce.stop()
        self.seq += 1
        seq = self.seq
        self.again_seq = seq if again else -1
        self.tools.runner.submit(job, name=name, on_success=partial(self.search_done, seq, k=k),
                                    on_error=partial(self._search_failed, seq))

    def _search_failed(self, seq: int, exc: BaseException, tb: str) -> None:
        if seq != self.seq:  # an older search's failure is no longer news
            return
        self.owed_seq = -1
        # The list emptied and the failure said over it: the last search's results stood under the new query
        # (the shared library's server stopped), with a blank status bar
        self.show_result(None)
        why = str(exc).strip() or type(exc).__name__
        self.empty.show_failed(self.search_box.text(), why)
        self._say_of_list("Search failed", 0)
        if not isinstance(exc, QueryError):  # a date typed half (after:202) is said over the list, not in a dialog
            self.tools.report_error(exc, tb)

    def show_similar(self, path: str, page: Optional[int], job: JobFn, k: int) -> None:
        """Show the files like `path` (`job` finds them): a chip says so in place of the query, whose words these
        files were not found by; the query and its results are one Back away."""
        self.back_stack.append((self.search_box.text(), self.result, self.shown_k, self.similar))
        del self.back_stack[:-BACK_DEPTH]
        self.back_button.setEnabled(True)
        self._set_similar((path, page, job, k))
        self.search_box.setText("")
        self.submit("similar", job, k)

    def back(self) -> None:
        """Return to the search shown before the last "Similar files": its query, its chip, its results."""
        if not self.back_stack:
            return
        text, result, k, similar = self.back_stack.pop()
        self.back_button.setEnabled(bool(self.back_stack))
        self.debounce.stop()
        self.seq += 1  # a similar search still running is dropped
        self._set_similar(similar)
        self.search_box.setText(text)
        self.show_result(result, k)
        if result is None and (text.strip() or similar is not None):
            self.run_search() if similar is None else self.submit("similar", similar[2], similar[3])
        self.tools.say(f"Back to “{text.strip()}”" if text.strip() else "Back", 4000)

    def _set_similar(self, similar: Optional[Similar]) -> None:
        self.similar = similar
        if similar is None:
            self.similar_chip.hide()
        else:
            self.similar_chip.show_for(similar[0], similar[1])

    def search_done(self, seq: int, result: SearchResult, k: int) -> None:
        if seq != self.seq:
            self.stale_dropped += 1  # a newer query is on its way; never flash old results
            return
        self.owed_seq = -1
        self.by_words = result.said(LOADING) == MODEL_LOADING
        self.show_result(result, k, keep=seq == self.again_seq)
        t, shown = result.timings_ms.get("total"), min(k, len(result.hits))
        message = ((f"{shown} result{'' if shown == 1 else 's'}" if shown else "No results")
                   + (f" in {t:.0f} ms" if t else "") + (" (reranked)" if result.reranked else ""))
        head = message
        meaning = None if result.said(LOADING, REINDEX) else _meaning_words(result, result.hits[:k], self.embedded)
        extra = result.said(LOADING, REINDEX) or meaning
        if extra:  # otherwise a search during a reindex or phase 2 looks like "nothing (more) matches"
            message += f" · {extra}"
        # nothing to search for, or only a listing by date; an in: no folder of the library is at (a typo);
        # words too common to rank by; the file asked Similar for kept in other places too, or a container compared
        # by its members' text; a word searched otherwise than typed, or one no passage holds, searched as typed
        # (the command line says each too)
        about_query = " · ".join(n.text for n in result.notices if n.kind in (
            UNSEARCHABLE, LISTING, PLACE, COMMON, SAME, NEAR, MEMBERS, NAMED, WEAK, TYPO, RESPELLED, DID_YOU_MEAN))
        if about_query:
            message += f" · {about_query}"
        # a quiet search leaves the line to what the change said: nothing of its own to bring up to date
        said = seq != self.quiet_seq or self._line_is_of_a_list()
        if said:
            self._say_of_list(message, 0 if extra else 8000)
        self.meaning_line = MeaningLine(seq, head, result.meaning_percent or 0, result.meaning_percent or 0) \
            if meaning and said and seq != self.complete_seq else None
        no_reranker = result.said(RERANKER)
        if no_reranker and self.rerank_box.isChecked():
            self.noticeRaised.emit(no_reranker)
        self.finished.emit(result)
        if self.by_words:
            if not self.models.loading:
                self.run_search(again=True)  # the models loaded while this search ran
        elif result.said(LOADING) and not self.session.library.meaning_loading():
            self.run_search(again=True)  # the index opened while this search ran: its Changes(meaning) came first

    def show_result(self, result: Optional[SearchResult], k: int = 0, keep: bool = False) -> None:
        """`keep`: a list the person did not ask for (run_search's `again`): the result selected in the old one is
        selected in this one too when its file is still listed, its preview left as it is (where they scrolled)."""
        # the same query only: one the person typed since, and that this re-run took up, is a new list all the same
        same = keep and result is not None and self.result is not None and result.query == self.result.query
        kept = self.selected_hit() if same else None
        self.result, self.shown_k = result, k
        # The words searched for: not -excluded ones nor field values (type:pdf); "Similar files" searched no words.
        self.terms = query_terms(result.with_searched(marked_text(result.query))) \
            if result and result.mode != "similar" else []  # a typo's word as searched ("receive"), as the rows hold it
        self.results_model.set_hits(result.hits[:k] if result else [], self.terms, result.here if result else None)
        fit_columns(self.results_view)
        self.empty.show_for(result, self.filter_bar.filters() is not None)
        row = _row_of(self.results_model.hits, kept) if kept is not None else None
        if row is None:  # a new list, or the selected file is gone from it: nothing selected, nothing previewed
            self.preview.clear()
        self.resultShown.emit(result)
        if row is not None:
            self._select_again(row)
        if result is None and self.list_line and self.tools.line() == self.list_line:
            self.tools.say("", 0)  # "10 results in 70 ms" over an empty list; a line said since is not the list's

    def _line_is_of_a_list(self) -> bool:
        """Whether the status line still says what an earlier list was ("10 results in 1871 ms"): a search run
        quietly after a change that said nothing (a check of the folders that found no change) replaces it, or it
        stood under another query's rows (a newcomer's "Müller heat pump quote", whose own answer the quiet search
        had taken the place of, kept the volcano search's count)."""
        return bool(self.list_line) and self.tools.line() == self.list_line

    def _say_of_list(self, message: str, ms: int) -> None:
        """A status line about the list shown: taken back with the list (show_result)."""
        self.list_line = message
        self.tools.say(message, ms)

    def _select_again(self, row: int) -> None:
        """Select `row` of a list run again by itself: the inspector follows, the preview stays (_row_changed)."""
        index = self.results_model.index(row, 0)
        self._keeping = True
        try:
            self.results_view.setCurrentIndex(index)
        finally:
            self._keeping = False
        self.results_view.scrollTo(index)

    def focus(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def clear(self) -> None:
        self._set_similar(None)
        self.search_box.clear()
        self.seq += 1  # the answer of any search still running is dropped
        self.show_result(None)
        self.focus()

    def stop(self) -> None:
        self.debounce.stop()

    def show_reranker(self, available: bool, turned_off: bool = False) -> None:
        """Rerank is offered only while a reranker can run: without one the box is unticked, greyed and its
        tooltip says how to get one; the person's choice comes back with the reranker."""
        box = self.rerank_box
        if available:
            box.setToolTip(RERANK_TIP)
            if not box.isEnabled():
                box.setEnabled(True)
                box.setChecked(self.rerank_wanted)  # searches again with it, where there is a query
            return
        box.setToolTip(RERANK_OFF_TIP if turned_off else NO_RERANKER_TIP)
        if box.isEnabled():
            self.rerank_wanted = box.isChecked()
            box.blockSignals(True)  # nothing to search again for: no reranker ran before either
            box.setChecked(False)
            box.blockSignals(False)
            box.setEnabled(False)

    def on_changes(self, changes: Changes) -> None:
        if changes.settings:
            self.k_box.setValue(self.session.config.search.k)
            if changes.library:  # another library (File menu)
                self.back_stack.clear()  # its searches and "Similar files" views were of the other library
                self.back_button.setEnabled(False)
                self._set_similar(None)
                self.show_result(None, self.shown_k)  # its rows too; the query runs again on this one
                if self.search_box.text().strip():
                    self.run_search()
                return
        by_words = self.result is not None and self.result.said(LOADING) is not None
        if (changes.index or (changes.meaning and by_words)) and self.search_box.text().strip():
            # the library changed, or its meaning is loaded: show what is there now. After this window's change the
            # line keeps what the change said; after words-only answers, or another process's change (which says
            # nothing on the line: it kept the last search's "No results" over the new rows), what this search is now
            self.run_search(quiet=not ((changes.meaning and by_words) or changes.elsewhere), again=True)
        elif changes.index and self.similar is not None:
            # quiet as a query's rows are: "10 results in 17 ms" took the line from the Re-sync's summary that
            # caused it ("1 folder(s) missing" said and gone at once)
            self.submit("similar", self.similar[2], self.similar[3], again=True)
            self._sent(quiet=not changes.elsewhere)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # Down in the query field moves into the results, like a browser's address bar.
        if obj is self.search_box and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress \
                and event.key() == Qt.Key.Key_Down:
            if self.results_model.rowCount():
                self.results_view.setFocus()
                self.results_view.setCurrentIndex(self.results_model.index(0, 0))
                return True
        return super().eventFilter(obj, event)

    # -- the chosen result ------------------------------------------------------
    def selected_hit(self) -> Optional[Hit]:
        idx = self.results_view.currentIndex()
        return idx.data(HIT_ROLE) if idx.isValid() else None

    def _row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        found: Optional[Hit] = current.data(HIT_ROLE) if current.isValid() else None
        if found is None:
            return
        hit = found  # (a Hit, also in the callbacks below)
        preview, terms, config = self.preview, self.terms, self.session.config
        if self._keeping and preview.hit is not None and preview.hit.path == hit.path:
            return  # the same file selected again in a list run by itself: read on where the person scrolled to
        preview.show_hit(hit, terms)  # the stored passage at once; its context when the file is read

        def done(ft: FileText) -> None:
            if preview.hit is hit:
                preview.show_hit(hit, terms, ft.text, "changed since it was indexed" if ft.changed else "")
                self.previewShown.emit(hit)

        def failed(exc: BaseException, tb: str) -> None:
            if preview.hit is hit:
                if isinstance(exc, SecretFileError):  # a library's passage of it from before decision 0177 too
                    preview.show_hit(dataclasses.replace(hit, text=""), terms, None, f"not shown: {exc}")
                else:
                    preview.show_hit(hit, terms, None, f"cannot read the file now: {exc}")
                self.previewShown.emit(hit)

        self.tools.runner.submit(lambda p, c: file_text(hit.path, config, hit.text, hit.start, hit.end, ocr=hit.ocr),
                          name="preview",
                          on_success=done, on_error=failed)

    def open_index(self, index: QModelIndex) -> None:
        hit = index.data(HIT_ROLE)
        if hit is not None:
            self.preview.opener.open(hit)  # a member is copied out of its container on a worker


def _row_of(hits: Sequence[Hit], kept: Hit) -> Optional[int]:
    """The row of `kept` in a new list: its very passage, else its file (By file lists a file's best passage,
    which may be another one now); None when the file is no longer listed."""
    same_file = [i for i, h in enumerate(hits) if h.path == kept.path]
    same_passage = [i for i in same_file if hits[i].chunk_id == kept.chunk_id]
    rows = same_passage or same_file
    return rows[0] if rows else None


def _by_words(result: SearchResult) -> SearchResult:
    """A lexical answer given in place of a hybrid one while the model loads: it says so."""
    result.notices.insert(0, Notice(LOADING, MODEL_LOADING))
    return result


def _share(percent: int, some: bool) -> str:
    """"37%"; "under 1%" when some passages have meaning (the share is rounded down: "0%" read as none)."""
    return "under 1%" if percent == 0 and some else f"{percent}%"


def _meaning_words(result: SearchResult, shown: Sequence[Hit] = (), embedded: int = 0) -> Optional[str]:
    """The window's words for a search while passages still wait for meaning (the command line's note names a
    command; here the window's own sync, or Re-sync, finishes it). `shown`: the rows listed; `embedded`: passages
    with meaning as the library's status last counted them. A search by words alone gets none: meaning is no
    part of it."""
    if result.said(MEANING) is None or result.meaning_percent is None or result.mode == "lexical":
        return None
    some = embedded > 0 or any(h.scores.dense is not None for h in shown)  # a row with a meaning part has a vector
    share = _share(result.meaning_percent, some)
    if result.mode == "dense":
        return f"meaning covers {share} of passages so far: a search by meaning finds only those"
    if result.mode == "similar":  # the files without meaning follow, found by the source's words (decision 0159)
        said = f"meaning covers {share} of passages so far; files without it are found by their words"
        return said + (' (their score, in grey, reads "by words")' if any(words_only(h) for h in shown) else "")
    said = f"meaning covers {share} of passages so far; the rest are found by their words until indexing finishes"
    # the grey "words" score is pointed at only where a row shows one (passages embedded for this search do not)
    return said + (' (their score, in grey, reads "words")' if any(words_only(h) for h in shown) else "")
