"""Extractors on real files written by the tests: text encodings, HTML, PDF, DOCX, ODT, EPUB, hostile input."""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchapp.base.errors import ExtractionError, UnsupportedFileError
from searchapp.ingest.extractors import extract, extractor_name, supported_suffixes
from searchapp.ingest.extractors import registry
from searchapp.ingest.extractors.epub import resolve_href
from searchapp.ingest.extractors.html import html_to_text
from work_done import inflated_bytes


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


class OpenRecorder:
    """Records paths opened through Python's audit events while active (hooks cannot be removed)."""

    active: list[str] | None = None
    installed = False

    def __enter__(self) -> list[str]:
        if not OpenRecorder.installed:
            sys.addaudithook(OpenRecorder._hook)
            OpenRecorder.installed = True
        OpenRecorder.active = []
        return OpenRecorder.active

    def __exit__(self, *exc: object) -> None:
        OpenRecorder.active = None

    @staticmethod
    def _hook(event: str, args: tuple) -> None:
        if OpenRecorder.active is not None and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            OpenRecorder.active.append(os.fsdecode(args[0]))


# --------------------------------------------------------------------------- registry

def test_registry_suffixes_and_names() -> None:
    suffixes = supported_suffixes()
    for s in (".txt", ".md", ".py", ".xml", ".html", ".pdf", ".docx", ".odt", ".epub", ".json"):
        assert s in suffixes
    assert all(s.startswith(".") and s == s.lower() for s in suffixes)
    assert ".jpg" not in suffixes
    assert extractor_name(Path("A.PDF")) == "pdf"
    assert extractor_name("x.Md") == "text"
    assert extractor_name(Path("page.xhtml")) == "html"
    assert extractor_name(Path("photo.jpg")) is None
    assert extractor_name(Path("Makefile")) is None


def test_unsupported_suffix(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFileError, match=r"\.jpg"):
        extract(write(tmp_path / "a.jpg", b"\xff\xd8\xff"))


def test_missing_file_is_extraction_error(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match="cannot read"):
        extract(tmp_path / "missing.txt")


def test_size_cap(tmp_path: Path) -> None:
    path = write(tmp_path / "big.txt", "word " * 1000)
    with pytest.raises(ExtractionError, match="too large"):
        extract(path, max_bytes=100)
    assert extract(path, max_bytes=10_000).text.startswith("word")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos")
def test_fifo_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(UnsupportedFileError, match="regular"):
        extract(fifo)  # opening it would block forever


@pytest.mark.parametrize("exc", [ValueError("boom"), KeyError("k"), MemoryError(), RecursionError(), AssertionError()])
def test_library_exceptions_are_wrapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    def broken(path: Path, max_bytes: int):
        raise exc

    monkeypatch.setitem(registry._BY_NAME, "text", (frozenset({".txt"}), broken))
    with pytest.raises(ExtractionError) as info:
        extract(write(tmp_path / "a.txt", "hello"))
    assert type(info.value) is ExtractionError
    assert str(info.value)


# --------------------------------------------------------------------------- text and encodings

SAMPLE = "Größe naïve café — “quoted” € 日本語 ✓\nsecond line\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
def test_unicode_encodings_with_bom(tmp_path: Path, encoding: str) -> None:
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00", "utf-32-be": b"\x00\x00\xfe\xff"}
    data = bom.get(encoding, b"") + SAMPLE.encode(encoding)
    doc = extract(write(tmp_path / "a.txt", data))
    assert doc.text == SAMPLE
    assert doc.kind == "text"


def test_latin1_and_cp1252(tmp_path: Path) -> None:
    french = "Le café est très chaud, naïve résumé à la française. Où est la bibliothèque? Ça va être génial! " * 3
    assert extract(write(tmp_path / "l1.txt", french.encode("latin-1"))).text == french
    smart = french + "“Smart quotes” – a dash, 5 € and … an ellipsis."
    assert extract(write(tmp_path / "w.txt", smart.encode("cp1252"))).text == smart
    short = "Grüße aus Köln"
    assert extract(write(tmp_path / "s.txt", short.encode("latin-1"))).text == short


