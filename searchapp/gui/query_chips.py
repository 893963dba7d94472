"""The row under the query box: one chip per constraint the parser recognised (`phrase "…"`, `not …`,
`type: pdf`…), each with ✕ to take it out of the query, and a line saying what was taken as plain words.

QLineEdit cannot colour parts of its text, so the query is explained beside it instead. Chip text comes from the
query, which may quote file names and folders: every label is plain text, every tooltip escaped (plain.py).
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QSizePolicy, QToolButton, QWidget

from ..library.query.help import QueryPart, query_parts, without_part
from ..library.query.reading import as_searched
from ..library.query.syntax import ParsedQuery
from .elided_label import ElidedLabel
from .plain import plain_label, tooltip

__all__ = ["QueryChips", "CHIP_MAX_WIDTH"]

CHIP_MAX_WIDTH = 260  # a long folder is elided (its full text in the tooltip); the row never widens the window


class QueryChips(QWidget):
    queryChanged = Signal(str)  # the query text with one chip's part taken out

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("queryChips")
        self.parsed: Optional[ParsedQuery] = None
        self.parts: list[QueryPart] = []
        self.chips: list[QFrame] = []
        self.notes = ElidedLabel()  # one line, shortened to the row's width; every warning in its tooltip
        self.notes.setObjectName("queryNotes")
        self.notes.setStyleSheet("color:#8a5a00;")
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(4)
        self._row.addWidget(self.notes, 1)
        # However many chips there are, the row takes the width it is given (chips beyond it are clipped).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setVisible(False)

    def show_query(self, parsed: ParsedQuery) -> None:
        for chip in self.chips:
            self._row.removeWidget(chip)
            chip.deleteLater()
        self.chips = []
        self.parsed = parsed
        # The reading a search uses: a long question's quotes are plain words (no chip), its fields still chips.
        # A field's key names its value, so ✕ takes it out of the text as typed (self.parsed).
        read = as_searched(parsed)
        self.parts = [] if parsed.literal else query_parts(read)
        for i, part in enumerate(self.parts):
            chip = self._chip(part)
            self._row.insertWidget(i, chip)
            self.chips.append(chip)
        warnings = [] if parsed.literal else list(read.warnings)
        self.notes.set_full_text(("Taken as words: " + "; ".join(warnings)) if warnings else "")
        self.notes.setToolTip(tooltip("Taken as words:\n" + "\n".join(warnings)) if warnings else "")
        self.notes.setVisible(bool(warnings))
        self.setVisible(bool(self.parts or warnings))

    def labels(self) -> list[str]:
        return [p.label for p in self.parts]

    def remove(self, index: int) -> None:
        """Take the index-th chip's part out of the query (what its ✕ does)."""
        if self.parsed is not None and 0 <= index < len(self.parts):
            self.queryChanged.emit(without_part(self.parsed, self.parts[index].key))

    def _chip(self, part: QueryPart) -> QFrame:
        chip = QFrame()
        chip.setObjectName("queryChip")
        chip.setFrameShape(QFrame.Shape.StyledPanel)
        chip.setStyleSheet("#queryChip { background:#e8eefc; border:1px solid #9db3e6; border-radius:8px; }")
        lay = QHBoxLayout(chip)
        lay.setContentsMargins(6, 0, 2, 0)
        lay.setSpacing(2)
        label = plain_label("")
        label.setObjectName("queryChipText")
        label.setText(label.fontMetrics().elidedText(part.label, Qt.TextElideMode.ElideMiddle, CHIP_MAX_WIDTH))
        label.setToolTip(tooltip(part.label))
        close = QToolButton()
        close.setObjectName("queryChipRemove")
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip(tooltip(f"Remove {part.label} from the query"))
        close.setAccessibleName(f"Remove {part.label}")
        index = len(self.chips)
        close.clicked.connect(lambda *_, i=index: self.remove(i))
        lay.addWidget(label)
        lay.addWidget(close)
        return chip
