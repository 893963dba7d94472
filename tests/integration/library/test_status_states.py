"""`status` lists each file not indexed by its ledger state (store/ledger.py's CASE), the state `status --files STATE`
finds it by and `files_by_state` counts it in, on both engines. It was derived a second time in Python from the row's
status and reason, which the CASE does not read alone: an image waiting for OCR that grew too large was "skipped" by
its reason and "ocr_pending" by its row (files.ocr was left 'pending'), and `status` said [skipped] while the counts
and `status --files skipped` had it as ocr_pending. Such a row no longer waits for OCR: skipped everywhere."""

from __future__ import annotations

import argparse
import io
import json
import zipfile
from email.message import EmailMessage
from pathlib import Path

from pdf_files import aes256_pdf
from scan_files import text_image

from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP, display_path
from searchapp.cli.commands.status import print_ledger, print_status
from searchapp.ingest.ocr.engine import ENGINE_ENV


def _files(docs: Path) -> None:
    (docs / "note.txt").write_text("A note about the allotment's compost heap.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf at all")
    (docs / "blank.html").write_text("<html><body> </body></html>")
    aes256_pdf(docs / "locked.pdf", "Salaries for the next year.")
    text_image(["Lighthouse"], size=(60, 60)).save(docs / "photo.png")
    text_image(["Harbour"], size=(60, 60)).save(docs / "grown.png")
    (docs / "big.txt").write_text("x" * 3000)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(2):
            z.writestr(f"broken{i}.pdf", b"%PDF-1.4 not really a pdf")
    (docs / "a.zip").write_bytes(buf.getvalue())


def test_status_lists_each_file_by_the_state_the_ledger_gives_it(tiny_library, tmp_path, make_config, monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, "none")  # the images wait for OCR
    docs = tmp_path / "docs"
    docs.mkdir()
    _files(docs)
    tiny_library.config = make_config(models={"reranker": ""}, scan={"max_file_mb": 0.002})
    tiny_library.add_folder(docs, embed=False)
    grown = docs / "grown.png"
    grown.write_bytes(grown.read_bytes() + b"\0" * 3000)  # now too large: skipped, no longer waiting for OCR
    tiny_library.sync(embed=False)

    ledger = {row.path: state for state, row in tiny_library.ledger()}
    st = tiny_library.status()
    failed = st.to_json()["failed"]
    for row in failed:  # a grouped row's members are each in its state
        assert {ledger[p] for p in row.get("member_keys", [row["key"]])} == {row["state"]}, (row, ledger)
    assert {Path(r["path"]).name: r["state"] for r in failed} == {
        "broken.pdf": "failed", "blank.html": "no_text", "locked.pdf": "skipped", "photo.png": "ocr_pending",
        "big.txt": "skipped", "a.zip": "failed", "grown.png": "skipped"}
    assert st.ledger["ocr_pending"] == sum(s == "ocr_pending" for s in ledger.values())

    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), st, None, out)
    listed = [line for line in out.getvalue().splitlines() if line.startswith("  [")]
    assert len(listed) == len(failed)
    for row in failed:
        line = f"  [{row['state']}] {display_path(row['path'])}: {row['reason']}"
        assert line in listed, (line, listed)


