"""Words split by a hyphen at a line end are joined again in PDF text (`extractors/line_breaks.py`), unless the
document writes the pair with a hyphen elsewhere; pdfium's own marks for such breaks are resolved the same way.
A page pypdf reads one word a line is taken from pdfium when pdfium reads its lines."""

from __future__ import annotations

import pytest

from pdf_files import glyph_code_pdf, winansi_pdf, word_a_line_pdf

from searchapp.base.types import Document
from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors import pdf as pdf_module
from searchapp.ingest.extractors.line_breaks import better_lines, join_hyphenated, word_a_line


def _page(doc: Document, number: int) -> str:
    span = next(p for p in doc.pages if p.page == number)
    return doc.text[span.start:span.end]


@pytest.mark.parametrize(("text", "joined"), [
    ("who had discov-\nered electric induction", "who had discovered\nelectric induction"),
    ("an anath-\nema.\nNext line", "an anathema.\nNext line"),  # the line ends after the word: no blank line made
    ("the ﬁnal ef-\nfects here", "the ﬁnal effects\nhere"),
    ("Trace-\nMonkey runs", "Trace-\nMonkey runs"),  # a name
    ("pages 10-\n20 and x-\naxis", "pages 10-\n20 and x-\naxis"),  # a range, a one-letter prefix
    ("see http://ex-\nample.org/a-\nb or ann@ex-\nample.org", "see http://ex-\nample.org/a-\nb or ann@ex-\nample.org"),
    ("pdfium: discov\ufffeered, Soekarno\ufffeVerDate, con\x02\ntent, end\ufffe", "pdfium: discovered, "
     "Soekarno-VerDate, content, end-"),
    ("FONT: courier\n \x01 \x02 \x03 \x04", "FONT: courier\n \x01 \x02 \x03 \x04"),  # a symbol font's codes, no mark
])
def test_line_end_hyphens_are_joined_when_a_word_was_broken(text, joined):
    assert join_hyphenated([text]) == [joined]


def test_the_document_s_own_hyphenated_words_keep_their_hyphen():
    pages = ["A well-known fact, a state-of-the-art tool.", "It was well-\nknown; the state-of-the-\nart one; "
             "a well\ufffeknown mark and a long-\nstanding issue."]
    assert join_hyphenated(pages) == [pages[0], "It was well-\nknown; the state-of-the-\nart one; a well-known mark "
                                                "and a longstanding\nissue."]


def test_a_pdf_s_broken_words_are_found_and_its_pages_keep_their_offsets(tmp_path):
    pdf = glyph_code_pdf(tmp_path / "book.pdf", [
        [("text", "Faraday, a bookbinder's apprentice, had discov-\nered electric induction. A well-known\nfact.")],
        [("text", "To some it was an anath-\nema; it was well-\nknown all the same.")],
    ])
    doc = extract(pdf)
    assert "had discovered\nelectric induction" in _page(doc, 1)
    assert _page(doc, 2) == "To some it was an anathema;\nit was well-\nknown all the same."
    assert doc.pages[1].end == len(doc.text) and doc.pages[1].start == doc.pages[0].end + 2


def test_a_pdf_read_whole_by_pdfium_has_its_marked_breaks_resolved(tmp_path):
    pytest.importorskip("pypdfium2")  # the ocr extra
    pdf = glyph_code_pdf(tmp_path / "book.pdf", [
        [("text", "Faraday had discov-\nered electric induction. A well-known\nfact, well-\nknown to all.")],
    ])
    data = pdf.read_bytes()
    pdf.write_bytes(data[:data.rindex(b"startxref")])  # pypdf cannot open it: pdfium reads it whole
    doc = extract(pdf)
    assert any(n.startswith("read by pdfium") for n in doc.notes)
    assert "had discovered electric induction" in doc.text and "fact, well-known to all" in doc.text
    assert "\ufffe" not in doc.text


# -- one word a line ------------------------------------------------------------------------------------
GEOGRAPHY = ["Geography is the study of places and the relationships between people",
             "and their environments. Geographers explore the physical properties of",
             "the surface of the Earth and the societies spread across it."]


def test_a_page_pypdf_reads_one_word_a_line_is_taken_from_pdfium(tmp_path):
    # pdf.js's issue19971.pdf (Chrome's "Save as PDF"): 1,889 lines of a word each; a phrase matched nothing.
    pytest.importorskip("pypdfium2")  # the ocr extra
    doc = extract(word_a_line_pdf(tmp_path / "geography.pdf", GEOGRAPHY))
    assert doc.text == "\n".join(GEOGRAPHY)


