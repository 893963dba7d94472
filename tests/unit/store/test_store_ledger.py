"""The per-file ledger (store/ledger.py): each entry's state derived from its row, on a real SQLite file."""

from __future__ import annotations

import pytest

from searchapp.store import ledger
from store_files import new_store, put_file


@pytest.fixture
def lib(tmp_path):
    store, root = new_store(tmp_path)
    ids = {
        "plain": put_file(store, root, "/r/plain.txt", ["alpha beta", "gamma"], mtime_ns=10),
        "scan": put_file(store, root, "/r/scan.pdf", ["read by ocr"], mtime_ns=20),
        "wait": put_file(store, root, "/r/wait.png", [], mtime_ns=30, status="skipped"),
        "wait2": put_file(store, root, "/r/wait2.png", [], mtime_ns=40, status="skipped"),
        "empty": put_file(store, root, "/r/empty.pdf", [], status="skipped"),
        "big": put_file(store, root, "/r/big.bin", [], status="skipped"),
        "bad": put_file(store, root, "/r/bad.docx", [], status="failed"),
        "part": put_file(store, root, "/r/part.pdf", ["its text layer"], mtime_ns=50),
    }
    with store.atomic():
        ledger.set_ocr_state(store, ids["scan"], "done", [3, 1, 3])
        ledger.set_ocr_state(store, ids["wait"], "pending")
        ledger.set_ocr_state(store, ids["wait2"], "pending")
        ledger.set_ocr_state(store, ids["part"], "pending")  # indexed by its text layer, a page waits for OCR
        store.conn.execute("UPDATE files SET error = 'no text found' WHERE id = ?", (ids["empty"],))
        store.conn.execute("UPDATE files SET error = 'too big' WHERE id = ?", (ids["big"],))
    yield store, ids
    store.close()


def test_states_are_derived_from_status_error_and_ocr(lib):
    store, _ = lib
    assert ledger.state_counts(store) == {"indexed": 1, "ocr_done": 1, "ocr_pending": 2, "ocr_pages_pending": 1,
                                          "no_text": 1, "skipped": 1, "failed": 1, "empty": 0, "excluded": 0}
    assert [(s, r.path) for s, r in ledger.files_in_state(store, "ocr_pending")] == \
           [("ocr_pending", "/r/wait.png"), ("ocr_pending", "/r/wait2.png")]
    every = ledger.files_in_state(store)
    assert [r.path for _, r in every] == sorted(r.path for _, r in every) and len(every) == 8
    assert len(ledger.files_in_state(store, limit=2)) == 2
    assert ledger.files_in_state(store, "excluded") == []  # only a secret's entry has a row (decision 0177)


def test_the_entries_not_indexed_are_listed_with_their_state(lib):
    """What `status` lists (every entry skipped or failed) with the state the same CASE gives: an image waiting
    for OCR is ocr_pending by its files.ocr, whatever its reason says; a PDF indexed by its text layer whose pages
    wait is not among them (decision 0155), and is found by a state of its own."""
    store, _ = lib
    assert [(s, r.path) for s, r in ledger.problem_files_in_state(store)] == [
        ("failed", "/r/bad.docx"), ("no_text", "/r/empty.pdf"), ("ocr_pending", "/r/wait.png"),
        ("ocr_pending", "/r/wait2.png"), ("skipped", "/r/big.bin")]
    assert [(s, r.path) for s, r in ledger.files_in_state(store, "ocr_pages_pending")] == [
        ("ocr_pages_pending", "/r/part.pdf")]


def test_entry_state_text_and_vectors(lib):
    store, ids = lib
    state, row, date_ns, ocr = ledger.entry_state(store, "/r/scan.pdf")
    assert (state, row.id, date_ns, ocr) == ("ocr_done", ids["scan"], None, "done")
    assert ledger.entry_state(store, "/r/nothing.txt") is None
    assert ledger.entry_text(store, ids["plain"]) == ("alpha beta gamma", 2)
    assert ledger.entry_text(store, ids["plain"], max_chars=5) == ("alpha", 2)
    assert ledger.entry_text(store, ids["bad"]) == ("", 0)
    assert ledger.entry_vectors(store, ids["plain"]) == 2 and ledger.entry_vectors(store, ids["bad"]) == 0


def test_ocr_pages_pending_and_done(lib):
    store, ids = lib
    # newest first; the OCR step reads an indexed PDF's waiting pages too
    assert [r.path for r in ledger.pending_ocr_files(store, 10)] == ["/r/part.pdf", "/r/wait2.png", "/r/wait.png"]
    assert [r.path for r in ledger.pending_ocr_files(store, 1)] == ["/r/part.pdf"]
    assert ledger.ocr_done_pages(store, ["/r/scan.pdf", "/r/plain.txt", "/r/scan.pdf"]) == \
           {"/r/scan.pdf": frozenset({1, 3})}
    assert ledger.ocr_done_paths(store, ["/r/scan.pdf", "/r/wait.png"]) == {"/r/scan.pdf"}
    with store.atomic():
        ledger.set_ocr_state(store, ids["wait"], "done")  # an image: all of it
        store.conn.execute("UPDATE files SET ocr_pages = '2, x,,99999999999999' WHERE id = ?", (ids["scan"],))
    assert ledger.ocr_done_pages(store, ["/r/wait.png", "/r/scan.pdf"]) == {"/r/wait.png": None,
                                                                             "/r/scan.pdf": frozenset({2})}
    with pytest.raises(ValueError, match="unknown OCR state"):
        ledger.set_ocr_state(store, ids["wait"], "half")


def test_entry_date_past_int64_is_stored_as_none(lib):
    store, ids = lib
    with store.atomic():
        ledger.set_entry_date(store, ids["plain"], 2**70)
    assert ledger.entry_state(store, "/r/plain.txt")[2] is None
    with store.atomic():
        ledger.set_entry_date(store, ids["plain"], 5)
    assert ledger.entry_state(store, "/r/plain.txt")[2] == 5


def test_an_indexed_pdf_with_pages_waiting_for_ocr_is_indexed_with_pages_waiting(tmp_path):
    # Its text layer is indexed (status 'indexed') while its textless pages wait: the state says both (decision
    # 0155), apart from the files waiting with no text and from the plainly indexed; once OCR read them, ocr_done.
    store, root = new_store(tmp_path)
    try:
        fid = put_file(store, root, "/r/scan.pdf", [("text layer of page one", 1)])
        with store.atomic():
            ledger.set_ocr_state(store, fid, "pending")
        assert ledger.entry_state(store, "/r/scan.pdf")[0] == "ocr_pages_pending"
        counts = ledger.state_counts(store)
        assert (counts["ocr_pages_pending"], counts["ocr_pending"], counts["indexed"]) == (1, 0, 0)
        assert [s for s, _ in ledger.files_in_state(store)] == ["ocr_pages_pending"]
        assert ledger.problem_files_in_state(store) == []
        with store.atomic():
            ledger.set_ocr_state(store, fid, "done", [2])
        assert ledger.entry_state(store, "/r/scan.pdf")[0] == "ocr_done"
    finally:
        store.close()
