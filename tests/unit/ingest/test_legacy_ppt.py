"""PowerPoint 97-2003 and older .ppt files as the newcomer's Apache Tika / POI test decks showed them: the notes
master and handout master read like the main master (template prompts left out, speaker notes kept), a PowerPoint
95 deck read from its Text_Content stream, a PowerPoint 4.0 one skipped with the reason. The files are made here
(tests/legacy_office_files.py, tests/cfb_writer.py)."""

from __future__ import annotations

import struct
from pathlib import Path

from cfb_writer import cfb
from legacy_office_files import master_shape, record, text_atom
from searchapp.ingest.extractors import extract

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
