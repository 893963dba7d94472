"""The score inspector one click away instead of always open: View → Score Inspector (Ctrl+I) and the "Scores"
button beside the query, remembered in gui.ini; "Why this rank?" on a result opens it on that hit. While it is
open it follows the selected result: its row is selected and the summary says why it ranks where it does."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QModelIndex, QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QSplitter, QToolButton, QWidget

from ..base.types import Hit
from .results_model import HIT_ROLE
from .score_inspector import ScoreInspector

__all__ = ["InspectorToggle", "SHOWN_KEY"]

SHOWN_KEY = "inspector_shown"


class InspectorToggle:
    def __init__(self, parent: QWidget, inspector: ScoreInspector, split: QSplitter, settings: QSettings,
                 results: Optional[QAbstractItemView] = None) -> None:
        self.inspector, self.split, self.settings, self.results = inspector, split, settings, results
        act = self.action = QAction("Score &Inspector", parent)
        act.setObjectName("inspectorAction")
        act.setCheckable(True)
        act.setIconText("Scores")  # what the button beside the query says
        act.setShortcut(QKeySequence("Ctrl+I"))
        act.setToolTip("Every candidate's scores at each stage, and a plot of them (Ctrl+I)")
        act.toggled.connect(self._shown)
        self.button = QToolButton()
        self.button.setObjectName("inspectorButton")
        self.button.setDefaultAction(act)
        inspector.hide()
        if results is not None:
            results.selectionModel().currentRowChanged.connect(lambda current, _: self._follow(current))

    def restore(self) -> None:
        """As the person left it (hidden the first time); after the splitters' sizes are restored."""
        on = bool(self.settings.value(SHOWN_KEY, False, type=bool))
        self.action.setChecked(on)
        self._shown(on)

    def why(self, hit: Hit) -> None:
        """ "Why this rank?": the inspector open on `hit`'s row."""
        self.action.setChecked(True)
        self.inspector.focus_hit(hit)

    def _follow(self, current: QModelIndex) -> None:
        hit = current.data(HIT_ROLE) if current.isValid() else None
        if hit is not None and self.inspector.isVisible():
            self.inspector.focus_hit(hit)

    def _shown(self, on: bool) -> None:
        self.inspector.setVisible(on)
        if on and self.results is not None:
            self._follow(self.results.currentIndex())
        if on and self.split.sizes()[-1] < 40:  # hidden when the sizes were saved: give it room again
            # two thirds: at 1280x800 the score table's columns fit beside the plot (at 60% it scrolled sideways)
            width = sum(self.split.sizes()) or self.split.width()
            self.split.setSizes([width // 3, width - width // 3])
        if self.settings.value(SHOWN_KEY, False, type=bool) != on:
            self.settings.setValue(SHOWN_KEY, on)
            self.settings.sync()
