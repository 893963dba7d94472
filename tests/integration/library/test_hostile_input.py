"""Hostile and broken input through a real sync: every bad file is recorded with its reason, every good file
beside it is indexed, and nothing takes unbounded time. Extractor-level cases that already live in
test_extractors.py / test_scan.py (zip bombs, XML entities, binary .txt, sparse 10 GB file, symlink loops,
fifos) are not repeated here."""

from __future__ import annotations

import base64
import io
import os
import shutil
import stat
import tarfile
import time
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import corpus
from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors import pdf as pdf_module
from searchapp.ingest.extractors.encoding import clean_text
from searchapp.base.stored_names import disk_path
from searchapp.library import Library
from searchapp.library.search.preview import file_text
from searchapp.library.sync import words_pass as sync_module

from test_crash_safety import check_library, tiny_config

GOOD = "Velvet saddles and copper lanterns hang in the harbor shed."


@pytest.fixture
def lib(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    library = Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder)
    yield library
    library.close()


def recorded(lib: Library) -> dict[str, tuple[str, str]]:
    return {Path(p).name: (status, reason) for p, status, reason in lib.status().failed}


def indexed_names(lib: Library) -> set[str]:
    return {Path(p).name for p, in lib.store.conn.execute("SELECT path FROM files WHERE status = 'indexed'")}


