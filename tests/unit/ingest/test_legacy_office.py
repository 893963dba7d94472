"""Word, Excel and PowerPoint 97-2003 files (issue 43, items 1 and 2): their text is read from files the tests make
(tests/legacy_office_files.py; the compound file: searchapp's own ole_writer.py); password-protected ones say so; damaged and hostile ones fail
with a one-line reason, within the caps."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

from legacy_office_files import directory_entry, entry_number, set_fat, set_stream_size
from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from legacy_office_files import (fast_saved_ppt, make_doc, make_ppt, make_xls, master_shape, ppt_stream, record,
                                 text_atom, word_stream)
from searchapp.base.errors import ExtractionError, UnsupportedFileError
from searchapp.ingest.extractors import docx, extract, ppt97, pptx, word97, xlsx
from searchapp.ingest.extractors.ole_encrypted import is_encrypted_office

ENCRYPTED = "encrypted: password-protected, not indexed"


def put(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_word_97_document_is_read_from_its_piece_table(tmp_path):
    doc = make_doc([
        ("The allotment committee met on Tuesday.\r", True),
        ("Grüße from the orchard: \x13 HYPERLINK \"http://example.org/plums\" \x14the plum list\x15 is attached.\r",
         False),
        ("Cell one\x07Cell two\x07\x07Last line\x0bafter a line break\r", True),
    ])
    text = extract(put(tmp_path, "minutes.doc", doc)).text
    assert "The allotment committee met on Tuesday.\n" in text
    assert "Grüße from the orchard: the plum list is attached." in text  # the field's result, not its code
    assert "HYPERLINK" not in text and "example.org" not in text
    assert "Cell one\nCell two" in text and "Last line\nafter a line break" in text
    assert not any(c in text for c in "\x07\x0b\x13\x14\x15")


def test_a_word_6_document_is_read_from_its_one_text_run(tmp_path):
    doc = make_doc([("Minutes kept in Word 95, café and all.\r", True)], flags=0, word6=True)
    assert extract(put(tmp_path, "old.doc", doc)).text.strip() == "Minutes kept in Word 95, café and all."


def test_a_powerpoint_file_is_read_from_its_text_atoms_without_the_masters(tmp_path):
    ppt = make_ppt(["Quarterly harvest review", "Beans did well\rTomatoes were late", "Ünïcode bullet"])
    text = extract(put(tmp_path, "harvest.ppt", ppt)).text
    assert text.split("\n\n") == ["Quarterly harvest review", "Beans did well\nTomatoes were late", "Ünïcode bullet"]
    assert "Click to edit Master" not in text


def test_a_masters_own_text_is_kept_and_its_placeholders_left_out(tmp_path):
    master = record(0x03F8, master_shape("Click to edit Master title style", placeholder=True)
                    + master_shape("Allotment society, est. 1921", placeholder=False), container=True)
    stream = record(0x03E8, record(0x0FF0, text_atom("Spring planting"), container=True), container=True) + master
    text = extract(put(tmp_path, "deck.ppt", cfb({"PowerPoint Document": stream}))).text
    assert text == "Spring planting\n\nAllotment society, est. 1921"


def test_a_fast_saved_presentation_is_read_as_last_saved(tmp_path):
    """The old DocumentContainer stays in the stream after a fast save: only the edit chain's live one is read."""
    text = extract(put(tmp_path, "saved.ppt", fast_saved_ppt("Draft title", "Final title"))).text
    assert text == "Final title"


def test_an_excel_97_workbook_is_read_sheet_by_sheet(tmp_path):
    xls = make_xls({"Budget": [["Item", "Cost"], ["Compost", 12], ["Seeds", 3.5]], "Plots": [["North", "", "Ann"]]})
    doc = extract(put(tmp_path, "budget.xls", xls))
    assert doc.text == "Budget\nItem | Cost\nCompost | 12\nSeeds | 3.5\n\nPlots\nNorth |  | Ann"
    assert [p.page for p in doc.pages] == [1, 2]


def test_a_microsoft_graph_chart_saved_as_xls_is_skipped_as_a_chart_not_failed_as_corrupt(tmp_path):
    """A Graph chart's Workbook stream is no workbook (its BOF version, 0x0580 or 0x0680, is Graph's): as Apache
    POI's 64130.xls, it is said to be a chart, where it failed as "corrupt Excel file"."""
    from legacy_office_files import compobj, graph_stream

    chart = cfb({"\x01CompObj": compobj("MSGraph.Chart.5"), "Book": graph_stream(0x0580).ljust(4096, b"\0")})
    with pytest.raises(UnsupportedFileError, match=r"^Microsoft Graph chart \(MSGraph\.Chart\.5\): not read$"):
        extract(put(tmp_path, "chart.xls", chart))
    assert "Budget" in extract(put(tmp_path, "book.xls", make_xls({"Budget": [["Item"]]}))).text  # Excel's: read


