"""The filter bar under the query: folder, file types and a modified-date range for every search and "Similar files".

Its fields are the query's in:/type:/after:/before: fields (gui/query_sync.py): an edit here is written into
the query text, and fields typed in the query are shown here (show_fields)."""

from __future__ import annotations

import os
from functools import partial
from typing import Optional, Sequence

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import QCheckBox, QDateEdit, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from ..base.errors import SearchAppError
from ..library import SearchFilters
from ..library.query.filters import parse_types
from .plain import plain_label

__all__ = ["FilterBar", "FIRST_DAY", "LAST_DAY"]

# Dates a file can have been modified on and the index can compare (mtimes are int64 nanoseconds: 1677-2262).
# QDateEdit's own range (100-9999) let 9999-12-31 through, and the search died with an overflow dialog.
FIRST_DAY, LAST_DAY = QDate(1900, 1, 1), QDate(2200, 12, 31)


def _folders(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(os.path.abspath(os.path.expanduser(v.strip())) for v in values if v.strip())


class FilterBar(QWidget):
    changed = Signal()  # a person edited a filter field (never emitted by show_fields); the window searches again

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self._quiet = False  # set while show_fields mirrors the query text: no `changed` then
        self.setObjectName("filterBar")
        self.folder = QLineEdit()
        self.folder.setObjectName("filterFolder")
        self.folder.setPlaceholderText("In folder (any)")
        self.folder.setClearButtonEnabled(True)
        self.folder.setToolTip("Only files at or below this folder; several folders separated by ';'")
        browse = QPushButton("…")
        browse.setToolTip("Choose a folder")
        browse.setFixedWidth(28)
        browse.clicked.connect(self._browse)
        self.types = QLineEdit()
        self.types.setObjectName("filterTypes")
        self.types.setPlaceholderText("Types, e.g. pdf,docx")
        self.types.setClearButtonEnabled(True)
        self.types.setMaximumWidth(130)
        self.after_on, self.before_on = QCheckBox("After"), QCheckBox("Before")
        self.after_on.setObjectName("filterAfterOn")
        self.before_on.setObjectName("filterBeforeOn")
        self.after, self.before = QDateEdit(), QDateEdit()
        for name, edit, on, default in (("filterAfter", self.after, self.after_on, QDate.currentDate().addYears(-1)),
                                        ("filterBefore", self.before, self.before_on, QDate.currentDate().addDays(1))):
            edit.setObjectName(name)
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setDateRange(FIRST_DAY, LAST_DAY)
            edit.setDate(default)
            edit.setVisible(False)  # shown when its box is ticked: the bar stays narrow (the window's minimum)
            on.toggled.connect(edit.setVisible)
            on.toggled.connect(lambda *_: self._edited())
            edit.dateChanged.connect(partial(self._date_changed, on))
        self.error = plain_label("")  # quotes what was typed
        self.error.setObjectName("filterError")
        self.error.setStyleSheet("color:#b00020;")
        self.folder.editingFinished.connect(self._edited)
        self.types.editingFinished.connect(self._edited)
        clear = QPushButton("Clear")
        clear.setToolTip("Clear every filter")
        clear.setObjectName("filterClear")
        clear.clicked.connect(self.clear)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("Filter:"))
        lay.addWidget(self.folder, 1)
        lay.addWidget(browse)
        lay.addWidget(self.types)
        for w in (self.after_on, self.after, self.before_on, self.before, self.error, clear):
            lay.addWidget(w)

    def _edited(self) -> None:
        if not self._quiet:
            self.changed.emit()

    def _date_changed(self, on: QCheckBox, *_: object) -> None:
        if on.isChecked():  # a date that is not applied changes nothing
            self._edited()

    def show_fields(self, folders: Sequence[str], types: Sequence[str], after: Optional[QDate],
                    before: Optional[QDate]) -> None:
        """Show these values (the query's in:/type:/after:/before: fields) without emitting `changed`. A field that
        already means the same is left as typed (its spelling, its cursor, a bad value still shown in red)."""
        self._quiet = True
        try:
            if _folders(self.folder.text().split(";")) != _folders(folders):
                self.folder.setText(";".join(folders))
            try:
                shown_types = parse_types([self.types.text()])
            except SearchAppError:
                shown_types = ()  # a bad value is ignored by the search: it means no type filter
            if shown_types != tuple(types):
                self.types.setText(",".join(types))
            for on, edit, day in ((self.after_on, self.after, after), (self.before_on, self.before, before)):
                if (edit.date() if on.isChecked() else None) == day:
                    continue
                if day is not None:
                    edit.setDate(day)
                on.setChecked(day is not None)
            self.filters()  # refresh the red line for what is shown now
        finally:
            self._quiet = False

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Only files in this folder")
        if path:
            self.folder.setText(path)
            self._edited()

    def clear(self) -> None:
        self.folder.clear()
        self.types.clear()
        self.after_on.setChecked(False)
        self.before_on.setChecked(False)
        self._edited()

    def filters(self) -> Optional[SearchFilters]:
        """The filters as typed, or None when none is set. A bad field is shown in red and ignored."""
        folders = [f.strip() for f in self.folder.text().split(";") if f.strip()]
        after = self.after.date().toString("yyyy-MM-dd") if self.after_on.isChecked() else None
        before = self.before.date().toString("yyyy-MM-dd") if self.before_on.isChecked() else None
        try:
            f = SearchFilters.build(folders, [self.types.text()], after, before)
            self.error.setText("")
        except (SearchAppError, ValueError, OverflowError) as exc:  # a bad field is a red line here, never a dialog
            said = str(exc) if isinstance(exc, SearchAppError) else f"Filter not applied: {exc}"
            self.error.setText(said.replace("--type", "Types").replace("--after", "After")
                               .replace("--before", "Before"))
            try:
                f = SearchFilters.build(folders, [], None, None)
            except (SearchAppError, ValueError, OverflowError):
                return None
        return f if f.active else None
