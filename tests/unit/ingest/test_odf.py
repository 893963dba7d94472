"""OpenDocument files (.odt, .ods, .odp) as LibreOffice writes them, built here with odfpy or as raw parts: what
a newcomer's real files (Apache Tika's test documents) showed was read wrong."""

from __future__ import annotations

from pathlib import Path

from searchapp.ingest.extractors import extract


def test_a_footnote_mark_is_not_glued_to_the_word_before_it(tmp_path: Path) -> None:
    """`rather<text:note><text:note-citation>1</…>` read "rather1": a search for "rather" missed the document."""
    from odf.opendocument import OpenDocumentText
    from odf.text import Note, NoteBody, NoteCitation, P

    d = OpenDocumentText()
    p = P(text="This is a rather")
    note = Note(id="ftn0", noteclass="footnote")
    note.addElement(NoteCitation(text="1"))
    body = NoteBody()
    body.addElement(P(text="This is of course a simple footnote"))
    note.addElement(body)
    p.addElement(note)
    p.addText(" difficult test document.")
    d.text.addElement(p)
    path = tmp_path / "notes.odt"
    d.save(str(path))
    assert extract(path).text.split("\n\n") == ["This is of course a simple footnote",
                                                "This is a rather difficult test document."]
