"""What a view paints in a cell, as text: the strings its delegate draws there, in order. A delegate written in
Python draws through the painter it is handed, so a painter that notes each drawText sees them; Qt's own delegate
draws in C++, past it, and shows its text elided with the view's elide mode, which is what is returned for it."""

from __future__ import annotations

from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyleOptionViewItem

__all__ = ["painted_text"]

PAD = 4  # the style's margin inside a cell, each side


class _Noting(QPainter):
    def __init__(self, device: QImage) -> None:
        super().__init__(device)
        self.texts: list[str] = []

    def drawText(self, *args) -> None:  # Qt's name: the override the delegate calls
        self.texts.append(str(args[-1]))
        super().drawText(*args)


def painted_text(view: QAbstractItemView, index) -> list[str]:
    """The texts drawn in the cell at `index` of `view` (shown, so that it has its geometry)."""
    rect = view.visualRect(index)
    opt = QStyleOptionViewItem()
    opt.rect, opt.font, opt.fontMetrics, opt.palette, opt.widget = (rect, view.font(), view.fontMetrics(),
                                                                    view.palette(), view)
    opt.state = QStyle.StateFlag.State_Enabled
    image = QImage(view.viewport().size(), QImage.Format.Format_ARGB32)
    painter = _Noting(image)
    try:
        view.itemDelegateForIndex(index).paint(painter, opt, index)
    finally:
        painter.end()
    if painter.texts:
        return painter.texts
    return [view.fontMetrics().elidedText(str(index.data()), view.textElideMode(), rect.width() - 2 * PAD)]
