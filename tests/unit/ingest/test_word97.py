"""Word 97-2003 .doc beyond its piece table (issue: a newcomer's run over Tika's and POI's test documents): text
deleted under tracked changes is left out and hidden text kept, as for .docx; the files are made by the tests
(tests/word97_files.py)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from legacy_office_files import make_doc, ppt_stream, word_stream, workbook_stream
from word97_files import DELETED, HIDDEN, make_doc_with_props, make_word6

from searchapp.base.errors import ExtractionError, UnsupportedFileError
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


def _fkp(fcs: list[int], deleted: list[bool]) -> bytes:
    """A ChpxFkp page: runs fcs[k]..fcs[k+1], each with a Chpx saying sprmCFRMarkDel on or off."""
    crun = len(fcs) - 1
    page = bytearray(512)
    struct.pack_into(f"<{crun + 1}I", page, 0, *fcs)
    on_at, off_at = 500 // 2 * 2 - 8, 500 // 2 * 2 - 4  # two Chpx near the page's end: cb=3, sprm, operand
    page[on_at:on_at + 4] = bytes([3]) + struct.pack("<H", 0x0800) + b"\x01"
    page[off_at:off_at + 4] = bytes([3]) + struct.pack("<H", 0x0800) + b"\x00"
    for k in range(crun):
        page[4 * (crun + 1) + k] = (on_at if deleted[k] else off_at) // 2
    page[511] = crun
    return bytes(page)


def _bte(pages: list[int]) -> bytes:
    return struct.pack(f"<{len(pages) + 1}I", *range(len(pages) + 1)) + struct.pack(f"<{len(pages)}I", *pages)


def test_deleted_runs_side_by_side_are_one_span_and_out_of_order_runs_their_own():
    word = _fkp([0, 10, 20, 30, 40, 50], [True, True, False, True, True]) + \
        _fkp([100, 90, 110, 120], [True, True, True])  # 100..90 backwards: left out
    assert word97_props.deleted_spans(word, _bte([0, 1])) == [(0, 20), (30, 50), (90, 120)]


def test_a_page_named_again_is_read_once(monkeypatch):
    """A PlcBteChpx may name one page any number of times: each was read again and its spans kept again."""
    word = _fkp([0, 2, 4], [True, True]) + bytes(512 * 999)
    seen = []
    real = word97_props._page_spans
    monkeypatch.setattr(word97_props, "_page_spans", lambda word, at: seen.append(at) or real(word, at))
    assert word97_props.deleted_spans(word, _bte([0] * 1000)) == [(0, 4)]
    assert seen == [0]


def test_deleted_spans_are_capped(monkeypatch):
    """An 8 MB stream whose every page named 100 deleted runs held 1.6 M spans before merging (219 MB); the
    spans are merged as found and at most MAX_SPANS kept: past it the text is kept as read."""
    monkeypatch.setattr(word97_props, "MAX_SPANS", 30)
    pages = [_fkp([1000 * p + 2 * k for k in range(21)], [k % 2 == 0 for k in range(20)]) for p in range(10)]
    spans = word97_props.deleted_spans(b"".join(pages), _bte(list(range(10))))
    assert spans == [(1000 * p + 4 * k, 1000 * p + 4 * k + 2) for p in range(10) for k in range(10)][:30]


WESTERN = [("Times New Roman", 0), ("Symbol", 2), ("Arial", 0)]


def test_a_word_6_document_reads_in_the_code_page_its_fonts_name(tmp_path):
    # As POI's word95err.doc: a Russian price list saved by an English Word (lid 0x409), its font Cyrillic.
    letter = "Компания Аскат предлагает со склада в Москве\r".encode("cp1251")
    doc = make_word6(letter, WESTERN + [("Times New Roman Cyr", 204), ("Courier New", 0)])
    assert read(tmp_path, doc, "price.doc").strip() == "Компания Аскат предлагает со склада в Москве"


def test_a_word_6_document_of_western_fonts_reads_in_its_languages_code_page(tmp_path):
    doc = make_word6("Zażółć gęślą jaźń\r".encode("cp1250"), WESTERN, lid=0x415)  # Polish
    assert read(tmp_path, doc, "pl.doc").strip() == "Zażółć gęślą jaźń"


def test_a_word_6_document_without_other_evidence_is_western(tmp_path):
    assert read(tmp_path, make_word6("Café au lait, ½ price\r".encode("cp1252"), WESTERN)).strip() == \
        "Café au lait, ½ price"
    # A Japanese font listed but the text not Japanese (POI's Word6.doc lists such fonts): still Western.
    doc = make_word6("Crème brûlée for all\r".encode("cp1252"), WESTERN + [("Times New Roman", 128)])
    assert read(tmp_path, doc).strip() == "Crème brûlée for all"


def test_a_word_6_document_from_a_japanese_word_reads_in_its_code_page(tmp_path):
    doc = make_word6("東京の会議は十時から\r".encode("cp932"), WESTERN + [("MS Mincho", 128)], lid=0x411)
    assert read(tmp_path, doc).strip() == "東京の会議は十時から"


def test_a_word_6_font_table_out_of_bounds_is_no_evidence(tmp_path):
    for fc, lcb in ((1 << 31, 200), (0, 1 << 31)):
        data = make_word6("Café\r".encode("cp1252"), [])
        word_at = data.index(b"\xdc\xa5")  # the FIB, at the start of the WordDocument stream
        broken = bytearray(data)
        struct.pack_into("<II", broken, word_at + 0xD0, fc, lcb)
        assert read(tmp_path, bytes(broken)).strip() == "Café"


def test_furigana_keeps_its_base_text_and_reading(tmp_path):
    # Tika's testWORD_phonetic.doc: Word's Phonetic Guide is an EQ field with no result part.
    ruby = '\x13EQ \\* jc2 \\* "Font:MS Mincho" \\* hps11 \\o\\ad(\\s\\up 10(とうきょう),東京)\x15'
    doc = make_doc([(f"会議は{ruby}で開く。\r", False), ("\x13 XE \"index\" \x15Plain.\r", True)])
    text = read(tmp_path, doc)
    assert text.strip() == "会議は東京 (とうきょう)で開く。\nPlain."  # an index entry (XE) still shows nothing


def test_other_eq_fields_read_as_their_arguments(tmp_path):
    doc = make_doc([("Half: \x13 EQ \\f(1,2) \x15, ringed: \x13eq \\o\\ac(○,秘)\x15\r", False)])
    assert read(tmp_path, doc).strip() == "Half: 1 2, ringed: ○ 秘"


@pytest.mark.parametrize("marker", ["\tDRMContent", "\x06DataSpaces/TransformInfo/\tDRMTransform/\x06Primary"])
def test_a_rights_managed_document_is_skipped_as_encrypted_not_read_as_its_notice(tmp_path, marker):
    # Tika's testWORD_protected_drm.doc: the WordDocument stream holds only Word's notice. Excel and PowerPoint
    # keep theirs the same way: the one check is the dispatch's, for all three.
    notice = "Permission for this document is currently restricted."
    word, table = word_stream([(notice + "\r", True)])
    files = {"irm.doc": {"WordDocument": word, "1Table": table},
             "irm.xls": {"Workbook": workbook_stream({"Sheet1": [[notice]]}).ljust(4096, b"\0")},
             "irm.ppt": {"PowerPoint Document": ppt_stream([notice]), "Current User": b"\0" * 20}}
    for name, streams in files.items():
        assert notice in extract(_put(tmp_path / ("plain-" + name), cfb(streams))).text  # readable without it
        with pytest.raises(UnsupportedFileError, match="^encrypted: rights-managed"):
            extract(_put(tmp_path / name, cfb({**streams, marker: b"\0" * 64})))


def _put(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


WORDML = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<?mso-application progid="Word.Document"?>
<w:wordDocument xmlns:w="http://schemas.microsoft.com/office/word/2003/wordml"
  xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:aml="http://schemas.microsoft.com/aml/2001/core">
 <o:DocumentProperties><o:Title>Allotment minutes</o:Title><o:Author>Ann</o:Author></o:DocumentProperties>
 <w:body><wx:sect xmlns:wx="http://schemas.microsoft.com/office/word/2003/auxHint">
  <w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>First Page</w:t></w:r></w:p>
  <w:tbl><w:tr><w:tc><w:p><w:r><w:t>Some Data</w:t></w:r></w:p></w:tc>
   <w:tc><w:p><w:r><w:t>tic-tac-toe</w:t><w:tab/><w:t>Grüße</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
  <w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r>
   <w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>
   <w:r><w:t> pages, </w:t></w:r>
   <aml:annotation aml:id="0" w:type="Word.Deletion"><aml:content><w:r><w:delText>frog</w:delText></w:r>
    <w:r><w:t>toad</w:t></w:r></aml:content></aml:annotation>
   <aml:annotation aml:id="1" w:type="Word.Insertion"><aml:content><w:r><w:t>dog</w:t></w:r></aml:content></aml:annotation>
  </w:p>
 </wx:sect></w:body>
</w:wordDocument>
"""


