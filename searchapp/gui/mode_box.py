"""The search mode menu, named by what each mode reads: "Words + meaning", "Meaning", "Words".

A newcomer read "hybrid / dense / lexical" as jargon. The menu shows plain names; the modes themselves keep their
ids (base/search_modes.SEARCH_MODES), which the command line's --mode, the settings, saved searches and gui.ini
use. `mode()` and `set_mode()` speak ids, never the shown text (decision 0148).
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtWidgets import QComboBox, QWidget

from ..base.search_modes import SEARCH_MODES

__all__ = ["ModeBox", "MODE_NAMES", "mode_name"]

MODE_NAMES = {"hybrid": "Words + meaning", "dense": "Meaning", "lexical": "Words"}
TIP = ("Words + meaning (hybrid): passages ranked by meaning and by their words together\n"
       "Meaning (dense): by meaning alone: other words for the same thing are found\n"
       "Words (lexical, BM25): by the query's words alone")


def mode_name(mode: str) -> str:
    """The name the window shows for a mode id (the id itself for one it does not know, e.g. "similar")."""
    return MODE_NAMES.get(mode, mode)


class ModeBox(QComboBox):
    """A combo box of SEARCH_MODES, each shown by its plain name and holding its id."""

    def __init__(self, mode: str, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        for m in SEARCH_MODES:
            self.addItem(mode_name(m), m)
        self.set_mode(mode)
        self.setToolTip(TIP)

    def mode(self) -> str:
        return str(self.currentData())

    def set_mode(self, mode: str) -> None:
        """Show `mode` (an id); one not among SEARCH_MODES leaves the box as it is."""
        i = self.findData(mode)
        if i >= 0:
            self.setCurrentIndex(i)
