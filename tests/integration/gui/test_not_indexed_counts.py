"""The files not indexed are one count wherever they are said: a sync's summary and its header, `status`, and the
window's Not indexed button and list (a newcomer read "230 skipped", "205 files newly not indexed", "not indexed (231
in 90 rows)" and "Not indexed: 248" for one folder). Files and items in archives and mail are said apart, and what
is left out on purpose (an empty file, a secret) is "left out" in each place, never counted as skipped."""

from __future__ import annotations

import argparse
import io
import zipfile

import pytest
from scan_files import OCR_ENGINE, needs_rapidocr, text_image

from searchapp.cli.commands.index import newly_not_indexed
from searchapp.cli.commands.status import print_status
from searchapp.ingest.ocr.engine import ENGINE_ENV

BROKEN_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n"  # no end-of-file marker: fails


def some_not_indexed(tmp_path, monkeypatch):
    """A folder of a note, two entries left out on purpose, two that fail (one in a zip) and a scan waiting for OCR."""
    monkeypatch.setenv(ENGINE_ENV, "none")  # the image waits for OCR: not indexed, counted everywhere
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    (docs / "empty.txt").write_text("")  # left out on purpose
    (docs / "id_rsa").write_text("not read: a secret by its name\n")  # left out on purpose
    (docs / "broken.pdf").write_bytes(BROKEN_PDF)  # failed
    with zipfile.ZipFile(docs / "old.zip", "w") as z:
        z.writestr("inside.pdf", BROKEN_PDF)  # failed, an item in an archive
        z.writestr("kept.txt", "The harbour ferry leaves at nine.\n")
    text_image(["Lighthouse"]).save(docs / "scan.png")  # waiting for OCR
    return docs


@pytest.mark.engines("sqlite")
def test_the_summary_status_and_the_window_count_the_same_files_not_indexed(tmp_path, tiny_library, monkeypatch,
                                                                            qtbot):
    from searchapp.gui.library_panel import LibraryPanel
    from searchapp.gui.progress_view import scans_waiting

    docs = some_not_indexed(tmp_path, monkeypatch)
    rep = tiny_library.add_folder(docs)
    said = rep.said("skipped", "failed")
    assert said == "0 skipped, 1 waiting for OCR, 2 failed, 2 left out", said
    assert newly_not_indexed(rep).startswith(
        "1 file and 1 item in archives and mail newly not indexed, besides the 1 waiting for OCR "), rep.problems

    st = tiny_library.status()
    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), st, None, out)
    text = out.getvalue()
    assert "not indexed: 2 files and 1 item in archives and mail:" in text, text
    assert "left out: " in text and "empty: 1 file" in text and "secret: 1 file" in text, text

    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.set_status(st)
    assert panel.problems_button.text() == "Not indexed: 2 + 1"  # files + items, as the Files column writes them
    assert scans_waiting(st) == (1, "scan.png")  # what the strip names the OCR step still ahead by
    assert panel.problems_button.toolTip().count("2 files and 1 item in archives and mail not indexed") == 1
    dlg = panel.show_problems()
    qtbot.addWidget(dlg)
    assert dlg.table.rowCount() == 3
    note = dlg.note.text()
    assert note.startswith("2 files and 1 item in archives and mail not indexed; left out on purpose: "), note
    assert "empty: 1 file" in note and "secret: 1 file" in note, note


@pytest.mark.engines("sqlite")
def test_a_cancelled_syncs_line_counts_what_the_not_indexed_button_counts(tmp_path, tiny_library, monkeypatch, qtbot):
    """The window's line after a Cancel counted only the failures and skips it could list: "6 not indexed" beside
    "Not indexed: 51 + 1", the 46 others waiting for OCR (a newcomer cancelled a first sync of real files). Cancelled
    once every file is read, as its meaning begins: the line says the button's count, and how many wait for OCR."""
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken
    from searchapp.gui.library_panel import LibraryPanel
    from searchapp.gui.write_jobs import cancel_summary

    docs = some_not_indexed(tmp_path, monkeypatch)
    cancel = CancelToken()

    def progress(p) -> None:
        if p.stage in ("searchable", "embedding"):  # every file read, none of its meaning yet
            cancel.cancel()

    with pytest.raises(Cancelled) as stopped:
        tiny_library.add_folder(docs, progress, cancel)
    said = cancel_summary(stopped.value.report)
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.set_status(tiny_library.status())
    assert panel.problems_button.text() == "Not indexed: 2 + 1"
    assert "; 3 not indexed (1 of them waiting for OCR): Not indexed says why." in said, said
    # the zip's kept.txt said apart, as the pane counts it: "1,019 files done" beside "937 + 376" (the window newcomer)
    assert said.startswith("Cancelled; 2 files and 1 item in archives and mail done"), said


@needs_rapidocr
@pytest.mark.engines("sqlite")
def test_mid_sync_the_scans_its_ocr_step_reads_are_not_counted_not_indexed(tmp_path, tiny_library, monkeypatch,
                                                                          qtbot):
    """Mid-sync the pane said "Not indexed: 3 + 1" of a folder whose scan the OCR step was about to read (a
    newcomer): while a sync runs and an OCR engine is there, what waits for OCR is said apart, as waiting."""
    from searchapp.gui.library_panel import LibraryPanel
    from searchapp.library.resources.lock import writer_lock

    docs = some_not_indexed(tmp_path, monkeypatch)  # the scan waits: no engine for that sync
    tiny_library.add_folder(docs)
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)  # an engine now, for the next sync's OCR step
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    with writer_lock(tiny_library.data_dir):  # a sync runs
        st = tiny_library.status()
    assert st.ocr_under_way and st.not_indexed_counts() == (2, 1, 1)
    panel.set_status(st)
    assert panel.problems_button.text() == "Not indexed: 1 + 1 · 1 waiting for OCR"
    assert "1 waiting for OCR, which the sync running now reads" in panel.problems_button.toolTip()
    assert any("wait for OCR: the sync running now reads them" in n for n in st.notes), st.notes
    assert "not indexed: 1 file and 1 item in archives and mail · 1 waiting for OCR:\n" in _status_text(st)
    ended = tiny_library.status()
    panel.set_status(ended)  # it ended (here: before its OCR step): not indexed again, as before
    assert panel.problems_button.text() == "Not indexed: 2 + 1"
    assert "not indexed: 2 files and 1 item in archives and mail:\n" in _status_text(ended)


def _status_text(st) -> str:
    """`searchapp status`'s lines for `st`, in-process."""
    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), st, None, out)
    return out.getvalue()
