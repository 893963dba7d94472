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

