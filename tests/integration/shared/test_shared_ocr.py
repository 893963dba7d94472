"""OCR of scans on a shared library (decision 0138): the shared sync reads a machine's images by OCR after the
words and meaning of its other files, as the desktop's sync does (library/ocr/step.py), with the OCR cache in
that desktop's own data dir; another machine's scans wait for their own machine's sync."""

from __future__ import annotations

from pathlib import Path

import pytest

from scan_files import OCR_ENGINE, needs_rapidocr, text_image

from searchapp.cli.search_output import hit_line
from searchapp.ingest.ocr.engine import ENGINE_ENV
from searchapp.library.ocr import step
from searchapp.library.shared import SharedLibrary
from searchapp.store.ocr_cache import OCR_CACHE_NAME

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)


def _states(lib: SharedLibrary) -> dict[str, str]:
    return {Path(row.path).name: state for state, row in lib.ledger()}


@needs_rapidocr
def test_a_machines_scans_are_read_by_ocr_and_anothers_wait(tmp_path, make_config, tiny_encoder, pg_address,
                                                             monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    real = step.available_engine()
    assert real is not None
    calls: list[str] = []

    class Counting:
        name = real.name

        def recognize(self, image, cancel=None) -> str:
            calls.append("page")
            return real.recognize(image, cancel)

    config = make_config(models={"reranker": ""})
    b_docs, a_docs = tmp_path / "b", tmp_path / "a"
    for docs in (a_docs, b_docs):
        docs.mkdir()
        (docs / f"notes-{docs.name}.txt").write_text("A plain note about gardening and tomatoes.\n")
    text_image(["Harbour ferry timetable"]).save(b_docs / "ferry.png")
    text_image(["Lighthouse keeper log", "November storm warning"]).save(a_docs / "scan.png")

    # desk-b has no OCR engine: its scan waits, for desk-b's own next sync.
    monkeypatch.setattr(step, "available_engine", lambda: None)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-b") as desk_b:
        rep = desk_b.add_folder(b_docs)
        assert any("wait for OCR" in n for n in rep.notes), rep.notes
    monkeypatch.setattr(step, "available_engine", lambda: Counting())
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as desk_a:
        rep = desk_a.add_folder(a_docs)
        assert any("1 file(s) read by OCR" in n for n in rep.notes), rep.notes
        assert rep.added == 2 and rep.skipped == 0  # the scan counted as added once OCR gave it text
        assert calls == ["page"]  # desk-a's scan, never desk-b's
        hits = desk_a.search("lighthouse storm", mode="lexical")
        assert [Path(h.path).name for h in hits.hits] == ["scan.png"]
        assert hits.to_json()["hits"][0]["ocr"] is True and "(OCR)" in hit_line("lighthouse", hits)
        assert desk_a.search("gardening", mode="lexical").to_json()["hits"][0]["ocr"] is False
        assert desk_a.summary().embedded == desk_a.summary().passages  # the scan's text has its meaning too
        states = _states(desk_a)
        assert states["scan.png"] == "ocr_done" and states["ferry.png"] == "ocr_pending"
        assert (config.data_dir / OCR_CACHE_NAME).is_file()  # the cache is this desktop's own

        # A sync again reads nothing anew: the scan is indexed, and desk-b's is not desk-a's to read.
        desk_a.sync()
        assert calls == ["page"] and _states(desk_a)["ferry.png"] == "ocr_pending"
        # desk-b's scan is desk-b's sync's to read: desk-a's status says no scan of its own waits
        notes = desk_a.status().notes
        assert not [n for n in notes if "OCR" in n], notes