@pytest.mark.parametrize("name, data", [
    ("locked.doc", make_doc([("secret\r", True)], flags=0x0300)),  # fEncrypted in the FIB
    ("locked.xls", make_xls({"S": [["secret"]]}, filepass=True)),  # a FILEPASS record
    ("locked.ppt", cfb({"PowerPoint Document": ppt_stream(["secret"]), "EncryptedSummary": b"\0" * 64})),
    ("locked2.ppt", make_ppt(["secret"], extra=record(0x2F14, b"\0" * 32, container=True))),  # CryptSession10
    ("locked.docx", cfb({"EncryptionInfo": b"\x04\x00\x04\x00" + b"\0" * 60, "EncryptedPackage": b"\x13" * 5000})),
])
def test_password_protected_office_files_say_so(tmp_path, name, data):
    with pytest.raises(UnsupportedFileError, match=f"^{ENCRYPTED}$"):
        extract(put(tmp_path, name, data))


# Every suffix the registry reads as an OOXML package (an OLE-encrypted one is saved under these names).
_NEWER = sorted(docx.SUFFIXES | xlsx.SUFFIXES | pptx.SUFFIXES)


@pytest.mark.parametrize("suffix", _NEWER)
@pytest.mark.parametrize("info, package", [("EncryptionInfo", "EncryptedPackage"),
                                           ("ENCRYPTIONINFO", "ENCRYPTEDPACKAGE")])  # as Apache Tika's test file
def test_a_password_protected_package_under_any_newer_suffix_is_encrypted_not_a_corrupt_zip(tmp_path, suffix, info,
                                                                                            package):
    """Office saves a password-protected .docx/.xlsx/.pptx as a compound file holding the encrypted package; a
    compound file compares its names case-insensitively, so capitals mean the same streams."""
    data = cfb({info: b"\x04\x00\x04\x00" + b"\0" * 60, package: b"\x13" * 5000})
    with pytest.raises(UnsupportedFileError, match=f"^{ENCRYPTED}$"):
        extract(put(tmp_path, "locked" + suffix, data))
    assert is_encrypted_office(data)  # the check a zip-named file that is not Office's (SafeZip) runs too


@pytest.mark.parametrize("suffix, data, words", [
    (".docx", make_doc([("A letter kept in Word 97, renamed.\r", True)]), "A letter kept in Word 97, renamed."),
    (".docm", make_doc([("Macros long gone.\r", True)]), "Macros long gone."),
    (".xlsx", make_xls({"Plots": [["North", "Ann"]]}), "North | Ann"),
    (".pptx", make_ppt(["Spring planting"]), "Spring planting"),
])
def test_an_old_office_file_under_a_newer_suffix_is_read_as_what_it_is(tmp_path, suffix, data, words):
    """A .doc renamed .docx is not a broken zip: Word opens it, and so it is read by the Word 97 reader."""
    assert words in extract(put(tmp_path, "renamed" + suffix, data)).text


def test_what_an_old_suffix_really_holds_is_read_as_what_it_is(tmp_path):
    from docx import Document as Docx

    d = Docx()
    d.add_paragraph("Saved by a newer Word under the old name.")
    buf = io.BytesIO()
    d.save(buf)
    assert "newer Word" in extract(put(tmp_path, "renamed.doc", buf.getvalue())).text
    html = b"<html><body><table><tr><td>Exported</td><td>from a web app</td></tr></table></body></html>"
    assert "Exported" in extract(put(tmp_path, "export.xls", html)).text
    graph = b"digraph compost { greens -> heap; browns -> heap; }\n"
    assert "greens -> heap" in extract(put(tmp_path, "flow.dot", graph)).text  # Graphviz, not a Word template
    with pytest.raises(UnsupportedFileError, match="not a PowerPoint 97-2003 file"):
        extract(put(tmp_path, "junk.ppt", bytes(range(256)) * 8))


# Damaged and hostile files: each fails alone, with a reason, after reading at most the file.

def _doc_with(pieces_plc: bytes) -> bytes:
    word, _ = word_stream([("Some text\r", True)])
    clx = b"\x02" + struct.pack("<I", len(pieces_plc)) + pieces_plc
    table = b"\0" * 16 + clx
    word = bytearray(word)
    struct.pack_into("<II", word, 32 + 2 + 28 + 2 + 88 + 2 + 8 * 33, 16, len(clx))
    return cfb({"WordDocument": bytes(word), "1Table": table})


