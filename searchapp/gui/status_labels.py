"""The status bar's permanent labels: device, model, index size and consistency, reranker state.

Plain text throughout: the model label shows a folder name, which Qt could otherwise read as markup.
"""

from __future__ import annotations

import os

from PySide6.QtWidgets import QLabel, QStatusBar

from ..base.config import Config
from ..library import LibraryStatus
from .plain import make_plain

__all__ = ["StatusLabels"]


class StatusLabels:
    def __init__(self, bar: QStatusBar) -> None:
        self.device, self.models, self.index, self.reranker = (QLabel() for _ in range(4))
        for name, lab in (("deviceLabel", self.device), ("modelsLabel", self.models),
                          ("indexLabel", self.index), ("rerankerLabel", self.reranker)):
            lab.setObjectName(name)
            make_plain(lab)
            bar.addPermanentWidget(lab)
        self.models.setText("Loading models…")

    def show_status(self, st: LibraryStatus) -> None:
        # Passages run on the device; queries may take another path (onnxruntime, NumPy): say both.
        queries = st.query_path.split(";")[0] if st.query_path else ""
        self.device.setText(f"Device: {st.device}" + (f" · queries: {queries}" if queries else ""))
        self.device.setToolTip(f"Passages: {st.passage_path or 'torch on ' + st.device}\n"
                               f"Queries: {st.query_path or 'torch'}")
        files = sum(st.files.values())
        if st.index_opening:  # its figures come when it is open; the device waits too, leaving the search's line room
            self.device.setText("")
            self.index.setText(f"{st.chunks:,} passages in {files:,} files · opening the index…")
            return
        self.index.setText(f"{st.chunks:,} passages in {files:,} files" + ("" if st.consistent else " — index not consistent"))

    def show_models(self, config: Config, ready: bool) -> None:
        m = config.models
        state = "" if ready else " (loading…)"
        self.models.setText(f"Model: {os.path.basename(m.bi_encoder.rstrip('/')) or m.bi_encoder} ({m.pooling}){state}")

    def show_reranker(self, state: str) -> None:
        """`state`: "on" (a cross-encoder has really loaded), "loading…" or "none"."""
        self.reranker.setText(f"Reranker: {state}")
