"""Issue 14 (4, 6, 11): caps on what one file can cost, files that change underneath, PDF limits.

Every hostile input is built here: a 2 MB word, a one-line base64 file, a hex dump, a long DOCX,
a FIFO where a file was, an EPUB whose spine lists thousands of missing chapters, a PDF bomb.
"""

from __future__ import annotations

import base64
import os
import random
import uuid
import threading
import zipfile
import zlib
from pathlib import Path

import pytest

from searchapp.base.errors import ExtractionError, UnsupportedFileError
from searchapp.base.types import Document
from searchapp.ingest.chunking import chunk_document, passage_char_cap
from searchapp.ingest.extractors import extract
from searchapp.ingest.text_caps import LONG_RUN, bound_text

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only (FIFOs)")

PROSE = ("The library keeps every passage of every file it has read. Searching by meaning finds the "
         "passage that answers a question even when it shares no word with it. ")


def never_blocks(fn, fifo: Path, seconds: float = 60.0):
    """Run fn() in a thread; if it is stuck in open() on `fifo`, unblock it by opening the write end, and fail."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # reported to the test thread
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    blocked = t.is_alive()
    if blocked:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # succeeds only when a reader waits in open()
        os.close(fd)
        t.join(10)
    assert not blocked, "blocked opening a FIFO"
    if "error" in out:
        raise out["error"]
    return out.get("value")


# -- 4: passages capped in characters -----------------------------------------------------------
def test_a_2mb_word_is_cut_into_capped_passages(packaged_encoder):
    word = "".join(random.Random(0).choices("abcdefghij", k=2_000_000))  # one call, not 2 million
    doc = Document(PROSE + word + " " + PROSE)
    spans = chunk_document(doc, packaged_encoder.token_offsets, max_tokens=200, overlap=0.2)
    cap = passage_char_cap(200)
    assert max(len(s.text) for s in spans) <= cap
    covered = sum(len(s.text) for s in spans)
    assert covered >= len(doc.text.replace(" ", "")) * 0.9  # nothing dropped


def test_one_line_base64_is_skipped_as_not_prose(tmp_path):
    p = tmp_path / "dump.txt"
    p.write_bytes(base64.b64encode(random.Random(1).randbytes(3 * 2**20)))  # 4 MB, one line
    with pytest.raises(UnsupportedFileError, match="not prose"):
        extract(p)


def test_wrapped_base64_and_hex_dumps_are_skipped_as_not_prose(tmp_path):
    raw = random.Random(2).randbytes(200_000)
    b64 = base64.encodebytes(raw)  # 76-character lines
    (tmp_path / "mail.txt").write_bytes(b64)
    hexdump = "\n".join(f"{i * 16:08x}: " + " ".join(raw[i * 16 + j:i * 16 + j + 2].hex() for j in range(0, 16, 2))
                        + "  ................" for i in range(5000))
    (tmp_path / "dump.log").write_text(hexdump)
    for name in ("mail.txt", "dump.log"):
        with pytest.raises(UnsupportedFileError, match="not prose"):
            extract(tmp_path / name)


def test_numbers_csv_cjk_and_prose_are_kept(tmp_path):
    (tmp_path / "table.tsv").write_text("\n".join(f"{i}\t{i * 37 % 1000}\t{i * 91}" for i in range(5000)))
    (tmp_path / "rows.csv").write_text("\n".join(f"{i},Boston,MA,02{i % 1000:03d},2024-01-{i % 28 + 1:02d},ok,{i * 7}"
                                                for i in range(5000)))
    (tmp_path / "essay.txt").write_text(PROSE * 200)
    (tmp_path / "nihongo.txt").write_text("これは日本語のテキストです。検索エンジンのテストです。" * 4000)  # no spaces
    for name in ("table.tsv", "rows.csv", "essay.txt", "nihongo.txt"):
        doc = extract(tmp_path / name)
        assert len(doc.text) == len((tmp_path / name).read_text().strip()) or doc.text, name
        assert not doc.notes, (name, doc.notes)


def test_a_markdown_list_of_links_keeps_its_link_texts(tmp_path):
    """Links are long strings without spaces, but a person wrote them: a list of links is no base64 dump."""
    lines = ["# Reading list", ""] + [f"- [Field notes on {w} {i}](https://example.org/archive/2024/articles/{w}-{i}"
                                      f"?utm_source=newsletter&utm_medium=email&utm_campaign=autumn)"
                                      for i, w in enumerate(["glaciers", "tides", "lichens", "kestrels"] * 15)]
    (tmp_path / "links.md").write_text("\n".join(lines) + "\n")
    doc = extract(tmp_path / "links.md")
    assert "Field notes on kestrels 59" in doc.text and "Field notes on glaciers 0" in doc.text
    assert not [n for n in doc.notes if "not prose" in n], doc.notes
    # Data stays data: the same list with base64 blobs in place of link texts is still left out.
    blob = base64.b64encode(random.Random(3).randbytes(3000)).decode()
    (tmp_path / "blobs.md").write_text("\n".join(f"- {blob[i:i + 76]}" for i in range(0, len(blob), 76)) + "\n")
    with pytest.raises(UnsupportedFileError, match="not prose"):
        extract(tmp_path / "blobs.md")


def test_paths_file_names_and_fill_in_lines_are_kept_as_text(tmp_path):
    """Long strings a person wrote are words cut by separators: a paragraph naming two files, an inventory of
    UNC paths, a form of `____` blanks were all left out as "not prose (base64 or hashes?)"."""
    (tmp_path / "notes.txt").write_text(
        "Where the contracts are kept\n\nThe signed Henderson contract is at\n"
        "/mnt/archive/legal/contracts/2014/henderson_signed_scan_final_v3.pdf\n"
        "and the draft is at /mnt/archive/legal/contracts/2014/henderson_draft_markup_v2.docx\n")
    (tmp_path / "inventory.csv").write_text("id,owner,path\n" + "".join(
        f"{i},Alice Smith,\\\\fileserver01\\shares\\{d}\\archive\\{2000 + i}\\{d}_quarterly_report_{i:04d}_final.docx\n"
        for i, d in enumerate(["legal", "marketing", "finance", "hr"] * 50)))
    (tmp_path / "form.txt").write_text("Request for an extract from the register of shareholders\n"
                                       + "Name: ______________________________________________\n" * 3
                                       + "Account no. ______________   Date ...........................\n")
    for name, words in (("notes.txt", "signed Henderson contract"), ("inventory.csv", "marketing_quarterly_report_0001"),
                        ("form.txt", "register of shareholders")):
        doc = extract(tmp_path / name)
        assert words in doc.text and not doc.notes, (name, doc.notes)
    # A list of hashes is still data: hex stretches with nothing between them; so are UUIDs and key fingerprints
    # (hex groups chained by - or :), but not dated file names (no hex letter in a date).
    rng = random.Random(7)
    (tmp_path / "sums.txt").write_text("".join(f"{rng.randbytes(32).hex()}  file{i}.iso\n" for i in range(300)))
    (tmp_path / "ids.txt").write_text("".join(f"{uuid.UUID(bytes=rng.randbytes(16))}/{uuid.UUID(bytes=rng.randbytes(16))}\n"
                                              for _ in range(300)))
    (tmp_path / "keys.txt").write_text("".join(":".join(f"{rng.randrange(256):02X}" for _ in range(32)) + "\n"
                                               for _ in range(200)))
    for name in ("sums.txt", "ids.txt", "keys.txt"):
        with pytest.raises(UnsupportedFileError, match="not prose"):
            extract(tmp_path / name)
    (tmp_path / "backups.txt").write_text("".join(f"/srv/backups/db-2024-01-{d:02d}-10-30-00.sql.gz\n"
                                                  for d in range(1, 29)))
    assert "db-2024-01-28-10-30-00" in extract(tmp_path / "backups.txt").text


def test_long_runs_inside_prose_are_shortened_and_said(tmp_path):
    p = tmp_path / "page.md"
    p.write_text(PROSE * 600 + "data:image/png;base64," + "A" * 60_000 + " " + PROSE * 600)
    doc = extract(p)
    assert len(doc.text) < len(PROSE) * 1200 + LONG_RUN + 50
    assert any("shortened" in n for n in doc.notes)


def test_extracted_text_is_capped_and_reported_as_truncated(tmp_path, caplog):
    p = tmp_path / "long.txt"
    p.write_text(PROSE * 2000)  # ~290k characters
    doc = extract(p, max_chars=50_000)
    assert len(doc.text) <= 50_000
    assert any("truncated at 50,000 characters" in n for n in doc.notes)
    assert "truncated at 50,000" in caplog.text


def test_docx_text_is_capped_while_streaming(tmp_path):
    from docx import Document as Docx

    d = Docx()
    for i in range(3000):
        d.add_paragraph(f"Paragraph {i}. " + PROSE)
    p = tmp_path / "long.docx"
    d.save(str(p))
    full = extract(p)
    assert full.text.count("Paragraph") == 3000
    capped = extract(p, max_chars=20_000)
    assert len(capped.text) <= 20_000 and capped.text.startswith("Paragraph 0.")
    assert any("truncated" in n for n in capped.notes)


def test_bound_text_keeps_page_spans_consistent():
    from searchapp.base.types import PageSpan

    text = PROSE * 30 + "a" * 3000 + " page one\n\n" + "page two words"
    two = len(text) - len("page two words")
    doc = Document(text, pages=(PageSpan(1, 0, two - 2), PageSpan(2, two, len(text))))
    out = bound_text(doc)
    assert out.text[out.pages[1].start:out.pages[1].end] == "page two words"


def test_spreadsheets_of_empty_cells_written_one_by_one_store_a_few_lines(make_config, tiny_encoder, tmp_path):
    """Empty cells written one by one (<c/>, or ODS cells without a repeat) between words made lines of
    thousands of separators, all chunked and embedded; now a gap is at most 10 cells however written."""
    from office_files import make_xlsx, write_zip
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    rows = "".join(f'<row><c t="inlineStr"><is><t>left{r}</t></is></c>{"<c/>" * 3000}'
                   f'<c t="inlineStr"><is><t>right{r}</t></is></c></row>' for r in range(20))
    make_xlsx(docs / "gaps.xlsx", [("S", rows)], [])
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
    word = "<table:table-cell><text:p>{}</text:p></table:table-cell>"
    table = "".join(f"<table:table-row>{word.format(f'left{r}')}{'<table:table-cell/>' * 2000}"
                    f"{word.format(f'right{r}')}</table:table-row>" for r in range(20))
    write_zip(docs / "gaps.ods", {"content.xml": f"<office:document-content {ns}><office:body><office:spreadsheet>"
                                                 f'<table:table table:name="T">{table}</table:table>'
                                                 "</office:spreadsheet></office:body></office:document-content>"})
    for name in ("gaps.xlsx", "gaps.ods"):
        assert len(extract(docs / name).text) < 20 * 60, name  # before: 20 rows of 6,000 to 9,000 characters
    with Library(make_config(), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs)
    assert rep.added == 2 and not rep.problems
    assert rep.chunks_added <= 4, rep.chunks_added  # before: hundreds of passages of separators


# -- 6: files that change underneath -----------------------------------------------------------
def test_extractors_refuse_a_fifo_without_blocking(tmp_path):
    from searchapp.ingest.extractors.encoding import read_capped
    from searchapp.ingest.extractors.pdf import extract_pdf
    from searchapp.ingest.extractors.ziputil import SafeZip

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for fn in (lambda: read_capped(fifo, 1000), lambda: SafeZip(fifo), lambda: extract_pdf(fifo, 1000)):
        with pytest.raises(UnsupportedFileError, match="not a regular file"):
            never_blocks(fn, fifo)


def test_a_file_replaced_by_a_fifo_after_the_scan_does_not_hang_the_sync(make_config, tiny_encoder, tmp_path):
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"note{i}.txt").write_text(f"Note {i}. " + PROSE)
    victim = docs / "note1.txt"

    def progress(p):  # after the scan, before the read: the name now holds a FIFO
        if p.stage == "extracting" and p.message == victim.name and not victim.is_fifo():
            victim.unlink()
            os.mkfifo(victim)

    lib = Library(make_config(), encoder=tiny_encoder)
    try:
        rep = never_blocks(lambda: lib.add_folder(docs, progress), victim)
        assert rep.added == 2
        assert (str(victim), "not a regular file") in rep.problems
        st = lib.status()
        assert (str(victim), "skipped", "not a regular file") in st.failed
    finally:
        lib.close()


def _epub_with_missing_spine(path: Path, n: int) -> None:
    items = "".join(f'<item id="c{i}" href="missing{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(n))
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(n))
    opf = (f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
           f'<manifest><item id="real" href="real.xhtml" media-type="application/xhtml+xml"/>{items}</manifest>'
           f'<spine><itemref idref="real"/>{spine}</spine></package>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:'
                   'xmlns:container"><rootfiles><rootfile full-path="book.opf"/></rootfiles></container>')
        z.writestr("book.opf", opf)
        z.writestr("real.xhtml", f"<html><body><p>{PROSE}</p></body></html>")


class _CountingStr(str):
    compares = 0

    def __eq__(self, other):
        _CountingStr.compares += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_epub_spine_of_missing_chapters_takes_linear_work(tmp_path, monkeypatch):
    from searchapp.ingest.extractors import epub

    n = 5000
    path = tmp_path / "spine.epub"
    _epub_with_missing_spine(path, n)
    real = epub.resolve_href
    monkeypatch.setattr(epub, "resolve_href", lambda base, href: (lambda m: m and _CountingStr(m))(real(base, href)))
    _CountingStr.compares = 0
    doc = extract(path)
    assert doc.text.startswith("The library")
    assert _CountingStr.compares < 10 * n  # a list membership test made it n*n/2 = 12.5 million


# -- 11: pypdf limits and warnings -----------------------------------------------------------
def _pdf(path: Path, content: bytes, compress: bool = True, bad_xref: bool = False) -> None:
    stream = zlib.compress(content, 9) if compress else content
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d%s >>\nstream\n" % (len(stream), b" /Filter /FlateDecode" if compress else b"") + stream
            + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref + (7 if bad_xref else 0))
    path.write_bytes(bytes(out))


def test_pdf_over_the_decompression_limit_is_reported_as_such(tmp_path, monkeypatch):
    import dataclasses

    import pypdf.filters as filters

    small = dataclasses.replace(filters.get_configuration(), zlib_maximum_output_length=1_000_000)
    monkeypatch.setattr(filters, "get_configuration", lambda: small)  # pypdf's limit, made small to test fast
    p = tmp_path / "bomb.pdf"
    _pdf(p, b"BT /F1 12 Tf 72 712 Td (Hello bomb) Tj ET\n" + b" " * 3_000_000)
    with pytest.raises(ExtractionError) as info:
        extract(p)
    assert "decompression" in str(info.value) and "corrupt" not in str(info.value)


def test_pypdf_warnings_do_not_reach_stderr(tmp_path):
    """In a fresh process with no logging set up, as the CLI reads files (pytest would capture the log)."""
    import subprocess
    import sys

    p = tmp_path / "warned.pdf"
    _pdf(p, b"BT /F1 12 Tf 72 712 Td (Hello warnings) Tj ET", bad_xref=True)
    code = "import sys; from searchapp.ingest.extractors import extract; print(extract(sys.argv[1]).text)"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    out = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Hello warnings" in out.stdout
    assert out.stderr == "", out.stderr
