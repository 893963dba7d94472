"""The sync's OCR step (library/ocr/step.py): images and textless PDF pages wait during the text pass, are
OCR'd after it (newest first, cached by file hash, cancellable) and searched like any file.

Images are rendered from text with PIL here; each OCR call takes ~0.5-2 s, so the tests are few, and most draw the
same page (LOG), which the real engine reads once per module (CountingEngine).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from newer_readers import a_newer_reader
from scan_files import OCR_ENGINE, needs_rapidocr, scan_pdf, text_image

from searchapp.base.errors import Cancelled
from searchapp.base.member_paths import MEMBER_SEP
from searchapp.base.progress import CancelToken
from searchapp.cli.search_output import hit_line
from searchapp.ingest.ocr.engine import ENGINE_ENV
from searchapp.library.ocr import step
from searchapp.store.ledger import files_in_state, state_counts



# What the real engine read from each page seen in this module (by its pixels): these tests are about the sync's OCR
# step (when the engine is called, what is cached, how pages are labelled), not about recognition, which
# tests/unit/ingest/test_ocr*.py test; the same drawn page recurs in most of them, on both engines, and each real
# read of it costs ~0.5 CPU s (the detector scales every page up to 736 px).
_READ: dict[tuple, str] = {}
LOG = ["Lighthouse keeper log", "November storm warning"]  # the page drawn wherever what it says is not the point


class CountingEngine:
    """The real engine, its recognitions counted: every call the step makes is counted; a page whose pixels the
    real engine has read already in this module gets the text it gave then (it is deterministic)."""

    def __init__(self, real) -> None:
        self.real, self.name, self.calls = real, real.name, 0

    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        key = (self.name, image.mode, image.size, hashlib.sha256(image.tobytes()).digest())
        if key not in _READ:
            _READ[key] = self.real.recognize(image, cancel)
        return _READ[key]


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    real = step.available_engine()
    assert real is not None
    engine = CountingEngine(real)
    monkeypatch.setattr(step, "available_engine", lambda: engine)
    return engine


def _names(result) -> list[str]:
    return [Path(h.path).name for h in result.hits]


@needs_rapidocr
def test_image_is_ocrd_after_the_text_pass_and_cached_by_hash(tmp_path, tiny_library, counting):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(LOG).save(docs / "scan.png")
    rep = tiny_library.add_folder(docs)
    assert any("read by OCR" in n for n in rep.notes)
    assert rep.said("added", "skipped") == "2 added, 0 skipped" and rep.ocr_pending == 0  # read in the same sync
    assert counting.calls == 1
    hits = tiny_library.search("lighthouse", mode="lexical")
    assert _names(hits)[:1] == ["scan.png"]
    assert hits.to_json()["hits"][0]["ocr"] is True and "(OCR)" in hit_line("lighthouse", hits)
    assert tiny_library.search("gardening", mode="lexical").to_json()["hits"][0]["ocr"] is False
    assert dict((Path(r.path).name, s) for s, r in files_in_state(tiny_library.store))["scan.png"] == "ocr_done"

    # The same bytes under another name: indexed from the cache, the engine is not called again.
    shutil.copy(docs / "scan.png", docs / "copy.png")
    tiny_library.sync()
    assert counting.calls == 1
    hits = tiny_library.search("lighthouse", mode="lexical").hits  # exact copies share a row (`copies`)
    assert {Path(p).name for h in hits for p in (h.path, *h.copies)} == {"scan.png", "copy.png"}


@needs_rapidocr
def test_a_scan_ocr_finds_no_text_in_is_skipped_not_waiting(tmp_path, tiny_library):
    """A newcomer's summary, printed after the OCR step had read every scan, said "28 waiting for OCR" for the
    scans it found no text in (and `status` right after listed none waiting): the OCR step had moved a scan it
    read with text out of the waiting count, but not one it found blank."""
    from PIL import Image

    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(LOG).save(docs / "scan.png")
    Image.new("RGB", (400, 300), "white").save(docs / "blank.png")
    rep = tiny_library.add_folder(docs)
    assert rep.said("added", "skipped") == "1 added, 1 skipped" and rep.ocr_pending == 0
    assert tiny_library.status().files_ocr_pending == 0


@needs_rapidocr
def test_a_renamed_or_moved_scan_is_said_once_and_keeps_its_meaning(tmp_path, tiny_library, counting):
    """Its text comes from the OCR cache after the words pass, so its old entry is kept until then: the rename is
    one change, its passages' vectors reused, no "read by OCR" for a read from the cache (before: "1 added, 1
    removed", its passage embedded again, "1 file(s) read by OCR")."""
    docs, other = tmp_path / "docs", tmp_path / "other"
    docs.mkdir()
    other.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(LOG).save(docs / "scan0001.png")
    _pdf_with_pages(docs / "letter.pdf", ["Dear neighbour, about the hedge between our gardens.", LOG])
    tiny_library.add_folder(docs)
    tiny_library.add_folder(other)
    read = counting.calls
    (docs / "scan0001.png").rename(docs / "lighthouse log.png")
    (docs / "letter.pdf").rename(other / "letter.pdf")  # to another folder, its scanned page from the cache too
    rep = tiny_library.sync()
    assert rep.said("added", "updated", "unchanged", "removed") == "0 added, 2 renamed or moved, 0 updated, " \
        "1 unchanged, 0 removed"
    assert rep.chunks_embedded == 0 and counting.calls == read and not [n for n in rep.notes if "OCR" in n], rep.notes
    hits = tiny_library.search("lighthouse keeper", mode="lexical").hits
    assert sorted(Path(h.path).name for h in hits) == ["letter.pdf", "lighthouse log.png"]
    assert rep.chunks_pending == 0  # every passage has its vector
    assert {Path(r.path).name for _, r in files_in_state(tiny_library.store)} == {
        "notes.txt", "lighthouse log.png", "letter.pdf"}  # the old names gone


