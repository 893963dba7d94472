"""A newer reader reads its files again (decision 0152): an entry keeps the version of the reader that read it,
and a sync reads it again, its bytes unchanged, once this version reads that format differently. Passages that come
out the same stay where they are (no vector is written again); other ones replace them. On both engines."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from newer_readers import a_newer_reader
from searchapp.ingest import scan as scan_module
from searchapp.ingest.extractors import reader_version, registry

ORCHARD = "Quarterly figures for the orchard: apples sold well, pears did not."


def found(lib, query: str) -> list[str]:
    return sorted(os.path.basename(h.path) for h in lib.search(query, mode="lexical").hits)


def row(lib, path: Path | str):
    got = lib.store.file_by_path(str(path))
    assert got is not None
    return got


def chunk_ids(lib) -> list[int]:
    return [r[0] for r in lib.store.conn.execute("SELECT id FROM chunks ORDER BY id")]


def a_newer_text_reader(monkeypatch, reads=None) -> None:
    """This version's text reader one step newer; `reads(text) -> text`: what it now makes of a file."""
    a_newer_reader(monkeypatch, "text", reads)


def zipped(tmp_path: Path) -> Path:
    """A folder holding one zip of a text file and a web page."""
    d = tmp_path / "zipped"
    d.mkdir()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("notes/orchard.txt", ORCHARD)
        z.writestr("notes/page.html", "<html><body><p>Lanterns by the harbour wall.</p></body></html>")
    (d / "archive.zip").write_bytes(buf.getvalue())
    return d


@pytest.fixture(autouse=True)
def settled(monkeypatch):
    """No file counts as just changed (decision 0150 reads those again anyway): only the reader's version tells."""
    monkeypatch.setattr(scan_module, "RACY_NS", 0)


@pytest.fixture
def docs(tmp_path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    (d / "orchard.txt").write_text(ORCHARD, encoding="utf-8")
    (d / "minutes.md").write_text("# Minutes\n\nThe allotment committee met in spring.", encoding="utf-8")
    (d / "page.html").write_text("<html><body><p>Lanterns by the harbour wall.</p></body></html>", encoding="utf-8")
    return d


def test_a_file_read_by_an_older_reader_is_read_again(tiny_library, docs, monkeypatch):
    tiny_library.add_folder(docs, embed=False)
    assert row(tiny_library, docs / "orchard.txt").reader == reader_version(docs / "orchard.txt") is not None
    a_newer_text_reader(monkeypatch, lambda text: text.replace("pears", "quinces"))
    rep = tiny_library.sync(embed=False)
    # .txt and .md are the text reader's; the web page's reader is as it was
    assert (rep.reread, rep.read_differently, rep.updated, rep.unchanged) == (2, [str(docs / "orchard.txt")], 1, 2)
    assert rep.reread_note() == ("2 files read again by this version's readers (unchanged on disk): 1 now read "
                                 "differently, indexed again; the rest kept their passages")
    assert found(tiny_library, "quinces") == ["orchard.txt"] and found(tiny_library, "pears") == []
    assert row(tiny_library, docs / "orchard.txt").reader == reader_version(docs / "orchard.txt")
    again = tiny_library.sync(embed=False)  # read once: the next sync finds every entry read by this version
    assert (again.reread, again.updated, again.unchanged) == (0, 0, 3)


def test_the_same_passages_from_a_newer_reader_keep_their_place(tiny_library, docs, monkeypatch):
    tiny_library.add_folder(docs)  # with their vectors
    before = chunk_ids(tiny_library)
    a_newer_text_reader(monkeypatch)  # a newer version that reads these files as the old one did
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.updated, rep.unchanged, rep.chunks_added, rep.chunks_removed) == (2, 0, 3, 0, 0)
    assert rep.reread_note() == ("2 files read again by this version's readers (unchanged on disk): the same "
                                 "passages, kept with their vectors")
    assert chunk_ids(tiny_library) == before  # not deleted and written again: the vector index untouched
    assert row(tiny_library, docs / "minutes.md").reader == reader_version(docs / "minutes.md")
    assert tiny_library.sync(embed=False).reread == 0


