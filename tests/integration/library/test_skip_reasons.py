"""Why an entry is not indexed, in words a person can act on (issue 39, item 6): a password-protected Office
file is encrypted, not a corrupt zip; a zip member in a compression method zipfile lacks is not encrypted; a
container's members left out for one reason are one row; the OCR step's entries are counted as what became of
them; the Not indexed list names states in words."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from opened_files import files_opened
from scan_files import OCR_ENGINE, needs_rapidocr, text_image

from searchapp.base.member_paths import MEMBER_SEP
from searchapp.ingest.extractors import extract
from searchapp.ingest.ocr.engine import ENGINE_ENV

ENCRYPTED = "encrypted: password-protected, not indexed"
_END, _FREE, _FATSECT = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD


def _dir_entry(name: str, kind: int, child: int = _FREE, start: int = _END, size: int = 0) -> bytes:
    """One 128-byte directory entry of a compound file (MS-CFB 2.6)."""
    raw = name.encode("utf-16-le") + b"\0\0"
    return (raw.ljust(64, b"\0") + struct.pack("<HBB", len(raw), kind, 1) + struct.pack("<III", _FREE, _FREE, child)
            + b"\0" * 16 + b"\0" * 4 + b"\0" * 16 + struct.pack("<IQ", start, size))


def ole_file(streams: dict[str, bytes]) -> bytes:
    """A minimal OLE compound file (512-byte sectors) holding `streams` as Office writes an encrypted package:
    sector 0 the FAT, sector 1 the directory, then each stream's sectors."""
    assert len(streams) <= 3  # one directory sector: the root and three entries
    fat = [_FATSECT, _END]
    entries = [b""]  # the root, filled in below
    data = b""
    for name, body in streams.items():
        body = body.ljust(-(-max(len(body), 4096) // 512) * 512, b"\0")  # >= 4096: a regular stream
        first = 2 + len(data) // 512
        n = len(body) // 512
        fat += [first + k + 1 for k in range(n - 1)] + [_END]
        entries.append(_dir_entry(name, 2, start=first, size=len(body)))
        data += body
    entries[0] = _dir_entry("Root Entry", 5, child=1)
    directory = b"".join(entries).ljust(512, b"\0")
    fat_sector = struct.pack(f"<{len(fat)}I", *fat).ljust(512, b"\xff")
    header = (bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
              + b"\0" * 6 + struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, _END, 0, _END, 0)
              + struct.pack("<109I", 0, *([_FREE] * 108)))
    assert len(header) == 512
    return header + fat_sector + directory + data


def _zip_with_methods(entries: dict[str, tuple[bytes, int, bool]]) -> bytes:
    """A zip whose members are stored, then marked with another compression method and/or as encrypted, the way
    an archiver writing deflate64 (9) or PKWARE encryption would mark them (zipfile writes neither)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, (data, _, _) in entries.items():
            z.writestr(name, data)
    raw = bytearray(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as z:
        infos = {i.filename: i for i in z.infolist()}
    central = raw.find(b"PK\x01\x02")
    for name, (_, method, encrypted) in entries.items():
        local = infos[name].header_offset
        cd = _central_entry(raw, central, name)
        for at_flags, at_method in ((local + 6, local + 8), (cd + 8, cd + 10)):
            struct.pack_into("<H", raw, at_method, method)
            if encrypted:
                struct.pack_into("<H", raw, at_flags, struct.unpack_from("<H", raw, at_flags)[0] | 1)
    return bytes(raw)


def _central_entry(raw: bytearray, start: int, name: str) -> int:
    at = start
    while True:
        at = raw.find(b"PK\x01\x02", at)
        n = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + n].decode() == name:
            return at
        at += 4


def _rows(st) -> dict[str, tuple[str, str]]:
    return {Path(p).name: (s, r) for p, s, r in st.failed}


@pytest.mark.engines("sqlite")
def test_a_file_that_failed_then_is_skipped_says_now_skipped_not_newly_not_indexed(tiny_library, tmp_path, capsys):
    """A file that failed and is skipped at the next sync (a reader now tells it is encrypted) was listed under
    "1 file newly not indexed", as if lost from the search: it says "now skipped: REASON", apart."""
    from searchapp.cli.commands.index import print_report

    docs = tmp_path / "docs"
    docs.mkdir()
    doc = docs / "minutes.docx"
    doc.write_bytes(b"PK\x03\x04 nothing more")  # cut short: failed
    first = tiny_library.add_folder(docs)
    assert first.failed == 1 and [p for p, _ in first.problems] == [str(doc)]
    doc.write_bytes(ole_file({"EncryptionInfo": b"\x04\x00\x04\x00" + b"\0" * 60, "EncryptedPackage": b"\x13" * 5000}))
    rep = tiny_library.sync()
    assert rep.skipped == 1 and rep.problems == [] and rep.reason_changed == [(str(doc), "skipped", ENCRYPTED)]
    print_report(rep, as_json=False)
    err = capsys.readouterr().err
    assert "newly not indexed" not in err, err
    assert f"1 file not indexed before either, now for another reason:\n  {doc}: now skipped: {ENCRYPTED}\n" in err


def test_a_password_protected_office_file_is_encrypted_not_a_corrupt_zip(tiny_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    package = ole_file({"EncryptionInfo": b"\x04\x00\x04\x00" + b"\0" * 60, "EncryptedPackage": b"\x13" * 5000})
    (docs / "salaries.xlsx").write_bytes(package)
    (docs / "minutes.docx").write_bytes(package)
    (docs / "legacy.docx").write_bytes(ole_file({"WordDocument": b"\0" * 4096}))  # an OLE file, not encrypted
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 nothing more")
    (docs / "note.txt").write_text("A note about the allotment's compost heap.\n")
    rep = tiny_library.add_folder(docs)
    rows = _rows(tiny_library.status())
    assert rows["salaries.xlsx"] == ("skipped", ENCRYPTED) and rows["minutes.docx"] == ("skipped", ENCRYPTED), rows
    # read by what it is, a Word 97 file (whose empty WordDocument stream fails there), not as a broken zip
    assert rows["legacy.docx"][1].startswith("corrupt Word document") and rows["broken.docx"][1].startswith("the document is cut short")
    assert (rep.added, rep.skipped, rep.failed) == (1, 2, 2)

    # Inside a zip too: the member is read from memory.
    (docs / "bundle.zip").write_bytes(_zip_with_methods({"q3/forecast.xlsx": (package, 0, False)}))
    tiny_library.sync()
    assert _rows(tiny_library.status())["forecast.xlsx"] == ("skipped", ENCRYPTED)


def test_an_encrypted_office_file_is_told_from_the_file_already_open_never_opened_again(tmp_path):
    """The OLE check reads the descriptor SafeZip opened (a regular file, checked): opening the path again could
    meet a FIFO swapped in since (blocking for ever) or follow a link."""

    import pytest

    from searchapp.base.errors import UnsupportedFileError
    from searchapp.ingest.extractors.ziputil import SafeZip

    path = tmp_path / "salaries.xlsx"
    path.write_bytes(ole_file({"EncryptionInfo": b"\x04\x00\x04\x00" + b"\0" * 60, "EncryptedPackage": b"\x13" * 5000}))
    with files_opened() as seen, pytest.raises(UnsupportedFileError, match=ENCRYPTED):
        SafeZip(path)
    assert seen.count(str(path)) == 1, seen


def test_a_document_whose_parts_are_encrypted_is_skipped_as_an_encrypted_office_file_is(tiny_library, tmp_path):
    """Encrypted zip members inside a .docx: "skipped" (not read again at every sync), as an OLE-encrypted .docx."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "locked.docx").write_bytes(_zip_with_methods({
        "[Content_Types].xml": (b"<Types/>", 0, True),
        "word/document.xml": (b"\0" * 12 + b"secret", 0, True),
    }))
    tiny_library.add_folder(docs)
    assert _rows(tiny_library.status())["locked.docx"] == ("skipped", ENCRYPTED)


