"""Text from files (names, snippets, reasons, messages) shown as text, never as markup.

Qt guesses whether a label's or a tooltip's string is rich text (`Qt.mightBeRichText`): a file named
`<img src=/some/fifo>x.txt` would make the window open that path to draw it, and block for good on a
FIFO. Labels that show such strings are set to PlainText; tooltips cannot be, so they get markup
this module builds, with the text escaped inside it.
"""

from __future__ import annotations

import html
from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from ..base.member_paths import display_folder, display_name, display_path
from ..base.terminal import printable

__all__ = ["plain_label", "make_plain", "tooltip", "shown_name", "shown_folder", "shown_path"]


def make_plain(label: QLabel) -> QLabel:
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def plain_label(text: str = "", parent: Optional[QWidget] = None) -> QLabel:
    """A QLabel that never interprets its text as HTML."""
    return make_plain(QLabel(text, parent))


def tooltip(text: str) -> str:
    """`text` as a tooltip that shows exactly these characters (empty stays empty: no tooltip)."""
    if not text:
        return ""
    return f'<p style="white-space:pre-wrap">{html.escape(text)}</p>'


# A file's name as the window draws it: its control characters written visibly (`\n`, `\e`), as the terminal
# writes them (base/terminal.printable). Drawn raw, a name holding a newline ran its second line over the row
# under it, in the results, the preview's header and the score inspector (a newcomer's `evil\x1b[31mred\nline.txt`).
def shown_name(path: str) -> str:
    return printable(display_name(path))


def shown_folder(path: str) -> str:
    return printable(display_folder(path))


def shown_path(path: str) -> str:
    return printable(display_path(path))