def test_status_names_a_member_as_search_does(tiny_library, tmp_path, capsys):
    """`status --json`'s `failed` gave a member's internal key (`old.zip//reviews/r.docx`) as its `path`, and a
    grouped row's `members` as keys, where `search --json` and `duplicates --json` give the shown form as `path`
    and the key beside it (docs/formats.md); `status --files --json` gave no key at all."""
    docs = tmp_path / "docs"
    docs.mkdir()
    with zipfile.ZipFile(docs / "old.zip", "w") as z:  # two members failing for one reason: one row
        z.writestr("reviews/r.docx", b"not a docx")
        z.writestr("reviews/s.docx", b"nor this one")
        z.writestr("notes/ok.txt", "A note about rivers and their deltas.\n")
    with zipfile.ZipFile(docs / "one.zip", "w") as z:  # one member failing: a row of its own
        z.writestr("a/bad.docx", b"not a docx")
    tiny_library.add_folder(docs)
    failed = {r["key"]: r for r in tiny_library.status().to_json()["failed"]}

    one = f"{docs / 'one.zip'}{MEMBER_SEP}a/bad.docx"
    assert {k: failed[one][k] for k in ("path", "container", "member", "key")} == {
        "path": f"{docs / 'one.zip'}{DISPLAY_SEP}a/bad.docx", "container": str(docs / "one.zip"),
        "member": "a/bad.docx", "key": one}
    group = failed[str(docs / "old.zip")]
    assert group["path"] == str(docs / "old.zip") and group["reason"].startswith("2 of its members")
    keys = [f"{docs / 'old.zip'}{MEMBER_SEP}reviews/{n}" for n in ("r.docx", "s.docx")]
    assert sorted(group["member_keys"]) == keys
    assert group["members"] == [display_path(k) for k in group["member_keys"]]  # shown, in the same order
    assert not any(MEMBER_SEP in m for m in group["members"])

    assert print_ledger(argparse.Namespace(json=True), tiny_library, "failed") == 0
    listed = {f["key"]: f["path"] for f in json.loads(capsys.readouterr().out)["files"]}
    assert listed == {k: display_path(k) for k in [*keys, one]}


def _archive_and_mail(docs: Path) -> None:
    """Two files, a zip of three members (one a zip of one member, one broken) and a mailbox of two messages
    (one with an attachment): 4 files on disk and 6 members read out of them (a zip inside a zip is no entry of
    its own, its member is), as the ledger below lists them."""
    (docs / "note.txt").write_text("A note about the allotment's compost heap.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf at all")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("deep/census.txt", "The inner quokka census counted seventeen animals.\n")
    with zipfile.ZipFile(docs / "a.zip", "w") as z:
        z.writestr("report.txt", "The heliotrope budget overran by four percent.\n")
        z.writestr("inner.zip", inner.getvalue())
        z.writestr("bad.pdf", b"%PDF-1.4 not really a pdf")
    mail = []
    for subject, body, attached in (("Picnic plans", "Bring the gazpacho on Saturday.", None),
                                    ("Figures", "Revenue of the walrus division rose.", "Summary of narwhal tusks.\n")):
        msg = EmailMessage()
        msg["Subject"], msg["From"], msg["Date"] = subject, "ann@example.org", "Tue, 02 Jan 2018 10:00:00 +0000"
        msg.set_content(body)
        if attached:
            msg.add_attachment(attached.encode(), maintype="text", subtype="plain", filename="summary.txt")
        mail.append(b"From ann@example.org Tue Jan  2 10:00:00 2018\n" + msg.as_bytes() + b"\n")
    (docs / "mail.mbox").write_bytes(b"".join(mail))


