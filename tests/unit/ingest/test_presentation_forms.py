"""Ligatures and presentation forms are folded to the letters they stand for (encoding.clean_text), so that
"misfits" finds the PDF that holds "misﬁts" (py-pdf's crazyones.pdf) and "العربية" the one that holds the shaped
"اﻟﻌﺮﺑﻴﺔ" (pdf.js's ArabicCIDTrueType.pdf). Only those ranges are folded: "²", "①", full-width letters and "ſ"
stay as written. A fold makes the text longer ("ﬃ" is "ffi"), so page spans must be counted after it."""

from __future__ import annotations

from pathlib import Path

from office_files import make_pptx
from pdf_files import RawPdf

from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors.encoding import clean_text

SHAPED_ARABIC = "\ufe8d\ufedf\ufecc\ufeae\ufe91\ufef4\ufe94"  # "العربية" as a PDF's glyphs give it
ARABIC = "\u0627\u0644\u0639\u0631\u0628\u064a\u0629"


def test_clean_text_folds_ligatures_and_arabic_forms() -> None:
    assert clean_text("The mis\ufb01ts, e\ufb03cient \ufb00 \ufb02ow \ufb06") == "The misfits, efficient ff flow st"
    assert clean_text(SHAPED_ARABIC) == ARABIC
    assert clean_text("\ufefb") == "\u0644\u0627"  # the lam-alef ligature is two letters


def test_clean_text_keeps_other_compatibility_characters() -> None:
    kept = "x\u00b2 \u2460 \uff21\uff22 \u017fun \u2126 \u00bd \u2122 caf\u0065\u0301"
    assert clean_text(kept) == kept


def _ligature_pdf(path: Path, pages: list[bytes]) -> Path:
    """A PDF whose Helvetica names code 1 /fi and code 2 /ffi (as TeX and InDesign output does): pypdf reads
    them as U+FB01 and U+FB03."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
                   b"/BaseEncoding /WinAnsiEncoding /Differences [1 /fi /ffi] >> >>")
    kids = []
    for text in pages:
        stream = pdf.stream(b"BT /F1 11 Tf 40 760 Td (%s) Tj ET\n" % text)
        kids.append(pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R"
                            b" >> >> /Contents %d 0 R >>" % (tree, font, stream)))
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def test_pdf_ligatures_folded_and_page_spans_kept(tmp_path: Path) -> None:
    path = _ligature_pdf(tmp_path / "crazy.pdf", [b"The mis\x01ts, e\x02cient and \x01rst \x02 \x02 \x02",
                                                   b"Second page about rebels"])
    doc = extract(path)
    assert "The misfits, efficient and first ffi ffi ffi" in doc.text, doc.text
    assert [doc.text[p.start:p.end] for p in doc.pages] == ["The misfits, efficient and first ffi ffi ffi",
                                                            "Second page about rebels"]


def test_slide_spans_counted_after_the_fold(tmp_path: Path) -> None:
    path = make_pptx(tmp_path / "deck.pptx", [(["e\ufb03cient o\ufb03ce \ufb03"], []), ([f"Slide two {SHAPED_ARABIC}"], [])])
    doc = extract(path)
    assert [doc.text[p.start:p.end] for p in doc.pages] == ["efficient office ffi", f"Slide two {ARABIC}"]


def test_text_and_html_files_folded(tmp_path: Path) -> None:
    txt = tmp_path / "note.txt"
    txt.write_text(f"the \ufb01rst {SHAPED_ARABIC}\n", encoding="utf-8")
    html = tmp_path / "page.html"
    html.write_text("<title>O\ufb03ce</title><p>the &#xFB01;rst</p>", encoding="utf-8")
    assert extract(txt).text.strip() == f"the first {ARABIC}"
    assert extract(html).text == "Office\n\nthe first"
