"""A one-line plain-text label that shortens its text with … to the width it is given, the whole text in its
tooltip: a notice or a note never takes several lines nor widens the window."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from .plain import tooltip

__all__ = ["ElidedLabel"]


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: Optional[QWidget] = None,
                 mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # it may quote a path or a query
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._mode = mode
        self._full = ""
        self.set_full_text(text)

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(tooltip(text))
        self._elide()

    def is_elided(self) -> bool:
        return self.text() != self._full

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, self._mode, width) if width > 0 else self._full
        if shown != self.text():
            QLabel.setText(self, shown)
