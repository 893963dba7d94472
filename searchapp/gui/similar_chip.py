"""What "Similar files" searched for, said beside the query box: a chip "Similar to NAME" (with ✕ to go Back) in
place of the query that was there, which is one Back away (the ← button, Alt+Left)."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QToolButton, QWidget

from ..base.page_names import page_label
from .plain import plain_label, shown_name, shown_path, tooltip
from .query_chips import CHIP_MAX_WIDTH

__all__ = ["SimilarChip", "back_button"]


class SimilarChip(QFrame):
    closeRequested = Signal()

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("similarChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#similarChip { background:#e8f5e9; border:1px solid #8bc48f; border-radius:8px; }")
        self.label = plain_label("")  # a file name: never markup
        self.label.setObjectName("similarChipText")
        close = self.close_button = QToolButton()
        close.setObjectName("similarChipClose")
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Back to the search before (Alt+Left)")
        close.clicked.connect(self.closeRequested)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 0, 2, 0)
        lay.setSpacing(2)
        lay.addWidget(self.label)
        lay.addWidget(close)
        self.hide()

    def show_for(self, path: str, page: Optional[int] = None) -> None:
        where = f", {page_label(path, page)}" if page else ""
        text = f"Similar to {shown_name(path)}{where}"
        self.label.setText(self.label.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, CHIP_MAX_WIDTH))
        self.label.setToolTip(tooltip(f"Files similar to {shown_path(path)}{where}"))
        self.show()


def back_button() -> QToolButton:
    b = QToolButton()
    b.setObjectName("backButton")
    b.setText("←")
    b.setToolTip("Back to the search before (Alt+Left)")
    b.setAccessibleName("Back")
    b.setEnabled(False)
    return b