@pytest.mark.parametrize("plc, reason", [
    (struct.pack("<2I", 0, 50) + struct.pack("<HIH", 0, 900_000, 0), "piece 0 points past the end"),
    (struct.pack("<2I", 0, 2**31) + struct.pack("<HIH", 0, 0x40000000 | 2048, 0), "piece 0 spans"),
    (b"\0" * 7, "not that of a PlcPcd"),
])
def test_a_piece_table_pointing_outside_the_document_fails_with_the_reason(tmp_path, plc, reason):
    with pytest.raises(ExtractionError, match=reason):
        extract(put(tmp_path, "bad.doc", _doc_with(plc)))


def test_a_piece_table_of_too_many_pieces_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(word97, "MAX_PIECES", 10)
    n = 11
    plc = struct.pack(f"<{n + 1}I", *range(n + 1)) + struct.pack("<HIH", 0, 0x40000000 | 2048, 0) * n
    with pytest.raises(ExtractionError, match="11 pieces, more than 10"):
        extract(put(tmp_path, "many.doc", _doc_with(plc)))


def test_a_clx_pointer_past_the_table_stream_fails(tmp_path):
    word, table = word_stream([("Text\r", True)])
    word = bytearray(word)
    struct.pack_into("<II", word, 32 + 2 + 28 + 2 + 88 + 2 + 8 * 33, 16, 10_000_000)
    with pytest.raises(ExtractionError, match="piece table .* lies outside 1Table"):
        extract(put(tmp_path, "far.doc", cfb({"WordDocument": bytes(word), "1Table": table})))


def test_a_directory_chain_that_loops_fails_at_once(tmp_path):
    data = cfb({"WordDocument": word_stream([("Text\r", True)])[0], "1Table": b"\0" * 64})
    first_dir = struct.unpack_from("<I", data, 0x30)[0]
    looped = set_fat(data, first_dir, first_dir)  # the directory's next sector: itself
    with pytest.raises(ExtractionError, match="directory's sector chain loops"):
        extract(put(tmp_path, "loop.doc", looped))
    # A FAT loop under a stream: read at most the file's size, then the reader's own checks decide.
    start = struct.unpack_from("<I", data, directory_entry(data, entry_number(data, "WordDocument")) + 0x74)[0]
    stream_loop = set_fat(data, start, start)
    with pytest.raises(ExtractionError, match="corrupt"):
        extract(put(tmp_path, "loop2.doc", stream_loop))


def test_a_stream_claiming_more_than_the_file_holds_is_refused_unread(tmp_path):
    data = cfb({"WordDocument": word_stream([("Text\r", True)])[0], "1Table": b"\0" * 64})
    word_entry = entry_number(data, "WordDocument")
    lying = set_stream_size(data, word_entry, 1_000_000)  # under the cap, over the file
    with pytest.raises(ExtractionError, match=r"stream WordDocument claims 1,000,000 bytes, more than the file's"):
        extract(put(tmp_path, "lying.doc", lying))
    huge = set_stream_size(data, word_entry, 0xFFFFFFF0)  # over the reader's cap: never read
    with pytest.raises(ExtractionError, match="WordDocument is larger than 50 MB"):
        extract(put(tmp_path, "huge.doc", huge))


def test_a_header_claiming_more_fat_sectors_than_the_file_holds_fails(tmp_path):
    data = bytearray(make_doc([("Text\r", True)]))
    struct.pack_into("<I", data, 0x2C, 0x7FFFFFFF)
    with pytest.raises(ExtractionError, match="FAT sectors, more than the file holds"):
        extract(put(tmp_path, "fat.doc", bytes(data)))


@pytest.mark.parametrize("name, maker", [
    ("cut.doc", lambda: make_doc([("A long enough paragraph about the orchard.\r" * 200, True)])),
    ("cut.ppt", lambda: make_ppt(["A slide about the orchard " * 200])),
    ("cut.xls", lambda: make_xls({"S": [["A cell about the orchard " * 50] for _ in range(40)]})),
])
@pytest.mark.parametrize("keep", [0.3, 0.6, 0.9])
def test_a_truncated_file_fails_with_a_one_line_reason(tmp_path, name, maker, keep):
    data = maker()
    with pytest.raises(ExtractionError) as caught:
        extract(put(tmp_path, name, data[:int(len(data) * keep)]))
    assert str(caught.value).startswith("corrupt") and "\n" not in str(caught.value)


