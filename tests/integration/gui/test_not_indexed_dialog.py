"""The Not indexed list as a person uses it: what they can act on first (broken files, then files left out for a
reason, then files without text), a reason that says something where the state alone is repeated, and Open and Show
in folder for the file selected. Real widgets, offscreen, over rows as the library lists them."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QUrl

from searchapp.gui.library_panel import ProblemsDialog

TRUNCATED = "truncated PDF (no end-of-file marker): an incomplete download?"
ENCRYPTED = "encrypted: password-protected, not indexed"
# As the library lists them: by state (its ledger's order), each state's by path, "no text found" first.
ROWS = [("/home/Books/haruko-jpeg.epub", "no text found", "no text found"),
        ("/home/Desktop/knockout_smask.pdf", "no text found", "image only: OCR found no text"),
        ("/home/Papers/r6-user-password.pdf", "skipped", ENCRYPTED),
        ("/home/binary-blob.txt", "skipped", "binary content"),
        ("/home/Letters/cover-letter-final.docx", "failed", "corrupt zip container: File is not a zip file"),
        ("/home/Scans/invoice-2024.pdf", "failed", TRUNCATED),
        ("/home/Scans/scan.png", "waiting for OCR", "")]


@pytest.fixture
def dialog(qtbot):
    dialog = ProblemsDialog(ROWS)
    qtbot.addWidget(dialog)
    dialog.resize(1000, 700)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def cells(dialog, row: int) -> list[str]:
    return [dialog.table.item(row, c).text() for c in range(3)]


def test_the_files_a_person_can_act_on_come_first(dialog):
    shown = [cells(dialog, r)[:2] for r in range(dialog.table.rowCount())]
    assert [state for _, state in shown] == ["failed", "failed", "skipped", "skipped", "no text found",
                                             "no text found", "waiting for OCR"], shown
    assert shown[0][0] == "/home/Letters/cover-letter-final.docx"  # each state's rows keep their order


def test_no_text_found_is_said_once_with_what_it_means(dialog):
    rows = {cells(dialog, r)[0]: cells(dialog, r)[1:] for r in range(dialog.table.rowCount())}
    state, reason = rows["/home/Books/haruko-jpeg.epub"]
    assert state == "no text found" and reason != state and "no words" in reason, reason  # not the state again
    assert rows["/home/Desktop/knockout_smask.pdf"] == ["no text found", "image only: OCR found no text"]
    assert rows["/home/Scans/invoice-2024.pdf"] == ["failed", TRUNCATED]


def test_open_and_show_in_folder_hand_the_selected_file_to_the_desktop(qtbot, dialog):
    asked: list[QUrl] = []
    dialog.openRequested.connect(asked.append)
    assert not dialog.open_button.isEnabled() and not dialog.folder_button.isEnabled()  # nothing selected yet
    dialog.table.selectRow(1)
    assert dialog.open_button.isEnabled()
    dialog.open_button.click()
    dialog.folder_button.click()
    assert [u.toLocalFile() for u in asked] == ["/home/Scans/invoice-2024.pdf", "/home/Scans"]
    dialog.open_failed(asked[0])
    assert "invoice-2024.pdf" in dialog.message.full_text()  # said where the buttons are, not lost