def test_status_counts_the_members_of_archives_and_mail_apart_from_the_files(tiny_library, engine, tmp_path, qtbot):
    """A newcomer with 2,561 files saw "files: 2724" (163 members of zips and mailboxes counted as files). The
    files on disk and the members apart (decision 0163), in the totals, in each folder's line, in `--json`, in the
    window (from the same LibraryStatus) and, on a shared library, in its own summary."""
    from searchapp.gui.library_panel import LibraryPanel, remove_question
    from searchapp.gui.status_labels import StatusLabels
    from PySide6.QtWidgets import QStatusBar

    docs = tmp_path / "docs"
    docs.mkdir()
    _archive_and_mail(docs)
    tiny_library.add_folder(docs, embed=False)
    ledger = {row.path: row.status for _, row in tiny_library.ledger()}
    z, mbox = f"{docs / 'a.zip'}{MEMBER_SEP}", f"{docs / 'mail.mbox'}{MEMBER_SEP}"
    assert ledger == {
        str(docs / "note.txt"): "indexed", str(docs / "broken.pdf"): "failed", str(docs / "a.zip"): "indexed",
        str(docs / "mail.mbox"): "indexed", z + "report.txt": "indexed", z + "bad.pdf": "failed",
        z + "inner.zip" + MEMBER_SEP + "deep/census.txt": "indexed",
        mbox + "1: Picnic plans": "indexed", mbox + "2: Figures": "indexed",
        mbox + "2: Figures" + MEMBER_SEP + "summary.txt": "indexed"}, ledger

    st = tiny_library.status()
    js = st.to_json()
    assert (js["files"], js["files_by_status"]) == (4, {"indexed": 3, "failed": 1})
    assert (js["members"], js["members_by_status"]) == (6, {"indexed": 5, "failed": 1})
    assert sum(js["files_by_state"].values()) == 10  # the ledger's states count every entry, as it lists them
    root = js["roots"][0]
    assert (root["files"], root["members"], root["chunks"]) == (4, 6, st.chunks)

    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), st, None, out)
    lines = out.getvalue().splitlines()
    assert f"  {docs}: 4 files, 6 items in archives and mail, {st.chunks} passages" in lines, lines
    assert any(line.startswith("files: 4 (3 indexed, 1 failed); in archives and mail: 6 (5 indexed, 1 failed); "
                               f"passages: {st.chunks};") for line in lines), lines

    # The window, from the same status (it never reads the database): the pane's Files cell, its Remove prompt
    # and the status bar say the files and the members apart too.
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.set_status(st)
    item = panel.tree.topLevelItem(0)
    assert item.text(1) == "4 + 6" and "4 files, 6 items in archives and mail" in item.toolTip(1)
    assert f"Remove {docs} (4 files, 6 items in archives and mail, {st.chunks} passages)" in remove_question(st.roots)
    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    labels.show_status(st)
    assert labels.index.text() == f"Library: {st.chunks:,} passages in 4 files and 6 items in archives and mail"

    if engine == "postgresql":  # `searchapp --library … status`: every machine's folders and the totals
        from searchapp.cli.commands.shared import status_lines

        shared = tiny_library.summary()
        assert (shared.files, shared.problems, shared.members, shared.member_problems) == (4, 1, 6, 1)
        said = status_lines(shared)
        assert said[1].startswith("files: 4 (1 skipped or failed); in archives and mail: 6 (1 skipped or failed); ")
        assert f"  desk-a: {docs} (4 files, 6 items in archives and mail, {st.chunks} passages)" in said, said


def test_status_names_a_file_the_text_caps_cut_and_counts_an_empty_one_once(tiny_library, tmp_path, make_config):
    """A newcomer's 48 MB log was cut at 10,000,000 characters and its last line never found; only the sync's output
    and `explain` said so, never `status`. And `status` counted an empty file under "skipped", then again under
    "left out: empty". On both engines: the statements are the shared ones."""
    from searchapp.library.report.status import by_status

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("A note about the allotment's compost heap.\n")
    (docs / "server.log").write_text("".join(f"job {i} copied files to the array\n" for i in range(200))
                                     + "UNIQUEMARKER at the end\n")
    (docs / "empty.txt").write_text("")
    tiny_library.config = make_config(models={"reranker": ""}, scan={"max_text_chars": 2000})
    tiny_library.add_folder(docs, embed=False)

    st = tiny_library.status()
    log = tiny_library.store.file_by_path(str(docs / "server.log"))
    assert st.cut_count == 1 and st.cut == [(str(docs / "server.log"), "text truncated at 2,000 characters",
                                             log.n_chunks)]
    assert not tiny_library.search("UNIQUEMARKER", mode="lexical").hits  # what the line explains
    assert st.to_json()["cut"] == [{"path": str(docs / "server.log"), "container": None, "member": None,
                                    "key": str(docs / "server.log"), "note": "text truncated at 2,000 characters",
                                    "passages": log.n_chunks}]
    # The empty file is left out on purpose, once: not "skipped" too
    assert st.left_out == {"empty": 1} and st.files_empty == 1
    assert by_status(st.files, st.files_ocr_pending, st.files_empty) == "3 (2 indexed, 1 left out)"
    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), st, None, out)
    text = out.getvalue()
    assert "files: 3 (2 indexed, 1 left out);" in text and "left out: empty: 1 file " in text
    share = 100 * log.n_chunks // st.chunks
    assert (f"cut short by the text caps (1 file; words past the cut are not found):\n  {docs / 'server.log'}: text "
            f"truncated at 2,000 characters ({log.n_chunks} passages, {share}% of the library's passages)") in text