def test_without_pdfium_a_page_read_one_word_a_line_keeps_its_words(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_module, "available", lambda: False)
    doc = extract(word_a_line_pdf(tmp_path / "geography.pdf", GEOGRAPHY))
    assert doc.text.split() == " ".join(GEOGRAPHY).split()


def test_a_list_of_words_stays_as_pypdf_reads_it(tmp_path):
    words = [f"item{n}" for n in range(30)]  # a word a line in both readers: nothing better to take
    doc = extract(glyph_code_pdf(tmp_path / "list.pdf", [[("text", "\n".join(words))]]))
    assert doc.text == "\n".join(words)


def test_a_page_read_a_word_a_line_and_garbled_asks_pdfium_once(tmp_path, monkeypatch):
    """pypdf's glyph codes a word a line: pdfium's reading is looked at for its lines, then as the garbled page's
    replacement; the page is read by pdfium once, not twice."""
    pytest.importorskip("pypdfium2")  # the ocr extra
    from searchapp.ingest.extractors import pdfium_doc

    words = ("Harbour pilots guide ships into the narrow channel at high tide every night while the old "
             "keepers watch the lamps").split()  # 20 lines or more: judged as a page read a word a line
    calls: list[int] = []
    real = pdfium_doc.PdfiumDoc.page_text
    monkeypatch.setattr(pdfium_doc.PdfiumDoc, "page_text", lambda self, i: calls.append(i) or real(self, i))
    doc = extract(glyph_code_pdf(tmp_path / "pilots.pdf", [[("glyphs", "\n".join(words))]]))
    assert doc.text.split() == words and "/g" not in doc.text
    assert calls == [0]


def test_the_other_reading_is_taken_only_with_lines_of_words_and_every_character():
    text = "\n".join(" ".join(GEOGRAPHY).split())
    assert word_a_line(text) and not word_a_line("\n".join(GEOGRAPHY))
    assert better_lines("\n".join(GEOGRAPHY), text)
    assert not better_lines("\n".join(GEOGRAPHY)[:-40], text)  # text missing: pypdf's is kept
    assert not better_lines(text, text)  # one word a line in both: a list, kept as it is
    cjk = "\n".join("地理学は場所と人々と環境の関係を研究する学問である。気候変動や都市化を理解する")
    assert word_a_line(cjk) and better_lines(cjk.replace("\n", ""), cjk)


def test_a_pdf_s_winansi_hyphen_is_a_hyphen_not_a_soft_one(tmp_path):
    """pypdf reads WinAnsi's 0xAD (the hyphen Helvetica draws) as U+00AD, which every format's cleaning drops as
    a soft hyphen: "state-of-the-art" read "stateoftheart" and `search art` found nothing. A line-end one still
    joins its word."""
    path = winansi_pdf(tmp_path / "shy.pdf", b"A state\xadof\xadthe\xadart e\xadmail system, discov\xad\nered late.")
    assert extract(path).text == "A state-of-the-art e-mail system, discovered\nlate."


def test_a_long_run_without_spaces_is_read_once_not_over_and_over():
    """A page without spaces between its words (common in PDFs) is one long run of letters: the first regexes
    backtracked over every start of it (2,000 letters took 60 s, 100,000 would take days). A hang guard, not a
    speed test: the child is given 120 s for what takes well under a second on any machine."""
    import subprocess
    import sys

    code = ("from searchapp.ingest.extractors.line_breaks import join_hyphenated as j\n"
            "n = 100_000\n"
            "pages = ['x' * n + '\\nend', 'x' * n + '-\\nend', 'x' * n + '\\ufffe' + 'y' * n, 'ab-' * n + '\\nxy']\n"
            "out = j(pages)\n"
            "assert out[1] == 'x' * n + 'end' and out[2] == 'x' * n + 'y' * n, [p[-8:] for p in out]\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_chinese_or_japanese_line_wrap_is_no_word_end():
    """pdfium gives "気候変\n動": the pair 変動 of "気候変動" was never indexed. Korean wraps at its spaces, so a
    break beside Hangul stays; so does a paragraph's blank line, and a break beside Latin."""
    assert join_hyphenated(["気候変\n動の影響について\n調べた。", "기후\n변화", "日本\n\n本文", "東京\nTokyo\n大阪"]) == [
        "気候変動の影響について調べた。", "기후\n변화", "日本\n\n本文", "東京\nTokyo\n大阪"]
