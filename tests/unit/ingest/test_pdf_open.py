"""Opening a PDF: files protected by a password are skipped as encrypted whatever their cipher, files only
pdfium can open are read by it, and a damaged file says what is wrong with it.

Every PDF is written here byte by byte (tests/pdf_files.py)."""

from __future__ import annotations

import pytest

from pdf_files import aes256_pdf, glyph_code_pdf

from searchapp.base.errors import ExtractionError, UnsupportedFileError
from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors import pdf as pdf_module
from searchapp.ingest.extractors.ole_encrypted import ENCRYPTED


def test_an_aes_256_pdf_with_a_password_is_skipped_as_encrypted(tmp_path):
    # pypdf without the cryptography package cannot check an AES-256 password; the file was reported as
    # "corrupt PDF: cryptography>=3.1 is required for AES algorithm" (pdf.js saslprep-r6.pdf, pypdf's
    # r6-user-password.pdf, Tika's testUnicodePassword.pdf...) and failed again at every sync.
    pytest.importorskip("pypdfium2")  # the ocr extra
    with pytest.raises(UnsupportedFileError, match=f"^{ENCRYPTED}$"):
        extract(aes256_pdf(tmp_path / "locked.pdf", "Secret harbour accounts"))


def test_an_aes_256_pdf_that_opens_without_a_password_is_read_by_pdfium(tmp_path):
    pytest.importorskip("pypdfium2")  # the ocr extra
    doc = extract(aes256_pdf(tmp_path / "open.pdf", "Secret harbour accounts", locked=False))
    assert doc.text == "Secret harbour accounts"
    assert doc.notes == (f"read by pdfium: pypdf could not ({pdf_module.AES})",)


def test_without_pdfium_an_aes_256_pdf_fails_saying_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_module, "available", lambda: False)
    with pytest.raises(ExtractionError, match="^encrypted with AES, which pypdf reads only with the cryptography"):
        extract(aes256_pdf(tmp_path / "locked.pdf", "Secret harbour accounts"))


@pytest.mark.parametrize("handler, version, pdfium, reason", [
    (b"/MicrosoftIRMServices", 5, True, r"^encrypted: rights-managed \(IRM\), not indexed$"),
    (b"/Standard", 9, False, r"^encrypted by a scheme pypdf cannot read \(Encryption V=9 NOT supported\), not indexed$")])
def test_a_pdf_encrypted_by_a_scheme_no_reader_has_is_skipped_as_encrypted(tmp_path, monkeypatch, handler, version,
                                                                           pdfium, reason):
    # Tika's testMicrosoftIRMServices.pdf failed as "pdf extraction failed: NotImplementedError: only Standard PDF
    # encryption handler is available", and was read again at every sync
    if not pdfium:
        monkeypatch.setattr(pdf_module, "available", lambda: False)
    with pytest.raises(UnsupportedFileError, match=reason):
        extract(aes256_pdf(tmp_path / "managed.pdf", "Secret harbour accounts", handler=handler, version=version))


def test_a_feature_pypdf_lacks_outside_encryption_is_no_encryption(tmp_path, monkeypatch):
    import pypdf

    def unread(*_args: object, **_kwargs: object) -> None:  # as pypdf's filters.py raises it for a stream
        raise NotImplementedError("Unsupported filter /Made-up")

    monkeypatch.setattr(pypdf, "PdfReader", unread)
    monkeypatch.setattr(pdf_module, "available", lambda: False)
    with pytest.raises(ExtractionError, match=r"pypdf cannot read it: Unsupported filter /Made-up") as caught:
        extract(aes256_pdf(tmp_path / "odd.pdf", "Harbour accounts", locked=False))
    assert not isinstance(caught.value, UnsupportedFileError) and "encrypted" not in str(caught.value)


def test_a_pdf_cut_short_says_it_is_truncated(tmp_path):
    # A download cut short was "corrupt PDF: Stream has ended unexpectedly": the file is fine, the copy is not.
    data = glyph_code_pdf(tmp_path / "whole.pdf", [[("text", "Harbour pilots guide ships. " * 40)]] * 3).read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[:len(data) // 3])
    with pytest.raises(ExtractionError, match=r"^truncated PDF \(no end-of-file marker\): an incomplete download\?$"):
        extract(cut)


@pytest.mark.parametrize("data", [b"this is not a pdf at all", b"",
                                  b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\n%%EOF\n"])
def test_a_file_that_is_no_pdf_or_ends_as_one_is_not_called_truncated(tmp_path, data):
    path = tmp_path / "bad.pdf"
    path.write_bytes(data)
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert "truncated" not in str(caught.value)