def test_entries_read_before_readers_had_versions_are_read_once(tiny_library, docs):
    tiny_library.add_folder(docs, embed=False)
    with tiny_library.store.atomic():  # as a library written before decision 0152 holds them
        tiny_library.store.conn.execute("UPDATE files SET reader = NULL")
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.unchanged, rep.chunks_added) == (3, 3, 0)
    assert all(row(tiny_library, docs / n).reader is not None for n in ("orchard.txt", "minutes.md", "page.html"))
    assert tiny_library.sync(embed=False).reread == 0


def test_a_file_an_older_reader_found_no_text_in_is_read_again(tiny_library, docs, monkeypatch):
    (docs / "blank.txt").write_text("   \n\n  ", encoding="utf-8")
    tiny_library.add_folder(docs, embed=False)
    assert (row(tiny_library, docs / "blank.txt").status, row(tiny_library, docs / "blank.txt").error) == (
        "skipped", "empty")
    # a newer reader that still finds nothing: the row learns its version, and is not read at every sync
    a_newer_text_reader(monkeypatch)
    rep = tiny_library.sync(embed=False)
    assert rep.problems == [] and row(tiny_library, docs / "blank.txt").reader == reader_version(docs / "blank.txt")
    assert tiny_library.sync(embed=False).reread == 0
    # one that finds words in it
    a_newer_text_reader(monkeypatch, lambda text: text if text.strip() else "A blank page about herons.")
    tiny_library.sync(embed=False)
    assert row(tiny_library, docs / "blank.txt").status == "indexed"
    assert found(tiny_library, "herons") == ["blank.txt"]


def test_a_member_read_by_an_older_reader_is_read_again(tiny_library, tmp_path, monkeypatch):
    tiny_library.add_folder(zipped(tmp_path), embed=False)
    a_newer_text_reader(monkeypatch, lambda text: text.replace("pears", "quinces"))
    rep = tiny_library.sync(embed=False)
    assert rep.reread == 1 and found(tiny_library, "quinces") == ["orchard.txt"]  # the member
    assert tiny_library.sync(embed=False).reread == 0


def test_a_newer_version_of_the_steps_every_reader_shares_reads_every_file_again(tiny_library, docs, monkeypatch):
    tiny_library.add_folder(docs, embed=False)
    monkeypatch.setattr(registry, "_TEXT_STEPS", registry._TEXT_STEPS + 1)
    assert tiny_library.sync(embed=False).reread == 3


# -- found by the review (each failed before its mend) ---------------------------------------------------------------

def _mail(subject: str, body: str):
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["Subject"], msg["From"], msg["To"] = subject, "ann@example.org", "bob@example.org"
    msg["Date"] = "Tue, 02 Jan 2018 10:00:00 +0000"
    msg.set_content(body)
    return msg


def test_an_mbox_message_is_read_again_by_a_newer_mail_reader(tiny_library, tmp_path, monkeypatch):
    """A message's key ("box.mbox//1: Subject", "…//2: scan.png") does not end in .eml, but the .eml reader reads
    it: its version is that reader's (it was the sniffer's, or none for the one named like an image)."""
    d = tmp_path / "mail"
    d.mkdir()
    box = b"".join(b"From ann@example.org Tue Jan  2 10:00:00 2018\n" + m.as_bytes() + b"\n"
                   for m in (_mail("Orchard news", ORCHARD), _mail("scan.png", "Herons by the weir.")))
    (d / "box.mbox").write_bytes(box)
    tiny_library.add_folder(d, embed=False)
    a_newer_text_reader(monkeypatch)  # not the mail reader: nothing read again
    assert tiny_library.sync(embed=False).reread == 0
    monkeypatch.setitem(registry._READER_VERSIONS, "eml", registry._READER_VERSIONS["eml"] + 1)
    assert tiny_library.sync(embed=False).reread == 2


def test_a_container_read_again_for_a_member_keeps_its_own_entry(tiny_library, tmp_path, monkeypatch):
    tiny_library.add_folder(zipped(tmp_path), embed=False)
    before = chunk_ids(tiny_library)
    a_newer_text_reader(monkeypatch)  # reads the member as before
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.updated, rep.unchanged, rep.chunks_added, rep.chunks_removed) == (1, 0, 3, 0, 0)
    assert chunk_ids(tiny_library) == before


