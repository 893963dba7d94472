"""Small hostile files that cost a sync minutes to hours before a cap applied (issue 40): the work each one
causes is counted (frames walked, header characters parsed, content streams parsed), not timed."""

from __future__ import annotations

import pytest


def _seeks(monkeypatch) -> list[int]:
    """The TIFF frames Pillow walks to (every call of its own frame seek)."""
    from PIL import TiffImagePlugin

    calls: list[int] = []
    real = TiffImagePlugin.TiffImageFile._seek

    def counted(self, frame):
        calls.append(frame)
        return real(self, frame)

    monkeypatch.setattr(TiffImagePlugin.TiffImageFile, "_seek", counted)
    return calls


def test_a_tiff_of_many_frames_is_walked_only_as_far_as_the_page_cap(tmp_path, monkeypatch):
    from PIL import Image

    from searchapp.ingest.ocr.images import frame_count, iter_image_pages

    path = tmp_path / "many.tif"
    frames = [Image.new("L", (2, 2), color=i) for i in range(120)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    calls = _seeks(monkeypatch)
    assert [n for n, _ in iter_image_pages(path, 5)] == [1, 2, 3, 4, 5]
    assert max(calls) < 10  # Pillow's n_frames walked all 120 (in time quadratic in the count)
    calls.clear()
    assert frame_count(path, 6) == 6 and max(calls) < 10
    assert frame_count(path, 500) == 120  # fewer frames than asked: the true count
    few = tmp_path / "few.tif"
    frames[0].save(few, save_all=True, append_images=frames[1:3])
    assert [n for n, _ in iter_image_pages(few, 5)] == [1, 2, 3]


def _parsed_lengths(monkeypatch) -> list[int]:
    """The length of every header value handed to the stdlib's header parser."""
    from email import headerregistry

    lengths: list[int] = []
    real = headerregistry.HeaderRegistry.__call__

    def counted(self, name, value):
        lengths.append(len(value))
        return real(self, name, value)

    monkeypatch.setattr(headerregistry.HeaderRegistry, "__call__", counted)
    return lengths


@pytest.mark.parametrize("name,value", [
    ("To", ", ".join(f"person{i} <p{i}@example.org>" for i in range(3000))),
    ("Subject", " ".join("=?utf-8?q?w=C3=B6rd?=" for _ in range(3000))),
])
def test_a_huge_header_is_cut_before_the_header_parser_sees_it(tmp_path, monkeypatch, name, value):
    from searchapp.ingest.extractors import extract
    from searchapp.ingest.extractors.mail import MAX_HEADER_CHARS, MAX_RAW_HEADER

    other = "Subject" if name == "To" else "To"
    path = tmp_path / "huge.eml"
    path.write_bytes(f"From: a@example.org\n{other}: ok\n{name}: {value}\n\nThe body of the message.\n".encode())
    lengths = _parsed_lengths(monkeypatch)
    doc = extract(path)
    assert lengths and max(lengths) <= MAX_RAW_HEADER  # was the whole header: ~90,000 characters here
    line = next(line for line in doc.text.splitlines() if line.startswith(f"{name}: "))
    assert 1000 < len(line) <= MAX_HEADER_CHARS + len(name) + 2
    assert ("person1 <p1@example.org>" in line) if name == "To" else line.startswith("Subject: wördwörd")  # RFC 2047: no space between encoded words
    assert "The body of the message." in doc.text


def test_an_ordinary_header_is_parsed_whole(tmp_path):
    from searchapp.ingest.extractors import extract

    path = tmp_path / "plain.eml"
    path.write_bytes(b"From: a@example.org\nTo: Ann <ann@example.org>, Bob <bob@example.org>\n"
                     b"Subject: =?utf-8?q?Caf=C3=A9?= notes\n\nBody text here.\n")
    doc = extract(path)
    assert "To: Ann <ann@example.org>, Bob <bob@example.org>" in doc.text and doc.title == "Café notes"


def test_pages_that_share_a_content_stream_are_parsed_once(tmp_path, monkeypatch):
    from pdf_files import shared_stream_pdf
    from pypdf.generic import ContentStream

    from searchapp.ingest.extractors import extract

    parsed: list[int] = []
    real = ContentStream._parse_content_stream

    def counted(self, stream):
        parsed.append(1)
        return real(self, stream)

    monkeypatch.setattr(ContentStream, "_parse_content_stream", counted)
    doc = extract(shared_stream_pdf(tmp_path / "shared.pdf", 12, 200, other_text="Lantern orchard"))
    # the 12 pages: once; the same stream with other resources: again; the page of its own stream: once
    assert len(parsed) == 3  # was 14: once a page
    texts = [doc.text[p.start:p.end] for p in doc.pages]
    assert texts[:12] == ["Shared words here"] * 12
    assert texts[12] != texts[0] and "hared" in texts[12]  # read with its own font, not taken from page 1
    assert texts[13] == "Lantern orchard"