@needs_rapidocr
def test_a_scan_renamed_then_a_stop_before_its_ocr_leaves_no_old_name(tmp_path, tiny_library, counting):
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(LOG).save(docs / "scan0001.png")
    tiny_library.add_folder(docs)
    (docs / "scan0001.png").rename(docs / "log.png")
    cancel = CancelToken()

    def progress(p) -> None:
        if p.stage == "ocr":
            cancel.cancel()

    with pytest.raises(Cancelled) as stopped:
        tiny_library.sync(progress=progress, cancel=cancel)
    assert stopped.value.report.said("added", "removed") == "0 added, 1 removed"  # the new name waits (skipped)
    assert [Path(r.path).name for _, r in files_in_state(tiny_library.store)] == ["log.png"]
    assert state_counts(tiny_library.store)["ocr_pending"] == 1


@needs_rapidocr
def test_a_scan_deleted_while_the_ocr_step_runs_is_removed_by_that_sync(tmp_path, tiny_library, counting,
                                                                      monkeypatch):
    """A newcomer deleted scans while OCR read others: `status --files` still listed them as waiting, until the next
    sync. The OCR step removes an entry whose file is gone when it comes to it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(LOG).save(docs / "old-scan.png")
    text_image(["Harbour ferry timetable"]).save(docs / "new-scan.png")
    os.utime(docs / "old-scan.png", (1_600_000_000, 1_600_000_000))  # OCR reads the newest first

    class DeletingEngine:  # the person deletes the older scan while the newer one is read
        name = counting.name

        def recognize(self, image, cancel=None):
            (docs / "old-scan.png").unlink(missing_ok=True)
            return counting.recognize(image, cancel)

    monkeypatch.setattr(step, "available_engine", lambda: DeletingEngine())
    rep = tiny_library.add_folder(docs)
    assert (rep.scanned, rep.added, rep.skipped, rep.removed) == (2, 1, 0, 1), rep
    assert [Path(r.path).name for _, r in files_in_state(tiny_library.store)] == ["new-scan.png"]
    assert state_counts(tiny_library.store).get("ocr_pending", 0) == 0


def test_a_scan_still_waiting_for_ocr_renamed_is_removed_once(tmp_path, tiny_library, monkeypatch):
    """A reviewer's case: the old entry waited too (no engine), and came first in the OCR step, which removed it as
    gone; the words pass had held it for the rename, and counted it removed a second time. An entry that waited has
    no meaning to keep, but it is held for the rename all the same, and the OCR step leaves it alone. Said as one
    move, not as "1 removed" beside "1 waiting for OCR" (a newcomer's renamed scan)."""
    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(["Lighthouse"]).save(docs / "scan.png")
    (docs / "notes.txt").write_text("the keeper's notes on the lamp")
    tiny_library.add_folder(docs)
    (docs / "scan.png").rename(docs / "log.png")
    os.utime(docs / "log.png", (1_600_000_000, 1_600_000_000))  # the old entry comes first in the OCR step
    rep = tiny_library.sync()
    assert rep.removed == 1, rep.said("added", "removed")
    assert rep.said("added", "unchanged", "removed", "skipped", "failed") == \
        "0 added, 1 renamed or moved, 1 unchanged, 0 removed, 0 skipped, 0 failed"
    assert rep.files_changed() == 1
    assert _waiting(tiny_library) == ["log.png"]
    (docs / "log.png").rename(docs / "log 2.png")  # and a sync that reads nothing else says it the same way
    (docs / "other.png").write_bytes((docs / "log 2.png").read_bytes())  # the same bytes: one of the two moved
    rep = tiny_library.sync()
    assert rep.said("added", "removed", "skipped") == "0 added, 1 renamed or moved, 0 removed, 0 skipped, " \
        "1 waiting for OCR", rep
    assert _waiting(tiny_library) == ["log 2.png", "other.png"]


@needs_rapidocr
def test_a_scan_waiting_for_ocr_renamed_then_read_is_one_move(tmp_path, tiny_library, monkeypatch):
    """Renamed while it waited (no engine then), read by OCR once an engine is there: one move that got its text,
    not a file added beside one removed."""
    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(["Lighthouse"]).save(docs / "scan.png")
    tiny_library.add_folder(docs)
    (docs / "scan.png").rename(docs / "log.png")
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    rep = tiny_library.sync()
    assert rep.said("added", "removed", "skipped") == "0 added, 1 renamed or moved, 0 removed, 0 skipped", rep
    assert _waiting(tiny_library) == []  # read now: waits no more
    assert tiny_library.search("lighthouse", mode="lexical").hits[0].path.endswith("log.png")


def _waiting(lib) -> list[str]:
    return sorted(Path(r.path).name for state, r in files_in_state(lib.store) if state == "ocr_pending")


def test_a_pdf_whose_scanned_page_waits_renamed_is_said_once_and_keeps_its_meaning(tmp_path, tiny_library,
                                                                                   monkeypatch):
    """A PDF with a text layer and a page that waits for OCR (no engine), renamed: its text layer's passages keep
    their vectors and it is one change, as a renamed scan is (before: "1 added, 1 removed")."""
    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    scan_pdf(docs / "scan.pdf")
    tiny_library.add_folder(docs)
    # Its old entry waits too, and comes first in the OCR step (the same mtime, then by path), which found its file
    # gone and removed it before the rename was counted
    (docs / "scan.pdf").rename(docs / "survey 2026.pdf")
    rep = tiny_library.sync()
    assert rep.said("added", "updated", "removed") == "0 added, 1 renamed or moved, 0 updated, 0 removed"
    assert rep.chunks_embedded == 0 and rep.chunks_pending == 0  # its meaning reused
    assert [Path(r.path).name for _, r in files_in_state(tiny_library.store)] == ["survey 2026.pdf"]
    assert any(n.startswith("1 file(s) wait for OCR") for n in rep.notes), rep.notes  # the new name only
    assert state_counts(tiny_library.store)["ocr_pages_pending"] == 1  # its page still waits


def test_without_an_engine_images_wait_and_nothing_fails(tmp_path, tiny_library, monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(["Lighthouse"]).save(docs / "scan.png")
    rep = tiny_library.add_folder(docs)
    assert rep.failed == 0
    assert any("wait for OCR" in n and "SEARCHAPP_OCR_ENGINE=none" in n for n in rep.notes), rep.notes
    assert state_counts(tiny_library.store)["ocr_pending"] == 1
    assert _names(tiny_library.search("gardening", mode="lexical")) == ["notes.txt"]
    notes = tiny_library.status().to_json()["notes"]
    assert any("1 file(s) wait for OCR" in n and "SEARCHAPP_OCR_ENGINE=none" in n for n in notes), notes


def test_the_summary_says_scans_waiting_for_ocr_apart_from_the_skipped_as_status_does(tmp_path, tiny_library,
                                                                                     monkeypatch, capsys):
    """Three images waiting for their OCR step (no engine here) read "4 skipped" beside an empty note: a person
    looked for what was wrong with the scans. They are "3 waiting for OCR", the words and the count of `status`'s
    list and note; the JSON's `skipped` still counts them (scanned = added + updated + unchanged + skipped +
    failed holds) and `ocr_pending` says how many of them wait, as `status --json`'s files_by_state does."""
    import json

    from searchapp.cli.commands.index import print_report

    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    (docs / "empty.txt").write_text("")
    for i in range(3):
        text_image([f"Lighthouse {i}"]).save(docs / f"scan{i}.png")
    for rep, line in ((tiny_library.add_folder(docs), "1 added, 0 updated, 0 unchanged"),
                      (tiny_library.sync(), "0 added, 0 updated, 1 unchanged")):  # and again, nothing changed
        assert rep.said("added", "updated", "unchanged", "removed", "skipped", "failed") == \
            f"{line}, 0 removed, 0 skipped, 3 waiting for OCR, 0 failed, 1 left out"  # empty.txt: as status says it
        assert (rep.scanned, rep.skipped, rep.ocr_pending) == (5, 4, 3)
        print_report(rep, as_json=True)
        said = json.loads(capsys.readouterr().out)
        assert (said["skipped"], said["ocr_pending"]) == (4, 3)
    st = tiny_library.status()
    assert st.ledger["ocr_pending"] == 3 and [s for _, s, _ in st.not_indexed].count("waiting for OCR") == 3
    assert any(n.startswith("3 file(s) wait for OCR") for n in st.notes), st.notes
    # status's own line says them as the summary does ("5 (1 indexed, 4 skipped)" before); its JSON keeps skipped
    from searchapp.library.report.status import by_status

    assert by_status(st.files, st.files_ocr_pending, st.files_empty) == "5 (1 indexed, 3 waiting for OCR, 1 left out)"
    assert (st.to_json()["files_by_status"]["skipped"], st.to_json()["files_ocr_pending"]) == (4, 3)


def test_ocr_off_leaves_images_out(tmp_path, make_config, tiny_encoder, monkeypatch):
    from searchapp.library import Library

    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(["Lighthouse"]).save(docs / "scan.png")
    with Library(make_config(models={"reranker": ""}, scan={"ocr": False}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        counts = state_counts(lib.store)
    assert counts["ocr_pending"] == 0 and counts["indexed"] == 1


@pytest.mark.engines("sqlite")
def test_scans_read_while_ocr_was_off_wait_for_it_once_it_is_on(tmp_path, make_config, tiny_encoder, monkeypatch):
    """A newcomer indexed with OCR off, then turned it on: the images went to OCR, but a PDF of a scanned page stayed
    "no text found", one with a text layer kept that alone, and a mail's image "unsupported type", for ever (the sync
    called all three unchanged)."""
    import io
    import zipfile

    from pdf_files import glyph_code_pdf

    from searchapp.library import Library
    from searchapp.store.ledger import entry_state

    monkeypatch.setenv(ENGINE_ENV, "none")  # no recognition: what waits for it is the point
    docs = tmp_path / "docs"
    docs.mkdir()
    mixed = scan_pdf(docs / "mixed.pdf")
    scanned = glyph_code_pdf(docs / "scanned.pdf", [[("image", ["Lighthouse"])]], media=b"0 600 400 792")
    photo = io.BytesIO()
    text_image(["Lighthouse"]).save(photo, format="PNG")
    with zipfile.ZipFile(docs / "trip.zip", "w") as z:
        z.writestr("notes.txt", "Notes of the trip to the lighthouse.")
        z.writestr("photo.png", photo.getvalue())
    member = str(docs / "trip.zip") + MEMBER_SEP + "photo.png"
    entries = (str(mixed), str(scanned), member)
    with Library(make_config(models={"reranker": ""}, scan={"ocr": False}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        assert [entry_state(lib.store, p)[0] for p in entries] == ["indexed", "no_text", "skipped"]
        assert entry_state(lib.store, member)[1].error == 'image ".png": read only by OCR, which is off ([scan] ocr = false)'
        assert lib.sync(embed=False).unchanged == 3  # OCR still off: nothing read again (the zip and its text too)
        lib.config = make_config(models={"reranker": ""}, scan={"ocr": True})
        lib.sync(embed=False)
        assert [entry_state(lib.store, p)[0] for p in entries] == ["ocr_pages_pending", "ocr_pending", "ocr_pending"]
        assert lib.search("quarterly invoices", mode="lexical").hits  # its text layer kept meanwhile


def test_a_pdf_of_no_pages_is_read_once_with_ocr_on(tmp_path, make_config, tiny_encoder, monkeypatch):
    """A PDF of no pages was "no text found" with no OCR state: what a scan read while OCR was off looks like in a
    library from before that was marked (ocr_turned_on), so a sync with OCR on read it again, every sync (a reviewer)."""
    from pypdf import PdfWriter

    from opened_files import files_opened
    from searchapp.ingest.extractors.pdf import NO_PAGES
    from searchapp.library import Library
    from searchapp.store.ledger import entry_state

    from searchapp.ingest import scan as scan_module

    monkeypatch.setenv(ENGINE_ENV, "none")
    monkeypatch.setattr(scan_module, "RACY_NS", 0)  # none "just written": the next sync keeps them unread, as at home
    docs = tmp_path / "docs"
    docs.mkdir()
    empty = docs / "empty.pdf"
    PdfWriter().write(empty)
    with Library(make_config(models={"reranker": ""}, scan={"ocr": True}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        assert entry_state(lib.store, str(empty))[1].error == NO_PAGES
        # as a library from before the mark recorded it: read again once, then left as it is
        lib.store.execute("UPDATE files SET error = 'no text found' WHERE path = ?", (str(empty),))
        lib.sync(embed=False)
        assert entry_state(lib.store, str(empty))[1].error == NO_PAGES
        with files_opened() as opened:
            lib.sync(embed=False)
        assert str(empty) not in opened


@needs_rapidocr
def test_cancel_during_ocr_keeps_the_text_pass(tmp_path, tiny_library, counting):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(["Lighthouse keeper log"]).save(docs / "scan.png")
    cancel = CancelToken()

    def progress(p) -> None:
        if p.stage == "ocr":
            cancel.cancel()  # the OCR step has begun: the text pass is committed

    with pytest.raises(Cancelled):
        tiny_library.add_folder(docs, progress=progress, cancel=cancel)
    assert counting.calls == 0
    assert _names(tiny_library.search("gardening", mode="lexical")) == ["notes.txt"]
    assert state_counts(tiny_library.store)["ocr_pending"] == 1


@needs_rapidocr
def test_image_only_pdf_page_keeps_its_page_number(tmp_path, tiny_library, counting):
    docs = tmp_path / "docs"
    docs.mkdir()
    scan_pdf(docs / "scan.pdf")
    tiny_library.add_folder(docs)
    assert counting.calls == 1  # only the textless page
    hit = tiny_library.search("lighthouse", mode="lexical").hits[0]
    assert Path(hit.path).name == "scan.pdf" and hit.page == 2
    assert tiny_library.search("quarterly invoices", mode="lexical").hits[0].page == 1


@needs_rapidocr
def test_a_phones_heic_photo_is_read_by_ocr(tmp_path, tiny_library, counting):
    pillow_heif = pytest.importorskip("pillow_heif")  # in the ocr extra, which `make setup` installs
    pillow_heif.register_heif_opener()
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(LOG).save(docs / "IMG_0042.HEIC", format="HEIF", quality=90)
    tiny_library.add_folder(docs)
    assert counting.calls == 1
    hit = tiny_library.search("lighthouse", mode="lexical").hits[0]
    assert Path(hit.path).name == "IMG_0042.HEIC" and hit.ocr


@needs_rapidocr
def test_image_inside_a_zip_is_ocrd_as_a_member_and_kept_when_the_zip_changes(tmp_path, tiny_library, counting,
                                                                             monkeypatch):
    import io
    import tempfile
    import zipfile

    temp = tmp_path / "temp"  # where the private copies of members go, so the test sees them go
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    docs = tmp_path / "docs"
    docs.mkdir()
    buf = io.BytesIO()
    text_image(LOG).save(buf, format="PNG")
    with zipfile.ZipFile(docs / "photos.zip", "w") as z:
        z.writestr("boards/whiteboard.png", buf.getvalue())
        z.writestr("readme.txt", "Photos of the harbour trip.\n")
    tiny_library.add_folder(docs)
    assert counting.calls == 1
    hits = tiny_library.search("lighthouse", mode="lexical")
    top = hits.to_json()["hits"][0]
    assert top["member"] == "boards/whiteboard.png" and top["ocr"] is True, top
    states = {r.path: s for s, r in files_in_state(tiny_library.store)}
    assert [s for p, s in states.items() if p.endswith("whiteboard.png")] == ["ocr_done"]
    assert not list(temp.iterdir())  # the private copy of the member went with the OCR step

    # The zip changes (a member added): it is read again, but the image's bytes are the same, so it keeps its
    # OCR text without a second run of the engine.
    with zipfile.ZipFile(docs / "photos.zip", "a") as z:
        z.writestr("later.txt", "A note added later about sailing.\n")
    tiny_library.sync()
    assert counting.calls == 1
    assert tiny_library.search("lighthouse", mode="lexical").to_json()["hits"][0]["member"] == "boards/whiteboard.png"
    assert tiny_library.search("sailing", mode="lexical").hits


def test_image_member_waits_for_ocr_without_an_engine(tmp_path, tiny_library, monkeypatch):
    import zipfile

    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    png = tmp_path / "x.png"
    text_image(["Lighthouse"]).save(png)
    with zipfile.ZipFile(docs / "photos.zip", "w") as z:
        z.write(png, "scan.png")
    rep = tiny_library.add_folder(docs)
    assert rep.failed == 0
    pending = [r.path for s, r in files_in_state(tiny_library.store) if s == "ocr_pending"]
    assert len(pending) == 1 and pending[0].endswith("photos.zip" + os.sep * 2 + "scan.png"), pending
    for said in (rep, tiny_library.sync()):  # read, then kept with its unchanged archive: waiting all the same
        assert said.said("skipped", "failed") == "0 skipped, 1 waiting for OCR, 0 failed", said


def test_not_indexed_view_lists_files_waiting_for_ocr(tmp_path, tiny_library, monkeypatch):
    from PySide6.QtWidgets import QApplication

    from searchapp.gui.library_panel import LibraryPanel

    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(["Lighthouse"]).save(docs / "scan.png")
    tiny_library.add_folder(docs)
    app = QApplication.instance() or QApplication([])
    panel = LibraryPanel()
    panel.set_status(tiny_library.status())
    assert panel.problems_button.text() == "Not indexed: 1"
    table = panel.show_problems().table
    row = [table.item(0, c).text() for c in range(3)]
    assert row[0].endswith("scan.png") and row[1] == "waiting for OCR" and "SEARCHAPP_OCR_ENGINE=none" in row[2]
    panel.problems_dialog.close()
    del app


def test_the_preview_says_when_the_text_came_from_ocr(qtbot):
    from searchapp.base.types import Hit
    from searchapp.gui.preview import PreviewPane

    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.show_hit(Hit(1, "/docs/scan.png", 1, 0, 10, "lighthouse", ocr=True), ["lighthouse"])
    assert "text recognised by OCR" in pane.title.text()
    pane.show_hit(Hit(2, "/docs/notes.txt", None, 0, 10, "gardening"), ["gardening"])
    assert "OCR" not in pane.title.text()


@needs_rapidocr
def test_an_image_touched_past_2262_is_still_ocrd(tmp_path, tiny_library, counting):
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(LOG).save(docs / "far.png")
    os.utime(docs / "far.png", ns=(0, 430 * 365_25 * 864 * 10**9))  # the year 2400: past int64 nanoseconds
    rep = tiny_library.add_folder(docs)
    assert counting.calls == 1 and any("read by OCR" in n for n in rep.notes), rep.notes
    assert _names(tiny_library.search("lighthouse", mode="lexical")) == ["far.png"]


def _pdf_with_pages(path: Path, pages: list) -> Path:
    """A PDF of `pages`: a str is a page of real text, a list of lines a page that is only a picture of them
    (a scan), None a blank page."""
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format=(160, 60))
    pdf.set_auto_page_break(False)
    for i, page in enumerate(pages):
        if isinstance(page, str):
            pdf.add_page()
            pdf.set_font("Helvetica", size=12)
            pdf.multi_cell(0, 8, page)
            continue
        pdf.add_page(format=(60, 60))  # square (as text_image): the OCR detector scales the short side up to 736 px
        if page is not None:
            png = path.with_name(f"{path.stem}-{i}.png")
            text_image(page).save(png)
            pdf.image(str(png), x=0, y=0, w=60, h=60)
            png.unlink()
    pdf.output(str(path))
    return path


@needs_rapidocr
def test_a_pdf_whose_text_layer_is_glyph_codes_is_indexed_and_its_page_ocrd(tmp_path, tiny_library, counting):
    from pdf_files import glyph_code_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    # Page 2 is a scan whose hidden text layer is glyph codes no reader can map (/g18/g19... in pypdf).
    glyph_code_pdf(docs / "paper.pdf", [
        [("text", "This page has a text layer about quarterly invoices and payments.")],
        [("opaque", "Lighthouse keeper log\nNovember storm warning"),
         ("image", LOG)],
    ], media=b"0 600 400 792")  # what is drawn, not a Letter page: a third of the pixels for OCR to read
    rep = tiny_library.add_folder(docs)
    assert rep.failed == 0 and not rep.problems, rep.problems
    assert counting.calls == 1  # only the garbled page
    hit = tiny_library.search("lighthouse", mode="lexical").hits[0]
    assert Path(hit.path).name == "paper.pdf" and hit.page == 2 and hit.ocr
    invoices = tiny_library.search("quarterly invoices", mode="lexical").hits[0]
    assert invoices.page == 1 and not invoices.ocr
    assert "/g" not in invoices.text


@needs_rapidocr
def test_a_moved_folder_of_ocrd_pdfs_embeds_nothing_and_every_sync_counts_what_the_library_holds(tmp_path, tiny_library,
                                                                                                counting):
    """A newcomer's `index` said "7147 passages written" and the library then held 7057: the text pass's passages
    of a scanned PDF that the OCR step wrote again were counted twice. And `moved` of a folder of PDFs embedded 2
    passages (the model loaded for them) where it promised none: the meaning pass before the OCR step embedded a
    text layer's page that the OCR step, reading its cache, then replaced by its OCR text."""
    from pdf_files import glyph_code_pdf

    from searchapp.library.sync.moved import follow_move

    docs = tmp_path / "docs"
    docs.mkdir()
    # Page 2's text layer is too short to be its text ("Storm log", 8 letters): OCR replaces it with the page's
    glyph_code_pdf(docs / "paper.pdf", [
        [("text", "This page has a text layer about quarterly invoices and payments.")],
        [("text", "Storm log"), ("image", LOG)],
    ], media=b"0 600 400 792")
    rep = tiny_library.add_folder(docs)
    held = tiny_library.status().chunks
    assert rep.chunks_added == held and rep.chunks_removed == 0, (rep.chunks_added, rep.chunks_removed, held)
    new = tmp_path / "moved"
    docs.rename(new)
    moved = follow_move(tiny_library, str(docs), str(new))
    assert counting.calls == 1  # the second reading of its page came from the cache
    assert moved.report.chunks_embedded == 0, moved.summary()
    assert moved.report.chunks_added == held == tiny_library.status().chunks


@needs_rapidocr
def test_only_the_pages_read_by_ocr_are_labelled_ocr(tmp_path, tiny_library, counting, make_config):
    from searchapp.library.search.preview import file_text

    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "mixed.pdf", ["This page has a text layer about quarterly invoices and payments.",
                                         LOG,
                                         "Harbour pilots guide the ships into the narrow channel at high tide."])
    tiny_library.add_folder(docs)
    assert counting.calls == 1
    lighthouse = tiny_library.search("lighthouse", mode="lexical")
    assert lighthouse.hits[0].page == 2 and lighthouse.hits[0].ocr and "(OCR)" in hit_line("lighthouse", lighthouse)
    for query, page in (("quarterly invoices", 1), ("harbour pilots", 3)):
        result = tiny_library.search(query, mode="lexical")
        hit = result.hits[0]
        assert hit.page == page and not hit.ocr, (query, hit.page, hit.ocr)
        assert "(OCR)" not in hit_line(query, result) and result.to_json()["hits"][0]["ocr"] is False
        # The preview still shows the text the passage was cut from (the OCR'd page merged in before it).
        shown = file_text(hit.path, tiny_library.config, hit.text, hit.start, hit.end, ocr=hit.ocr)
        assert not shown.changed and shown.text[hit.start:hit.end] == hit.text
    assert dict((Path(r.path).name, s) for s, r in files_in_state(tiny_library.store))["mixed.pdf"] == "ocr_done"


@needs_rapidocr
def test_a_pdf_with_a_real_text_layer_and_a_blank_page_is_not_labelled_ocr(tmp_path, tiny_library, counting):
    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "report.pdf", ["This page has a text layer about quarterly invoices and payments.", None])
    tiny_library.add_folder(docs)
    assert counting.calls == 1  # the blank page is looked at, and has nothing to read
    result = tiny_library.search("quarterly invoices", mode="lexical")
    assert Path(result.hits[0].path).name == "report.pdf" and not result.hits[0].ocr
    assert "(OCR)" not in hit_line("quarterly invoices", result)
    assert dict((Path(r.path).name, s) for s, r in files_in_state(tiny_library.store))["report.pdf"] == "indexed"


def test_a_pdf_whose_scanned_page_waits_is_indexed_by_its_text_layer_and_listed_as_waiting(tmp_path, tiny_library,
                                                                                        monkeypatch):
    """A PDF with a text layer on page 1 and only a picture on page 2, with no engine: its text is searchable at
    once, so it is indexed, its pages waiting (ocr_pages_pending, decision 0155): listed as waiting, never counted
    among the files not indexed, and the window's button and `status`'s list count the same files (on a real
    library they said 152 and 99 at the same moment)."""
    import argparse
    import io

    from PySide6.QtWidgets import QApplication

    from searchapp.cli.commands.status import print_status
    from searchapp.gui.library_panel import LibraryPanel
    from searchapp.store.ledger import entry_state

    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = scan_pdf(docs / "scan.pdf")
    text_image(["Lighthouse"]).save(docs / "photo.png")  # waits for OCR with no text at all: not indexed
    rep = tiny_library.add_folder(docs)
    assert rep.failed == 0
    hit = tiny_library.search("quarterly invoices", mode="lexical").hits[0]
    assert Path(hit.path).name == "scan.pdf" and hit.page == 1
    state, row, _, ocr = entry_state(tiny_library.store, str(pdf))
    assert (state, row.status, ocr) == ("ocr_pages_pending", "indexed", "pending")
    counts = state_counts(tiny_library.store)
    assert (counts["ocr_pages_pending"], counts["ocr_pending"]) == (1, 1)
    assert [r.path for _, r in tiny_library.ledger("ocr_pages_pending")] == [str(pdf)]
    st = tiny_library.status()
    shown = {Path(p).name: (s, r) for p, s, r in st.not_indexed}
    assert shown["scan.pdf"][0] == "indexed; pages wait for OCR"
    assert shown["scan.pdf"][1].startswith("text layer indexed; pages without text wait for OCR")
    assert shown["photo.png"][0] == "waiting for OCR"
    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), st, None, out)
    said = out.getvalue()
    assert "not indexed: 1 file:" in said and "scan.pdf" not in said.split("not indexed: 1 file:")[1]
    assert "note: 1 file(s) and 1 indexed file(s) with pages without text (`searchapp status --files " \
           "ocr_pages_pending`) wait for OCR" in said
    app = QApplication.instance() or QApplication([])
    panel = LibraryPanel()
    panel.set_status(st)
    assert panel.problems_button.text() == "Not indexed: 1"  # what `status` says
    table = panel.show_problems().table
    assert sorted(table.item(i, 1).text() for i in range(table.rowCount())) == [
        "indexed; pages wait for OCR", "waiting for OCR"]  # still findable in the window's list
    panel.problems_dialog.close()
    del app


def _a_newer_pdf_reader(monkeypatch, reads=None) -> None:
    a_newer_reader(monkeypatch, "pdf", reads)


@needs_rapidocr
def test_a_pdf_with_ocrd_pages_is_read_again_by_a_newer_reader_from_the_ocr_cache(tmp_path, tiny_library, counting,
                                                                                 monkeypatch):
    """Its text-layer pages take the newer reader's text, its OCR'd page stays (from the cache: not OCR'd again),
    and the next sync finds it read by this version."""
    from searchapp.ingest.extractors import reader_version

    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "mixed.pdf", ["This page has a text layer about quarterly invoices and payments.", LOG])
    tiny_library.add_folder(docs)
    assert counting.calls == 1
    _a_newer_pdf_reader(monkeypatch, lambda text: text.replace("invoices", "receipts"))
    seen = []
    rep = tiny_library.sync(embed=False, progress=seen.append)
    assert counting.calls == 1  # the OCR'd page from the cache
    # a stage of its own, with a count: a folder of a thousand scanned PDFs is minutes of it after an upgrade
    assert [(p.done, p.total, p.message) for p in seen if p.stage == "rereading"] == [(0, 1, "mixed.pdf"),
                                                                                       (1, 1, "")]
    assert (rep.reread, rep.read_differently, rep.updated, rep.unchanged) == (1, [str(docs / "mixed.pdf")], 1, 0)
    assert _names(tiny_library.search("receipts", mode="lexical")) == ["mixed.pdf"]
    assert not tiny_library.search("invoices", mode="lexical").hits
    hit = tiny_library.search("lighthouse", mode="lexical").hits[0]
    assert Path(hit.path).name == "mixed.pdf" and hit.page == 2 and hit.ocr
    row = tiny_library.store.file_by_path(str(docs / "mixed.pdf"))
    assert (row.ocr, row.reader) == ("done", reader_version(docs / "mixed.pdf"))
    again = tiny_library.sync(embed=False)
    assert (again.reread, again.updated, counting.calls) == (0, 0, 1)


@needs_rapidocr
def test_the_same_passages_of_a_pdf_with_ocrd_pages_keep_their_place(tmp_path, tiny_library, counting, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "mixed.pdf", ["This page has a text layer about quarterly invoices and payments.", LOG])
    tiny_library.add_folder(docs)
    ids = [r[0] for r in tiny_library.store.conn.execute("SELECT id FROM chunks ORDER BY id")]
    _a_newer_pdf_reader(monkeypatch)  # reads these files as the old one did
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.read_differently, rep.updated, rep.chunks_added, counting.calls) == (1, [], 0, 0, 1)
    assert [r[0] for r in tiny_library.store.conn.execute("SELECT id FROM chunks ORDER BY id")] == ids
    assert tiny_library.sync(embed=False).reread == 0


@needs_rapidocr
def test_a_pdf_whose_ocr_text_is_not_cached_is_not_ocrd_again_for_a_newer_reader(tmp_path, tiny_library, counting,
                                                                                  monkeypatch):
    """OCR again for a newer reader would be hours for a folder of scans: such an entry stays as it was read."""
    from searchapp.store.ocr_cache import OCR_CACHE_NAME

    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "mixed.pdf", ["This page has a text layer about quarterly invoices and payments.", LOG])
    tiny_library.add_folder(docs)
    (tiny_library.config.data_dir / OCR_CACHE_NAME).unlink()  # a cache deleted (or written by another machine)
    _a_newer_pdf_reader(monkeypatch, lambda text: text.replace("invoices", "receipts"))
    seen = []
    rep = tiny_library.sync(embed=False, progress=seen.append)
    assert (rep.reread, rep.updated, counting.calls) == (0, 0, 1)
    assert not [p for p in seen if p.stage == "rereading"]  # no bar reading nothing, at every sync (a review)
    assert _names(tiny_library.search("lighthouse", mode="lexical")) == ["mixed.pdf"]
    assert _names(tiny_library.search("invoices", mode="lexical")) == ["mixed.pdf"]


