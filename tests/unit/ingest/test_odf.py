"""OpenDocument files (.odt, .ods, .odp) as LibreOffice writes them, built here with odfpy or as raw parts: what
a newcomer's real files (Apache Tika's test documents) showed was read wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import write_zip

from searchapp.base.errors import UnsupportedFileError
from searchapp.ingest.extractors import extract

MANIFEST_NS = 'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"'
MEDIA = {".odt": "text", ".ods": "spreadsheet", ".odp": "presentation"}
# What LibreOffice writes for each part of a password-protected file (testODTEncrypted.odt's manifest, shortened).
ENCRYPTION_DATA = ('<manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:'
                   '1.0#sha256-1k" manifest:checksum="qSVWgs2W7NSmd6kexZKqjWLFfUHEp7XnXN2YjQ+wq1E=">'
                   '<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" '
                   'manifest:initialisation-vector="oTHBFEM+XPo0hLMjO925Ww=="/>'
                   '<manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" '
                   'manifest:iteration-count="100000" manifest:salt="oCuj7qHUEUKnK+4d6VpRcg=="/>'
                   '</manifest:encryption-data>')


def manifest(suffix: str, encrypted: dict[str, bool]) -> str:
    media = f"application/vnd.oasis.opendocument.{MEDIA[suffix]}"
    entries = "".join(f'<manifest:file-entry manifest:full-path="{part}" manifest:media-type="text/xml">'
                      f'{ENCRYPTION_DATA if secret else ""}</manifest:file-entry>' for part, secret in encrypted.items())
    return (f'<?xml version="1.0" encoding="UTF-8"?><manifest:manifest {MANIFEST_NS} manifest:version="1.2">'
            f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{media}"/>{entries}'
            '</manifest:manifest>')


def ciphertext(n: int) -> bytes:
    return bytes((i * 151 + 7) % 256 for i in range(n))  # what AES makes of XML: no "<" first, no XML at all


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


@pytest.mark.parametrize("suffix", [".odt", ".ods", ".odp"])
def test_a_password_protected_package_is_said_encrypted_not_corrupt(tmp_path: Path, suffix: str) -> None:
    """content.xml of a protected file is ciphertext: it was "[failed] corrupt XML in content.xml"."""
    parts = {"mimetype": f"application/vnd.oasis.opendocument.{MEDIA[suffix]}",
             "META-INF/manifest.xml": manifest(suffix, {"content.xml": True, "styles.xml": True, "meta.xml": False}),
             "content.xml": ciphertext(2048), "styles.xml": ciphertext(512), "meta.xml": "<office:document-meta/>"}
    with pytest.raises(UnsupportedFileError, match="^encrypted: password-protected, not indexed$"):
        extract(write_zip(tmp_path / f"secret{suffix}", parts))
    # ODF 1.4's "wholesome" encryption: the whole package is one encrypted member, no content.xml beside it
    wholesome = {"mimetype": parts["mimetype"], "META-INF/manifest.xml": manifest(suffix, {"encrypted-package": True}),
                 "encrypted-package": ciphertext(2048)}
    with pytest.raises(UnsupportedFileError, match="^encrypted: password-protected, not indexed$"):
        extract(write_zip(tmp_path / f"whole{suffix}", wholesome))


def test_an_encrypted_picture_alone_does_not_hide_the_text(tmp_path: Path) -> None:
    """Only content.xml's own entry decides; a manifest naming other encrypted parts leaves the text readable."""
    content = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
               '<text:p>Open words</text:p></office:text></office:body></office:document-content>')
    parts = {"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": content,
             "META-INF/manifest.xml": manifest(".odt", {"Pictures/a.png": True, "content.xml": False})}
    assert extract(write_zip(tmp_path / "open.odt", parts)).text == "Open words"



ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"')
# What LibreOffice Calc writes in every spreadsheet's styles.xml: page fields only, no words of the document's own.
CALC_MASTERS = ('<style:master-page style:name="Default"><style:header><text:p><text:sheet-name>???</text:sheet-name>'
                '</text:p></style:header><style:header-left style:display="false"/><style:footer><text:p>Page '
                '<text:page-number>1</text:page-number></text:p></style:footer></style:master-page>'
                '<style:master-page style:name="Report"><style:header><style:region-left><text:p><text:sheet-name>'
                '???</text:sheet-name> (<text:title>???</text:title>)</text:p></style:region-left><style:region-right>'
                '<text:p><text:date text:date-value="2011-10-26">10/26/2011</text:date>, <text:time>11:13:57</text:time>'
                '</text:p></style:region-right></style:header><style:footer><text:p>Page <text:page-number>1'
                '</text:page-number> / <text:page-count>99</text:page-count></text:p></style:footer></style:master-page>')


def odf(path: Path, kind: str, body: str, masters: str) -> Path:
    content = (f'<office:document-content {ODF_NS}><office:body><office:{kind}>{body}</office:{kind}>'
               '</office:body></office:document-content>')
    styles = (f'<office:document-styles {ODF_NS}><office:styles/><office:master-styles>{masters}'
              '</office:master-styles></office:document-styles>')
    return write_zip(path, {"mimetype": f"application/vnd.oasis.opendocument.{kind}", "content.xml": content,
                            "styles.xml": styles})


