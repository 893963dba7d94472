"""The `?` beside the query box (and F1): the query syntax as a table. Static text only (library/query/help.py's
rows, escaped), never anything from a file, so it is the one view here that is rich text. The dialog opens as
tall as the text (up to the screen) and scrolls beyond that, so the last line is never cut."""

from __future__ import annotations

import html
from typing import Optional

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFrame, QTextBrowser, QVBoxLayout, QWidget

from ..library.query.help import SYNTAX_ROWS

__all__ = ["SyntaxHelp", "syntax_html"]

WIDTH = 660

_NOTES = ("Words rank by meaning; the rest are rules every hit obeys, file by file. Case and accents are "
          "ignored and English words are stemmed (-run also excludes running). A query of only rules lists "
          "the matching files newest first. Anything that does not parse is searched as plain words. The "
          "filter bar writes its fields into the query, and fields typed here show in the bar.")


def syntax_html() -> str:
    rows = "".join(f"<tr><td><code>{html.escape(form)}</code></td><td>{html.escape(meaning)}</td></tr>"
                   for form, meaning in SYNTAX_ROWS)
    return (f"<table cellspacing='0' cellpadding='4' border='1'><tr><th>Type</th><th>Finds</th></tr>{rows}</table>"
            f"<p>{html.escape(_NOTES)}</p>")


class SyntaxHelp(QDialog):
    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("syntaxHelp")
        self.setWindowTitle("Query syntax")
        self.text = QTextBrowser()
        self.text.setObjectName("syntaxHelpText")
        self.text.setOpenLinks(False)  # nothing to follow: static text
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.viewport().setAutoFillBackground(False)
        self.text.setHtml(syntax_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = self._lay = QVBoxLayout(self)
        lay.addWidget(self.text, 1)
        lay.addWidget(buttons)
        self.resize(WIDTH, self._fitting_height(WIDTH))

    def _fitting_height(self, width: int) -> int:
        """The height that shows the whole text at `width`, at most what the screen has."""
        doc = self.text.document().clone(self)
        margins = self._lay.contentsMargins()
        doc.setTextWidth(width - margins.left() - margins.right() - 2 * self.text.frameWidth())
        want = int(doc.size().height()) + 2 * self.text.frameWidth() + self._lay.spacing() + 40 \
            + margins.top() + margins.bottom()
        screen = self.screen().availableGeometry().height() if self.screen() else 800
        return min(want, screen - 60)
