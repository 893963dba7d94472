"""Every extractor fills Document.title with the file's own title, as plain text, and never with junk."""

from __future__ import annotations

import random
import string
import zipfile
from pathlib import Path

import pytest

from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors.headings import markdown_title, rst_title
from searchapp.ingest.extractors.title import MAX_TITLE, clean_title

DC = "http://purl.org/dc/elements/1.1/"


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


# --------------------------------------------------------------------------- clean_title

@pytest.mark.parametrize("junk", [
    "Microsoft Word - report.doc", "Microsoft PowerPoint - Talk", "untitled", "Untitled-3", "UNTITLED DOCUMENT",
    "Document1", "x.pdf", "thesis.tex", "Final version.docx", "main.dvi", "C:\\Users\\me\\report",
    "/home/me/notes", "", "   ", "----", "\x00\x01", None,
])
def test_junk_titles_are_empty(junk) -> None:
    assert clean_title(junk) == ""


def test_clean_title_plain_text() -> None:
    assert clean_title("  Annual\n\t report\x00\x07 2026 ") == "Annual report 2026"
    assert clean_title("Fish &amp; <b>Chips</b>") == "Fish & Chips"
    assert clean_title("&lt;script&gt;alert(1)&lt;/script&gt;Menu") == "alert(1) Menu"
    assert clean_title("\ufeffA \u202ereversed\u202c title") == "A reversed title"
    assert clean_title("Handling of .html files") == "Handling of .html files"  # a suffix, not a file name
    assert clean_title("AT&T 5 < 6") == "AT&T 5 < 6"
    assert clean_title("Eﬃcient ﬁle search") == "Efficient file search"  # folded as the text is (clean_text)


def test_clean_title_is_capped_at_a_word() -> None:
    title = clean_title("word " * 100)
    assert len(title) <= MAX_TITLE and title.endswith("word") and title.startswith("word word")
    assert len(clean_title("x" * 10_000_000)) == MAX_TITLE


# --------------------------------------------------------------------------- HTML

def test_html_title(tmp_path: Path) -> None:
    html = ("<html><head><title>\n  Fish &amp;\n <b>Chips</b>\x01 menu </title><title>Second</title></head>"
            "<body><p>Cod and haddock.</p></body></html>")
    doc = extract(write(tmp_path / "menu.html", html))
    assert doc.title == "Fish & Chips menu"
    assert "Cod and haddock." in doc.text
    assert extract(write(tmp_path / "none.html", "<p>no title here</p>")).title == ""
    assert extract(write(tmp_path / "junk.html", "<title>untitled</title><p>x y</p>")).title == ""


# --------------------------------------------------------------------------- Markdown and RST

@pytest.mark.parametrize("text, title", [
    ("Intro line.\n\n## Install *quickly* ##\n\nbody", "Install quickly"),
    ("# C# tips\n", "C# tips"),
    ("#hashtag, not a heading\n\n### [Linked](https://x.example) `code` title\n", "Linked code title"),
    ("Setext **Title**\n===\n\ntext", "Setext Title"),
    ("Second Level\n---\n", "Second Level"),
    ("---\nlayout: post\ntitle: \"It's \\\"quoted\\\"\"  \n---\n# Heading", "It's \"quoted\""),
    ("---\ntitle: 'Single ''quoted'''\n---\n", "Single 'quoted'"),
    ("---\ntitle: plain value # a comment\n---\n", "plain value"),
    ("---\ntitle: >\n  Folded\n  title\ndate: 2020\n---\n", "Folded title"),
    ("---\nlayout: post\ndate: 2020-01-01\n---\n\nBody first.\n\n# After Front Matter\n", "After Front Matter"),
    ("+++\ntitle = \"Hugo page\"\n+++\n", "Hugo page"),
    ("```sh\n# a shell comment\n```\n\n# Real heading\n", "Real heading"),
    ("    # indented code\n\n# Real\n", "Real"),
    ("- a list item\n---\n\n## After the rule\n", "After the rule"),
    ('<h1 align="center"><img src="logo.png"> My Project</h1>\n\nbody\n', "My Project"),
    ("Just prose.\n\nNo heading at all.\n", ""),
    ("# untitled\n\n## Real one\n", "Real one"),
    ("line\n" * 60 + "# Too late\n", ""),
])
def test_markdown_title(text: str, title: str) -> None:
    assert markdown_title(text) == title


