"""Errors as dialogs: expected ones (SearchAppError, OS errors such as a full disk) as a plain message,
anything else with a copyable traceback."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QMessageBox, QPlainTextEdit, QPushButton,
                               QVBoxLayout, QWidget)

from ..base.errors import SearchAppError

__all__ = ["show_error", "TracebackDialog"]


class TracebackDialog(QDialog):
    def __init__(self, title: str, message: str, tb: str, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("tracebackDialog")
        self.setWindowTitle(title)
        self.resize(720, 420)
        label = QLabel(f"Something went wrong that searchapp did not expect:\n{message}\n\n"
                       "Your library is safe: everything finished before this point is kept. "
                       "Please copy the details below into a bug report.")
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        self.details = QPlainTextEdit(tb)
        self.details.setReadOnly(True)
        copy = QPushButton("Copy details")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(tb))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(label)
        lay.addWidget(self.details, 1)
        lay.addWidget(buttons)


def show_error(parent: Optional[QWidget], exc: BaseException, tb: str = "", title: str = "searchapp") -> QDialog:
    """Open (window-modal, never blocking the event loop) and return the dialog for `exc`."""
    if isinstance(exc, (SearchAppError, OSError)):  # OSError: disk full, permission denied: the user can act on it
        text = str(exc) if isinstance(exc, SearchAppError) else f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
        box.setObjectName("errorDialog")
        box.setTextFormat(Qt.TextFormat.PlainText)  # messages quote file names, which may look like markup
        box.open()
        return box
    dlg = TracebackDialog(title, f"{type(exc).__name__}: {exc}", tb or repr(exc), parent)
    dlg.open()
    return dlg
