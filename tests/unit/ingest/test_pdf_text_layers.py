"""PDF text layers that are not text: glyph codes and wrong letters read again with pdfium or left for OCR, junk
pages and paragraphs dropped instead of the whole file, and filled XFA and AcroForm forms shown by their field
values.

Every PDF is written here byte by byte (tests/pdf_files.py): a font whose glyph names are made up (/g72) or
numbered as a subset font numbers them, a Japanese font of CIDs with no Unicode map, an XFA form whose one page
says "Please wait", and AcroForm fields.
"""

from __future__ import annotations

import base64
import random
import unicodedata

import pytest

from pdf_files import (PLEASE_WAIT, acroform_pdf, annotated_pdf, datasets_xml, glyph_code_pdf, japan1_pdf,
                       ligature_name_pdf, xfa_form_pdf)

from corpus import write_pdf
from searchapp.base.errors import ExtractionError, UnsupportedFileError
from searchapp.base.types import Document, PageSpan
from searchapp.ingest.extractors import extract, pdf_notes
from searchapp.ingest.extractors.garbled import garbled_share, is_garbled, wrong_letters
from searchapp.ingest.ocr.document import OCR_NOTE, merge_ocr
from searchapp.ingest.ocr.pdf_pages import pages_needing_ocr
from searchapp.ingest.text_caps import bound_text

PROSE = ("The harbour master keeps a log of every ship that enters the narrow channel, with the pilot's "
         "name, the tide and the weather at the time. ")


def _page(doc: Document, number: int) -> str:
    span = next(p for p in doc.pages if p.page == number)
    return doc.text[span.start:span.end]


# -- the detector ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "/g18/g152/g135/g148/g152/g139/g135/g153/g3/g145/g136/g3/g150/g138/g135",  # pypdf, a subset TrueType font
    "/G43/G24/G14/G44/G13/G22/G22 /G7/G15/G23/G22",
    "/C50\n/C72/C6f\n/C70\n/C65",
    "(cid:12)(cid:15)(cid:3)(cid:44)(cid:22)",
    "\x04\x05\x06\x04\x07\x08\t\n\x08\x0b\x0c\x04\x08\r\x04\x0e\x0c\x0f",  # pdfium, the same font
    "\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd",
    "\uf76f\uf770\uf765\uf76e\uf76d\uf761\uf767",
])
def test_glyph_codes_and_control_bytes_are_garbled(text):
    assert is_garbled(text), garbled_share(text)


@pytest.mark.parametrize("text", [
    PROSE,
    "全世界无产者，联合起来。これは日本語のテキストです。เรียนเลขพี่นวย",
    "See https://example.org/api/v2/items/g3 and/or the appendix; x² + y² = z², α ≤ β.",
    "\uf0b7 First point of the list\n\uf0b7 Second point of the list\n\uf0b7 Third point",
    "Scan here to make a donation!/g3",
    "",
])
def test_prose_in_any_script_is_not_garbled(text):
    assert not is_garbled(text), garbled_share(text)


# -- wrong letters ---------------------------------------------------------------------------------------
JAPANESE = ["因果の時空的制約のもとに", "新聞記事からの固有表現の発見", "Computer Science Department",
            "アプリケーションの学習方法"]


@pytest.mark.parametrize("text", [
    "ίϯύϥϒϧͳ৽ฉࣄه͔Βͷ\nݻ༗දݱͷൃݟ\n$PNQVUFS4DJFODF%FQBSUNFOU",  # pypdf on a PowerPoint file's Japanese
    "Θͨ͘͠ͱ͍;ݱ৅͸၊ఆ͞Εͨ༗ަػྲྀి౯ͷͻͱͭͷ੨͍র໌Ͱ͢",  # ... a Word file's
    "ୈ\nೋ\n৚\nୈ\nҰ\n߲\nͷ\nද\nͷ\n੨\n৭\nͷ",  # ... one character a line
], ids=["powerpoint", "word", "one-a-line"])
def test_japanese_read_as_the_wrong_letters_is_garbled(text):
    assert wrong_letters(text) and is_garbled(text)


