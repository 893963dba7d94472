"""The score inspector one click away instead of always open: View → Score Inspector (Ctrl+I) and the "Scores"
button beside the query, remembered in gui.ini; "Why this rank?" on a result opens it on that hit."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QSplitter, QToolButton, QWidget

from ..base.types import Hit
from .score_inspector import ScoreInspector

__all__ = ["InspectorToggle", "SHOWN_KEY"]

SHOWN_KEY = "inspector_shown"


class InspectorToggle:
    def __init__(self, parent: QWidget, inspector: ScoreInspector, split: QSplitter, settings: QSettings) -> None:
        self.inspector, self.split, self.settings = inspector, split, settings
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

    def restore(self) -> None:
        """As the person left it (hidden the first time); after the splitters' sizes are restored."""
        on = self.settings.value(SHOWN_KEY, False, type=bool)
        self.action.setChecked(on)
        self._shown(on)

    def why(self, hit: Hit) -> None:
        """ "Why this rank?": the inspector open on `hit`'s row."""
        self.action.setChecked(True)
        self.inspector.focus_hit(hit)

    def _shown(self, on: bool) -> None:
        self.inspector.setVisible(on)
        if on and self.split.sizes()[-1] < 40:  # hidden when the sizes were saved: give it room again
            width = sum(self.split.sizes()) or self.split.width()
            self.split.setSizes([width * 4 // 10, width - width * 4 // 10])
        if self.settings.value(SHOWN_KEY, False, type=bool) != on:
            self.settings.setValue(SHOWN_KEY, on)
            self.settings.sync()
