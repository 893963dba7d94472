"""Word 97-2003 .doc beyond its piece table (issue: a newcomer's run over Tika's and POI's test documents): text
deleted under tracked changes is left out and hidden text kept, as for .docx; the files are made by the tests
(tests/word97_files.py)."""

from __future__ import annotations

import struct
from pathlib import Path

from legacy_office_files import word_stream
from word97_files import DELETED, HIDDEN, make_doc_with_props

from searchapp.ingest.extractors import extract, word97_props


def read(tmp_path: Path, data: bytes, name: str = "review.doc") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return extract(path).text


def test_text_deleted_under_tracked_changes_is_left_out(tmp_path):
    # As in Tika's testWORD_features.doc: "bibendum " deleted inside an 8-bit piece, "Donec " in a UTF-16 one.
    pieces = [("Maecenas eget elit fringilla, bibendum est eu, volutpat urna.\r", True),
              ("While Donec euismod posuere rhoncus, Grüße.\r", False)]
    at = pieces[0][0].index("bibendum ")
    second = len(pieces[0][0]) + pieces[1][0].index("Donec ")
    text = read(tmp_path, make_doc_with_props(pieces, [(at, at + 9, DELETED), (second, second + 6, DELETED)]))
    assert "fringilla, est eu, volutpat urna." in text and "While euismod posuere rhoncus, Grüße." in text
    assert "bibendum" not in text and "Donec" not in text


def test_a_replaced_word_is_read_as_the_new_one_alone(tmp_path):
    # Tika's testWORD_2006ml.doc: "frog" deleted right after the inserted "dog", once read as "dogfrog".
    pieces = [("The quick brown fox jumped over the lazy brown dogfrog.\r", True)]
    at = pieces[0][0].index("frog")
    text = read(tmp_path, make_doc_with_props(pieces, [(at, at + 4, DELETED)]))
    assert "the lazy brown dog." in text and "frog" not in text


def test_a_deleted_paragraph_end_still_parts_its_words(tmp_path):
    pieces = [("First paragraph there\rSecond paragraph here\r", True)]
    at = pieces[0][0].index("\r")
    text = read(tmp_path, make_doc_with_props(pieces, [(at, at + 1, DELETED)]))
    assert "there\nSecond" in text


def test_hidden_text_is_kept(tmp_path):
    pieces = [("Shown words.\rThis is hidden text.\r", True)]
    at = pieces[0][0].index("This")
    text = read(tmp_path, make_doc_with_props(pieces, [(at, at + 20, HIDDEN)]))
    assert "Shown words.\nThis is hidden text." in text


def test_broken_character_formatting_keeps_the_text(tmp_path):
    pieces = [("Every word still counts.\r", True)]
    past = struct.pack("<III", 0, 1 << 30, 0x3FFFFF)  # a page far past the stream
    for bte in (past, b"\x01\x02\x03", b""):
        assert read(tmp_path, make_doc_with_props(pieces, [(0, 6, DELETED)], bte=bte)).strip() == \
            "Every word still counts."


def test_pages_named_past_the_streams_count_are_not_read(tmp_path, monkeypatch):
    pieces = [("Every word still counts.\r", True)]
    pn = -(-len(word_stream(pieces)[0]) // 512)  # where make_doc_with_props puts its one page
    n = 100_000
    many = struct.pack("<I", 0) + struct.pack("<I", 1 << 30) * n + struct.pack("<I", pn) * n
    seen = []
    real = word97_props._page_spans
    monkeypatch.setattr(word97_props, "_page_spans", lambda word, at: seen.append(at) or real(word, at))
    assert read(tmp_path, make_doc_with_props(pieces, [(0, 6, DELETED)], bte=many)).strip() == "word still counts."
    assert 0 < len(seen) <= pn + 1  # a page per 512 bytes of the stream at most, not one per entry