@pytest.mark.parametrize("text", [
    "今日はPythonとRustでWebアプリを作りました。APIはREST形式で、JSONを返します。iPhone 15で確認済み。",
    "α線とβ線とγ線の透過力を比べる。μmの単位で測定し、Δtを求めた。λ=500nmの光。",
    "Let α ≤ β and Δx = x₁ − x₀; then σ² = E[(X−μ)²] and ∑ᵢ ωᵢ = 1 in the ℓ₂ norm, ℵ₀ sets, 𝑥 ∈ ℝ.",
    "تأسست الشركة في عام 1998 ولديها 250 موظفًا في 12 دولة، وتبلغ إيراداتها 3.5 مليار دولار.",
    "Мы используем Python и PostgreSQL 15 для веб-приложений на Django; см. RFC 7231.",
    "где α-частица и β-распад, а γ — излучение; λ = 500 нм, ε > 0 и δ < ε.",
    "대한민국(大韓民國)은 동아시아의 한반도에 위치한 국가이다. 서울은 首都이며 人口는 約 千萬이다.",
    "भारत एक विशाल देश है। यहाँ 28 राज्य हैं और हिन्दी, English भी बोली जाती है। ॐ नमः शिवाय॥",
    "English Русский Ελληνικά العربية हिन्दी ไทย 日本語 한국어 עברית বাংলা ქართული Հայերեն 中文 فارسی",
    unicodedata.normalize("NFD", "Tiếng Việt có dấu; Ελληνικά ά; й ё Йошкар-Ола; Ünïcödé"),
    "使用ＡＰＩ接口调用ＧＰＴ模型，ｶﾀｶﾅもＯＫ。注音ㄅㄆㄇㄈ。",
    "ภาษาไทยกับ English ปนกัน 2567 และ Bangkok",
    "שָׁלוֹם עֲלֵיכֶם and Hello; עברית 123",
    "日\n本\n語\nの\n縦\n書\nき\nテ\nキ\nス\nト",
], ids=["ja-latin", "ja-greek", "en-math", "ar-digits", "ru-latin", "ru-greek", "ko-hanja", "hi-en", "names",
        "decomposed", "zh-fullwidth", "th-en", "he-points", "ja-one-a-line"])
def test_real_text_mixing_scripts_is_not_wrong_letters(text):
    assert not wrong_letters(text) and not is_garbled(text)


def test_japanese_that_pypdf_reads_as_wrong_letters_is_read_with_pdfium(tmp_path):
    # Word and PowerPoint write Japanese as Adobe-Japan1 CIDs with no ToUnicode map (pdfminer's jo.pdf,
    # nlp2004slides.pdf): pypdf took the CIDs for code points and the page was indexed as nonsense, silently.
    pytest.importorskip("pypdfium2")  # the ocr extra
    doc = extract(japan1_pdf(tmp_path / "slides.pdf", JAPANESE))
    assert "因果の時空的制約のもとに" in doc.text and "Computer Science Department" in doc.text
    assert "$PNQVUFS" not in doc.text and doc.notes == ()


# -- glyph-code pages -----------------------------------------------------------------------------------
def test_a_page_of_glyph_names_is_read_with_pdfium(tmp_path):
    pytest.importorskip("pypdfium2")  # the ocr extra
    pdf = glyph_code_pdf(tmp_path / "pilots.pdf", [
        [("text", "A real page about quarterly invoices and payments.")],
        [("glyphs", "Harbour pilots guide ships\ninto the narrow channel at high tide.")],
    ])
    doc = extract(pdf)
    assert "Harbour pilots guide ships" in _page(doc, 2) and "/g" not in doc.text
    assert "quarterly invoices" in _page(doc, 1)
    assert pages_needing_ocr(doc, len(doc.pages)) == []


def test_a_ligature_named_without_a_unicode_map_is_read_as_its_letters(tmp_path):
    # An IRS publication's font names fi as /f_i: pypdf wrote "of/f_ices" and `offices` never found the page.
    doc = extract(ligature_name_pdf(tmp_path / "p15.pdf", "IRS of\x01ces: the \x01rst \x03oor, \x04e end, a/b_c"))
    assert _page(doc, 1) == "IRS offices: the first floor, The end, a/b_c"
    # a page's own text that reads like a glyph name (a path), where no font names a ligature so, is kept
    write_pdf(tmp_path / "paths.pdf", ["cd /tmp/s_test and open C:/data/f_index.csv"])
    assert "cd /tmp/s_test and open C:/data/f_index.csv" in extract(tmp_path / "paths.pdf").text