def test_word_2003_xml_named_doc_is_read_as_word(tmp_path):
    # Tika's testWORDML_tableInsideParagraph.doc, once read as HTML: "PAGE NUMPAGES PAGE NUMPAGES".
    path = tmp_path / "minutes.doc"
    path.write_text(WORDML, encoding="utf-8")
    doc = extract(path)
    assert doc.text == "First Page\nSome Data\ntic-tac-toe\tGrüße\n7 pages, dog"
    assert doc.title == "Allotment minutes"


@pytest.mark.parametrize(("name", "text"), [
    ("minutes.xml", WORDML),  # as Word saves it: read as text, it was the tags and styles
    ("bare.doc", WORDML.split("\n", 2)[2]),  # no XML declaration nor processing instruction: was read as text
])
def test_word_2003_xml_is_read_as_word_whatever_its_name(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = extract(path)
    assert doc.kind == "doc" and doc.text.startswith("First Page\nSome Data\n") and "<w:" not in doc.text


SPREADSHEET_ML = """<?xml version="1.0"?>
<?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:o="urn:schemas-microsoft-com:office:office"
 xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet" xmlns:html="http://www.w3.org/TR/REC-html40">
 <o:DocumentProperties><o:Title>Allotment  rota</o:Title></o:DocumentProperties>
 <Styles><Style ss:ID="Default"><Font ss:FontName="Calibri"/></Style></Styles>
 <Worksheet ss:Name="Watering"><Table>
  <Row><Cell><Data ss:Type="String">Plot</Data></Cell><Cell><Data ss:Type="String">Who</Data></Cell></Row>
  <Row><Cell><Data ss:Type="Number">7.50</Data></Cell><Cell ss:MergeAcross="1"><ss:Data ss:Type="String"
   xmlns="http://www.w3.org/TR/REC-html40"><B>Ann</B> and <Font>Bob</Font></ss:Data></Cell>
   <Cell ss:Index="6"><Data ss:Type="DateTime">2024-05-01T00:00:00.000</Data>
    <Comment><Data>a note, not the cell</Data></Comment></Cell></Row>
  <Row ss:Index="9"><Cell><Data ss:Type="Boolean">1</Data></Cell></Row>
 </Table></Worksheet>
 <Worksheet ss:Name="Empty"><Table/></Worksheet>
</Workbook>
"""


@pytest.mark.parametrize("name", ["rota.xml", "rota.xls"])
def test_excel_2003_xml_spreadsheet_is_read_as_a_workbook(tmp_path, name):
    """Excel 2003's XML Spreadsheet, as Excel saves it (.xml) and opens it (.xls): it was read as text (the tags
    and styles) and as HTML ("Calibri", no sheet names)."""
    path = tmp_path / name
    path.write_text(SPREADSHEET_ML, encoding="utf-8")
    doc = extract(path)
    assert doc.kind == "xls" and doc.title == "Allotment rota"
    assert doc.text == ("Watering\nPlot | Who\n7.5 | Ann and Bob |  |  | 2024-05-01\nTRUE\n\nEmpty")
    other = tmp_path / "feed.xml"  # any other XML is text, as it was
    other.write_text('<?xml version="1.0"?><rss><channel><title>Parish news</title></channel></rss>',
                     encoding="utf-8")
    assert extract(other).kind == "text" and "<title>Parish news</title>" in extract(other).text


def test_word_2007_flat_xml_named_doc_leaves_deletions_out(tmp_path):
    flat = """<?xml version="1.0"?><?mso-application progid="Word.Document"?>
<pkg:package xmlns:pkg="http://schemas.microsoft.com/office/2006/xmlPackage"><pkg:part pkg:name="/word/document.xml">
<pkg:xmlData><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:r><w:t xml:space="preserve">The lazy brown </w:t></w:r><w:ins><w:r><w:t>dog</w:t></w:r></w:ins>
<w:del><w:r><w:delText>frog</w:delText></w:r></w:del><w:r><w:t>.</w:t></w:r></w:p>
</w:body></w:document></pkg:xmlData></pkg:part></pkg:package>"""
    path = tmp_path / "flat.doc"
    path.write_text(flat, encoding="utf-8")
    assert extract(path).text == "The lazy brown dog."


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."


def _package(*parts: tuple[str, str, str]) -> str:
    """A Word 2007 flat XML package of (name, content type or "", XML) parts."""
    body = "".join(f'<pkg:part pkg:name="{name}"' + (f' pkg:contentType="{ct}"' if ct else "") +
                   f"><pkg:xmlData>{xml}</pkg:xmlData></pkg:part>" for name, ct, xml in parts)
    return ('<?xml version="1.0" standalone="yes"?><?mso-application progid="Word.Document"?>'
            f'<pkg:package xmlns:pkg="http://schemas.microsoft.com/office/2006/xmlPackage">{body}</pkg:package>')


def test_word_2007_flat_xml_reads_a_text_box_once_and_not_the_glossary(tmp_path):
    """A text box is in an mc:AlternateContent's Choice and again in its Fallback; the glossary part holds
    content controls' placeholders ("Click or tap here to enter text."): both were read as the document's."""
    document = f"""<w:document xmlns:w="{_W}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"
      xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml">
     <w:body><w:p><w:r><w:t>Body text.</w:t></w:r><w:r><mc:AlternateContent>
      <mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t>Text box words</w:t></w:r></w:p>
      </w:txbxContent></wps:txbx></w:drawing></mc:Choice>
      <mc:Fallback><w:pict><v:textbox><w:txbxContent><w:p><w:r><w:t>Text box words</w:t></w:r></w:p></w:txbxContent>
      </v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p></w:body></w:document>"""
    glossary = (f'<w:glossaryDocument xmlns:w="{_W}"><w:docParts><w:docPart><w:docPartBody><w:p><w:r>'
                "<w:t>Click or tap here to enter text.</w:t></w:r></w:p></w:docPartBody></w:docPart></w:docParts>"
                "</w:glossaryDocument>")
    header = f'<w:hdr xmlns:w="{_W}"><w:p><w:r><w:t>Parish council</w:t></w:r></w:p></w:hdr>'
    core = ('<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Minutes of  May</dc:title></cp:coreProperties>')
    for typed in (True, False):  # by content type, or by name when the part has none
        parts = [("/word/document.xml", _CT + "document.main+xml", document),
                 ("/word/glossary/document.xml", _CT + "document.glossary+xml", glossary),
                 ("/word/header1.xml", _CT + "header+xml", header),
                 ("/docProps/core.xml", "application/vnd.openxmlformats-package.core-properties+xml", core)]
        path = tmp_path / "flat.doc"
        path.write_text(_package(*((n, ct if typed else "", x) for n, ct, x in parts)), encoding="utf-8")
        doc = extract(path)
        assert doc.text == "Body text.\nText box words\nParish council", typed
        assert doc.title == "Minutes of May"


def test_word_xml_title_is_cleaned_as_every_title(tmp_path):
    path = tmp_path / "long.doc"
    path.write_text(WORDML.replace("Allotment minutes", "Quarterly\n\n report " + "x" * 5000), encoding="utf-8")
    title = extract(path).title
    assert title.startswith("Quarterly report x") and len(title) <= 200


def test_word_xml_is_streamed(tmp_path):
    """A 10 MB file of runs built a 156 MB tree: each element is dropped once read."""
    import tracemalloc

    from searchapp.ingest.extractors.wordml import extract_wordml

    unit = "<w:r><w:t>x</w:t></w:r>"
    path = tmp_path / "big.doc"
    path.write_text(WORDML.split("<w:body>")[0] + "<w:body><w:p>" + unit * (2**20 // len(unit)) +
                    "</w:p></w:body></w:wordDocument>", encoding="utf-8")
    tracemalloc.start()
    try:
        text = extract_wordml(path, 2**21).text  # read_capped reads up to its cap: tracemalloc counts it
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(text) == 2**20 // len(unit)
    assert peak < 5 * 2**20, peak  # the cap of 2 MB read, the file, its text, one element


def test_word_xml_nested_past_the_cap_fails_alone(tmp_path):
    path = tmp_path / "deep.doc"
    path.write_text(WORDML.replace("<w:body>", "<w:body>" + "<w:tbl>" * 300 + "</w:tbl>" * 300), encoding="utf-8")
    with pytest.raises(ExtractionError, match="nests elements more than"):
        extract(path)


def test_word_xml_with_entities_is_refused_and_xhtml_stays_html(tmp_path):
    bomb = WORDML.replace('<w:wordDocument', '<!DOCTYPE w [<!ENTITY a "aaaa">]><w:wordDocument', 1)
    path = tmp_path / "bomb.doc"
    path.write_text(bomb, encoding="utf-8")
    with pytest.raises(ExtractionError, match="unsafe XML|corrupt XML"):
        extract(path)
    page = tmp_path / "export.doc"
    page.write_text('<?xml version="1.0"?><html><body><p>An exported page</p></body></html>', encoding="utf-8")
    assert extract(page).text.strip() == "An exported page"
