"""Issue 21's formats in the real window: a spreadsheet, slides, a mail, an mbox message and a zip member are
dropped in, found, shown by their member name, previewed and opened (a member as a private copy); an image's
preview is its OCR text."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QTextBrowser

from office_files import make_mail, make_pptx, make_xlsx
from scan_files import OCR_ENGINE, needs_rapidocr, text_image
from gui_window import WAIT_MS
from test_gui import cell, index, make_window, search  # noqa: F401 (make_window: a fixture)

from searchapp.base.member_paths import DISPLAY_SEP



def _documents(docs: Path) -> None:
    docs.mkdir()
    rows = ('<row r="1"><c r="A1" t="inlineStr"><is><t>Office</t></is></c><c r="B1" t="inlineStr"><is><t>Budget'
            '</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>Lisbon quarterly allowance</t></is></c>'
            '<c r="B2"><v>48200</v></c></row>')
    make_xlsx(docs / "budget.xlsx", [("Offices", rows)], [])
    make_pptx(docs / "kickoff.pptx", [(["Agenda"], []), (["Announcements"], ["The Rotterdam warehouse opens in June"])])
    (docs / "plumber.eml").write_bytes(
        make_mail(subject="Kitchen", plain="The plumber replaces the leaking tap on Wednesday.", html=None).as_bytes())
    mbox = b""
    for i, body in enumerate(["Thanks for the photos.", "The chess tournament moved to the town hall."], start=1):
        mbox += (b"From ana@example.org Fri Mar  7 10:00:00 2025\n"
                 + make_mail(subject=f"Club news {i}", plain=body, html=None).as_bytes() + b"\n")
    (docs / "club.mbox").write_bytes(mbox)
    with zipfile.ZipFile(docs / "recipes.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("cakes/lemon.txt", "Grandma's lemon cake needs three eggs and caster sugar.\n")


def test_new_formats_are_found_shown_previewed_and_opened_in_the_window(qtbot, make_window, tmp_path):  # noqa: F811 (the fixture)
    docs = tmp_path / "docs"
    _documents(docs)
    win = make_window(search={"mode": "lexical"})
    index(qtbot, win, [docs])

    expected = {
        "Lisbon allowance": "budget.xlsx",
        "Rotterdam warehouse": "kickoff.pptx",
        "leaking tap": "plumber.eml",
        "chess tournament": "club.mbox" + DISPLAY_SEP,  # then the message's number and subject
        "caster sugar": "recipes.zip" + DISPLAY_SEP + "cakes/lemon.txt",
    }
    for query, shown in expected.items():
        res = search(qtbot, win, query)
        assert res.hits, query
        assert cell(win, 0, "File").startswith(shown), (query, cell(win, 0, "File"))
        assert cell(win, 0, "Folder") == str(docs), query  # a member's folder is its container's
    search(qtbot, win, "Rotterdam warehouse")
    assert cell(win, 0, "Page") == "2"  # the slide whose notes hold it
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
    assert win.preview.title.text().startswith(str(docs / "kickoff.pptx") + " — slide 2")  # not "page 2" of a deck

    # A zip member: the preview reads it again from the zip; Open hands over a private copy of it alone.
    search(qtbot, win, "caster sugar")
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
    assert "Grandma's lemon cake" in win.findChild(QTextBrowser, "previewPane").toPlainText()
    assert win.preview.title.text().startswith(str(docs / "recipes.zip") + DISPLAY_SEP + "cakes/lemon.txt")
    assert "cannot read" not in win.preview.title.text()
    win.preview.open_button.click()  # a member is copied out on a worker: the URL comes when the copy is made
    qtbot.waitUntil(lambda: bool(win.opened), timeout=WAIT_MS)
    copy = Path(win.opened[-1].toLocalFile())
    assert copy.read_bytes() == b"Grandma's lemon cake needs three eggs and caster sugar.\n"
    assert not copy.is_relative_to(docs) and copy.suffix == ".txt"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600 and stat.S_IMODE(copy.parent.stat().st_mode) == 0o700
    win.preview.folder_button.click()
    assert win.opened[-1].toLocalFile() == str(docs)


@needs_rapidocr
def test_the_preview_of_an_image_is_its_ocr_text(qtbot, make_window, tmp_path, monkeypatch):  # noqa: F811 (the fixture)
    monkeypatch.setenv("SEARCHAPP_OCR_ENGINE", OCR_ENGINE)
    docs = tmp_path / "docs"
    docs.mkdir()
    buf = io.BytesIO()
    text_image(["Pool closed for repairs until May"], size=(540, 540)).save(buf, format="PNG")
    (docs / "sign.png").write_bytes(buf.getvalue())
    with zipfile.ZipFile(docs / "photos.zip", "w") as z:
        z.writestr("board.png", buf.getvalue())
    # The two images are copies: each gets its own row here (fold_repeats off) so both previews are checked.
    win = make_window(search={"mode": "lexical", "fold_repeats": False})
    index(qtbot, win, [docs])
    search(qtbot, win, "repairs")
    shown = sorted(cell(win, row, "File") for row in range(win.search.results_model.rowCount()))
    assert shown == ["photos.zip" + DISPLAY_SEP + "board.png", "sign.png"]
    for row in range(2):
        with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
            win.search.results_view.setCurrentIndex(win.search.results_model.index(row, 0))
        title = win.preview.title.text()
        assert "text recognised by OCR" in title and "cannot read" not in title, title
        assert "Pool closed" in win.findChild(QTextBrowser, "previewPane").toPlainText()
    assert os.path.exists(win.config.data_dir / "ocr_cache.sqlite")
