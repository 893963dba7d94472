"""Files embedded in documents (a PDF's attachments, an Office Open XML file's embeddings) indexed as members of the
document, by the member machinery of archives and mail (decision 0189)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from cfb_writer import cfb
from corpus import write_pdf
from newer_readers import a_newer_reader
from office_files import make_pptx, write_zip
from searchapp.base.member_paths import MEMBER_SEP
from searchapp.ingest.extractors.members import iter_members

pytestmark = pytest.mark.engines("sqlite")


def _pdf_bytes(tmp_path: Path, text: str) -> bytes:
    path = tmp_path / "page.pdf"
    write_pdf(path, [text])
    return path.read_bytes()


def _attach(pdf: Path, files: dict[str, bytes], annotated: dict[str, bytes] | None = None) -> Path:
    """`files` in the /EmbeddedFiles name tree (pypdf's add_attachment), `annotated` as file-attachment annotations."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject, TextStringObject

    w = PdfWriter(clone_from=str(pdf))
    for name, data in files.items():
        w.add_attachment(name, data)
    for name, data in (annotated or {}).items():
        stream = DecodedStreamObject()
        stream.set_data(data)
        spec = DictionaryObject({NameObject("/Type"): NameObject("/Filespec"), NameObject("/F"): TextStringObject(name),
                                 NameObject("/EF"): DictionaryObject({NameObject("/F"): w._add_object(stream)})})
        annot = DictionaryObject({NameObject("/Type"): NameObject("/Annot"),
                                  NameObject("/Subtype"): NameObject("/FileAttachment"),
                                  NameObject("/FS"): w._add_object(spec)})
        w.pages[0][NameObject("/Annots")] = ArrayObject([w._add_object(annot)])
    with open(pdf, "wb") as fh:
        w.write(fh)
    return pdf


@pytest.fixture
def documents(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    write_pdf(d / "invoice.pdf", ["Invoice for the harpsichord tuning."])
    _attach(d / "invoice.pdf", {"data.csv": b"item,price\nquillwort seedlings,12\n", "id_rsa": b"not read\n"},
            annotated={"C:\\Users\\ann\\note.txt": b"The cormorant survey is attached here.\n"})
    deck = make_pptx(d / "deck.pptx", [(["Slides about the lighthouse"], [])])
    object_pdf = cfb({"\x01CompObj": b"Acrobat Document", "CONTENTS": _pdf_bytes(tmp_path, "Embedded axolotl report")})
    with zipfile.ZipFile(deck, "a") as z:
        z.writestr("ppt/embeddings/oleObject1.bin", object_pdf)
        z.writestr("ppt/embeddings/oleObject2.bin", cfb({"Equation Native": b"\0" * 16}))
        z.writestr("ppt/embeddings/Sheet1.csv", b"walrus,tusk\n")
    write_pdf(d / "plain.pdf", ["A plain page about marzipan."])
    for i in range(8):  # enough files that the sync reads them in groups (read_groups.MIN_GROUPED)
        (d / f"note{i}.txt").write_text(f"Note number {i} about the garden.\n", encoding="utf-8")
    return d


def _top(lib, query: str) -> str:
    return lib.search(query, mode="lexical").hits[0].path


def test_a_documents_embedded_files_are_its_members(tiny_library, documents, monkeypatch):
    from searchapp.library.sync import words_pass

    monkeypatch.setattr(words_pass, "usable_cores", lambda: 1)  # read in groups in this process: no worker started
    rep = tiny_library.add_folder(documents)
    assert rep.failed == 0, rep.problems
    pdf, deck = str(documents / "invoice.pdf"), str(documents / "deck.pptx")
    assert _top(tiny_library, "harpsichord tuning") == pdf  # its own text stays its own entry
    assert _top(tiny_library, "quillwort seedlings") == pdf + MEMBER_SEP + "data.csv"
    assert _top(tiny_library, "cormorant survey") == pdf + MEMBER_SEP + "note.txt"  # an annotation's, by its name
    assert _top(tiny_library, "lighthouse") == deck
    assert _top(tiny_library, "axolotl report") == deck + MEMBER_SEP + "embeddings/oleObject1.pdf"  # OLE-wrapped
    assert _top(tiny_library, "walrus tusk") == deck + MEMBER_SEP + "embeddings/Sheet1.csv"
    e = tiny_library.explain(pdf + MEMBER_SEP + "id_rsa")  # refused by its name, as in a zip
    assert (e["state"], e["reason"]) == ("excluded", "secret: its name matches 'id_rsa' ([scan] secret_files)")
    problems = dict(rep.problems)
    assert "unknown kind" in problems[deck + MEMBER_SEP + "embeddings/oleObject2.bin"]
    assert not any(p.startswith(str(documents / "plain.pdf") + MEMBER_SEP) for p in problems)


def test_an_unchanged_pdf_read_by_an_older_reader_gains_its_members(tiny_library, tmp_path, monkeypatch):
    d = tmp_path / "docs"
    d.mkdir()
    write_pdf(d / "old.pdf", ["Minutes of the beekeeping club."])
    _attach(d / "old.pdf", {"agenda.txt": b"Agenda: the pangolin exhibit.\n"})
    from searchapp.ingest.extractors import members

    with monkeypatch.context() as m:  # the version before: attachments not read
        m.setattr(members, "holds_files", lambda *a: False)
        tiny_library.add_folder(d)
    assert not tiny_library.search("pangolin exhibit", mode="lexical").hits
    a_newer_reader(monkeypatch, "pdf")
    tiny_library.sync()
    assert _top(tiny_library, "pangolin exhibit") == str(d / "old.pdf") + MEMBER_SEP + "agenda.txt"
    assert _top(tiny_library, "beekeeping club") == str(d / "old.pdf")


def test_embedded_files_are_capped_like_an_archives_members(tmp_path):
    pdf = tmp_path / "many.pdf"
    write_pdf(pdf, ["Cover page."])
    _attach(pdf, {f"part{i}.txt": b"x" * 3000 for i in range(3)})
    got = [(m.name, m.data is not None, m.reason) for m in iter_members(pdf, 2_000, max_total=10_000)]
    assert [(n, read) for n, read, _ in got] == [("part0.txt", False), ("part1.txt", False), ("part2.txt", False)]
    assert all("too large" in why for _, _, why in got)
    got = [(m.name, m.reason) for m in iter_members(pdf, 5_000, max_total=7_000)]
    assert got[0] == ("part0.txt", "") and got[1] == ("part1.txt", "") and "budget" in got[2][1]
    deck = write_zip(tmp_path / "bomb.docx", {"word/document.xml": "<w:document/>",
                                              "word/embeddings/big.txt": b"\0" * (4 * 2**20)})
    got = [(m.name, m.data, m.reason) for m in iter_members(deck, 50 * 2**20)]
    assert len(got) == 1 and got[0][:2] == ("embeddings/big.txt", None) and "bomb" in got[0][2], got


@pytest.mark.parametrize("tree", [b"<< /Names [(a.txt) 7 0 R] /Kids [6 0 R 6 0 R 8 0 R] >>", b"<< /Names 5 >>"])
def test_a_hostile_attachment_tree_is_walked_once_and_never_fails_its_pdf(tmp_path, tree):
    """A name-tree node that is its own kid, twice (2**17 nodes walked before: a node listing itself 8 times held a
    sync over 11 minutes, deaf to its stop), and a /Names of a number (the whole PDF failed, "internal error:
    TypeError"): each node walked once, and a broken tree is a note beside the PDF, whose own text stays readable."""
    from pdf_files import RawPdf
    from searchapp.ingest.extractors.pdf import extract_pdf

    raw = RawPdf()
    content = raw.stream(b"BT /F1 12 Tf 72 720 Td (Harbour tides of the kayak club) Tj ET")  # 1
    font = raw.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")  # 2
    page = raw.add(b"<< /Type /Page /Parent 4 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "  # 3
                   b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content, font))
    raw.add(b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)  # 4
    root = raw.add(b"<< /Type /Catalog /Pages 4 0 R /Names << /EmbeddedFiles 6 0 R >> >>")  # 5
    raw.add(tree)  # 6
    raw.add(b"<< /Type /Filespec /F (a.txt) /EF << /F 9 0 R >> >>")  # 7
    raw.add(b"<< /Names [(b.txt) 7 0 R] /Kids [6 0 R] >>")  # 8: a kid whose kid is the tree's root
    raw.stream(b"Attached notes on the cormorant survey.\n", b" /Type /EmbeddedFile")  # 9
    pdf = raw.write(tmp_path / "hostile.pdf", root)
    got = [(m.name, m.reason) for m in iter_members(pdf, 2**20)]
    if b"Kids" in tree:
        from pypdf import PdfReader
        from searchapp.ingest.extractors.embedded import _name_tree

        assert got == [("a.txt", "")]  # b.txt names the same stream again: read once
        assert [name for name, _ in _name_tree(PdfReader(pdf))] == ["a.txt", "b.txt"]  # each node once
    else:
        assert len(got) == 1 and got[0][0] == "…" and "broken structure (TypeError)" in got[0][1], got
    assert "Harbour tides" in extract_pdf(pdf, 2**20).text