@pytest.mark.parametrize("text, title", [
    ("Getting started\n===============\n\nbody", "Getting started"),
    (".. comment line\n   more comment\n\n=============\n  Overlined\n=============\n\nbody", "Overlined"),
    ("Short\n===\n\nLonger enough\n~~~~~~~~~~~~~\n", "Longer enough"),  # an underline must be as long as the text
    ("para text\nNot a title\n===========\n\n\u4e2d\u6587\u6807\u9898\n^^^^^^^^\n", "\u4e2d\u6587\u6807\u9898"),
    ("Just text.\n\n----------\n\nMore text.\n", ""),  # a transition, not a title
    ("    Quoted\n    ======\n", ""),  # indented: a block quote
])
def test_rst_title(text: str, title: str) -> None:
    assert rst_title(text) == title


def test_text_files_through_extract(tmp_path: Path) -> None:
    assert extract(write(tmp_path / "README.md", "---\ntitle: Front\n---\n# Heading\n")).title == "Front"
    assert extract(write(tmp_path / "notes.markdown", "Notes\n=====\nbody\n")).title == "Notes"
    assert extract(write(tmp_path / "guide.rst", "User Guide\n==========\n\nbody\n")).title == "User Guide"
    # Other text files have no title of their own; the file name is never put in `title`.
    assert extract(write(tmp_path / "plain.txt", "# Not markdown\n\nbody\n")).title == ""
    assert extract(write(tmp_path / "script.py", "# comment\nx = 1\n")).title == ""


# --------------------------------------------------------------------------- PDF

def make_pdf(path: Path, text: str, title: str | None) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 10, text)
    if title is not None:
        pdf.set_title(title)
    pdf.output(str(path))
    return path


def test_pdf_metadata_title(tmp_path: Path) -> None:
    doc = extract(make_pdf(tmp_path / "a.pdf", "Rivers flood in spring.", "Hydrology\x07 <i>Notes</i>"))
    assert doc.title == "Hydrology Notes"
    assert "Rivers flood in spring." in doc.text
    assert extract(make_pdf(tmp_path / "b.pdf", "text", None)).title == ""
    for junk in ("Microsoft Word - report.doc", "untitled", "x.pdf"):
        doc = extract(make_pdf(tmp_path / "junk.pdf", "still read", junk))
        assert doc.title == "" and "still read" in doc.text


def test_pdf_broken_info_dictionary_is_no_title(tmp_path: Path) -> None:
    data = make_pdf(tmp_path / "a.pdf", "Readable body.", "Good Title").read_bytes()
    # Point the trailer's /Info at an object that does not exist: the text must still come out.
    import re

    broken = re.sub(rb"/Info \d+ 0 R", b"/Info 999 0 R", data)
    assert broken != data
    doc = extract(write(tmp_path / "broken.pdf", broken))
    assert doc.title == "" and "Readable body." in doc.text


# --------------------------------------------------------------------------- DOCX

CORE_REL = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
            'Target="word/document.xml"/>'
            '<Relationship Id="r2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" '
            'Target="{core}"/></Relationships>')


def core_xml(title: str) -> str:
    return ('<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
            f'xmlns:dc="{DC}"><dc:title>{title}</dc:title><dc:creator>me</dc:creator></cp:coreProperties>')