@pytest.mark.parametrize("encoding,text", [
    ("cp1251", "Привет, как дела? Это тестовый текст на русском языке. " * 3),
    ("shift_jis", "これは日本語のテキストです。検索エンジンのテスト。" * 3),
    # one line of cp1252 (decision 0179): the detector said Mac Central European ("cafť ťtait") and Cyrillic
    ("cp1252", "Le café était très bon, merci à vous. Déjà vu.\n"),
    ("cp1252", "“Smart” – 5 €"),
])
def test_other_legacy_encodings(tmp_path: Path, encoding: str, text: str) -> None:
    assert extract(write(tmp_path / "a.txt", text.encode(encoding))).text == text


@pytest.mark.parametrize("data,text", [
    # an invoice typed in cp1252 with its euro sign pasted in as UTF-8: read as cp1252 whole it was "234,50 â‚¬"
    ("Rechnung Nr. 4711\nBetrag: 234,50 ".encode("cp1252") + "€".encode() + "\nFällig am 15.02. – bitte "
     "überweisen\n".encode("cp1252"), "Rechnung Nr. 4711\nBetrag: 234,50 €\nFällig am 15.02. – bitte überweisen\n"),
    ("Café ".encode() + "crème brûlée, 5 €".encode("cp1252"), "Café crème brûlée, 5 €"),
    # cp1252 alone whose "ß“" is a UTF-8 sequence (U+07D3, no Latin letter): still read as cp1252
    ("Grüße vom „Fuß“ des Bergs, schön.".encode("cp1252"), "Grüße vom „Fuß“ des Bergs, schön."),
    (("Ein Brief. " * 7000 + "Grüße vom „Fuß“").encode("cp1252"), "Ein Brief. " * 7000 + "Grüße vom „Fuß“"),
    # Russian in cp1251 whose "Вё" is a UTF-8 sequence ("¸"): its other bytes read as cp1252 are no Western text
    (("Привет, как дела? Вёрстка готова. " * 3).encode("cp1251"), "Привет, как дела? Вёрстка готова. " * 3),
])
def test_utf8_among_cp1252_is_read_as_each_part_was_written(tmp_path: Path, data: bytes, text: str) -> None:
    assert extract(write(tmp_path / "a.txt", data)).text == text


def test_newlines_normalised_and_nul_stripped(tmp_path: Path) -> None:
    doc = extract(write(tmp_path / "a.md", b"one\r\ntwo\rthree\n"))
    assert doc.text == "one\ntwo\nthree\n"
    doc = extract(write(tmp_path / "b.txt", b"\xff\xfe" + "a\x00b, then an ordinary line\r\n".encode("utf-16-le")))
    assert doc.text == "ab, then an ordinary line\n"


def test_empty_text_file(tmp_path: Path) -> None:
    assert extract(write(tmp_path / "empty.txt", b"")).text == ""


def test_source_code_and_xml_are_text(tmp_path: Path) -> None:
    assert "def f" in extract(write(tmp_path / "m.py", "def f():\n    return 1\n")).text
    xml = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "boom">]><r>&e;</r>'
    assert extract(write(tmp_path / "d.xml", xml)).text == xml  # never parsed: entities stay text