def test_members_in_an_unsupported_method_are_one_row_that_says_which(tiny_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    chapters = {f"moby/chapter{i:03}.txt": (f"Chapter {i}: the whale, the sea and Ahab.\n".encode(), 9, False)
                for i in range(1, 8)}
    (docs / "moby.zip").write_bytes(_zip_with_methods({
        **chapters,
        "moby/notes.txt": (b"Notes on the harpooneers of the Pequod.\n", 0, False),
        "moby/locked.txt": (b"\0" * 12 + b"secret", 0, True),
        "moby/odd.txt": (b"Packed by an archiver of its own.\n", 98, False),
    }))
    tiny_library.add_folder(docs)
    st = tiny_library.status()
    zip_path = str(docs / "moby.zip")
    mine = [(s, r) for p, s, r in st.failed if p.startswith(zip_path)]
    assert sorted(mine) == sorted([
        ("skipped", "7 of its members: unsupported compression method: deflate64"),
        ("skipped", ENCRYPTED),
        ("skipped", "unsupported compression method: ppmd"),
    ]), mine
    grouped = [(p, s, r) for p, s, r in st.failed if r.startswith("7 of its members")]
    assert grouped[0][0] == zip_path  # the row is the container's; its members are kept beside it
    assert sorted(st.member_groups[grouped[0]]) == sorted(zip_path + MEMBER_SEP + n for n in chapters)
    row = next(r for r in st.to_json()["failed"] if r["reason"].startswith("7 of its members"))
    assert len(row["members"]) == 7
    assert [r for p, _, r in st.not_indexed if p == zip_path] == [grouped[0][2]]  # the window's list: one row too
    assert tiny_library.search("harpooneers", mode="lexical").hits  # the readable member is indexed


def test_a_zip_of_members_none_can_read_lists_their_names_never_why_as_its_text(tiny_library, tmp_path):
    """A zip whose members are all imploded (method 6, PKZIP 1's; zipfile cannot read it): each member is not
    indexed, with its reason; the zip's own entry lists their names, as any zip's does, but the reasons are never its
    words (its text was "README (not read: unsupported compression method: implode)" 135 times, the first hit for
    "moby dick whale", the error its snippet)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "moby.zip").write_bytes(_zip_with_methods({
        "README": (b"Moby Dick, or The Whale, in parts.\n", 6, False),
        **{f"moby.{i}": (f"Chapter {i}. Call me Ishmael.\n".encode(), 6, False) for i in range(3)},
    }))
    tiny_library.add_folder(docs)
    zip_path = str(docs / "moby.zip")
    st = tiny_library.status()
    assert [(p, s, r) for p, s, r in st.failed if p.startswith(zip_path)] == [
        (zip_path, "skipped", "4 of its members: unsupported compression method: implode")]
    for words in ("unsupported compression method", "implode", "not read"):
        assert not tiny_library.search(words, mode="lexical").hits, words
    hits = tiny_library.search("moby.zip README", mode="lexical").hits  # its listing: the names it holds
    assert [h.path for h in hits] == [zip_path]
    assert "not read" not in hits[0].text and "README" in hits[0].text
    # and the registry's reading of it (explain, preview) is the same listing
    assert extract(docs / "moby.zip").text == "moby.zip: 4 members\nREADME\nmoby.0\nmoby.1\nmoby.2"


@needs_rapidocr
def test_the_ocr_step_counts_what_it_indexed_as_added(tiny_library, tmp_path, monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(["Lighthouse keeper log"]).save(docs / "log.png")
    text_image(["Harbour master notes"]).save(docs / "harbour.png")
    text_image([]).save(docs / "blank.png")  # read, and no text found: said, not counted as found
    rep = tiny_library.add_folder(docs)
    assert any("3 file(s) read by OCR, text found in 2" in n for n in rep.notes), rep.notes
    assert (rep.scanned, rep.added, rep.skipped, rep.failed) == (3, 2, 1, 0)


def test_the_not_indexed_list_says_states_in_words(tiny_library, tmp_path, monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, "none")
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(["Lighthouse"]).save(docs / "scan.png")
    (docs / "blank.html").write_text("<html><body> </body></html>")
    (docs / "blank.txt").write_text("   \n")  # empty: left out quietly, not in the list
    svg = '<svg xmlns="http://www.w3.org/2000/svg">{}<path d="M12 4l-1.41 1.41L16.17 11H4v2h12z"/></svg>'
    (docs / "icon.svg").write_text(svg.format(""))  # shapes alone: an image without words, told as one
    (docs / "logo.svg").write_text(svg.format("<text>Tide gauge</text>"))  # words: indexed as before
    rep = tiny_library.add_folder(docs)
    reasons = {Path(p).name: (s, r) for p, s, r in tiny_library.status().not_indexed}
    assert {name: s for name, (s, _) in reasons.items()} == {
        "scan.png": "waiting for OCR", "blank.html": "no text found", "icon.svg": "no text found"}
    assert reasons["icon.svg"][1] == "image: a drawing without text"  # as an image OCR found no text in is
    assert reasons["blank.html"][1] == "no text found"
    # counted as skipped, as an OCR'd image without text is, and not named among the sync's problems
    assert rep.skipped == 4 and [Path(p).name for p, _ in rep.problems] == ["blank.html"], rep.problems
    assert [Path(h.path).name for h in tiny_library.search("tide gauge", mode="lexical").hits] == ["logo.svg"]


def test_the_not_indexed_window_shows_the_whole_reason_and_opens_a_group(qtbot):
    from searchapp.gui.library_panel import ProblemsDialog

    long_reason = "OCR: tesseract failed: " + " ".join(f"page {n} could not be rendered" for n in range(40))
    zip_path = "/docs/moby.zip"
    members = [zip_path + MEMBER_SEP + f"moby/chapter{i}.txt" for i in range(3)]
    reason = "3 of its members: unsupported compression method: deflate64"
    dialog = ProblemsDialog([("/docs/scan.pdf", "failed", long_reason), (zip_path, "skipped", reason),
                             ("/docs/note.txt", "no text found", "no text found")],
                            groups={(zip_path, "skipped", reason): members})
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.table
    line = table.fontMetrics().height()
    assert table.rowHeight(0) >= 3 * line  # wrapped onto the lines it needs, not cut at the column's edge
    assert table.item(0, 2).text() == long_reason

    table.cellDoubleClicked.emit(1, 0)
    shown = [table.item(r, 0).text().strip() for r in range(table.rowCount())]
    assert shown[2:5] == [f"/docs/moby.zip › moby/chapter{i}.txt" for i in range(3)] and shown[5] == "/docs/note.txt"
    table.cellDoubleClicked.emit(1, 0)
    assert table.rowCount() == 3


@needs_rapidocr
def test_an_image_that_waited_for_an_engine_is_counted_added_when_read(tiny_library, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(["Lighthouse keeper log"]).save(docs / "log.png")
    monkeypatch.setenv(ENGINE_ENV, "none")
    first = tiny_library.add_folder(docs)
    assert (first.added, first.skipped) == (0, 1)  # waits: no engine
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    rep = tiny_library.sync()
    assert (rep.scanned, rep.added, rep.skipped, rep.failed) == (1, 1, 0, 0), rep


def test_the_index_command_lists_a_container_s_members_as_one_row(tmp_path, capsys, tiny_bi_encoder_dir):
    """`searchapp index`'s own summary folds them as status does: one row, not one per member."""
    from searchapp.cli.main import main

    docs, data = tmp_path / "docs", tmp_path / "lib"
    docs.mkdir()
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")
    (docs / "moby.zip").write_bytes(_zip_with_methods({
        **{f"moby/chapter{i:03}.txt": (f"Chapter {i}: the whale.\n".encode(), 9, False) for i in range(1, 8)},
        "moby/notes.txt": (b"Notes on the harpooneers of the Pequod.\n", 0, False),
    }))
    assert main(["--data-dir", str(data), "index", "--words-only", str(docs)]) == 0
    out, err = capsys.readouterr()
    # words only: the line says meaning is still to come, not that the passages "reused" vectors
    assert "2 passages written (0 embedded; 2 in the library still to embed, searchable by words now" in out, out
    assert "reused" not in out
    assert f"  {docs / 'moby.zip'}: 7 of its members: unsupported compression method: deflate64" in err.splitlines(), err
    assert err.count("deflate64") == 1


@needs_rapidocr
def test_the_not_indexed_list_says_when_ocr_read_an_image_and_found_no_text(tiny_library, tmp_path, monkeypatch):
    """47 rows read "no text found | no text found": an image OCR read in vain says so (what "no text" means there)."""
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image([]).save(docs / "blank.png")
    (docs / "blank.html").write_text("<html><body> </body></html>")
    tiny_library.add_folder(docs)
    reasons = {Path(p).name: (s, r) for p, s, r in tiny_library.status().not_indexed}
    assert reasons == {"blank.png": ("no text found", "image: OCR found no text"),
                       "blank.html": ("no text found", "no text found")}, reasons


def test_a_folders_first_sync_names_the_folders_skip_dirs_left_out(tiny_library, tmp_path):
    """A newcomer's `Docs/House/build/permit.txt` was left out without a word (`build` is in the default
    skip_dirs), until `explain` was asked. The first sync of a folder names what skip_dirs left out; later syncs
    do not say it again."""
    home = tmp_path / "home"
    for folder in ("House/build", "proj/node_modules/x", "proj2/node_modules", ".git"):
        (home / folder).mkdir(parents=True)
    (home / "House" / "build" / "permit.txt").write_text("Building permit for the garage.", encoding="utf-8")
    (home / "notes.txt").write_text("notes", encoding="utf-8")
    rep = tiny_library.add_folder(home)
    said = [n for n in rep.notes if "skip_dirs" in n]
    assert said == ["folders left out by [scan] skip_dirs: build, node_modules (2); one of yours among them? take "
                    "its name out of skip_dirs in config.toml"], rep.notes  # hidden ones (.git) go unsaid
    assert not [n for n in tiny_library.sync().notes if "skip_dirs" in n]