def make_docx(path: Path, core: str | bytes | None, core_name: str = "docProps/core.xml") -> Path:
    body = ('<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
            '<w:body><w:p><w:r><w:t>Body of the report.</w:t></w:r></w:p></w:body></w:document>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_rels/.rels", CORE_REL.format(core=core_name))
        z.writestr("word/document.xml", body)
        if core is not None:
            z.writestr(core_name, core)
    return path


def test_docx_core_title(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_paragraph("Made by python-docx.")
    d.core_properties.title = "Quarterly  Report"
    d.save(str(tmp_path / "real.docx"))
    doc = extract(tmp_path / "real.docx")
    assert doc.title == "Quarterly Report" and "Made by python-docx." in doc.text
    # The relationship, not the usual name, says where the core properties are.
    moved = make_docx(tmp_path / "moved.docx", core_xml("Moved &amp; &lt;b&gt;found&lt;/b&gt;"), "meta/props.xml")
    assert extract(moved).title == "Moved & found"
    assert extract(make_docx(tmp_path / "junk.docx", core_xml("Microsoft Word - report.doc"))).title == ""


@pytest.mark.parametrize("core", [
    None,  # missing
    b"<cp:coreProperties><dc:title>unclosed",  # broken XML
    b"\xff\xfe not xml at all",
    ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
     f'<x xmlns:dc="{DC}"><dc:title>&b;</dc:title></x>'),  # entities are refused
    core_xml("".join(random.Random(0).choices(string.ascii_letters, k=2 * 2**20))),  # over the size cap
])
def test_docx_broken_core_still_extracts_text(tmp_path: Path, core) -> None:
    doc = extract(make_docx(tmp_path / "r.docx", core))
    assert doc.title == ""
    assert doc.text == "Body of the report."


def test_docx_without_relationships_reads_the_usual_core_part(tmp_path: Path) -> None:
    path = tmp_path / "r.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("word/document.xml", '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                                        '<w:body><w:p><w:r><w:t>Body text.</w:t></w:r></w:p></w:body></w:document>')
        z.writestr("docProps/core.xml", core_xml("Found by its usual name"))
    assert extract(path).title == "Found by its usual name"


# --------------------------------------------------------------------------- ODT

def test_odt_meta_title(tmp_path: Path) -> None:
    from odf.dc import Title
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    d = OpenDocumentText()
    d.meta.addElement(Title(text="Field  Survey\n2026"))
    d.text.addElement(P(text="Birds were counted."))
    d.save(str(tmp_path / "s.odt"))
    doc = extract(tmp_path / "s.odt")
    assert doc.title == "Field Survey 2026" and doc.text == "Birds were counted."

    content = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
               '<text:p>Plain body.</text:p></office:text></office:body></office:document-content>')
    for meta, title in ((None, ""), ("<broken", ""),
                        (f'<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                         f'xmlns:dc="{DC}"><office:meta><dc:title>x.pdf</dc:title></office:meta></office:document-meta>', "")):
        path = tmp_path / "h.odt"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("content.xml", content)
            if meta is not None:
                z.writestr("meta.xml", meta)
        doc = extract(path)
        assert doc.title == title and doc.text == "Plain body."


# --------------------------------------------------------------------------- EPUB

def make_epub(path: Path, metadata: str) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                   'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                   '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                   '</rootfiles></container>')
        z.writestr("OEBPS/content.opf", f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
                   f'<metadata xmlns:dc="{DC}">{metadata}</metadata>'
                   '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
                   '<spine><itemref idref="c1"/></spine></package>')
        z.writestr("OEBPS/c1.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter 1</title></head>'
                   '<body><p>Call me Ishmael.</p></body></html>')
    return path


def test_epub_dc_title(tmp_path: Path) -> None:
    doc = extract(make_epub(tmp_path / "a.epub", "<dc:title>Moby-Dick;\n or, The Whale</dc:title><dc:title>Second</dc:title>"))
    assert doc.title == "Moby-Dick; or, The Whale"  # the book's, not the chapter's <title>
    assert doc.text == "Call me Ishmael."
    assert extract(make_epub(tmp_path / "b.epub", "<dc:creator>Melville</dc:creator>")).title == ""
    assert extract(make_epub(tmp_path / "c.epub", "<dc:title>untitled</dc:title>")).title == ""


# --------------------------------------------------------------------------- caps

def test_title_survives_truncation(tmp_path: Path) -> None:
    long_md = "# Kept Title\n\n" + "many words here " * 500
    doc = extract(write(tmp_path / "long.md", long_md), max_chars=100)
    assert len(doc.text) <= 100 and any("truncated" in n for n in doc.notes)
    assert doc.title == "Kept Title"
    pdf = make_pdf(tmp_path / "long.pdf", "some words " * 300, "Long Paper")
    doc = extract(pdf, max_chars=50)
    assert len(doc.text) <= 50 and doc.title == "Long Paper"
    html = "<title>Page</title><p>" + "prose " * 2000 + "x" * 3000 + " tail</p>"  # a long run is shortened, not lost
    doc = extract(write(tmp_path / "run.html", html))
    assert any("shortened" in n for n in doc.notes) and doc.title == "Page"
