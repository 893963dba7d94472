"""A small QPainter plot (QtCharts is not in PySide6-Essentials): how the reranker moved each candidate.

Reranked: a scatter of bi-encoder cosine (x) against cross-encoder score (y), promoted candidates in
green, demoted in red, unmoved in grey. Not reranked: a histogram of the final scores. A listing (a query of
only fields) has no scores: no chart, a line saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ..base.types import Hit
from .results_model import scored as _scored

__all__ = ["ScorePlot", "PlotPoint", "COLORS"]

COLORS = {"promoted": QColor("#1a7f37"), "demoted": QColor("#c62828"), "same": QColor("#7a7a7a")}


@dataclass(frozen=True)
class PlotPoint:
    x: float  # bi-encoder cosine
    y: float  # cross-encoder sigmoid
    kind: str  # promoted | demoted | same
    rank: int  # final rank


def _kind(h: Hit) -> str:
    d = (h.ranks.fused or 0) - (h.ranks.rerank or 0)
    return "promoted" if d > 0 else "demoted" if d < 0 else "same"


class ScorePlot(QWidget):
    MARGIN = 34

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("scorePlot")
        # not 220 wide: those 60 px let the score table beside it fit at 1280x800. 100 high, not 160: under a "Why"
        # of five lines the inspector has ~127 px left at 1280x800, and a taller minimum cut off the axis and its
        # labels ("final score", the range) below the window's edge
        self.setMinimumSize(160, 100)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.points: list[PlotPoint] = []
        self.bins: list[int] = []
        self.bin_range = (0.0, 1.0)
        self.mode = "empty"  # scatter | histogram | unscored | empty
        self.x_label = self.y_label = ""

    def sizeHint(self) -> QSize:
        return QSize(200, 220)

    def set_hits(self, hits: list[Hit], reranked: bool) -> None:
        scored = [PlotPoint(dense, rerank, _kind(h), h.ranks.final or 0) for h in hits
                  if (dense := h.scores.dense) is not None and (rerank := h.scores.rerank) is not None]
        if reranked and scored:
            self.mode = "scatter"
            self.points = scored
            self.x_label, self.y_label = "bi-encoder cosine", "cross-encoder score"
            self.bins = []
        elif hits and not any(_scored(h) for h in hits):
            self.mode, self.points, self.bins = "unscored", [], []
        elif hits:
            self.mode = "histogram"
            vals = [h.score for h in hits if _scored(h)]
            lo, hi = min(vals), max(vals)
            if hi - lo < 1e-9:
                hi = lo  # one value: one bar, one label (not an axis of "0 … 1e-09")
            n = min(12, max(4, len(vals) // 3))
            self.bins = [0] * n
            for v in vals:
                self.bins[min(n - 1, int((v - lo) / (hi - lo) * n)) if hi > lo else 0] += 1
            self.bin_range = (lo, hi)
            self.points = []
            self.x_label, self.y_label = "final score", "candidates"
        else:
            self.mode, self.points, self.bins = "empty", [], []
        self.update()

    def _area(self) -> QRectF:
        m = self.MARGIN
        return QRectF(m, 8, max(10, self.width() - m - 10), max(10, self.height() - m - 8))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), self.palette().base())
        area = self._area()
        fg = self.palette().text().color()
        p.setPen(QPen(fg, 1))
        p.drawLine(area.bottomLeft(), area.bottomRight())
        p.drawLine(area.bottomLeft(), area.topLeft())
        if self.mode in ("empty", "unscored"):
            p.drawText(area, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                       "No scores yet" if self.mode == "empty" else "Listed newest first: no words to rank by, no scores")
            return
        p.drawText(QRectF(area.left(), area.bottom() + 14, area.width(), 16), Qt.AlignmentFlag.AlignCenter, self.x_label)
        p.save()
        p.translate(12, area.center().y())
        p.rotate(-90)
        p.drawText(QRectF(-area.height() / 2, -8, area.height(), 16), Qt.AlignmentFlag.AlignCenter, self.y_label)
        p.restore()
        if self.mode == "scatter":
            self._scatter(p, area)
        else:
            self._histogram(p, area)

    def _scatter(self, p: QPainter, area: QRectF) -> None:
        xs = [pt.x for pt in self.points]
        ys = [pt.y for pt in self.points]
        x0, x1 = min(xs), max(xs)
        y0, y1 = min(ys), max(ys)
        x1, y1 = (x1 if x1 - x0 > 1e-9 else x0 + 1), (y1 if y1 - y0 > 1e-9 else y0 + 1)
        fg = self.palette().text().color()
        p.drawText(QRectF(area.left(), area.bottom() + 1, 60, 14), Qt.AlignmentFlag.AlignLeft, f"{x0:.2f}")
        p.drawText(QRectF(area.right() - 60, area.bottom() + 1, 60, 14), Qt.AlignmentFlag.AlignRight, f"{x1:.2f}")
        for pt in sorted(self.points, key=lambda q: q.kind != "same"):  # coloured dots on top
            cx = area.left() + (pt.x - x0) / (x1 - x0) * area.width()
            cy = area.bottom() - (pt.y - y0) / (y1 - y0) * area.height()
            p.setPen(QPen(fg, 0.5))
            p.setBrush(COLORS[pt.kind])
            p.drawEllipse(QPointF(cx, cy), 4, 4)
        counts = {k: sum(pt.kind == k for pt in self.points) for k in COLORS}
        x, y = area.left() + 6, area.top()
        for k in ("promoted", "demoted", "same"):
            label = f"{k} {counts[k]}"
            width = 20 + p.fontMetrics().horizontalAdvance(label)
            if x > area.left() + 6 and x + width > area.right():  # a narrow plot: the next line, not cut off
                x, y = area.left() + 6, y + p.fontMetrics().height()
            p.setBrush(COLORS[k])
            p.setPen(Qt.PenStyle.NoPen)
            p.drawEllipse(QPointF(x + 4, y + 8), 4, 4)
            p.setPen(fg)
            p.drawText(QPointF(x + 12, y + 12), label)
            x += width

    def _histogram(self, p: QPainter, area: QRectF) -> None:
        top = max(self.bins) or 1
        w = area.width() / len(self.bins)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor("#4a78c2"))
        for i, n in enumerate(self.bins):
            h = n / top * area.height()
            p.drawRect(QRectF(area.left() + i * w + 1, area.bottom() - h, w - 2, h))
        p.setPen(self.palette().text().color())
        lo, hi = self.bin_range
        p.drawText(QRectF(area.left(), area.bottom() + 1, 60, 14), Qt.AlignmentFlag.AlignLeft, f"{lo:.3g}")
        if hi > lo:
            p.drawText(QRectF(area.right() - 60, area.bottom() + 1, 60, 14), Qt.AlignmentFlag.AlignRight, f"{hi:.3g}")