def test_broken_pdfs_html_and_encodings_are_recorded_and_the_rest_indexed(tmp_path, lib, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text(GOOD, encoding="utf-8")
    corpus.write_pdf(docs / "good.pdf", ["Photosynthesis turns light into sugar."])
    good_pdf = (docs / "good.pdf").read_bytes()
    (docs / "truncated.pdf").write_bytes(good_pdf[: len(good_pdf) // 2])
    from fpdf import FPDF

    locked = FPDF()
    locked.add_page()
    locked.set_font("helvetica", size=12)
    locked.cell(0, 10, "secret")
    locked.set_encryption(owner_password="o", user_password="u")
    locked.output(str(docs / "encrypted.pdf"))
    # Thousands of pages: only MAX_PAGES are read (lowered here so the test stays fast; the cap is what
    # bounds the time, whatever its value).
    many = FPDF()
    many.set_font("helvetica", size=10)
    for i in range(3000):
        many.add_page()
        many.cell(0, 10, f"Page {i + 1} of the ledger, entry zebra{i}")
    many.output(str(docs / "ledger.pdf"))
    monkeypatch.setattr(pdf_module, "MAX_PAGES", 100)
    # HTML: megabytes of inline data in a script and an attribute, broken nesting, an unclosed comment.
    blob = "A" * 3_000_000
    (docs / "inline.html").write_text(
        f"<html><head><script>var x='{blob}';</script></head><body><p>Visible <b>marble <i>quartz</b> text"
        f"<img src='data:image/png;base64,{blob}'><div><table><tr><td>cell</div></p><!-- never closed",
        encoding="utf-8")
    (docs / "latin1.txt").write_bytes("Café crème brûlée, naïve façade. ".encode("latin-1") * 5)
    (docs / "bad-utf8.md").write_bytes(b"Valid start \xff\xfe\xc3 then \x80 broken bytes and more words here.")
    (docs / "utf16-nobom.txt").write_bytes("Walnut harvest in the tundra, saved as UTF-16.".encode("utf-16-le"))
    (docs / "nul.txt").write_bytes(b"text with a NUL \x00 in it" * 3)
    (docs / "empty.txt").write_bytes(b"")
    (docs / "whitespace.md").write_text(" \n\t\n ", encoding="utf-8")

    t0 = time.perf_counter()
    rep = lib.add_folder(docs)
    seconds = time.perf_counter() - t0
    rec = recorded(lib)
    assert rec["truncated.pdf"][0] == "failed" and "PDF" in rec["truncated.pdf"][1]
    assert rec["encrypted.pdf"] == ("skipped", "encrypted: password-protected, not indexed")
    assert rec["nul.txt"][0] == "skipped" and "binary" in rec["nul.txt"][1]
    assert "empty.txt" not in rec and "whitespace.md" not in rec  # empty: counted apart, not among the problems
    assert {Path(r.path).name for _, r in lib.ledger("empty")} == {"empty.txt", "whitespace.md"}
    assert indexed_names(lib) == {"good.txt", "good.pdf", "ledger.pdf", "inline.html", "latin1.txt", "bad-utf8.md",
                                  "utf16-nobom.txt"}
    assert rep.failed == 1 and rep.skipped == 4  # the encrypted PDF is skipped (not read again each sync)
    pages = {p for p, in lib.store.conn.execute(
        "SELECT DISTINCT c.page FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path LIKE '%ledger.pdf'")}
    assert max(pages) == 100
    hit = lib.search("marble quartz cell", mode="lexical").hits[0]
    assert Path(hit.path).name == "inline.html" and "AAAA" not in hit.text
    assert Path(lib.search("walnut harvest tundra", mode="lexical").hits[0].path).name == "utf16-nobom.txt"
    assert Path(lib.search("brûlée façade", mode="lexical").hits[0].path).name == "latin1.txt"
    check_library(lib)
    assert seconds < 120, "a sanity bound only (not a speed test): hostile files must not hang a sync"


def test_file_vanishing_or_changing_while_read(tmp_path, lib, monkeypatch):
    """The race is forced deterministically: the real read runs (one read of a text file gives its hash and its
    text), but just before it the file is deleted (or rewritten), exactly what a user or another program does
    between the scan and the read."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("keep.txt", "vanish.txt", "change.txt"):
        (docs / name).write_text(f"{name} {GOOD}", encoding="utf-8")
    real_read = sync_module.file_sha256_and_bytes

    def racing_read(path, max_bytes):
        if path.name == "vanish.txt":
            path.unlink()
        elif path.name == "change.txt":
            path.write_text("Rewritten mid-read: thunder over the glacier.", encoding="utf-8")
        return real_read(path, max_bytes)

    monkeypatch.setattr(sync_module, "file_sha256_and_bytes", racing_read)
    rep = lib.add_folder(docs)
    monkeypatch.undo()
    assert rep.failed == 0
    assert indexed_names(lib) == {"keep.txt", "change.txt"}  # the vanished file is simply not there
    # The changed file was read after the scan: its stored size/mtime are the scan's, so the next sync sees
    # the difference and reads it again; the search reflects the file as it is now.
    os.utime(docs / "change.txt", ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    lib.sync()
    assert Path(lib.search("thunder glacier", mode="lexical").hits[0].path).name == "change.txt"
    check_library(lib)


def test_strange_file_names(tmp_path, lib):
    docs = tmp_path / "docs"
    docs.mkdir()
    newline = docs / "two\nlines.txt"
    newline.write_text("A name with a newline: falcon orbit.", encoding="utf-8")
    long_name = "l" * 251 + ".txt"  # 255 bytes, the usual limit of one path component
    (docs / long_name).write_text("The longest name: compass beacon.", encoding="utf-8")
    raw = os.fsencode(str(docs)) + b"/caf\xe9-\xff.txt"  # latin-1 bytes: not UTF-8
    with open(raw, "wb") as fh:
        fh.write(b"A name that is not UTF-8: pepper meadow.")
    (docs / "ok.txt").write_text(GOOD, encoding="utf-8")

    rep = lib.add_folder(docs)
    assert rep.added == 4 and rep.failed == 0
    paths = {p for p, in lib.store.conn.execute("SELECT path FROM files")}
    escaped = os.path.join(str(docs), "caf\\xe9-\\xff.txt")
    assert paths == {str(newline), str(docs / long_name), escaped, str(docs / "ok.txt")}
    assert disk_path(escaped) == os.fsdecode(raw) and os.path.exists(disk_path(escaped))
    assert lib.search("pepper meadow", mode="lexical").hits[0].path == escaped
    assert lib.search("falcon orbit", mode="lexical").hits[0].path == str(newline)
    # Unchanged on the next sync (the stored name matches the scanned one), purged when deleted.
    assert lib.sync().unchanged == 4
    os.unlink(raw)
    assert lib.sync().removed == 1
    check_library(lib)


def test_a_folder_named_in_latin1_is_indexed_read_explained_and_removed(tmp_path, lib):
    """Decision 0179: a folder and files whose names are not UTF-8 (a Windows disk's cp1252), through each door that
    broke: added as a folder of its own (SQLite refused its name), read again for the preview from the stored name
    (a member too, itself named in Latin-1: it stopped the whole sync), opened (Qt's URL of the name held U+FFFD), explained (it said "cannot read"), similar (SQLite refused the path typed), a hit's JSON (a
    `path` a script could not open), renamed and synced, removed."""
    folder = os.fsencode(str(tmp_path)) + b"/Caf\xe9"
    os.mkdir(folder)
    name = folder + b"/R\xe9sum\xe9.txt"
    with open(name, "wb") as fh:
        fh.write(b"A resume kept beside the lantern orchard.")
    with tarfile.open(os.fsdecode(folder + b"/Arch\xefve.tar"), "w", format=tarfile.GNU_FORMAT,
                      encoding="latin-1") as tar:  # a member's name that is not UTF-8 either: it stopped the sync
        text = b"The walrus sleeps in the harbour."
        member = tarfile.TarInfo("men\u00fc.txt")
        member.size = len(text)
        tar.addfile(member, io.BytesIO(text))
    root = os.fsdecode(folder)
    assert lib.add_folder(root).failed == 0
    hit = lib.search("lantern orchard", mode="lexical").hits[0]
    shown = hit.to_json()
    assert shown["path"] == f"{tmp_path}/Caf\u00e9/R\u00e9sum\u00e9.txt"
    assert base64.b64decode(shown["path_bytes_b64"]) == name
    assert file_text(hit.path, lib.config).text.startswith("A resume")  # the preview, from the stored name
    from searchapp.gui.preview import file_url, folder_url  # Open and Show in folder: URLs of the very bytes

    assert file_url(hit).toEncoded() == b"file://" + urllib.parse.quote_from_bytes(name).encode()
    assert folder_url(hit).toEncoded() == b"file://" + urllib.parse.quote_from_bytes(folder).encode()
    member = lib.search("walrus harbour", mode="lexical").hits[0].path
    assert member.endswith("/Arch\\xefve.tar//men\u00fc.txt")  # the member's bytes read as cp1252
    assert file_text(member, lib.config).text == "The walrus sleeps in the harbour."
    said = lib.explain(os.fsdecode(name))
    assert said["state"] == "indexed" and said["rule"] is None
    assert lib.explain(root)["state"] == "folder"
    assert lib.similar(os.fsdecode(name)).hits  # found by the path as typed (the other file: its words)
    os.rename(name, folder + b"/R\xe9sum\xe9 2.txt")
    assert lib.sync().moved == 1
    assert base64.b64decode(lib.search("lantern orchard", mode="lexical").hits[0].to_json()["path_bytes_b64"]) \
        == folder + b"/R\xe9sum\xe9 2.txt"
    assert lib.remove_folder(root) == 2  # the two files (the zip's member with it)
    assert lib.roots() == [] and not lib.search("walrus harbour", mode="lexical").hits
    check_library(lib)


def test_links_out_of_the_root_are_indexed_under_the_root(tmp_path, lib):
    """With [scan] follow_symlinks_out on, a link may point outside the root; its file is indexed under the
    link's path (where the user put it), and removing the root removes it, without ever touching the outside
    folder's other files. (Off, the default, such links are skipped: tests/integration/library/test_private_files.py.)"""
    lib.config = lib.config.replace(scan={"follow_symlinks_out": True})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.txt").write_text("Outside text about saddle and harvest.", encoding="utf-8")
    (outside / "not-linked.txt").write_text("Never indexed.", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    os.symlink(outside / "target.txt", docs / "link.txt")
    os.symlink(tmp_path / "missing.txt", docs / "dangling.txt")
    lib.add_folder(docs)
    paths = {p for p, in lib.store.conn.execute("SELECT path FROM files WHERE status = 'indexed'")}
    assert paths == {str(docs / "link.txt")}
    assert recorded(lib)["dangling.txt"] == ("failed", "broken symlink")
    lib.remove_folder(docs)
    assert lib.store.chunk_count() == 0 and (outside / "target.txt").exists()


def many_tiny_files(folder: Path, n: int) -> Path:
    folder.mkdir()
    for i in range(n):
        with open(os.path.join(folder, f"{i:06d}.txt"), "w", encoding="utf-8") as fh:
            fh.write(f"Note {i % 1000}: apple river mountain.")
    return folder


@pytest.fixture
def folder_of_n(tmp_path, n) -> Path:
    """`n` empty entries: the scan reads names and sizes only. Written files cost ~60 s here for 100,000 (their
    data written back, then 100,000 unlinks), empty ones a few seconds (mknod: no data, no open file)."""
    folder = tmp_path / "many"
    folder.mkdir()
    base = str(folder)
    for i in range(n):  # plain strings: a Path per name cost more CPU than the mknod itself
        os.mknod(os.path.join(base, f"{i:06d}.txt"), 0o600 | stat.S_IFREG)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)  # not left for pytest's temp-dir rotation in a later session


# 10,000 entries by default: the same path through the scan as 100,000 (20 progress ticks, a folder listed in
# many getdents batches, a sort of 10,000 paths) at a tenth of the cost (100,000 took ~12 CPU s: mknod, the
# sort of Path objects and 100,000 unlinks). The 100,000 run, for a scan that grows faster than its folder, is
# opt-in with `-m slow`, as the sync's is in test_sync_of_many_tiny_files_in_one_folder.
@pytest.mark.parametrize("n", [10_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_scan_of_many_files_in_one_folder(folder_of_n, n):
    from searchapp.base.config import ScanConfig
    from searchapp.ingest.scan import scan

    result = scan([folder_of_n], ScanConfig())
    assert len(result.files) == n and not result.skipped
    # every entry once, in path order (names are zero-padded: their order is the paths')
    assert [f.path.name for f in result.files] == [f"{i:06d}.txt" for i in range(n)]


@pytest.mark.parametrize("n", [3_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_sync_of_many_tiny_files_in_one_folder(tmp_path, tiny_bi_encoder_dir, tiny_encoder, n):
    """Sync stays bounded: vectors are reused by passage text (1,000 distinct texts), so this exercises
    everything around the model: scanning, hashing, extraction, chunking and SQLite. 3,000 files run in CI (past
    read_ahead.MIN_FILES, ~47 words batches; was 10,000, ~15 CPU s); 100,000 take 1-2 minutes on 2 cores and run
    with `-m slow`. A smaller ef_construction keeps
    HNSW building from dominating; it is not what is tested here."""
    lib = Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir, index={"ef_construction": 40}),
                  encoder=tiny_encoder)
    docs = many_tiny_files(tmp_path / "many", n)
    try:
        rep = lib.add_folder(docs)
        assert rep.added == n and rep.failed == rep.skipped == 0
        assert rep.chunks_embedded == 1000
        assert lib.store.chunk_count() == n
        again = lib.sync()
        assert again.unchanged == n and again.chunks_embedded == 0
        check_library(lib)
    finally:
        lib.close()


# --------------------------------------------------------------------------- properties

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=400), bom=st.booleans(),
       encoding=st.sampled_from(["utf-8", "utf-16-le", "utf-16-be"]))
def test_property_text_is_preserved(tmp_path, text, bom, encoding):
    """Any Unicode text saved with a BOM (or as BOM-less UTF-8) comes back as written, up to what every reader's
    cleaning does (clean_text: newlines normalised, NULs and soft hyphens dropped, ligatures and presentation
    forms folded) - unless it is mostly control characters, which is binary by policy."""
    boms = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}
    if encoding != "utf-8":
        bom = True
    path = tmp_path / "p.txt"
    path.write_bytes((boms[encoding] if bom else b"") + text.encode(encoding))
    expected = clean_text(text)
    try:
        doc = extract(path)
    except Exception as exc:  # only the documented refusal is allowed
        assert type(exc).__name__ == "UnsupportedFileError" and "binary" in str(exc), exc
        return
    assert doc.text == expected


def test_utf16_text_opening_with_nul_is_not_read_as_utf32(tmp_path):
    """FF FE 00 00 is UTF-32-LE's BOM and also UTF-16-LE's BOM + a NUL (found by the property test above)."""
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xff\xfe" + "\x00hello wide world".encode("utf-16-le"))
    assert extract(path).text == "hello wide world"
    path.write_bytes(b"\xff\xfe\x00\x00" + "hello wide world".encode("utf-32-le"))  # real UTF-32 still is
    assert extract(path).text == "hello wide world"


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=12),
                      min_size=1, max_size=30),
       wrapper=st.sampled_from(["<p>{}</p>", "<div><span>{}</span>", "<td>{}", "{}<br>", "<b><i>{}</b></i>"]))
def test_property_html_visible_words_are_kept(words, wrapper):
    from searchapp.ingest.extractors.html import html_to_text

    markup = "<html><body>" + "".join(wrapper.format(w) for w in words) + "<script>hidden()</script>"
    text = html_to_text(markup)
    for w in words:
        assert clean_text(w) in text  # a ligature ("ﬀ") is read as its letters
    assert "hidden" not in text


def test_the_library_does_not_index_its_own_folder(tmp_path, lib):
    """A data dir inside an indexed folder: its journal, vectors and lock files were indexed as documents (and
    rewritten by every sync); a watcher-style scoped sync of the data dir finds nothing either."""
    (tmp_path / "notes.txt").write_text(GOOD)
    (lib.data_dir / "stray.txt").write_text("A text file kept beside the library database.")
    rep = lib.add_folder(tmp_path, embed=False)
    paths = set(lib.store.file_paths().values())
    assert paths == {str(tmp_path / "notes.txt")}, paths
    assert not [p for p, _ in rep.problems if p.startswith(str(lib.data_dir))]
    lib.add_folder(tmp_path, embed=False)  # again: the files the first sync wrote there stay out too
    assert set(lib.store.file_paths().values()) == {str(tmp_path / "notes.txt")}
