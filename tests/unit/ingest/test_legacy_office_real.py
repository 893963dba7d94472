"""Legacy Office files written by Word, Excel, PowerPoint and Outlook themselves (tests/fixtures/legacy_office, from
Apache Tika's test documents): the words Tika's own tests expect in them are found, and the password-protected
ones say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.base.errors import UnsupportedFileError
from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors.members import iter_members

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "legacy_office"
ENCRYPTED = "encrypted: password-protected, not indexed"


def test_a_word_document_from_word():
    text = extract(FIXTURES / "testWORD.doc").text
    assert "Sample Word Document" in text and "This is a sample Microsoft Word Document." in text  # as Tika's tests
    assert "This document includes text that is BOLD and ITALIC." in text


def test_a_workbook_from_excel():
    doc = extract(FIXTURES / "testEXCEL.xls")
    assert doc.text.startswith("Feuil1\nSample Excel Worksheet - Numbers and their Squares\n")
    assert " | 15 | 225\n" in doc.text and [p.page for p in doc.pages] == [1, 2, 3]  # two empty sheets, named


def test_a_fast_saved_presentation_from_powerpoint_is_read_once():
    text = extract(FIXTURES / "testPPT.ppt").text
    assert text == "Sample Powerpoint Slide\n\nCreated with Microsoft \nPowerpoint X for Mac\nService Release 1"


def test_an_outlook_message_and_its_attachments():
    path = FIXTURES / "testMSG_att_doc.msg"
    doc = extract(path)
    assert doc.text.startswith("Subject: test pièce jointe 1\nFrom: Nicolas1 23456 <nicolas1.23456@free.fr>\n")
    assert doc.text.endswith("Attachments: test-unicode.doc, pj1.txt") and doc.title == "test pièce jointe 1"
    members = {m.name: m for m in iter_members(path, 2**20)}
    assert set(members) == {"test-unicode.doc", "pj1.txt"} and all(m.data for m in members.values())


@pytest.mark.parametrize("name", ["testWORD_protected_passtika.doc", "testEXCEL_protected_passtika.xls",
                                  "testPPT_protected_passtika.ppt"])
def test_password_protected_files_from_office_say_so(name):
    with pytest.raises(UnsupportedFileError, match=f"^{ENCRYPTED}$"):
        extract(FIXTURES / name)
