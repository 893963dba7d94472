"""The yellow reranker notice above the results: one line saying what a reranker gives (or why the one there is
not used), the two ways to get one, and ✕ to stop showing it. It shows only once there is something to search.

Non-modal: searching goes on with first-stage order while it shows. The window decides when it shows
(see MainWindow.show_reranker_notice); this module only words the reason and lays out the buttons. The line is
shortened to the window's width, its whole text in the tooltip. ✕ hides it for good for that kind of reason
(missing, turned off, refused), remembered in gui.ini: a different reason later shows it again. The status
bar's "Reranker: none" and the greyed Rerank box's tooltip still say how to get one.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QToolButton

from ..base.config import DEFAULT_RERANKER
from .elided_label import ElidedLabel
from .plain import tooltip

__all__ = ["RerankerNotice", "DISMISSED_KEY", "SHARPER"]

DISMISSED_KEY = "notices/reranker_dismissed"  # the kinds of reason the person chose not to see again
# What a reranker gives, said before what it is (a cross-encoder): the Download button beside it says its size.
SHARPER = "Sharper ranking: a reranker reads the top results again and puts the best ones first."


class RerankerNotice(QFrame):
    chooseFolderRequested = Signal()  # "Choose model folder…"
    downloadRequested = Signal(str)  # the hub id of the reranker to download

    def __init__(self, settings: Optional[QSettings] = None) -> None:
        super().__init__()
        self.setObjectName("rerankerNotice")
        self.setStyleSheet("#rerankerNotice{background:#fff4d6;border:1px solid #e0c070;border-radius:4px;}")
        self.settings = settings
        self.kind = ""  # why the notice shows now: missing | off | refused
        self.label = ElidedLabel()  # quotes a model folder and the reason it was refused (plain text)
        self.label.setObjectName("rerankerNoticeText")
        self.download_button = QPushButton("Download reranker (90 MB)")
        self.download_button.setObjectName("downloadRerankerButton")
        self.download_button.setToolTip(f"Download {DEFAULT_RERANKER} (about 90 MB) from the Hugging Face hub")
        self.download_button.clicked.connect(lambda: self.downloadRequested.emit(DEFAULT_RERANKER))
        self.choose_button = QPushButton("Choose model folder…")
        self.choose_button.setToolTip("A local cross-encoder folder: config.json, model.safetensors, tokenizer")
        self.choose_button.clicked.connect(lambda: self.chooseFolderRequested.emit())
        self.close_button = QToolButton()
        self.close_button.setObjectName("dismissRerankerNotice")
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Don't show this again (the status bar still says Reranker: none)")
        self.close_button.setAccessibleName("Don't show the reranker notice again")
        self.close_button.clicked.connect(self.dismiss)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 2, 2)
        row.addWidget(self.label, 1)
        row.addWidget(self.download_button)
        row.addWidget(self.choose_button)
        row.addWidget(self.close_button)
        self.hide()

    def explain(self, message: Optional[str], refused: Optional[str], reranking_on: bool,
                searchable: bool = True) -> None:
        """Show the notice: what a reranker gives, or why there is none (`refused`: the folder's refusal), the
        technical reason and `message` in its tooltip; unless the person dismissed this kind of reason for good, or
        there is nothing to search yet (`searchable`): on an empty library a newcomer met "no cross-encoder weights
        were found" before learning how to add a folder. A folder the person chose and that was refused is said at
        once: it is news about their own setting."""
        if not reranking_on:
            self.kind, line = "off", "Reranking is turned off in the settings: results are not sorted a second time."
            why = "reranking is turned off in the settings"
        elif refused:  # the real reason in the notice itself, not only in its tooltip (plain text: it holds a path)
            self.kind, line = "refused", f"The reranker's model folder was refused: {refused}"
            why = f"the model folder was refused: {refused}"
        else:  # what it gives first, in plain words; the cause (for those who know the word) on hover
            self.kind, line = "missing", SHARPER
            why = "no cross-encoder weights were found"
        detail = f"No reranker: {why}, so results keep their first-stage order."
        self.label.set_full_text(line)
        self.label.setToolTip(tooltip(f"{line}\n\n{detail}" + (f"\n\n{message}" if message and message not in detail
                                                                  else "")))
        if (not searchable and self.kind != "refused") or self.kind in self.dismissed():
            self.hide()
            return
        self.show()

    def dismissed(self) -> list[str]:
        if self.settings is None:
            return []
        value = self.settings.value(DISMISSED_KEY, [])
        if isinstance(value, str):  # QSettings reads a list of one back as its item
            return [value]
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else []

    def dismiss(self) -> None:
        """✕: hide it, and for good for this kind of reason."""
        self.hide()
        if self.settings is not None and self.kind and self.kind not in self.dismissed():
            self.settings.setValue(DISMISSED_KEY, [*self.dismissed(), self.kind])
            self.settings.sync()
