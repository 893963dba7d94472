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
from pathlib import Path

from pdf_files import aes256_pdf
from scan_files import text_image

from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP, display_path
from searchapp.cli.commands.status import print_ledger, print_status
from searchapp.ingest.ocr.engine import ENGINE_ENV


def _files(docs: Path) -> None:
    (docs / "note.txt").write_text("A note about the allotment's compost heap.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf at all")
    (docs / "blank.txt").write_text("   \n")
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
        "broken.pdf": "failed", "blank.txt": "no_text", "locked.pdf": "skipped", "photo.png": "ocr_pending",
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
