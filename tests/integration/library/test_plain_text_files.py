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


@pytest.mark.engines("sqlite")
def test_every_file_met_is_counted_somewhere(tmp_path, make_config, tiny_encoder, capsys):
    """A program, an image while OCR is off and a hidden file were met by the sync and counted nowhere: `index` said
    "4 files scanned" of a folder of 7, and `status` the same (decision 0180)."""
    import json

    from searchapp.cli.commands.index import print_report
    from searchapp.library import Library

    d = tmp_path / "desk"
    (d / ".git").mkdir(parents=True)
    (d / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # in a folder not walked: not met
    (d / "build").mkdir()
    (d / "build" / "out.txt").write_text("built")
    (d / "tool.exe").write_bytes(b"MZ\x90\x00" + bytes(64))
    (d / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    (d / ".notes.swp").write_bytes(b"b0VIM")
    (d / ".latest").symlink_to(d / ".notes.swp")  # a hidden link to a file: counted as the file it points to
    import zipfile

    with zipfile.ZipFile(d / "letters.zip", "w") as z:
        z.writestr("hedge.txt", "The hedge along the lane needs cutting back before spring.")
    (d / "notes.txt").write_text("The allotment rota for watering the beans.")
    (d / "README").write_text("Frobnicator: a tool that untangles spaghetti wiring diagrams.")
    (d / "blob").write_bytes(b"abc\x00def")  # read, and not indexed with its reason
    with Library(make_config(models={"reranker": ""}, scan={"ocr": False}), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(d)
        status = json.loads(json.dumps(lib.status().to_json()))
    assert (rep.not_documents, rep.not_document_types) == (2, {".exe": 1, ".png": 1})
    assert rep.left_out_by_rules == {"hidden": 2} and rep.folders_left_out == {"hidden": 1, "skip_dirs": 1}
    met = 8  # every file but the two in the folders not walked
    assert rep.scanned - rep.members + rep.not_documents + sum(rep.left_out_by_rules.values()) == met
    assert status["files_by_status"] == {"indexed": 3, "skipped": 1}
    assert (status["not_documents"], status["left_out_by_rules"]) == (2, {"hidden": 2})
    assert status["files"] + status["not_documents"] + 2 == status["files_met"] == met
    assert status["roots"][0]["not_document_types"] == {".exe": 1, ".png": 1}
    print_report(rep, as_json=False)
    assert ("also met, never opened: 2 not documents (.exe, .png), 2 left out by rules (hidden 2), 2 folders not "
            "walked (hidden, skip_dirs: the files in them are not counted)") in capsys.readouterr().out
