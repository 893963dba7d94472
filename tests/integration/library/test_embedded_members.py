"""Files embedded in documents (a PDF's attachments, an Office Open XML file's embeddings) indexed as members of the
document, by the member machinery of archives and mail (decision 0189)."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from opened_files import files_opened

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from corpus import write_pdf
from newer_readers import a_newer_reader
from office_files import make_pptx, write_zip
from searchapp.base.member_paths import MEMBER_SEP
from searchapp.ingest.ocr.engine import ENGINE_ENV
from searchapp.ingest.extractors.members import iter_members

pytestmark = pytest.mark.engines("sqlite")


@pytest.fixture(autouse=True)
def _no_ocr(monkeypatch):
    """OCR off: the short PDFs here (an embedded page of a few words is under ingest/ocr/pdf_pages.MIN_LETTERS) would
    each be rendered and read by the real engine (~1-2 CPU s a page, most of this module's time), and what is read
    from them is not what these tests are about; their text layer is indexed alike (tests/integration/library/
    test_ocr_sync.py tests the OCR step)."""
    monkeypatch.setenv(ENGINE_ENV, "none")


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
    bare = make_pptx(d / "bare.pptx", [([], [])])  # nothing of its own: its one file is all it holds
    with zipfile.ZipFile(bare, "a") as z:
        z.writestr("ppt/embeddings/Sheet2.csv", b"narwhal,horn\n")
    write_pdf(d / "plain.pdf", ["A plain page about marzipan."])
    _legacy(tmp_path, ".doc", "quokka").rename(d / "letter.doc")  # a Word 97-2003 file's OLE objects
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
    letter = str(documents / "letter.doc")
    assert _top(tiny_library, "cover letter") == letter
    assert _top(tiny_library, "quokka census") == letter + MEMBER_SEP + "ObjectPool/_1/census-北極.txt"  # a package's
    assert _top(tiny_library, "quokka sanctuary") == letter + MEMBER_SEP + "ObjectPool/_3.doc"  # a storage's
    e = tiny_library.explain(pdf + MEMBER_SEP + "id_rsa")  # refused by its name, as in a zip
    assert (e["state"], e["reason"]) == ("excluded", "secret: its name matches 'id_rsa' ([scan] secret_files)")
    problems = dict(rep.problems)
    assert "unknown kind" in problems[deck + MEMBER_SEP + "embeddings/oleObject2.bin"]
    assert "unknown kind (Equation.3)" in problems[letter + MEMBER_SEP + "ObjectPool/_4"]
    assert not any(p.startswith(str(documents / "plain.pdf") + MEMBER_SEP) for p in problems)
    # a document of no text holding a file is indexed by what it holds, not "no text found" beside its found member
    bare = str(documents / "bare.pptx")
    assert bare not in problems and tiny_library.explain(bare)["state"] == "indexed", problems.get(bare)
    assert _top(tiny_library, "narwhal horn") == bare + MEMBER_SEP + "embeddings/Sheet2.csv"


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


def _word(text: str) -> dict[str, bytes]:
    from legacy_office_files import word_stream

    word, table = word_stream([(text, True)])
    return {"WordDocument": word, "1Table": table}


def _objects(tmp_path: Path, animal: str) -> dict[str, dict[str, bytes]]:
    """Five embedded objects, each its streams: a packaged text file, an Acrobat document, a Word 97 document (each
    about `animal`), an equation and a Microsoft Graph chart (no file: named, not read)."""
    from legacy_office_files import compobj, graph_stream, ole10_native

    census = f"The {animal} census of the fjord.\n".encode()
    return {"1": {"\x01CompObj": compobj("Package"), "\x01Ole10Native": ole10_native("census-北極.txt", census)},
            "2": {"\x01CompObj": compobj("AcroExch.Document.11"), "CONTENTS": _pdf_bytes(tmp_path, f"{animal} ledger")},
            "3": {"\x01CompObj": compobj("Word.Document.8"), **_word(f"Minutes about the {animal} sanctuary.")},
            "4": {"\x01CompObj": compobj("Equation.3"), "Equation Native": b"\0" * 16},
            "5": {"\x01CompObj": compobj("MSGraph.Chart.8"), "Workbook": graph_stream()}}


def _legacy(tmp_path: Path, kind: str, animal: str = "narwhal") -> Path:
    """A .doc (ObjectPool storages), .xls (MBD storages), .ppt (ExOleObjStg records) or .rtf (objdata groups) holding
    the four objects of _objects."""
    from legacy_office_files import ppt_object, ppt_stream, rtf_object, workbook_stream

    objects = _objects(tmp_path, animal)
    if kind == ".doc":
        streams = {**_word("The cover letter."),
                   **{f"ObjectPool/_{k}/{s}": v for k, obj in objects.items() for s, v in obj.items()}}
    elif kind == ".xls":
        streams = {"Workbook": workbook_stream({"Sheet1": [["cover cell"]]}).ljust(4096, b"\0"),
                   **{f"MBD0000000{k}/{s}": v for k, obj in objects.items() for s, v in obj.items()}}
    elif kind == ".ppt":
        records = b"".join(ppt_object(cfb(obj), compressed=k != "2") for k, obj in objects.items())
        streams = {"PowerPoint Document": ppt_stream(["The cover slide."], extra=records), "Current User": b"\0" * 20}
    else:
        package = objects["1"]["\x01Ole10Native"][4:]  # OLE 1.0 holds the stream's body, without its size
        # the Acrobat document's data as raw bytes after \bin (its "}" bytes close nothing), the others' in hex
        groups = [rtf_object("Package", package), rtf_object("AcroExch.Document.11", cfb(objects["2"]), binary=True),
                  rtf_object("Word.Document.8", cfb(objects["3"])), rtf_object("Equation.3", cfb(objects["4"])),
                  rtf_object("MSGraph.Chart.8", cfb(objects["5"]))]
        path = tmp_path / "cover.rtf"
        path.write_bytes(b"{\\rtf1\\ansi The cover letter.\\par " + b"".join(groups) + b"}")
        return path
    path = tmp_path / f"cover{kind}"
    path.write_bytes(cfb(streams))
    return path


_STEMS = {".doc": "ObjectPool/_", ".xls": "MBD0000000", ".ppt": "oleObject", ".rtf": "oleObject"}


@pytest.mark.parametrize("kind", [".doc", ".xls", ".ppt", ".rtf"])
def test_a_legacy_documents_ole_objects_are_its_members(tmp_path, kind):
    """Word, Excel, PowerPoint 97-2003 and RTF: a packaged file by its own name, an Acrobat document's PDF (in the RTF
    written as raw bytes after \\bin, where it was a note "not hex"), an embedded Word document (in a .doc or .xls a storage, written out as a compound file of its own) each read by its reader;
    an equation named with its class, not read; a Microsoft Graph chart named as a chart, not failed as a corrupt
    Excel file (its Workbook stream is a chart's). The document's own text stays its reader's."""
    from searchapp.ingest.extractors import extract
    from searchapp.ingest.extractors.embedded import holds_files

    doc = _legacy(tmp_path, kind)
    assert holds_files(doc) and "cover" in extract(doc, 2**20).text
    got = {m.name: m for m in iter_members(doc, 2**20)}
    stem = _STEMS[kind]
    assert list(got) == [f"{stem}1/census-北極.txt", f"{stem}2.pdf", f"{stem}3.doc", f"{stem}4", f"{stem}5"], list(got)
    assert got[f"{stem}1/census-北極.txt"].data == b"The narwhal census of the fjord.\n"
    assert got[f"{stem}4"].data is None and got[f"{stem}4"].reason == (
        "embedded object of an unknown kind (Equation.3): not read")
    assert got[f"{stem}5"].data is None and got[f"{stem}5"].reason == "Microsoft Graph chart (MSGraph.Chart.8): not read"
    for name, word in ((f"{stem}2.pdf", "narwhal ledger"), (f"{stem}3.doc", "narwhal sanctuary")):
        copy = tmp_path / ("member" + name[-4:])
        copy.write_bytes(got[name].data or b"")
        assert word in extract(copy, 2**20).text
    plain = tmp_path / f"plain{kind}"
    plain.write_bytes(b"{\\rtf1 plain}" if kind == ".rtf" else cfb({"WordDocument": b"\0" * 64}))
    assert not holds_files(plain)


@pytest.mark.parametrize("kind", [".doc", ".ppt"])
def test_a_documents_objects_are_read_to_a_cap_and_the_rest_said(tmp_path, monkeypatch, kind):
    """olefile finds a name among its siblings one by one: a reviewer's .doc of 2,000 objects took 4.9 s (1.9 s once
    the directory was listed once). At most MAX_OBJECTS objects are read; the rest is said, as an archive's is."""
    from searchapp.ingest.extractors import ole_embedded

    monkeypatch.setattr(ole_embedded, "MAX_OBJECTS", 2)
    got = [(m.name, m.reason) for m in iter_members(_legacy(tmp_path, kind), 2**20)]
    stem = _STEMS[kind]
    assert [n for n, _ in got] == [f"{stem}1/census-北極.txt", f"{stem}2.pdf", "…"], got
    assert got[-1][1] == "only the first 2 embedded objects read"


@pytest.mark.parametrize("damage", ["corrupt zlib", "said too large", "inflates past its size", "not hex",
                                    "hex too large", "bin too large", "bin past the end", "storage too large",
                                    "linked", "broken walk"])
def test_a_bad_embedded_object_is_a_note_beside_the_others(tmp_path, monkeypatch, damage):
    """One object that cannot be read (a damaged record, one over the caps, hex that is not, a linked file, a walk
    that breaks) is a member skipped with its reason, never inflated past the cap; the others are read."""
    from legacy_office_files import ole10_native, ppt_object, ppt_stream, record, rtf_object

    good = {"\x01Ole10Native": ole10_native("kept.txt", b"kept\n")}
    kind = (".ppt" if damage in ("corrupt zlib", "said too large", "inflates past its size")
            else ".doc" if "storage" in damage else ".rtf")
    if damage == "corrupt zlib":
        bad = record(0x1011, struct.pack("<I", 100) + b"\x78\x9c not zlib", instance=1)
    elif damage == "said too large":  # 4 GB said, a small zlib bomb in fact: never inflated
        bad = record(0x1011, struct.pack("<I", 0xFFFFFFFF) + zlib.compress(b"\0" * 2**20), instance=1)
    elif damage == "inflates past its size":  # a Word document, then 1 MB of zeros its size does not count: cut
        word = cfb(_word("Cover letter."))
        bad = record(0x1011, struct.pack("<I", len(word)) + zlib.compress(word + b"\0" * 2**20), instance=1)
    if kind == ".ppt":
        stream = ppt_stream(["Cover slide."], extra=bad + ppt_object(cfb(good)))
        data = cfb({"PowerPoint Document": stream, "Current User": b"\0" * 20})
    elif kind == ".doc":
        data = cfb({**_word("Cover letter."), "ObjectPool/_1/Package": b"\0" * 70_000,
                    **{f"ObjectPool/_2/{s}": v for s, v in good.items()}})
    else:
        bad_group = {"not hex": b"{\\object{\\*\\objdata 0105{\\*\\junk 0105}}}",
                     "hex too large": rtf_object("Package", b"\0" * 40_000),
                     "bin too large": rtf_object("Package", b"\0" * 40_000, binary=True),
                     "bin past the end": b"{\\object{\\*\\objdata 0105\\bin99999 ab}}",
                     "linked": rtf_object("Word.Document.8", b"", linked=True),
                     "broken walk": b""}[damage]
        kept = rtf_object("Package", good["\x01Ole10Native"][4:])
        # past the end, a \bin run holds the rest of the file: an object after it is none, so it comes first here
        groups = kept + bad_group if damage == "bin past the end" else bad_group + kept
        data = b"{\\rtf1 Cover letter. " + groups + b"}"
    doc = tmp_path / f"cover{kind}"
    doc.write_bytes(data)
    if damage == "broken walk":  # an object whose reading breaks unforeseen: a note, the files before it kept
        from searchapp.ingest.extractors import rtf_objects

        monkeypatch.setattr(rtf_objects, "ole10_native", lambda *a: (_ for _ in ()).throw(IndexError("x")))
    # an RTF object's hex is twice its bytes, and the RTF within the file cap: the container's budget is what it meets
    caps = {"max_total": 30_000} if damage in ("hex too large", "bin too large") else {}
    got = [(m.name, m.data, m.reason) for m in iter_members(doc, 50_000 if not caps else 200_000, **caps)]
    if damage == "inflates past its size":
        assert got[0] == ("oleObject1.doc", word, "") and got[1][1] == b"kept\n", got
        return
    if damage == "broken walk":
        assert got == [("…", None, "the rest of its embedded objects not read: broken structure (IndexError)")]
        return
    if damage == "bin past the end":
        got.reverse()
    why = {"corrupt zlib": "could not be decompressed", "said too large": "too large", "not hex": "neither hex nor",
           "hex too large": "budget", "bin too large": "budget", "bin past the end": "runs past the end of the file",
           "storage too large": "too large", "linked": "not read"}[damage]
    assert len(got) == 2 and got[0][1] is None and why in got[0][2], got
    assert got[1][0].endswith("/kept.txt") and got[1][1] == b"kept\n", got


def test_a_pdf_is_read_once_for_its_hash_and_whether_it_holds_files(tiny_library, tmp_path, monkeypatch):
    """The read that hashes a PDF tells whether it holds files (decision 0203): a PDF holding none was read three
    times (its hash, the byte scan for attached files, its reader), one holding files six (the scan again for
    the container's kind, and for its members' walk, which opened it once more)."""

    monkeypatch.setenv("SEARCHAPP_OCR_ENGINE", "none")  # a short page waits for OCR: no step reads it here
    d = tmp_path / "docs"
    d.mkdir()
    write_pdf(d / "plain.pdf", ["A plain page about marzipan."])
    write_pdf(d / "invoice.pdf", ["Invoice for the harpsichord tuning."])
    _attach(d / "invoice.pdf", {"data.csv": b"item,price\nquillwort seedlings,12\n"})
    with files_opened() as opened:
        rep = tiny_library.add_folder(d, embed=False)
    assert rep.failed == 0 and rep.members == 1, rep
    assert _top(tiny_library, "quillwort seedlings") == str(d / "invoice.pdf") + MEMBER_SEP + "data.csv"
    # each: its hash (the bytes kept, within the file cap) and its reader's own opening
    assert (opened.count(str(d / "plain.pdf")), opened.count(str(d / "invoice.pdf"))) == (2, 2), opened


class _Whiteboard:
    """Stands in for an OCR engine: every page reads as the same line (the engine is not what is tested)."""

    name = "stub"

    def recognize(self, image, cancel=None) -> str:
        return "Whiteboard notes about capybaras and their burrows"


def _an_ocrd_scan_holding_a_file(lib, tmp_path, monkeypatch) -> str:
    """docs/scan.pdf: a page with no text layer (read by a stand-in OCR engine) and an attached agenda.txt, indexed
    by a version that did not read attached files."""
    from fpdf import FPDF
    from PIL import Image
    from pypdf import PdfWriter

    from searchapp.ingest.extractors import members
    from searchapp.library.ocr import step

    monkeypatch.setattr(step, "available_engine", lambda: _Whiteboard())
    d = tmp_path / "docs"
    d.mkdir()
    Image.new("RGB", (64, 64), "white").save(tmp_path / "page.png")
    pdf = FPDF(unit="mm", format=(60, 60))
    pdf.add_page()
    pdf.image(str(tmp_path / "page.png"), x=0, y=0, w=60, h=60)  # no text layer
    pdf.output(str(d / "scan.pdf"))
    w = PdfWriter(clone_from=str(d / "scan.pdf"))
    w.add_attachment("agenda.txt", b"Agenda: the pangolin exhibit.\n")
    with open(d / "scan.pdf", "wb") as fh:
        w.write(fh)
    with monkeypatch.context() as m:  # the version before: attachments not read
        m.setattr(members, "holds_files", lambda *a: False)
        lib.add_folder(d)
    scan = str(d / "scan.pdf")
    return scan


def test_a_scans_attached_files_are_read_by_the_first_sync_of_a_newer_reader(tiny_library, tmp_path, monkeypatch):
    """A PDF whose text came from OCR is read again by the OCR step, not by the words pass, and that step reads no
    attached files: a newer PDF reader's files came only with the scan's next change (decision 0189's "Left").
    Now the words pass reads its files alone, and its OCR'd text stays as it was (decision 0203)."""


    scan = _an_ocrd_scan_holding_a_file(tiny_library, tmp_path, monkeypatch)
    assert tiny_library.explain(scan)["state"] == "ocr_done"
    assert not tiny_library.search("pangolin exhibit", mode="lexical").hits
    a_newer_reader(monkeypatch, "pdf")
    rep = tiny_library.sync()
    assert rep.members == 1 and rep.added == 1 and rep.chunks_removed == 0, rep  # its OCR'd passage kept, not read
    assert _top(tiny_library, "pangolin exhibit") == scan + MEMBER_SEP + "agenda.txt"
    assert _top(tiny_library, "capybaras burrows") == scan
    assert tiny_library.sync().members == 1  # then kept as read: counted, not read again


def test_a_scan_holding_no_files_is_looked_at_once_for_them(tiny_library, tmp_path, monkeypatch, make_config):
    """An OCR'd PDF an older reader read, holding no files, is read for them by the first sync of the newer reader
    alone: with OCR off (or its text not in the OCR cache) nothing reads its own text again, its row kept the older
    reader, and every sync hashed it whole once more, for ever."""
    from fpdf import FPDF
    from PIL import Image

    from searchapp.ingest import scan as scan_module
    from searchapp.library.ocr import step

    monkeypatch.setattr(step, "available_engine", lambda: _Whiteboard())
    monkeypatch.setattr(scan_module, "RACY_NS", 0)  # none "just written": the next sync keeps them unread, as at home
    d = tmp_path / "docs"
    d.mkdir()
    Image.new("RGB", (64, 64), "white").save(tmp_path / "page.png")
    pdf = FPDF(unit="mm", format=(60, 60))
    pdf.add_page()
    pdf.image(str(tmp_path / "page.png"), x=0, y=0, w=60, h=60)  # no text layer, no files
    pdf.output(str(d / "scan.pdf"))
    tiny_library.add_folder(d)
    scan = str(d / "scan.pdf")
    assert tiny_library.explain(scan)["state"] == "ocr_done"
    a_newer_reader(monkeypatch, "pdf")
    tiny_library.config = make_config(models={"reranker": ""}, scan={"ocr": False})
    with files_opened() as first:
        rep = tiny_library.sync()
    assert rep.unchanged == 1 and rep.failed == 0, rep
    assert first.count(scan) == 1, first  # looked at for its files once
    with files_opened() as second:
        rep = tiny_library.sync()
    assert rep.unchanged == 1, rep
    assert second.count(scan) == 0, second
    assert _top(tiny_library, "capybaras burrows") == scan


def test_a_scans_files_failing_to_read_leave_its_ocrd_text_as_it_was(tiny_library, tmp_path, monkeypatch):
    """The members-only read of an OCR'd PDF (decision 0203) that fails to walk its files keeps the scan's own
    entry: it was recorded failed, its OCR'd passages dropped (no later sync read them back: a failed PDF is read
    in full, not by the OCR step), and counted twice, failed and unchanged."""

    from searchapp.base.errors import ExtractionError
    from searchapp.library.sync import members as sync_members

    scan = _an_ocrd_scan_holding_a_file(tiny_library, tmp_path, monkeypatch)
    a_newer_reader(monkeypatch, "pdf")

    def broken(*args, **kwargs):
        raise ExtractionError("broken attachment tree")
        yield

    monkeypatch.setattr(sync_members, "iter_members", broken)
    rep = tiny_library.sync()
    assert (rep.failed, rep.unchanged, rep.scanned) == (0, 1, 1), rep
    assert any(p == scan and "broken attachment tree" in why for p, why in rep.problems), rep.problems
    assert tiny_library.explain(scan)["state"] == "ocr_done"
    assert _top(tiny_library, "capybaras burrows") == scan