@pytest.mark.parametrize("data", [
    bytes(range(256)) * 40,  # NULs
    b"PK\x03\x04" + b"\x00" * 100 + b"text",
    bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 65, 66]) * 600,  # control bytes, no NUL
    b"\xff\xfe" + bytes([1, 0, 2, 0, 3, 0, 4, 0]) * 500,  # UTF-16 BOM, control characters
])
def test_binary_behind_text_suffix(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(UnsupportedFileError, match="binary"):
        extract(write(tmp_path / "bin.txt", data))


# --------------------------------------------------------------------------- HTML

PAGE = """<!DOCTYPE html>
<html><head><title>The  Title</title>
<meta charset="utf-8"><style>body { color: red } .hidden-style {}</style>
<script>var secretScript = "do not index";</script></head>
<body>
<noscript>noscript text</noscript><template><p>template text</p></template>
<svg><title>svg title</title><text>svg text</text></svg>
<h1>Heading &amp; more</h1>
<p>First   paragraph
   spans lines with&nbsp;entities &eacute;&#8212;done.</p>
<div>Second <b>bold</b><i>italic</i> paragraph<br>after break</div>
<ul><li>item one</li><li>item two</li></ul>
<table><tr><td>cell a</td><td>cell b</td></tr></table>
<pre>  code
    indented</pre>
<iframe src="https://example.com/">iframe text</iframe>
<script>document.write("late script")</script>
<p>Unclosed paragraph <span>and span
</body></html>"""


def test_html_visible_text_only(tmp_path: Path) -> None:
    doc = extract(write(tmp_path / "page.html", PAGE))
    text = doc.text
    assert doc.kind == "html"
    for hidden in ("secretScript", "color: red", "noscript text", "template text", "svg", "iframe text", "late script"):
        assert hidden not in text
    lines = text.split("\n")
    assert lines[0] == "The Title"
    assert "Heading & more" in lines
    assert "First paragraph spans lines with\xa0entities é—done." not in text  # nbsp collapses to a space
    assert "First paragraph spans lines with entities é—done." in lines
    assert "Second bolditalic paragraph" in lines and "after break" in lines
    assert "item one" in lines and "item two" in lines
    assert "cell a cell b" in lines
    assert "  code\n    indented" in text
    assert "Unclosed paragraph and span" in text
    # Paragraphs survive as blank lines, which the chunker cuts at first.
    assert "Heading & more\n\nFirst paragraph" in text
    assert html_to_text(PAGE, title=False).startswith("Heading & more")


def test_html_end_tag_with_something_after_its_name_ends_the_script() -> None:
    """`</script language>` (Tika's testHTMLBadScript.html): a browser ends the script there and shows the page;
    the whole page was lost as script."""
    markup = "<html><head><script>var a=1;</script language>\n</head><body><p>Giraffes sleep standing up.</p></body>"
    assert html_to_text(markup) == "Giraffes sleep standing up."
    assert html_to_text("<style>p {}</style\nmedia=x><p>shown</p>") == "shown"


def test_html_declared_charset(tmp_path: Path) -> None:
    markup = '<html><head><meta charset="windows-1252"></head><body><p>caf\xe9 \x93quoted\x94</p></body></html>'
    doc = extract(write(tmp_path / "a.htm", markup.encode("latin-1")))
    assert doc.text == "café “quoted”"


@pytest.mark.parametrize("markup", ["", "<", "<p", "</div></div>", "<script>", "<<<>>>", "<!-- open comment", "&#xffffffff; &bogus;", "<svg/>text after"])
def test_html_broken_markup_never_fails(markup: str) -> None:
    html_to_text(markup)
    assert html_to_text("<svg/>text after") == "text after"


# --------------------------------------------------------------------------- PDF

def make_pdf(path: Path, pages: list[str], **encryption: str) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 10, text)
    if encryption:
        pdf.set_encryption(**encryption)
    pdf.output(str(path))
    return path


def test_pdf_pages(tmp_path: Path) -> None:
    pages = ["Alpha page talks about apples.\nSecond line.", "Beta page talks about bananas.", "Gamma page talks about cherries."]
    doc = extract(make_pdf(tmp_path / "three.pdf", pages))
    assert doc.kind == "pdf"
    assert [p.page for p in doc.pages] == [1, 2, 3]
    for span, word in zip(doc.pages, ("apples", "bananas", "cherries"), strict=True):
        page_text = doc.text[span.start:span.end]
        assert word in page_text
        assert doc.page_at(span.start + page_text.index(word)) == span.page
    assert doc.pages[1].start == doc.pages[0].end + 2  # pages joined by a blank line
    assert doc.text[doc.pages[0].end:doc.pages[1].start] == "\n\n"
    assert doc.pages[-1].end == len(doc.text)


def test_pdf_encrypted(tmp_path: Path) -> None:
    locked = make_pdf(tmp_path / "locked.pdf", ["secret text"], owner_password="owner", user_password="user")
    with pytest.raises(UnsupportedFileError, match="^encrypted: password-protected, not indexed$"):
        extract(locked)
    # Owner password only: readable with the empty user password.
    open_pdf = make_pdf(tmp_path / "open.pdf", ["readable text"], owner_password="owner")
    assert "readable text" in extract(open_pdf).text


