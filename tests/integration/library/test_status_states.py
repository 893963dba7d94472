"""`status` lists each file not indexed by its ledger state (store/ledger.py's CASE), the state `status --files STATE`
finds it by and `files_by_state` counts it in, on both engines. It was derived a second time in Python from the row's
status and reason, which the CASE does not read alone: an image waiting for OCR that grew too large was "skipped" by
its reason and "ocr_pending" by its row (files.ocr was left 'pending'), and `status` said [skipped] while the counts
and `status --files skipped` had it as ocr_pending. Such a row no longer waits for OCR: skipped everywhere."""

from __future__ import annotations

import argparse
import io
import zipfile
from pathlib import Path

from pdf_files import aes256_pdf
from scan_files import text_image

from searchapp.base.member_paths import display_path
from searchapp.cli.commands.status import print_status
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
        assert {ledger[p] for p in row.get("members", [row["path"]])} == {row["state"]}, (row, ledger)
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
