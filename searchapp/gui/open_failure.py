"""What the window says when the desktop could not open a file (no application for its type, or none starts):
QDesktopServices.openUrl only returns False and prints a line nobody reads, so the pane that asked shows the
failure with two ways out, Show in folder and Copy path."""

from __future__ import annotations

import os
from typing import Optional

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from .plain import plain_label, shown_name, shown_path, tooltip

__all__ = ["OpenFailure"]


class OpenFailure(QFrame):
    """A strip naming what could not be opened; Show in folder asks for the folder's URL through
    `folderRequested`, Copy path puts the local path on the clipboard."""

    folderRequested = Signal(QUrl)

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("openFailure")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#openFailure { background: #fff4e5; border: 1px solid #e0a050; }")
        self.path = ""
        self.folder: Optional[QUrl] = None
        self.label = plain_label("")  # a file name: never markup
        self.label.setObjectName("openFailureText")
        self.label.setWordWrap(True)
        self.folder_button = QPushButton("Show in folder")
        self.folder_button.setObjectName("openFailureFolder")
        self.copy_button = QPushButton("Copy path")
        self.copy_button.setObjectName("openFailureCopy")
        self.close_button = QPushButton("Dismiss")
        self.close_button.setObjectName("openFailureClose")
        self.folder_button.clicked.connect(lambda: self.folder is not None and self.folderRequested.emit(self.folder))
        self.copy_button.clicked.connect(self.copy_path)
        self.close_button.clicked.connect(self.hide)
        buttons = QHBoxLayout()
        for b in (self.folder_button, self.copy_button, self.close_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.label)
        lay.addLayout(buttons)
        self.hide()

    def show_for(self, url: QUrl, key: str = "", folder: Optional[QUrl] = None) -> None:
        """Say that `url` could not be opened; `key` is the library's name for it (a member's copy is named as
        its member, a.zip › m.pdf), `folder` the folder Show in folder opens (default: the file's)."""
        path = url.toLocalFile()
        self.path = path
        shown = shown_path(key or path)
        if os.path.isdir(path):
            self.folder = None
            text = (f"Could not show the folder {shown}: no file manager is set up on this desktop. "
                    "Copy the path to open it another way.")
        else:
            self.folder = folder or QUrl.fromLocalFile(os.path.dirname(path))
            text = (f"Could not open {shown_name(key or path)}: no application is set up for this kind of "
                    "file, or it did not start. Show it in its folder, or copy its path.")
        self.label.setText(text)
        self.label.setToolTip(tooltip(shown))
        self.folder_button.setVisible(self.folder is not None)
        self.copy_button.setText("Copy path")
        self.show()

    def copy_path(self) -> None:
        QGuiApplication.clipboard().setText(self.path)
        self.copy_button.setText("Path copied")