def test_a_pdf_pypdf_cannot_open_is_read_whole_by_pdfium(tmp_path):
    pytest.importorskip("pypdfium2")  # the ocr extra
    pdf = glyph_code_pdf(tmp_path / "pilots.pdf", [
        [("text", "A real page about quarterly invoices and payments.")],
        [("text", "Harbour pilots guide ships into the narrow channel at high tide.")],
    ])
    data = pdf.read_bytes()
    pdf.write_bytes(data[:data.rindex(b"startxref")])  # no trailer: pypdf stops, pdfium rebuilds the table
    doc = extract(pdf)
    assert "quarterly invoices" in _page(doc, 1) and "Harbour pilots" in _page(doc, 2)
    assert any(n.startswith("read by pdfium: pypdf could not (truncated PDF") for n in doc.notes)  # no %%EOF
    pdf.write_bytes(data[:len(data) // 3])  # nothing left that either reader can use: still refused
    with pytest.raises(ExtractionError, match="truncated PDF"):
        extract(pdf)


def test_a_paper_whose_text_layer_is_glyph_codes_is_kept_and_its_pages_left_for_ocr(tmp_path):
    # Like a 23-page paper made with a subset font and no ToUnicode: pypdf reads /g18/g152..., pdfium reads
    # control bytes. The file was refused as "not prose"; its real page must be indexed and the rest OCR'd.
    body = "\n".join(PROSE[i:i + 70] for i in range(0, len(PROSE), 70))
    pdf = glyph_code_pdf(tmp_path / "review.pdf", [[("text", "Overview of the Technology Acceptance Model")]]
                         + [[("opaque", body * 3)] for _ in range(5)])
    doc = extract(pdf)
    assert "Technology Acceptance Model" in _page(doc, 1)
    assert [_page(doc, n) for n in range(2, 7)] == [""] * 5
    assert "/g" not in doc.text
    assert pages_needing_ocr(doc, len(doc.pages)) == [2, 3, 4, 5, 6]
    assert any("5 page(s) with a garbled text layer" in n and "OCR" in n for n in doc.notes), doc.notes


# -- junk dropped, not the file -------------------------------------------------------------------------
def _base64(n: int, seed: int = 0) -> str:
    return base64.encodebytes(random.Random(seed).randbytes(n)).decode()


def test_a_junk_page_is_dropped_not_the_document():
    pages = ["page one " + PROSE * 3, _base64(30_000), "page three " + PROSE * 3]
    text, spans = "", []
    for i, p in enumerate(pages, start=1):
        if text:
            text += "\n\n"
        spans.append(PageSpan(i, len(text), len(text) + len(p)))
        text += p
    out = bound_text(Document(text, tuple(spans), kind="pdf"))
    assert _page(out, 1).startswith("page one") and _page(out, 3).startswith("page three")
    assert _page(out, 2) == ""
    assert any("1 page(s) left out, not prose" in n for n in out.notes), out.notes


def test_junk_paragraphs_are_dropped_not_the_file(tmp_path):
    p = tmp_path / "notes.md"
    p.write_text(PROSE * 20 + "\n\n" + _base64(40_000) + "\n\n" + "The last paragraph. " + PROSE * 20)
    doc = extract(p)
    assert doc.text.startswith(PROSE) and "The last paragraph." in doc.text
    assert len(doc.text) < len(PROSE) * 41 + 100
    assert any("1 paragraph(s) left out, not prose" in n for n in doc.notes), doc.notes


def test_a_file_that_is_junk_throughout_is_still_refused_with_its_reason(tmp_path):
    p = tmp_path / "dump.txt"
    p.write_text(_base64(40_000) + "\n\n" + _base64(40_000, seed=1))
    with pytest.raises(UnsupportedFileError, match="not prose"):
        extract(p)


# -- XFA forms ------------------------------------------------------------------------------------------
FIELDS = ("<Applicant><FamilyName>Gauss</FamilyName><GivenName>Carl Friedrich</GivenName>"
          "<PlaceBirthCity>Brunswick</PlaceBirthCity><Email/>"
          "<Reason>Humanitarian & Compassionate Considerations</Reason></Applicant>"  # a bare & as Adobe writes it
          '<Comments><body xmlns="http://www.w3.org/1999/xhtml"><p>Arrives by the <b>night train</b></p></body></Comments>'
          '<Photo contentType="image/jpg">' + "QUJD" * 200 + "</Photo>")
CHOICES = "<LOVFile><Country>Freedonia</Country><Country>Sylvania</Country></LOVFile>"


def test_a_filled_xfa_form_shows_its_field_values_not_the_please_wait_page(tmp_path):
    doc = extract(xfa_form_pdf(tmp_path / "form.pdf", datasets_xml(FIELDS, CHOICES)))
    assert "FamilyName: Gauss" in doc.text and "GivenName: Carl Friedrich" in doc.text
    assert "Reason: Humanitarian & Compassionate Considerations" in doc.text
    assert "Comments: Arrives by the night train" in doc.text
    assert "Please wait" not in doc.text and "Adobe Reader" not in doc.text
    assert "Freedonia" not in doc.text and "QUJD" not in doc.text  # choices and images are not answers
    assert [p.page for p in doc.pages] == [1]


def test_a_static_xfa_form_keeps_its_page_text_beside_the_values(tmp_path):
    page = "Application for a harbour pilot licence. Fill in every field in capital letters."
    doc = extract(xfa_form_pdf(tmp_path / "static.pdf", datasets_xml(FIELDS), page_text=page, needs_rendering=False))
    assert doc.text.startswith("Application for a harbour pilot licence")
    assert "FamilyName: Gauss" in doc.text


def test_hostile_xfa_data_leaves_the_page_text_and_says_why(tmp_path):
    bomb = (b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            b'<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/"><xfa:data><f><v>&b;&b;&b;</v></f>'
            b"</xfa:data></xfa:datasets>")
    doc = extract(xfa_form_pdf(tmp_path / "bomb.pdf", bomb))
    assert doc.text.startswith(PLEASE_WAIT[:14]) and "aaaaaaaaaa" not in doc.text
    assert any("XFA form data left out" in n and "unsafe XML" in n for n in doc.notes), doc.notes


# -- AcroForm fields ------------------------------------------------------------------------------------
WIDGET = "/Type /Annot /Subtype /Widget /Rect [100 600 300 620]"
FORM_FIELDS = [
    (f"<< {WIDGET} /FT /Tx /T (First Name) /V (Alice) >>", 0),
    (f"<< {WIDGET} /FT /Tx /T (Last Name) /V () >>", 0),  # empty: left out
    (f"<< {WIDGET} /FT /Tx /T (f5_14) /V (\\\\) >>", 0),  # a lone backslash: no letter or digit, left out
    (f"<< {WIDGET} /FT /Btn /T (Agree) /V /Yes /AS /Yes >>", 0),  # a check box's state, not text
    (f"<< {WIDGET} /FT /Ch /T (Nationality) /V (fr) /Opt [[(de) (German)] [(fr) (French)]] >>", 1),
    (f"<< {WIDGET} /FT /Ch /Ff 2097152 /T (Languages) /V [(Basque) (Breton)] >>", 1),
    ("<< /FT /Tx /T (topmostSubform[0]) /Kids [{7} 0 R] >>", -1),  # a parent: its kids are fields
    (f"<< {WIDGET} /Parent {{6}} 0 R /T (p2-t124[0]) /V (/home/ann/notes\\r\\nsecond line) >>", 1),
    (f"<< {WIDGET} /FT /Tx /T (Remarks) /V (Arrives by the night train) >>", -1),  # on no page
]


def test_a_filled_acroform_shows_its_text_and_choice_values_on_their_pages(tmp_path):
    # pypdf's libreoffice-form.pdf (First Name = Alice), pdf.js's prefilled_f1040.pdf ("foobar"): the values
    # were never indexed, and a page of fields only (annotation-tx.pdf) had no text at all.
    pdf = acroform_pdf(tmp_path / "form.pdf", ["Application form\nFirst Name Last Name", "Page two of the form"],
                       FORM_FIELDS)
    doc = extract(pdf)
    assert _page(doc, 1) == "Application form\nFirst Name Last Name\n\nFirst Name: Alice"
    assert _page(doc, 2) == ("Page two of the form\n\nNationality: French\nLanguages: Basque, Breton\n"
                             "p2-t124: /home/ann/notes second line\nRemarks: Arrives by the night train")
    assert "Yes" not in doc.text and "Last Name:" not in doc.text and doc.notes == ()


def test_a_form_field_tree_that_loops_is_read_once(tmp_path):
    fields = [(f"<< {WIDGET} /FT /Tx /T (Name) /V (Gauss) /Kids [{{1}} 0 R] >>", 0),
              ("<< /FT /Tx /T (Loop) /Parent {0} 0 R /Kids [{0} 0 R {1} 0 R] >>", -1)]
    doc = extract(acroform_pdf(tmp_path / "loop.pdf", ["A form"], fields))
    assert doc.text == "A form"  # Name has a child field, so it is no value of its own; Loop has none


def test_an_xfa_form_s_acroform_fields_are_not_read_again(tmp_path):
    field = b"<< /FT /Tx /T (FamilyName[0]) /V (Gauss) >>"
    page = "Application for a harbour pilot licence."  # a static form: its page is kept, the values follow it
    doc = extract(xfa_form_pdf(tmp_path / "form.pdf", datasets_xml(FIELDS), page, needs_rendering=False, field=field))
    assert doc.text.count("Gauss") == 1
    doc = extract(xfa_form_pdf(tmp_path / "empty.pdf", datasets_xml("<Applicant/>"), page, False, field=field))
    assert "FamilyName: Gauss" in doc.text  # no XFA values: the AcroForm's are read


def test_a_damaged_form_keeps_the_values_read_before_and_says_why(tmp_path):
    fields = [(f"<< {WIDGET} /FT /Tx /T (Name) /V (Gauss) >>", 0), ("<< /FT /Tx /T (Broken) /Kids 7 >>", -1)]
    doc = extract(acroform_pdf(tmp_path / "broken.pdf", ["A form"], fields))
    assert doc.text == "A form\n\nName: Gauss"
    assert any(n.startswith("form field values left out after 1: the form is damaged") for n in doc.notes), doc.notes


def test_xfa_field_values_are_cleaned_like_page_text(tmp_path):
    """A value's ligature is folded and its soft hyphen dropped, as in every reader's text: "office" is found."""
    fields = "<Applicant><Employer>The \ufb01rst o\ufb03ce co\u00adoperative</Employer></Applicant>"
    doc = extract(xfa_form_pdf(tmp_path / "form.pdf", datasets_xml(fields)))
    assert "Employer: The first office cooperative" in doc.text


# -- notes written on a page, and a metadata title -------------------------------------------------------------

NOTE = "<< /Type /Annot /Subtype /Text /Rect [0 0 20 20] /P {p} 0 R /T (igalsh) /Contents (this is the note) >>"
POPUP = "<< /Type /Annot /Subtype /Popup /Rect [0 0 99 99] /Contents (this is the note) >>"  # the same note shown
LINK = "<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /Contents (Open the vendor site) >>"
TYPED = ("<< /Type /Annot /Subtype /FreeText /Rect [0 0 99 20] /Contents (Ask the harbour master\\r\\nabout the "
         "tide tables before Friday) >>")


def test_a_pdfs_notes_are_read_with_the_page_they_sit_on_and_keep_it_waiting_for_ocr(tmp_path):
    # tika's testPopupAnnotation.pdf: a sticky note "this is the note" by igalsh was "no text found"
    pdf = annotated_pdf(tmp_path / "notes.pdf", [("The quarterly report of the pilots' guild", [LINK]),
                                                 ("", [NOTE, POPUP, TYPED, NOTE])])
    doc = extract(pdf)
    assert _page(doc, 1) == "The quarterly report of the pilots' guild"  # a link's tooltip is no note
    assert _page(doc, 2) == ("igalsh: this is the note\n"
                             "Ask the harbour master about the tide tables before Friday")
    # page 2 has no text of its own: a scan, whatever is written on it, so it is still OCR'd, and its notes kept
    assert pages_needing_ocr(doc, len(doc.pages)) == [2]
    ocr = Document("Tide table for March", (PageSpan(2, 0, 20),), kind="ocr", notes=(OCR_NOTE,))
    merged = merge_ocr(doc, ocr)
    assert _page(merged, 2) == ("Tide table for March\n\nigalsh: this is the note\n"
                                "Ask the harbour master about the tide tables before Friday")
    assert OCR_NOTE in merged.notes
    # OCR that found nothing on the page: its notes are the text, and nothing says "recognised by OCR" (a newcomer's
    # `explain` of tika's testPopupAnnotation.pdf did)
    blank = merge_ocr(doc, Document("", (PageSpan(2, 0, 0),), kind="ocr", notes=(OCR_NOTE,)))
    assert _page(blank, 2) == _page(doc, 2) and OCR_NOTE not in blank.notes


def test_notes_are_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_notes, "MAX_NOTES", 2)
    notes = [NOTE.replace("this is the note", f"note {i}") for i in range(4)]
    doc = extract(annotated_pdf(tmp_path / "many.pdf", [("", notes[:1]), ("", notes[1:])]))
    assert doc.text == "igalsh: note 0\n\nigalsh: note 1"


def test_a_pdf_with_no_text_is_found_by_its_metadata_title_and_still_waits_for_ocr(tmp_path):
    # tika's testPDF_twoAuthors.pdf: a blank page, a title and authors in the information dictionary
    title = "/Title (Sample Title) /Author (Sample Author 1)"
    doc = extract(annotated_pdf(tmp_path / "blank.pdf", [("", []), ("", [])], title))
    assert doc.text.strip() == "Sample Title" and doc.title == "Sample Title" and doc.page_at(0) == 1
    assert pages_needing_ocr(doc, len(doc.pages)) == [1, 2]  # a blank page may be a scan: OCR decides
    doc = extract(annotated_pdf(tmp_path / "text.pdf", [("Minutes of the March meeting", [])], title))
    assert "Sample Title" not in doc.text and doc.title == "Sample Title"  # with text: the title is context only