def test_a_cancelled_sync_keeps_the_readers_it_learnt(tiny_library, tmp_path, monkeypatch):
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken
    from searchapp.library.sync import words_pass

    monkeypatch.setattr(words_pass, "KEPT_AT_ONCE", 1000)  # none written on the way: only the cancel writes them
    d = tmp_path / "many"
    d.mkdir()
    for i in range(30):
        (d / f"n{i:02}.txt").write_text(f"Note {i} about the allotment and its {i} marrows.", encoding="utf-8")
    tiny_library.add_folder(d, embed=False)
    a_newer_text_reader(monkeypatch)
    cancel = CancelToken()

    def progress(pr):
        if pr.stage == "extracting" and pr.done == 25:
            cancel.cancel()

    with pytest.raises(Cancelled):
        tiny_library.sync(progress=progress, cancel=cancel, embed=False)
    learnt = sum(row(tiny_library, d / f"n{i:02}.txt").reader == reader_version("a.txt") for i in range(30))
    assert 20 <= learnt < 30


def test_the_same_passages_keep_the_file_s_new_stat(tiny_library, docs, monkeypatch):
    p = docs / "orchard.txt"
    tiny_library.add_folder(docs, embed=False)
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # touched: the same bytes, another mtime
    a_newer_text_reader(monkeypatch)
    tiny_library.sync(embed=False)
    assert row(tiny_library, p).mtime_ns == p.stat().st_mtime_ns


def test_an_entry_with_text_from_ocr_is_not_read_again_by_the_words_pass(tiny_library, docs, monkeypatch):
    """Its OCR'd passages would be dropped until the OCR step put them back from its cache, and embedded again: the
    OCR step reads such an entry again, from its cache (test_ocr_sync.py); this one has no OCR text cached."""
    from searchapp.store.ledger import set_ocr_state

    tiny_library.add_folder(docs, embed=False)
    with tiny_library.store.atomic():  # as a PDF with OCR'd pages is stored
        set_ocr_state(tiny_library.store, row(tiny_library, docs / "orchard.txt").id, "done", [1])
    a_newer_text_reader(monkeypatch)
    assert tiny_library.sync(embed=False).reread == 1  # minutes.md alone


def test_a_heif_photo_has_no_reader():
    assert reader_version("IMG_0042.heif") is None and reader_version("IMG_0042.HEIC") is None
    assert reader_version("box.mbox//2: scan.png") == reader_version("a.eml")


def test_status_names_the_folders_an_older_version_read_until_a_full_sync(tiny_library, docs, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "n.txt").write_text("Notes on the weir and its herons.", encoding="utf-8")
    tiny_library.add_folder(docs, embed=False)
    tiny_library.add_folder(other, embed=False)
    assert tiny_library.status().read_by_older == []
    with tiny_library.store.atomic():  # as a version before readers had versions left both
        tiny_library.store.conn.execute("DELETE FROM meta WHERE key LIKE 'readers:%'")
        tiny_library.store.conn.execute("UPDATE files SET reader = NULL")
    st = tiny_library.status()
    assert st.read_by_older == sorted([str(docs), str(other)])
    assert any(n.startswith("2 folders were read by an older version's readers") for n in st.notes)
    tiny_library.sync_changed([str(docs / "orchard.txt"), str(other / "n.txt")], embed=False)
    assert tiny_library.status().read_by_older == [str(docs)]  # other's one file is read; docs has two more
    tiny_library.sync(embed=False)
    assert tiny_library.status().read_by_older == []