def test_odt_headers_and_footers_are_read_once_after_the_body(tmp_path: Path) -> None:
    """Tika's testFooter.odt: "Here is footer text" is in styles.xml's master page, which was never read."""
    masters = ('<style:master-page style:name="Standard"><style:header><text:p>Orchard Cooperative</text:p>'
               '</style:header><style:footer><text:p>Here is footer text</text:p><text:p>Page <text:page-number>1'
               '</text:page-number> of <text:page-count>2</text:page-count></text:p><text:p>Draft for the board, page '
               '<text:page-number>1</text:page-number></text:p></style:footer></style:master-page>'
               '<style:master-page style:name="Left"><style:header><text:p>Orchard Cooperative</text:p></style:header>'
               '<style:footer style:display="false"><text:p>Hidden footer</text:p></style:footer></style:master-page>')
    path = odf(tmp_path / "f.odt", "text", "<text:p>Here is some text on page 2</text:p>", masters)
    assert extract(path).text.split("\n\n") == ["Here is some text on page 2", "Orchard Cooperative",
                                                "Here is footer text", "Draft for the board, page"]


def test_a_footer_with_a_page_number_keeps_its_words(tmp_path: Path) -> None:
    """Only the page fields are left out, and a line that is nothing but the page numbering, in any language."""
    def p(inner: str) -> str:
        return f"<text:p>{inner}</text:p>"

    number, count = "<text:page-number>1</text:page-number>", "<text:page-count>9</text:page-count>"
    footer = "".join(p(line) for line in (
        f"Confidential — Page {number}", f"ACME Corp Page {number}", f"Orchard<text:tab/>Page {number}",
        f"Page {number} of {count}", f"Seite {number} von {count}", f"- {number} -", f"{number} / {count}",
        f"{number}ページ", f"Page <text:span>{number}</text:span>"))
    masters = f'<style:master-page style:name="Standard"><style:footer>{footer}</style:footer></style:master-page>'
    path = odf(tmp_path / "f.odt", "text", "<text:p>Body</text:p>", masters)
    assert extract(path).text.split("\n\n") == ["Body", "Confidential — Page", "ACME Corp Page", "Orchard\tPage"]


def test_ods_footers_after_the_sheets_and_calcs_own_page_fields_left_out(tmp_path: Path) -> None:
    table = ('<table:table table:name="Sheet1"><table:table-row><table:table-cell><text:p>Data 1</text:p>'
             '</table:table-cell></table:table-row></table:table>')
    plain = extract(odf(tmp_path / "plain.ods", "spreadsheet", table, CALC_MASTERS))
    assert plain.text == "Sheet1\nData 1"  # "Page", "???", the save date: nothing a person searches a sheet by
    footer = CALC_MASTERS.replace("Page <text:page-number>1</text:page-number></text:p>",
                                  "Here is a footer in the center area</text:p>", 1)
    doc = extract(odf(tmp_path / "footer.ods", "spreadsheet", table, footer))
    assert doc.text == "Sheet1\nData 1\n\nHere is a footer in the center area"
    assert [(p.page, p.start, p.end) for p in doc.pages] == [(1, 0, len("Sheet1\nData 1"))]


def test_odp_master_and_declared_footers_after_the_slides(tmp_path: Path) -> None:
    """Tika's testMasterFooter.odp, whose only words are its master's footer, was "no text found"."""
    def frame(kind: str, inner: str) -> str:
        return (f'<draw:frame presentation:class="{kind}"><draw:text-box><text:p>{inner}</text:p></draw:text-box>'
                '</draw:frame>')

    masters = ('<style:master-page style:name="Default">' + frame("title", "")
               + frame("date-time", "<presentation:date-time/>") + frame("footer", "Master footer is here")
               + frame("page-number", "<text:page-number>&lt;number&gt;</text:page-number>")
               + '<presentation:notes>' + frame("footer", "<presentation:footer/>")
               + '</presentation:notes></style:master-page>')
    empty = odf(tmp_path / "master.odp", "presentation", '<draw:page draw:name="p1"/>', masters)
    assert extract(empty).text == "Master footer is here"
    slides = ('<presentation:footer-decl presentation:name="ftr1">Acme  annual review</presentation:footer-decl>'
              '<draw:page draw:name="p1" presentation:use-footer-name="ftr1"><draw:frame><draw:text-box><text:p>Welcome'
              '</text:p></draw:text-box></draw:frame></draw:page>'
              '<draw:page draw:name="p2" presentation:use-footer-name="ftr1"><draw:frame><draw:text-box><text:p>Budget'
              '</text:p></draw:text-box></draw:frame></draw:page>')
    doc = extract(odf(tmp_path / "deck.odp", "presentation", slides, masters))
    assert doc.text == "Welcome\n\nBudget\n\nAcme annual review\n\nMaster footer is here"
    assert [p.page for p in doc.pages] == [1, 2]


def test_a_styles_part_past_its_cap_or_broken_leaves_the_text_whole(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from searchapp.ingest.extractors import odt

    masters = ('<style:master-page style:name="S"><style:footer><text:p>Late footer</text:p></style:footer>'
               '</style:master-page>')
    path = odf(tmp_path / "big.odt", "text", "<text:p>Body</text:p>", "<style:style/>" * 50_000 + masters)
    assert extract(path).text == "Body\n\nLate footer"
    monkeypatch.setattr(odt, "MAX_STYLES_BYTES", 100_000)  # master pages come last: past the cap, not read
    assert extract(path).text == "Body"
    broken = odf(tmp_path / "broken.odt", "text", "<text:p>Body</text:p>", "<style:master-page><style:footer>")
    assert extract(broken).text == "Body"
