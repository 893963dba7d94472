"""Settings a person may want to change, saved to the library's config.toml (only values that differ from the defaults).

Plain words first: the two models by what they do, how many results, what to leave out of indexed folders, and
whether scans and images are read (OCR). The technical knobs (pooling, device, passage length in tokens, overlap,
rerank depth, the vector search's ef_search) wait under Advanced, each label saying what it changes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSpinBox,
                               QToolButton, QVBoxLayout, QWidget)

from ..base.config import Config
from ..base.errors import ConfigError
from ..library.reconfigure import needs_reindex

if TYPE_CHECKING:
    from ..models.hub import PulledModel

__all__ = ["SettingsDialog", "exclude_hint"]

# What the default "Leave out" lines mean (base/config/schema.py DEFAULT_EXCLUDE): "*~" and "#*#" alone read as
# line noise to a newcomer.
KNOWN_EXCLUDES = {"*~": "editor backup files (notes.txt~)", "#*#": "Emacs autosaves (#notes.txt#)"}


def exclude_hint(lines: list[str]) -> str:
    """What the lines of "Leave out" that are known patterns leave out, in words ("" when none is)."""
    known = [f"{line}  {KNOWN_EXCLUDES[line]}" for line in dict.fromkeys(x.strip() for x in lines)
             if line in KNOWN_EXCLUDES]
    return " · ".join(known)


def _choose_folder(edit: QLineEdit, parent: QWidget, title: str) -> None:
    path = QFileDialog.getExistingDirectory(parent, title)
    if path:  # an empty path: the person cancelled
        edit.setText(path)


def _folder_field(edit: QLineEdit, parent: QWidget, title: str, extra: Optional[QWidget] = None) -> QWidget:
    w = QWidget(parent)
    browse = QPushButton("Choose…")
    browse.clicked.connect(lambda: _choose_folder(edit, parent, title))
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(edit, 1)
    if extra is not None:
        lay.addWidget(extra)
    lay.addWidget(browse)
    return w


def _hint_label(name: str) -> QLabel:
    """A short grey line under a field that says what it holds (plain text: it quotes ids and patterns)."""
    label = QLabel("")
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setStyleSheet("color:#666;")
    return label


# download(role, repo_id, on_success): the window's download dialog (see gui/model_download.py)
Downloader = Callable[[str, str, Callable[["PulledModel"], None]], object]


class SettingsDialog(QDialog):
    def __init__(self, config: Config, parent: Optional[QWidget] = None, download: Optional[Downloader] = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self.original = config
        self._model_fields(config)
        self._plain_fields(config)
        self._advanced_fields(config)
        self._reindex_warning()
        form = self._plain_form(download)
        self._advanced_group()
        self._buttons()
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.advanced_button, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.advanced)
        lay.addWidget(self.warning)
        lay.addWidget(self.error)
        lay.addWidget(self.buttons)
        self._update_warning()

    def _model_fields(self, config: Config) -> None:
        """The two models, each by what it does."""
        self.bi_encoder = QLineEdit(config.models.bi_encoder)
        self.bi_encoder.setToolTip("The model that reads every passage and query for its meaning (a bi-encoder): "
                                   "the packaged model name, a local model folder, or a cached Hugging Face id. "
                                   "Changing it means indexing again.")
        self.reranker = QLineEdit(config.models.reranker)
        self.reranker.setToolTip("The model that reorders the best results by reading query and passage together "
                                 "(a cross-encoder): a local folder or a cached Hugging Face id; empty: no reranking.")
        for w in (self.bi_encoder, self.reranker):
            # A hub id (cross-encoder/ms-marco-MiniLM-L-6-v2) reads whole, not its last dozen characters.
            w.setMinimumWidth(w.fontMetrics().horizontalAdvance("sentence-transformers/all-MiniLM-L6-v2") + 16)
        self.reranker_state = _hint_label("settingsRerankerState")
        self._reranker_known: tuple[str, str] = ("", "")  # (the id the library checked, what it found)
        self.reranker.textChanged.connect(self._show_reranker_state)

    def _plain_fields(self, config: Config) -> None:
        """Reading scans (OCR), what to leave out, how many results."""
        scan = config.scan
        self.ocr = QCheckBox("Read scans and photos of text (OCR)")
        self.ocr.setObjectName("settingsOcr")
        self.ocr.setToolTip("Images (png, jpg, tiff, webp, bmp) and PDF pages without text are read by text "
                            "recognition after every other file; off: images are left out, scans keep only their text.")
        self.ocr.setChecked(scan.ocr)
        self.exclude = QPlainTextEdit("\n".join(scan.exclude))
        self.exclude.setObjectName("settingsExclude")
        self.exclude.setPlaceholderText("One per line, e.g.\n~/Documents/private\n*.bak")
        self.exclude.setToolTip("Files and folders left out of every indexed folder, one per line. A line with a / is a "
                                "path (a folder leaves out everything in it; ~ is your home folder); a line without "
                                "one is a name, and * matches any characters (*.bak, node_modules).")
        self.exclude.setTabChangesFocus(True)
        self.exclude.setFixedHeight(self.exclude.fontMetrics().lineSpacing() * 4 + 12)
        self.exclude_hint = _hint_label("settingsExcludeHint")
        self.exclude.textChanged.connect(
            lambda: self.exclude_hint.setText(exclude_hint(self.exclude.toPlainText().splitlines())))
        self.exclude_hint.setText(exclude_hint(list(scan.exclude)))
        self.k = QSpinBox()
        self.k.setRange(1, 500)
        self.k.setValue(config.search.k)

    def _advanced_fields(self, config: Config) -> None:
        """The technical knobs: pooling, device, passage length and overlap, title context, rerank depth, ef_search."""
        m, c = config.models, config.chunking
        self.pooling = QComboBox()
        self.pooling.addItems(["auto", "mean", "cls", "max", "wk"])  # auto: the model's own; wk: SBERT-WK
        self.pooling.setCurrentText(m.pooling)
        self.device = QComboBox()
        self.device.setEditable(True)  # cuda:N is free text
        self.device.addItems(["auto", "cpu", "cuda"])
        self.device.setCurrentText(m.device)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(16, 510)
        self.max_tokens.setValue(c.max_tokens)
        self.overlap = QDoubleSpinBox()
        self.overlap.setRange(0.0, 0.85)
        self.overlap.setSingleStep(0.05)
        self.overlap.setValue(c.overlap)
        self.title_context = QCheckBox("Read each passage with its file's title")
        # The file's own title only, never its name (ingest/passage_context.file_title says why).
        self.title_context.setToolTip("The bi-encoder sees the file's own title, when it has one, before every "
                                      "passage (never the file name); what is stored and shown is unchanged.")
        self.title_context.setChecked(c.title_context)
        self.candidates = QSpinBox()
        self.candidates.setRange(1, 1000)
        self.candidates.setValue(config.search.candidates)
        self.ef_search = QSpinBox()
        self.ef_search.setRange(1, 5000)
        self.ef_search.setValue(config.index.ef_search)

    def _reindex_warning(self) -> None:
        """The line saying the changes need indexing again, redone as each field that decides it changes."""
        self.warning = QLabel("")
        self.warning.setObjectName("reindexWarning")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color:#b35c00;")
        self.bi_encoder.textChanged.connect(self._update_warning)
        self.reranker.textChanged.connect(self._update_warning)
        self.pooling.currentTextChanged.connect(self._update_warning)
        self.max_tokens.valueChanged.connect(self._update_warning)
        self.overlap.valueChanged.connect(self._update_warning)
        self.title_context.toggled.connect(self._update_warning)

    def _plain_form(self, download: Optional[Downloader]) -> QFormLayout:
        """What most people change, in plain words; each model field with Choose… (and Download… when given)."""
        self.download_buttons: dict[str, QPushButton] = {}
        for role, edit in (("bi-encoder", self.bi_encoder), ("reranker", self.reranker)):
            if download is not None:
                self.download_buttons[role] = self._download_button(role, edit, download)
        form = QFormLayout()
        form.addRow("Meaning model", _folder_field(self.bi_encoder, self, "Bi-encoder model folder",
                                                   self.download_buttons.get("bi-encoder")))
        form.addRow("Reranker model", _folder_field(self.reranker, self, "Cross-encoder model folder",
                                                    self.download_buttons.get("reranker")))
        form.addRow("", self.reranker_state)
        form.addRow("Results shown", self.k)
        form.addRow("Leave out", self.exclude)
        form.addRow("", self.exclude_hint)
        form.addRow("", self.ocr)
        return form

    def _advanced_group(self) -> None:
        """The technical knobs under their own names, hidden until Advanced is pressed."""
        self.advanced = QGroupBox()  # the technical names, for people who know them (the button above names it)
        self.advanced.setObjectName("settingsAdvanced")
        adv = QFormLayout(self.advanced)
        adv.addRow("Pooling (how a passage's token vectors become one)", self.pooling)
        adv.addRow("Device (where the models run)", self.device)
        adv.addRow("Passage length (tokens)", self.max_tokens)
        adv.addRow("Passage overlap", self.overlap)
        adv.addRow("Passage context", self.title_context)
        adv.addRow("Results the reranker reads (rerank depth)", self.candidates)
        adv.addRow("Vector search breadth (HNSW ef_search)", self.ef_search)
        self.advanced.setVisible(False)
        self.advanced_button = QToolButton()
        self.advanced_button.setObjectName("settingsAdvancedToggle")
        self.advanced_button.setText("Advanced ▸")
        self.advanced_button.setCheckable(True)
        self.advanced_button.setAutoRaise(True)
        self.advanced_button.toggled.connect(self._show_advanced)

    def _buttons(self) -> None:
        """Save / Cancel, and the line where a value Save refuses is named."""
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.error = QLabel("")
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # a config error may quote a path
        self.error.setStyleSheet("color:#c62828;")

    def _download_button(self, role: str, edit: QLineEdit, download: Downloader) -> QPushButton:
        """Download…: well-known models for the role or any id; a finished download fills the field (Save applies it)."""
        from .model_download import download_menu

        button = QPushButton("Download…")
        button.setObjectName(f"download-{role}")
        button.setToolTip("Fetch a model from the Hugging Face hub into your cache (the only network use)")
        button.setMenu(download_menu(self, role, lambda rid: download(role, rid, lambda got: edit.setText(got.repo_id))))
        return button

    def show_reranker_state(self, state: Optional[dict[str, Optional[str]]]) -> None:
        """What the library found for its reranker (LibraryStatus.reranker): a model named but not here said
        beside its field, with the way to get it; the field showed the id alone, as if it were in use."""
        state = state or {}
        spec = state.get("spec") or ""
        if not spec or state.get("available") == "yes":
            found = ""
        elif state.get("refused"):
            found = f"Found but not usable: {state['refused']}"
        else:
            found = ("Not installed: Download… fetches it, Choose… takes a model folder; until then results keep "
                     "their first order.")
        self._reranker_known = (spec, found)
        self._show_reranker_state()

    def _show_reranker_state(self) -> None:
        spec, found = self._reranker_known
        # Said of the id the library checked only: another one typed here is looked for once saved.
        self.reranker_state.setText(found if found and self.reranker.text().strip() == spec else "")
        self.reranker_state.setVisible(bool(self.reranker_state.text()))

    def config(self) -> Config:
        """The edited configuration; raises ConfigError when a value is out of range."""
        return self.original.replace(
            models={"bi_encoder": self.bi_encoder.text().strip(), "reranker": self.reranker.text().strip(),
                    "pooling": self.pooling.currentText(), "device": self.device.currentText().strip() or "auto"},
            chunking={"max_tokens": self.max_tokens.value(), "overlap": round(self.overlap.value(), 4),
                      "title_context": self.title_context.isChecked()},
            search={"candidates": self.candidates.value(), "k": self.k.value()},
            index={"ef_search": self.ef_search.value()},
            scan={"exclude": tuple(line.strip() for line in self.exclude.toPlainText().splitlines() if line.strip()),
                  "ocr": self.ocr.isChecked()},
        ).validate()

    def _show_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.advanced_button.setText("Advanced ▾" if shown else "Advanced ▸")
        self.adjustSize()

    def needs_reindex(self) -> bool:
        try:
            return needs_reindex(self.original, self.config())
        except ConfigError:
            return False

    def _update_warning(self) -> None:
        self.warning.setText("These changes need the library to be re-indexed; you will be offered to do it now."
                             if self.needs_reindex() else "")

    def _accept(self) -> None:
        try:
            self.config()
        except ConfigError as exc:
            self.error.setText(str(exc))
            return
        self.accept()