def test_pdf_corrupt(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", ["some text"]).read_bytes()
    cases = {
        "garbage.pdf": b"this is not a pdf at all",
        "empty.pdf": b"",
        "header.pdf": b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog",
        "truncated.pdf": good[: len(good) // 3],
    }
    for name, data in cases.items():
        with pytest.raises(ExtractionError):
            extract(write(tmp_path / name, data))


# --------------------------------------------------------------------------- DOCX

def test_docx(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("Quarterly Report", level=1)
    d.add_paragraph("Revenue grew strongly this quarter.")
    p = d.add_paragraph("Name:")
    run = p.add_run()
    run.add_tab()
    run.add_text("Ada")
    run.add_break()
    run.add_text("next line")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "cell one"
    table.cell(1, 1).text = "cell four"
    d.add_paragraph("")
    d.add_paragraph("Closing words.")
    path = tmp_path / "report.docx"
    d.save(str(path))
    doc = extract(path)
    assert doc.kind == "docx"
    assert doc.text.split("\n\n") == [
        "Quarterly Report", "Revenue grew strongly this quarter.", "Name:\tAda\nnext line",
        "cell one", "cell four", "Closing words.",
    ]


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def make_docx(path: Path, document_xml: str | bytes, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>')
        z.writestr("word/document.xml", document_xml)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


def test_docx_handmade_with_textbox_and_footnotes(tmp_path: Path) -> None:
    body = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="{W_NS}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">
<w:body>
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t xml:space="preserve">Hello </w:t></w:r><w:r><w:t>world</w:t></w:r></w:p>
<w:p><w:r><mc:AlternateContent><mc:Choice><w:txbxContent><w:p><w:r><w:t>box text</w:t></w:r></w:p></w:txbxContent></mc:Choice>
<mc:Fallback><w:txbxContent><w:p><w:r><w:t>box text</w:t></w:r></w:p></w:txbxContent></mc:Fallback></mc:AlternateContent></w:r></w:p>
<w:p><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:t>kept</w:t></w:r></w:p>
</w:body></w:document>"""
    notes = f'<w:footnotes xmlns:w="{W_NS}"><w:footnote w:id="1"><w:p><w:r><w:t>A footnote.</w:t></w:r></w:p></w:footnote></w:footnotes>'
    doc = extract(make_docx(tmp_path / "h.docx", body, {"word/footnotes.xml": notes.encode()}))
    assert doc.text == "Hello world\n\nbox text\n\nkept\n\nA footnote."


def test_docx_comments_and_imported_html_and_rtf_parts_are_read(tmp_path: Path) -> None:
    """A reviewer's comments and a file Word imported whole (w:altChunk) were not read, so a document made only of
    them counted as empty (POI's comment.docx, Tika's testAltChunkHTML.docx); an imported web page saved as one file
    (MHT, Tika's testAltChunkMHT.docx) was left out: "no text found"."""
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    body = (f'<w:document xmlns:w="{W_NS}" xmlns:r="{rel}"><w:body><w:p><w:r><w:t>Main text</w:t></w:r></w:p>'
            '<w:altChunk r:id="rId7"/><w:altChunk r:id="rId8"/><w:altChunk r:id="rId10"/></w:body></w:document>')
    comments = (f'<w:comments xmlns:w="{W_NS}"><w:comment w:id="0"><w:p><w:r><w:t>Check the quarterly figures'
                '</w:t></w:r></w:p></w:comment></w:comments>')
    rels = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId7" Type="{rel}/aFChunk" Target="afchunk.htm"/>'
            f'<Relationship Id="rId8" Type="{rel}/aFChunk" Target="afchunk2.rtf"/>'
            f'<Relationship Id="rId9" Type="{rel}/aFChunk" Target="http://example.com/x.htm" TargetMode="External"/>'
            f'<Relationship Id="rId10" Type="{rel}/aFChunk" Target="htmlDoc.mht"/>'
            '</Relationships>')
    mht = (b'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="B"\r\n\r\n--B\r\n'
           b'Content-Type: text/html; charset="windows-1252"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
           b'<html><head><title>MHT import</title></head><body><p>A web page saved whole, caf=E9 au lait=\r\n'
           b'</p></body></html>\r\n--B--\r\n')
    doc = extract(make_docx(tmp_path / "c.docx", body, {
        "word/comments.xml": comments.encode(), "word/_rels/document.xml.rels": rels.encode(),
        "word/afchunk.htm": b"<html><head><title>HTML import</title><script>x()</script></head>"
                            b"<body><p>Imported <b>paragraph</b></p></body></html>",
        "word/afchunk2.rtf": rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard Pasted rich text\par}",
        "word/htmlDoc.mht": mht}))
    assert doc.text == ("Main text\n\nCheck the quarterly figures\n\nImported paragraph\n\nPasted rich text\n\n"
                        "A web page saved whole, café au lait")


def test_docx_with_a_broken_relationships_part_keeps_its_own_text(tmp_path: Path) -> None:
    body = f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>Main text</w:t></w:r></w:p></w:body></w:document>'
    doc = extract(make_docx(tmp_path / "r.docx", body, {"word/_rels/document.xml.rels": b"<Relationships><broken"}))
    assert doc.text == "Main text"


def test_docx_not_a_zip_or_missing_part(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match="corrupt zip"):
        extract(write(tmp_path / "a.docx", b"plain text pretending"))
    path = tmp_path / "b.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("something.xml", "<x/>")
    with pytest.raises(ExtractionError, match="document.xml missing"):
        extract(path)
    with pytest.raises(ExtractionError, match="corrupt XML"):
        extract(make_docx(tmp_path / "c.docx", "<w:document><unclosed"))


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A docx whose document.xml inflates to 300 MB of zeros (~300 KB on disk), written streaming."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.docx"
    block = b"\x00" * 2**20
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as fh:
            for _ in range(300):
                fh.write(block)
    return path


def test_zip_bomb_rejected_quickly(zip_bomb: Path) -> None:
    assert zip_bomb.stat().st_size < 2 * 2**20
    with inflated_bytes() as got, pytest.raises(ExtractionError, match="zip bomb"):
        extract(zip_bomb)
    assert got[0] < 2**20  # refused from the directory's sizes, before inflating what the bomb holds (300 MB)


def test_zip_ratio_judged_on_the_parts_read(tmp_path: Path) -> None:
    """An embedded object's preview (an EMF of mostly blank pixels, 130:1 in a real Tika file) is never read:
    the document's text is. The part that is read and compresses like a bomb is refused before inflating."""
    body = (f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>Here is the pdf file</w:t></w:r></w:p>'
            "</w:body></w:document>")
    blank = b"\x00" * (2 * 2**20)  # ~1000:1, over the floor the ratio applies to
    doc = extract(make_docx(tmp_path / "embedded.docx", body, {"word/media/image1.emf": blank}))
    assert doc.text == "Here is the pdf file"
    padded = body.replace("</w:body>", "<!--" + " " * (2 * 2**20) + "--></w:body>")
    with inflated_bytes() as got, pytest.raises(ExtractionError, match="zip bomb: word/document.xml compresses"):
        extract(make_docx(tmp_path / "bomb.docx", padded))
    assert got[0] < 2**20  # refused from the directory's sizes, not after inflating it


def test_zip_with_too_many_members(tmp_path: Path) -> None:
    path = tmp_path / "many.docx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for i in range(10_001):
            z.writestr(f"m/{i}", b"")
    with pytest.raises(ExtractionError, match="zip bomb"):
        extract(path)


def test_docx_billion_laughs(tmp_path: Path) -> None:
    lol = f"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"""
    # refused at the document type declaration, before any entity is expanded (a billion 'lol's would be 3 GB)
    with pytest.raises(ExtractionError, match=r"unsafe XML: word/document.xml holds a document type declaration \(DTD\), never read"):
        extract(make_docx(tmp_path / "lol.docx", lol))


def test_docx_external_entity_reads_no_file(tmp_path: Path) -> None:
    secret = write(tmp_path / "secret.txt", "TOP-SECRET-CONTENT")
    xxe = f"""<?xml version="1.0"?>
<!DOCTYPE w [<!ENTITY xxe SYSTEM "file://{secret}">]>
<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>"""
    path = make_docx(tmp_path / "xxe.docx", xxe)
    with OpenRecorder() as opened:
        with pytest.raises(ExtractionError, match="unsafe XML") as info:
            extract(path)
    assert "TOP-SECRET" not in str(info.value)
    assert str(secret) not in opened
    assert str(path) in opened  # the recorder works


# --------------------------------------------------------------------------- ODT

def test_odt(tmp_path: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, LineBreak, List, ListItem, P, S, Span, Tab

    d = OpenDocumentText()
    d.text.addElement(H(outlinelevel=1, text="Chapter One"))
    p = P(text="Plain ")
    p.addElement(Span(text="spanned"))
    p.addText(" text")
    p.addElement(S(c=3))
    p.addText("after spaces")
    p.addElement(Tab())
    p.addText("tabbed")
    p.addElement(LineBreak())
    p.addText("new line")
    d.text.addElement(p)
    lst = List()
    for item in ("first item", "second item"):
        li = ListItem()
        li.addElement(P(text=item))
        lst.addElement(li)
    d.text.addElement(lst)
    table = Table(name="T")
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    row = TableRow()
    for cell_text in ("cell x", "cell y"):
        cell = TableCell()
        cell.addElement(P(text=cell_text))
        row.addElement(cell)
    table.addElement(row)
    d.text.addElement(table)
    path = tmp_path / "doc.odt"
    d.save(str(path))
    doc = extract(path)
    assert doc.kind == "odt"
    assert doc.text.split("\n\n") == [
        "Chapter One", "Plain spanned text   after spaces\ttabbed\nnew line",
        "first item", "second item", "cell x", "cell y",
    ]


def test_odt_hostile_space_count(tmp_path: Path) -> None:
    content = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
               '<text:p>a<text:s text:c="999999999"/>b</text:p></office:text></office:body></office:document-content>')
    path = tmp_path / "s.odt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content)
    assert len(extract(path).text) < 2000


# --------------------------------------------------------------------------- EPUB

def make_epub(path: Path, chapters: dict[str, str], spine: list[str], extra_items: str = "") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")  # stored, first
        z.writestr("META-INF/container.xml", """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>""")
        items = "".join(f'<item id="{cid}" href="text/{cid}.xhtml" media-type="application/xhtml+xml"/>' for cid in chapters)
        refs = "".join(f'<itemref idref="{cid}"/>' for cid in spine)
        z.writestr("OEBPS/content.opf", f"""<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Book</dc:title></metadata>
<manifest>{items}<item id="css" href="style.css" media-type="text/css"/>{extra_items}</manifest>
<spine>{refs}</spine></package>""")
        z.writestr("OEBPS/style.css", "body { color: black }")
        for cid, body in chapters.items():
            z.writestr(f"OEBPS/text/{cid}.xhtml", f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{cid}</title><script>var hidden = 1;</script></head>
<body>{body}</body></html>""")
        z.writestr("secret.xhtml", "<p>outside the OPF folder but inside the zip</p>")
    return path


def test_epub_spine_order(tmp_path: Path) -> None:
    chapters = {
        "ch1": "<h1>Chapter 1</h1><p>The whale surfaced.</p>",
        "ch2": "<h1>Chapter 2</h1><p>The ship sailed on.</p>",
    }
    extra = ('<item id="remote" href="https://example.com/evil.xhtml" media-type="application/xhtml+xml"/>'
             '<item id="escape" href="../../../etc/passwd" media-type="application/xhtml+xml"/>')
    path = make_epub(tmp_path / "book.epub", chapters, ["ch2", "remote", "escape", "ch1", "missing"], extra)
    doc = extract(path)
    assert doc.kind == "epub"
    assert doc.text == "Chapter 2\n\nThe ship sailed on.\n\nChapter 1\n\nThe whale surfaced."
    assert "hidden" not in doc.text


def test_epub_navigation_document_is_left_out_even_in_the_spine(tmp_path: Path) -> None:
    chapters = {"toc": "<nav epub:type='toc'><ol><li>Chapter 1</li><li>Contents page words</li></ol></nav>",
                "ch1": "<h1>Chapter 1</h1><p>The whale surfaced.</p>"}
    path = make_epub(tmp_path / "book.epub", chapters, ["toc", "ch1"])
    with zipfile.ZipFile(path, "a") as z:  # the same book, its first item marked as the navigation document
        opf = z.read("OEBPS/content.opf").decode().replace('<item id="toc"', '<item properties="nav" id="toc"')
    rebuilt = tmp_path / "nav.epub"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(rebuilt, "w") as dst:
        for info in src.infolist():
            if info.filename != "OEBPS/content.opf":
                dst.writestr(info, src.read(info.filename))
        dst.writestr("OEBPS/content.opf", opf)
    assert "Contents page words" in extract(path).text  # without the mark it is a chapter like any
    assert extract(rebuilt).text == "Chapter 1\n\nThe whale surfaced."


def test_epub_href_resolution() -> None:
    assert resolve_href("OEBPS", "text/a%20b.xhtml") == "OEBPS/text/a b.xhtml"
    assert resolve_href("OEBPS", "../other/c.xhtml#frag") == "other/c.xhtml"
    assert resolve_href("", "c.xhtml") == "c.xhtml"
    for bad in ("../../x.xhtml", "/etc/passwd", "http://example.com/a.xhtml", "file:///etc/passwd", "//host/a", ""):
        assert resolve_href("OEBPS", bad) is None


def test_epub_without_container(tmp_path: Path) -> None:
    path = tmp_path / "bare.epub"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("content.opf", '<package><manifest><item id="a" href="a.html" media-type="text/html"/></manifest>'
                                  '<spine><itemref idref="a"/></spine></package>')
        z.writestr("a.html", "<p>bare chapter</p>")
    assert extract(path).text == "bare chapter"
    with zipfile.ZipFile(tmp_path / "none.epub", "w") as z:
        z.writestr("a.html", "<p>no package</p>")
    with pytest.raises(ExtractionError, match="OPF"):
        extract(tmp_path / "none.epub")


# --------------------------------------------------------------------------- never anything but our errors

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000), suffix=st.sampled_from([".txt", ".html", ".pdf", ".docx", ".odt", ".epub"]))
def test_garbage_only_raises_extraction_errors(tmp_path: Path, data: bytes, suffix: str) -> None:
    path = write(tmp_path / f"garbage{suffix}", data)
    try:
        doc = extract(path)
    except ExtractionError:
        return
    assert isinstance(doc.text, str)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.floats(0.05, 0.95), suffix=st.sampled_from([".docx", ".epub"]))
def test_truncated_containers(tmp_path: Path, cut: float, suffix: str) -> None:
    if suffix == ".epub":
        full = make_epub(tmp_path / "full.epub", {"c": "<p>text</p>"}, ["c"]).read_bytes()
    else:
        full = make_docx(tmp_path / "full.docx", f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>').read_bytes()
    path = write(tmp_path / f"cut{suffix}", full[: int(len(full) * cut)])
    with pytest.raises(ExtractionError):
        extract(path)


def test_html_declared_latin1_but_utf8_bytes(tmp_path: Path) -> None:
    """A page saved as UTF-8 under a <meta> still saying iso-8859-1 (declared_latin1_is_utf8.html) read as
    mojibake ("âcurlyâ"): bytes that are valid UTF-8 are read as UTF-8; real Latin-1 keeps its charset."""
    for charset in ("iso-8859-1", "latin1", "windows-1252", "us-ascii"):
        markup = f'<html><head><meta charset="{charset}"></head><body><p>Emoji 😀 and “curly” café</p></body></html>'
        assert extract(write(tmp_path / "u.html", markup.encode("utf-8"))).text == "Emoji 😀 and “curly” café"
    latin = '<meta charset="iso-8859-1"><p>caf\xe9 \xc3\xa9t\xe9 na\xefve</p>'.encode("latin-1")  # "Ã©" is Latin-1 too
    assert extract(write(tmp_path / "l.html", latin)).text == "caf\xe9 \xc3\xa9t\xe9 na\xefve"
