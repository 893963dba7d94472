"""File → Open Shared Library…: the address of a library a team keeps in PostgreSQL, asked in the window (issue 44
item 1: the same as `--library` and the config's `library.address`; decision 0144).

The address is checked as the command line checks it (base/library_address.checked_address: a postgresql:// URL,
never one holding a password) before the dialog closes; connecting is the session's, off the GUI thread."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from ..base.errors import ConfigError
from ..base.library_address import checked_address, is_shared

__all__ = ["OpenSharedDialog", "PLACEHOLDER"]

PLACEHOLDER = "postgresql://team@server/searchapp"


class OpenSharedDialog(QDialog):
    def __init__(self, address: str, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("openSharedDialog")
        self.setWindowTitle("Open Shared Library")
        self.setMinimumWidth(520)
        ask = QLabel("The address of the library your team keeps in PostgreSQL:")
        self.field = QLineEdit(address)
        self.field.setPlaceholderText(PLACEHOLDER)
        note = QLabel("The password is never part of the address: it comes from ~/.pgpass, a service file or "
                      "PGPASSWORD. Your folders in this computer's library stay as they are; File → Use This "
                      "Computer's Library goes back to them.")
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020;")
        self.error.hide()
        for label in (ask, note, self.error):
            label.setTextFormat(Qt.TextFormat.PlainText)  # an address or an error quoting it: never markup
            label.setWordWrap(True)
        note.setStyleSheet("color: palette(placeholder-text);")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        for w in (ask, self.field, note, self.error, buttons):
            lay.addWidget(w)

    def address(self) -> str:
        return self.field.text().strip()

    def _accept(self) -> None:
        """Closes only on an address the command line would take; else says why, under the field."""
        try:
            if not is_shared(self.address()):
                raise ConfigError(f"a shared library's address starts with postgresql://, such as {PLACEHOLDER}")
            checked_address(self.address())
        except ConfigError as exc:
            self.error.setText(str(exc)[:1].upper() + str(exc)[1:] + ".")
            self.error.show()
            return
        self.accept()