@needs_rapidocr
def test_only_a_full_sync_reads_ocrd_pdfs_again_and_images_never_fill_its_list(tmp_path, tiny_library, counting,
                                                                               monkeypatch):
    """A watch's live update of another file counted nothing of the PDF (its counts went negative: 'unchanged -1');
    an OCR'd image has no reader and thousands of them filled the list before any PDF."""
    from searchapp.ingest.extractors import reader_version
    from searchapp.store.ledger import ocr_done_before

    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "mixed.pdf", ["This page has a text layer about quarterly invoices and payments.", LOG])
    text_image(LOG).save(docs / "scan.png")
    (docs / "note.txt").write_text("A plain note about gardening.\n")
    tiny_library.add_folder(docs)
    _a_newer_pdf_reader(monkeypatch, lambda text: text.replace("invoices", "receipts"))
    root = tiny_library.store.root_by_path(str(docs))
    listed = ocr_done_before(tiny_library.store, reader_version("a.pdf"), 1, [root.id])
    assert [os.path.basename(r.path) for r in listed] == ["mixed.pdf"]  # the newer image is not listed
    (docs / "note.txt").write_text("A plain note about gardening and tomatoes.\n")
    rep = tiny_library.sync_changed([str(docs / "note.txt")], embed=False)
    assert (rep.reread, rep.updated, rep.unchanged) == (0, 1, 0)
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.updated, rep.read_differently) == (1, 1, [str(docs / "mixed.pdf")])
    assert rep.unchanged >= 0 and rep.scanned == rep.added + rep.updated + rep.unchanged + rep.skipped + rep.failed