def test_a_folder_this_version_began_to_read_is_not_one_an_older_version_read(tiny_library, tmp_path):
    """A cancelled first sync records no readers for its folder, but every entry it wrote has this version's."""
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken

    d = tmp_path / "many"
    d.mkdir()
    for i in range(30):
        (d / f"n{i:02}.txt").write_text(f"Note {i} about the allotment and its {i} marrows.", encoding="utf-8")
    # a member of a type no reader reads has no reader version to have: it made the window read the folder again
    # right after a cancel ("this version reads some formats better": s5's window, twenty-ninth stop)
    with zipfile.ZipFile(d / "a-tools.zip", "w") as z:
        z.writestr("code.bin", b"\x00\x01binary")
        z.writestr("readme.txt", "How to use the allotment tools.")
    cancel = CancelToken()

    def progress(pr):
        if pr.stage == "extracting" and pr.done == 20:
            cancel.cancel()

    with pytest.raises(Cancelled):
        tiny_library.add_folder(d, progress=progress, cancel=cancel, embed=False)
    st = tiny_library.status()
    assert st.files.get("indexed", 0) >= 10 and st.read_by_older == []


def test_index_lists_the_files_now_read_differently(tiny_library, docs, monkeypatch, capsys):
    """The note's "1 now read differently" names the file, as a sync's problems are named."""
    from searchapp.cli.commands.index import print_report

    tiny_library.add_folder(docs, embed=False)
    a_newer_text_reader(monkeypatch, lambda text: text.replace("pears", "quinces"))
    print_report(tiny_library.sync(embed=False), as_json=False)
    err = capsys.readouterr().err.splitlines()
    note = next(i for i, line in enumerate(err) if "read again by this version's readers" in line)
    assert err[note + 1:] == [f"  {docs / 'orchard.txt'}"]


def test_a_missing_folder_is_not_named_until_it_is_back(tiny_library, docs, tmp_path):
    """An unplugged drive's folder cannot be read again: the window would say at every start that it reads it."""
    tiny_library.add_folder(docs, embed=False)
    with tiny_library.store.atomic():  # as a version before readers had versions left it
        tiny_library.store.conn.execute("DELETE FROM meta WHERE key LIKE 'readers:%'")
        tiny_library.store.conn.execute("UPDATE files SET reader = NULL")
    docs.rename(tmp_path / "away")
    assert tiny_library.status().read_by_older == []
    (tmp_path / "away").rename(docs)
    assert tiny_library.status().read_by_older == [str(docs)]


def test_message_files_indexed_before_they_were_dated_get_their_dates_kept_passages(tiny_library, tmp_path,
                                                                                   monkeypatch):
    """The mail readers' version 2 dates a message file by its message: a library the version before read learns
    the dates on its next sync, its passages kept where they are (nothing embedded again)."""
    from dataclasses import replace

    from legacy_office_files import make_msg
    from searchapp.library.query.filters import SearchFilters
    from searchapp.store.ledger import entry_state

    d = tmp_path / "mail"
    d.mkdir()
    (d / "orchard.eml").write_bytes(_mail("Orchard news", ORCHARD).as_bytes())
    (d / "weir.msg").write_bytes(make_msg("Weir", "Herons by the weir.", filetime=1290600000 * 10**7 + 116_444_736_000_000_000))
    with monkeypatch.context() as older:  # the readers of the version before: no date of their own
        for name in ("eml", "msg"):
            suffixes, read = registry._BY_NAME[name]
            older.setitem(registry._BY_NAME, name, (suffixes, lambda *a, _read=read, **k: replace(_read(*a, **k), date_ns=None)))
            older.setitem(registry._READER_VERSIONS, name, 1)
        tiny_library.add_folder(d, embed=False)
    assert entry_state(tiny_library.store, str(d / "orchard.eml"))[2] is None
    before = chunk_ids(tiny_library)
    rep = tiny_library.sync(embed=False)
    assert (rep.reread, rep.read_differently, rep.updated, rep.chunks_added, rep.chunks_removed) == (2, [], 0, 0, 0)
    assert chunk_ids(tiny_library) == before
    assert entry_state(tiny_library.store, str(d / "orchard.eml"))[2] == 1514887200 * 10**9
    assert entry_state(tiny_library.store, str(d / "weir.msg"))[2] == 1290600000 * 10**9
    assert found(tiny_library, "herons") == ["weir.msg"]
    old = tiny_library.search("orchard herons", mode="lexical", filters=SearchFilters.build(before="2019-01-01"))
    assert sorted(os.path.basename(h.path) for h in old.hits) == ["orchard.eml", "weir.msg"]
