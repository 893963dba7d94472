"""The `?` beside the query box: the query syntax as a table. Static text only (library/query/help.py's rows,
escaped), never anything from a file, so it is the one label here that is rich text."""

from __future__ import annotations

import html
from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from ..library.query.help import SYNTAX_ROWS

__all__ = ["SyntaxHelp", "syntax_html"]

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
        self.text = QLabel()
        self.text.setObjectName("syntaxHelpText")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setWordWrap(True)
        self.text.setText(syntax_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.text)
        lay.addWidget(buttons)
        self.resize(640, 420)
