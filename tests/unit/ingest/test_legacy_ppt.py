"""PowerPoint 97-2003 and older .ppt files as the newcomer's Apache Tika / POI test decks showed them: the notes
master and handout master read like the main master (template prompts left out, speaker notes kept), a PowerPoint
95 deck read from its Text_Content stream, a PowerPoint 4.0 one skipped with the reason. The files are made here
(tests/legacy_office_files.py; the compound file: searchapp's own ole_writer.py)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from legacy_office_files import master_shape, record, text_atom
from searchapp.base.errors import UnsupportedFileError
from searchapp.ingest.extractors import extract, ppt97

NOTES, NOTES_ATOM, HANDOUT = 0x03F0, 0x03F1, 0x0FC9
PROMPT = "Click to edit Master text styles\rSecond level\rThird level\rFourth level\rFifth level"


def put(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def notes(slide_id: int, *shapes: bytes) -> bytes:
    """A NotesContainer: its NotesAtom naming `slide_id` (a slide's notes; 0 or 0x80000000 and up on the notes
    master), then its drawing's shapes."""
    atom = record(NOTES_ATOM, struct.pack("<IHH", slide_id, 0, 0))
    return record(NOTES, atom + record(0x040C, b"".join(shapes), container=True), container=True)


def deck(*records: bytes) -> bytes:
    document = record(0x03E8, record(0x0FF0, text_atom("Spring planting"), container=True), container=True)
    return cfb({"PowerPoint Document": document + b"".join(records)})


def test_the_notes_and_handout_masters_prompts_are_left_out_and_speaker_notes_kept(tmp_path):
    ppt = deck(
        notes(0x80000000, master_shape(PROMPT, placeholder=True), master_shape("Allotment society", placeholder=False)),
        record(HANDOUT, master_shape("Click to edit Master title style", placeholder=True), container=True),
        notes(0x100, master_shape("Bring the seed list", placeholder=True)),  # a slide's notes: its body placeholder
        notes(0, master_shape(PROMPT, placeholder=True)),  # a notes master as MS-PPT writes it
    )
    text = extract(put(tmp_path, "deck.ppt", ppt)).text
    assert text.split("\n\n") == ["Spring planting", "Allotment society", "Bring the seed list"]


PPT95_TEXT = b"Compost clinic\r\rWhat goes in \x85 and what stays out\rGreens\x0bBrowns\r\r"


def test_a_powerpoint_95_deck_is_read_from_its_text_content_stream(tmp_path):
    """PowerPoint 95's records hold no text atoms; it keeps its slides' text for search tools apart."""
    old = cfb({"PowerPoint Document": record(0x03E8, b"\0" * 64), "Text_Content": PPT95_TEXT})
    text = extract(put(tmp_path, "talk95.ppt", old)).text
    assert text == "Compost clinic\n\nWhat goes in … and what stays out\nGreens\nBrowns"


def summary_information(code_page: int) -> bytes:
    """A SummaryInformation property set (MS-OLEPS) whose one property is PID_CODEPAGE."""
    fmtid = bytes.fromhex("e0859ff2f94f6810ab9108002b27b3d9")  # FMTID_SummaryInformation, as stored
    section = struct.pack("<II", 8 + 8 + 8, 1) + struct.pack("<II", 1, 16) + struct.pack("<HxxHxx", 2, code_page)
    return struct.pack("<HHI16sI", 0xFFFE, 0, 0x00020005, b"\0" * 16, 1) + fmtid + struct.pack("<I", 48) + section


def test_a_powerpoint_95_deck_reads_in_the_code_page_its_summary_names(tmp_path):
    """A Russian Windows' PowerPoint 95 keeps its Text_Content in cp1251: it was read as cp1252 ("Êîìïîñò")."""
    import olefile

    slide = "Компост: что кладём и что нет\r\r".encode("cp1251")
    for code_page, summary in ((1251, summary_information(1251)), (1252, summary_information(1200)),
                               (1252, summary_information(65001)), (1252, summary_information(500)),  # not 8-bit ANSI
                               (1252, summary_information(1251)[:60]), (1252, b"\xfe\xff" + b"\xff" * 60)):
        old = cfb({"PowerPoint Document": record(0x03E8, b"\0" * 64), "Text_Content": slide,
                   "\x05SummaryInformation": summary})
        path = put(tmp_path, "talk95.ppt", old)
        if code_page == 1251:
            with olefile.OleFileIO(str(path)) as ole:  # what olefile reads of it: the same code page
                assert ole.get_metadata().codepage == 1251
        assert extract(path).text == slide.decode(f"cp{code_page}").strip(), code_page


def test_the_text_content_stream_is_read_only_when_the_records_give_no_text(tmp_path, monkeypatch):
    both = cfb({"PowerPoint Document": record(0x03E8, record(0x0FF0, text_atom("Spring planting"), container=True),
                                              container=True), "Text_Content": PPT95_TEXT})
    assert extract(put(tmp_path, "both.ppt", both)).text == "Spring planting"
    monkeypatch.setattr(ppt97, "MAX_TEXT_CONTENT", len(PPT95_TEXT) - 1)
    big = cfb({"PowerPoint Document": record(0x03E8, b"\0" * 64), "Text_Content": PPT95_TEXT})
    assert extract(put(tmp_path, "big.ppt", big)).text == ""  # over the cap: not read


def test_a_powerpoint_4_file_is_skipped_with_the_reason(tmp_path):
    with pytest.raises(UnsupportedFileError, match=r"^PowerPoint 4\.0 format: not supported$"):
        extract(put(tmp_path, "old.ppt", cfb({"PP40": b"\0" * 600})))
