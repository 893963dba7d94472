"""MHTML (.mht, .mhtml), a web page saved as one file, was indexed as raw MIME: Tika's testMHTMLFirefox.mhtml gave
45 passages of tags, `=3D` and base64 images, and "significantly" was not found (a quoted-printable soft break
cut it, `significantl=` / `y`). Now its HTML part is decoded and read as an .html file; the images and style
sheets are never read."""

from __future__ import annotations

import base64
import quopri
from pathlib import Path

import pytest

from searchapp.base.errors import ExtractionError
from searchapp.ingest.extractors import extract, extractor_name
from searchapp.ingest.extractors import mail_parse

PAGE = ("<!DOCTYPE html><html><head><meta http-equiv=\"content-type\" content=\"text/html; charset={meta}\">"
        "<title>Aperture Framework</title><link rel=\"stylesheet\" href=\"index_files/all.css\"></head><body>"
        "<h1>Aperture</h1><p>This release adds support for crawling file systems, web sites and mail boxes. "
        "Furthermore, the number of supported file formats has increased significantly. {extra}</p>"
        "<img src=\"index_files/logo.png\"></body></html>")


def _part(content_type: str, body: bytes, encoding: str = "quoted-printable", headers: str = "") -> bytes:
    encoded = quopri.encodestring(body) if encoding == "quoted-printable" else base64.encodebytes(body)
    encoded = encoded.replace(b"\n", b"\r\n").replace(b"significantly", b"significantl=\r\ny")  # a soft break
    return (f"Content-Type: {content_type}\r\nContent-Transfer-Encoding: {encoding}\r\n{headers}"
            "Content-Location: http://example.org/\r\n\r\n").encode() + encoded + b"\r\n"


def mhtml(parts: list[bytes], params: str = 'type="text/html"') -> bytes:
    """An MHTML file as browsers write it: a multipart/related of `parts` (_part), CRLF line ends."""
    head = ("From: <Saved by Blink>\r\nSubject: Aperture Framework\r\nMIME-Version: 1.0\r\n"
            f'Content-Type: multipart/related;\r\n\tboundary="----=_NextPart_000";\r\n\t{params}\r\n\r\n').encode()
    return head + b"".join(b"------=_NextPart_000\r\n" + p for p in parts) + b"------=_NextPart_000--\r\n"


def _page(meta: str = "utf-8", extra: str = "", charset: str = "utf-8") -> bytes:
    return PAGE.format(meta=meta, extra=extra).encode(charset)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_the_html_part_is_read_and_the_other_parts_are_not(tmp_path: Path) -> None:
    data = mhtml([_part("text/html; charset=utf-8", _page(extra="Caf\u00e9 \u201cquoted\u201d.")),
                  _part("text/css", b"body { font-family: cssonlyword; }"),
                  _part("image/png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, encoding="base64")])
    assert b"significantl=\r\ny" in data and b"charset=3Dutf-8" in data
    for name in ("page.mhtml", "page.MHT"):
        doc = extract(write(tmp_path / name, data))
        assert doc.kind == "mhtml" and doc.title == "Aperture Framework"
        assert doc.text.startswith("Aperture Framework\n\nAperture\n\nThis release adds")
        assert "increased significantly. Café “quoted”." in doc.text
        for raw in ("=3D", "=\n", "<", "cssonlyword", "Content-Type", "iVBOR"):
            assert raw not in doc.text, raw


def test_the_charset_from_the_parts_header_else_from_the_pages_meta(tmp_path: Path) -> None:
    latin = _page(meta="windows-1252", extra="Cr\u00e8me br\u00fbl\u00e9e", charset="cp1252")
    by_meta = mhtml([_part("text/html", latin)])
    by_header = mhtml([_part('text/html; charset="windows-1252"', _page(meta="utf-8", extra="Cr\u00e8me br\u00fbl\u00e9e",
                                                                        charset="cp1252"), encoding="base64")])
    unknown = mhtml([_part('text/html; charset="x-user-defined"', latin)])  # IE's; the <meta> decides
    for i, data in enumerate((by_meta, by_header, unknown)):
        assert "Crème brûlée" in extract(write(tmp_path / f"{i}.mht", data)).text


def test_the_root_named_by_start_is_the_page(tmp_path: Path) -> None:
    frame = _part("text/html", b"<p>an embedded frame's advert</p>")
    root = _part("text/html", _page(), headers="Content-ID: <root.page@example>\r\n")
    doc = extract(write(tmp_path / "a.mht", mhtml([frame, root], 'type="text/html"; start="<root.page@example>"')))
    assert "significantly" in doc.text and "advert" not in doc.text
    doc = extract(write(tmp_path / "b.mht", mhtml([frame, root])))  # no start=: the first HTML part
    assert doc.text == "an embedded frame's advert"


def test_no_html_part_and_plain_html_under_an_mht_name(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match="no HTML part"):
        extract(write(tmp_path / "a.mht", mhtml([_part("image/png", b"\x89PNG", encoding="base64")])))
    doc = extract(write(tmp_path / "b.mht", _page()))  # some tools save plain HTML as .mht
    assert doc.title == "Aperture Framework" and "significantly" in doc.text


def test_parts_capped_as_mail_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mail_parse, "MAX_PARTS", 5)
    images = [_part("image/png", b"\x89PNG %d" % i, encoding="base64") for i in range(8)]
    doc = extract(write(tmp_path / "a.mhtml", mhtml([_part("text/html", _page()), *images])))
    assert "significantly" in doc.text and doc.notes == ("only the first 5 MIME parts read; 4 left out",)
    assert extractor_name("x.mht") == extractor_name("x.MHTML") == "mhtml"
