"""Files whose name says nothing (README, INSTALL, Makefile, *.Debian) are indexed when their content is
plain text; binary content under an unknown name is skipped once; known binary types are left out quietly."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.base.errors import UnsupportedFileError
from searchapp.ingest.extractors import extract

TEXTS = {
    "README": "Frobnicator: a tool that untangles spaghetti wiring diagrams.",
    "INSTALL": "Run the quasimodo installer, then reboot the lighthouse.",
    "Makefile": "all:\n\tgcc -o zanzibar zanzibar.c\n",
    "changelog.Debian": "xylophone (1.2-3) unstable; urgency=low\n  * Fix the marimba tuning.\n",
    "notes.nfo": "Cardigan weaving pattern for the winter market.",
    "server.conf": "listen_port = 8080  # the walrus service",
    "thesis.tex": "\\section{Introduction} Photosynthesis in kelp forests.",
    "todo.org": "* TODO buy pumpernickel",
}


@pytest.fixture
def library(tiny_library):
    return tiny_library


def test_unknown_names_with_text_content_are_indexed(library, tmp_path):
    d = tmp_path / "proj"
    d.mkdir()
    for name, text in TEXTS.items():
        (d / name).write_text(text, encoding="utf-8")
    (d / "LEGACY").write_bytes("Café crème brûlée, naïve façade.".encode("cp1252"))  # 8-bit, not UTF-8
    (d / "core.dump").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    (d / "archive.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    rep = library.add_folder(d)
    assert rep.added == len(TEXTS) + 1
    for word, name in (("frobnicator", "README"), ("quasimodo", "INSTALL"), ("zanzibar", "Makefile"),
                       ("marimba", "changelog.Debian"), ("cardigan", "notes.nfo"), ("walrus", "server.conf"),
                       ("pumpernickel", "todo.org"), ("brûlée", "LEGACY")):
        hits = library.search(word, mode="lexical").hits
        assert hits and Path(hits[0].path).name == name, word
    problems = {Path(p).name: r for p, r in rep.problems}
    # Zip files are read now (their members are entries): a broken one is reported like a broken PDF.
    assert problems == {"core.dump": "not plain text (binary content)",
                        "archive.zip": "the archive is cut short (truncated): an incomplete download or copy?"}
    # each is listed once, by the sync that first met it (a failed file is tried again; the same failure is no news)
    again = library.sync()
    assert again.problems == [] and again.failed == 1 and again.skipped == 1
    (d / "archive.zip").write_bytes(b"PK\x03\x04" + b"\x01" * 40)  # changed, and still broken: listed again
    assert [Path(p).name for p, _ in library.sync().problems] == ["archive.zip"]


def test_sniffed_extraction(tmp_path):
    readme = tmp_path / "README"
    readme.write_text("hello\r\nworld", encoding="utf-8")
    assert extract(readme).text == "hello\nworld" and extract(readme).kind == "text"
    blob = tmp_path / "blob"
    blob.write_bytes(b"abc\x00def")
    with pytest.raises(UnsupportedFileError, match="binary"):
        extract(blob)
    big = tmp_path / "BIG"
    big.write_text("y" * 5000)
    with pytest.raises(Exception, match="too large"):
        extract(big, max_bytes=1000)  # the size cap applies as for any text file


def test_rtf_is_found_by_its_words_not_its_markup(library, tmp_path):
    """A newcomer's RTF files were indexed as `{\\rtf1\\ansi…` code or skipped as "not prose"; an RTF saved as .doc
    was refused. Both are read as the document's text, in either engine's library."""
    d = tmp_path / "letters"
    d.mkdir()
    rtf = (rb"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0\fswiss Helvetica;}}{\colortbl;\red0\green0\blue0;}"
           rb"\pard\f0 Dear Mrs Pennywhistle,\par the caf\'e9 invoice is attached.\par}")
    (d / "letter.rtf").write_bytes(rtf)
    (d / "old-letter.doc").write_bytes(rtf.replace(b"Pennywhistle", b"Quillfeather"))
    rep = library.add_folder(d)
    assert rep.added == 2 and not rep.problems, rep.problems
    assert [Path(h.path).name for h in library.search("Pennywhistle", mode="lexical").hits] == ["letter.rtf"]
    assert [Path(h.path).name for h in library.search("Quillfeather", mode="lexical").hits] == ["old-letter.doc"]
    assert [Path(h.path).name for h in library.search("café", mode="lexical").hits] != []
    assert library.search("fonttbl", mode="lexical").hits == []
