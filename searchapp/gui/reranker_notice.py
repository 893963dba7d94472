"""The yellow "No reranker" notice above the results: why there is none, and the two ways to get one.

Non-modal: searching goes on with first-stage order while it shows. The window decides when it shows
(see MainWindow.show_reranker_notice); this module only words the reason and lays out the buttons.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout

from ..base.config import DEFAULT_RERANKER
from .plain import plain_label, tooltip

__all__ = ["RerankerNotice"]


class RerankerNotice(QFrame):
    chooseFolderRequested = Signal()  # "Choose model folder…"
    downloadRequested = Signal(str)  # the hub id of the reranker to download

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("rerankerNotice")
        self.setStyleSheet("#rerankerNotice{background:#fff4d6;border:1px solid #e0c070;border-radius:4px;}")
        self.label = plain_label("")  # quotes a model folder and the reason it was refused
        self.label.setWordWrap(True)
        self.choose_button = QPushButton("Choose model folder…")
        self.choose_button.clicked.connect(lambda: self.chooseFolderRequested.emit())
        self.download_button = QPushButton(f"Download reranker ({DEFAULT_RERANKER}, about 90 MB)")
        self.download_button.setObjectName("downloadRerankerButton")
        self.download_button.clicked.connect(lambda: self.downloadRequested.emit(DEFAULT_RERANKER))
        hide = QPushButton("Dismiss")
        hide.clicked.connect(self.hide)
        # The long Download button gets a row of its own: beside the others it made the window's minimum
        # width larger than a small screen (and the 800-px offscreen one) whenever the notice showed.
        nl = QVBoxLayout(self)
        nl.setContentsMargins(8, 4, 8, 4)
        top = QHBoxLayout()
        top.addWidget(self.label, 1)
        top.addWidget(self.choose_button)
        top.addWidget(hide)
        nl.addLayout(top)
        bottom = QHBoxLayout()
        bottom.addWidget(self.download_button)
        bottom.addStretch(1)
        nl.addLayout(bottom)
        self.hide()

    def explain(self, message: Optional[str], refused: Optional[str], reranking_on: bool) -> None:
        """Show the notice: why there is no reranker (`refused`: the folder's refusal), `message` as its tooltip."""
        if not reranking_on:
            why = "reranking is turned off in the settings"
        elif refused:  # the real reason in the notice itself, not only in its tooltip (plain text: it holds a path)
            # a zero-width space after each "/" lets a long path wrap instead of widening the window
            why = f"the model folder was refused: {refused.replace('/', '/' + chr(0x200B))}"
        else:
            why = "no cross-encoder weights were found"
        self.label.setText(
            f"No reranker: {why}, so results keep their first-stage order. "
            "Download one, or choose a local cross-encoder model folder (config.json, model.safetensors, tokenizer).")
        self.label.setToolTip(tooltip(message or ""))
        self.show()