@needs_rapidocr
def test_a_pdf_read_again_past_its_time_budget_is_kept_as_it_was_read(tmp_path, tiny_library, counting, monkeypatch):
    """The re-read is a per-file step like the words pass's reading: a newer reader that never returns on a file
    (checking its token, as extractors do between pages) is stopped at the file's budget, and the sync goes on."""
    from searchapp.library.sync.file_budget import FileBudget

    docs = tmp_path / "docs"
    docs.mkdir()
    _pdf_with_pages(docs / "mixed.pdf", ["This page has a text layer about quarterly invoices and payments.", LOG])
    tiny_library.add_folder(docs)
    a_newer_reader(monkeypatch, "pdf")
    from searchapp.ingest.extractors import registry

    suffixes, _ = registry._BY_NAME["pdf"]

    def endless(path, *args, cancel=None, **kwargs):
        while True:  # page after page, each checking the token
            cancel.check()

    monkeypatch.setitem(registry._BY_NAME, "pdf", (suffixes, endless))
    monkeypatch.setattr(step, "FileBudget", lambda inner, seconds: FileBudget(inner, 0.5))
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.updated, rep.failed) == (0, 0, 0)
    assert _names(tiny_library.search("invoices", mode="lexical")) == ["mixed.pdf"]
    assert _names(tiny_library.search("lighthouse", mode="lexical")) == ["mixed.pdf"]