def test_records_nested_past_the_cap_fail(tmp_path):
    inner = text_atom("deep")
    for _ in range(ppt97.MAX_DEPTH + 5):
        inner = record(0x0FF0, inner, container=True)
    with pytest.raises(ExtractionError, match=f"nested deeper than {ppt97.MAX_DEPTH}"):
        extract(put(tmp_path, "deep.ppt", cfb({"PowerPoint Document": inner})))


def test_too_many_records_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(ppt97, "MAX_RECORDS", 50)
    body = record(0x0FF0, record(0x0F9F, b"\0" * 4) * 60, container=True)
    with pytest.raises(ExtractionError, match="more than 50 records"):
        extract(put(tmp_path, "many.ppt", cfb({"PowerPoint Document": body})))


def test_a_record_claiming_more_than_its_container_ends_that_container_only(tmp_path):
    liar = struct.pack("<HHI", 0xF, 0x0428, 0x7FFFFFFF) + b"PK\x03\x04"  # a blob that calls itself a container
    stream = record(0x03E8, record(0x0FF0, text_atom("Before the blob") + liar, container=True)
                    + record(0x0FF0, text_atom("After the blob"), container=True), container=True)
    doc = extract(put(tmp_path, "blob.ppt", cfb({"PowerPoint Document": stream})))
    assert doc.text == "Before the blob\n\nAfter the blob"
    assert doc.notes == ("1 damaged or unknown record(s) skipped",)



# The edit chain of a hostile .ppt (a reviewer's finding: offsets that overlap, each claiming most of the stream,
# made as many copies of it as offsets; one directory named by every edit was read again for each).

def _edit_chain(stream: bytes, directories: list[int]) -> tuple[bytes, bytes]:
    """`stream` with one UserEditAtom per directory appended (the newest last, naming the one before it), and the
    "Current User" stream pointing at the newest."""
    last = 0
    for directory in directories:
        at = len(stream)
        stream += record(0x0FF5, struct.pack("<IHBBIIII", 0, 0, 0, 3, last, directory, 1, 2) + b"\0" * 4)
        last = at
    return stream, struct.pack("<HHI", 0, 0x0FF6, 20) + struct.pack("<III", 20, 0xE391C05F, last) + b"\0" * 8


def test_overlapping_persist_offsets_never_collect_more_than_the_stream(tmp_path):
    blob = b"\xff" * (1 << 20)  # records here all claim 4 GB, cut at the end of the stream
    directory = record(0x1772, struct.pack("<I", 300 << 20) + struct.pack("<300I", *range(64, 364)))
    stream, current_user = _edit_chain(directory + blob, [0])
    live = ppt97._live_records(stream, current_user)
    assert live is not None and len(live) <= len(stream)  # was ~300 copies of the megabyte
    doc = extract(put(tmp_path, "bomb.ppt", cfb({"PowerPoint Document": stream, "Current User": current_user})))
    assert doc.text == ""


def test_one_directory_named_by_every_edit_is_read_once():
    slide = record(0x03E8, text_atom("Only slide"), container=True)
    directory = record(0x1772, struct.pack("<II", 1 << 20, 0) * 2000)  # most of the stream
    stream, current_user = _edit_chain(slide + directory, [len(slide)] * 3)
    assert ppt97._live_records(stream, current_user) == slide


def test_directories_listing_more_offsets_than_the_stream_holds_fail():
    # Directories nested in one another, each running to the end of the last: each one's header reads as an entry
    # (count 0x177) of the one before it, so together they list far more words than the stream has.
    step, k = 376 * 4, 20
    stream = b"".join(struct.pack("<HHII", 0, 0x1772, (k - i) * step - 8, 373 << 20) + b"\0" * 4 * 373
                      for i in range(k))
    stream, current_user = _edit_chain(stream, [i * step for i in range(k)])
    with pytest.raises(ExtractionError, match="list more offsets than the stream holds"):
        ppt97._live_records(stream, current_user)


def test_the_text_cap_stops_reading(tmp_path):
    doc = make_doc([("word " * 2000 + "\r", True)] * 50)
    assert len(extract(put(tmp_path, "long.doc", doc), max_chars=5000).text) <= 5000
    ppt = make_ppt(["slide text " * 100] * 200)
    assert len(extract(put(tmp_path, "long.ppt", ppt), max_chars=5000).text) <= 5000


# Outlook .msg: a message read as an .eml is; its attachments are its members.

def test_an_outlook_message_reads_as_a_mail_does(tmp_path):
    from legacy_office_files import make_msg

    msg = make_msg("Allotment rota", "Ann waters on Mondays.\r\nBring gloves.", "Ann Smith", "Committee",
                   attachments={"rota.doc": make_doc([("The rota\r", True)])}, filetime=133_000_000_000_000_000,
                   cc="Bea Jones")
    doc = extract(put(tmp_path, "rota.msg", msg))
    assert doc.text == ("Subject: Allotment rota\nFrom: Ann Smith\nTo: Committee\nCc: Bea Jones\n"
                        "Date: Sat, 18 Jun 2022 04:26:40 +0000"
                        "\n\nAnn waters on Mondays.\nBring gloves.\n\nAttachments: rota.doc")
    assert doc.title == "Allotment rota"
    html = make_msg("Html only", html=b"<html><body><p>Visible words</p><script>track()</script></body></html>")
    assert extract(put(tmp_path, "html.msg", html)).text == "Subject: Html only\n\nVisible words"


def test_a_messages_attachments_are_members_within_the_caps(tmp_path, monkeypatch):
    from legacy_office_files import make_msg

    from searchapp.ingest.extractors import mail_msg
    from searchapp.ingest.extractors.members import iter_members

    files = {f"note{i}.txt": f"Note {i}".encode() for i in range(5)}
    path = put(tmp_path, "notes.msg", make_msg("Notes", "See attached.", attachments=files, nested=True))
    got = {m.name: (m.data, m.reason) for m in iter_members(path, 2**20)}
    assert got == {**{n: (d, "") for n, d in files.items()},
                   "Forwarded item.msg": (None, "an Outlook item attached to a message: not read")}
    monkeypatch.setattr(mail_msg, "MAX_ATTACHMENTS", 3)
    got = [(m.name, m.reason) for m in iter_members(path, 2**20)]
    assert len(got) == 4 and got[-1] == ("…", "only the first 3 attachments read")


def test_a_damaged_message_fails_with_a_reason(tmp_path):
    from legacy_office_files import make_msg

    msg = make_msg("Cut", "A body long enough to be cut. " * 300)
    with pytest.raises(ExtractionError, match="^corrupt OLE file"):
        extract(put(tmp_path, "cut.msg", msg[:len(msg) // 2]))


def test_a_written_out_storage_reads_back_and_its_trees_are_red_black(tmp_path):
    """ole_writer (a Word document embedded in a .doc is a storage, written out as a file of its own): every stream
    reads back, small ones from the mini stream and large ones from sectors, and each storage's children form a
    search tree in the format's name order that is a valid red-black tree (strict readers check it)."""
    import olefile

    from searchapp.ingest.extractors.ole import OleFile
    from searchapp.ingest.extractors.ole_writer import storage_file

    inner = {f"s{i:02}": bytes([i]) * (i * 397 % 9000) for i in range(40)} | {"Pool/_7/CONTENTS": b"%PDF" * 2000}
    pool = {f"ObjectPool/_1/{k}": v for k, v in inner.items()}
    outer = put(tmp_path, "outer.doc", cfb({"WordDocument": b"\0" * 64, **pool}))
    with OleFile(outer) as ole:
        data = storage_file(ole, "ObjectPool/_1", 2**20)
    ole = olefile.OleFileIO(data, raise_defects=olefile.DEFECT_INCORRECT)
    assert {"/".join(e): ole.openstream(e).read() for e in ole.listdir()} == inner
    entries = ole.direntries

    red, black = 0, 1  # a directory entry's colour (MS-CFB 2.6.1)

    def check(sid: int) -> tuple[list[str], int]:  # (names in order, black entries on every path)
        if sid == olefile.NOSTREAM:
            return [], 1
        e = entries[sid]
        left, black_left = check(e.sid_left)
        right, black_right = check(e.sid_right)
        assert black_left == black_right, e.name
        if e.color == red:
            assert e.sid_left == e.sid_right == olefile.NOSTREAM or all(
                entries[k].color == black for k in (e.sid_left, e.sid_right) if k != olefile.NOSTREAM)
        return left + [e.name] + right, black_left + (e.color == black)

    for storage in (entries[0], *(e for e in entries if e is not None and e.entry_type == olefile.STGTY_STORAGE)):
        names, _ = check(storage.sid_child)
        assert entries[storage.sid_child].color == black
        assert names == sorted(names, key=lambda n: (len(n), n.upper())) and len(names) == len(storage.kids)
    with pytest.raises(ExtractionError, match="larger than"):
        with OleFile(outer) as again:
            storage_file(again, "ObjectPool/_1", 2**16)
