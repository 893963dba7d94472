"""An OCR engine that raises on a file (rapidocr's ResizeImgError() on pdf.js's poppler-85140-0.pdf) was run again
on every sync, and each sync listed the file as "newly not indexed" with an empty, doubled reason ("OCR: OCR
failed: ResizeImgError:"). The reason now names the error in words, and the failure is remembered for those
bytes and that engine: the next sync records it failed without running the engine or listing it again; changed
bytes, another engine or a reindex try again."""

from __future__ import annotations

import os
from pathlib import Path

from scan_files import scan_pdf, text_image

from searchapp.store.ledger import entry_notes, entry_state

from searchapp.library.ocr import step

REASON = "OCR failed: resize img error"


class ResizeImgError(Exception):
    """rapidocr's, raised with no message."""


class BrokenEngine:
    def __init__(self) -> None:
        self.name, self.calls = "broken", 0

    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        raise ResizeImgError()


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("A plain note about gardening and tomatoes.\n")
    scan = docs / "scan.png"
    text_image(["Lighthouse keeper log"], size=(200, 200)).save(scan)
    return docs, scan


def test_an_engine_failure_is_not_retried_on_the_same_bytes(tmp_path, tiny_library, monkeypatch):
    broken = BrokenEngine()
    monkeypatch.setattr(step, "available_engine", lambda: broken)
    monkeypatch.setattr(step, "engine_name", lambda: broken.name)
    docs, scan = _folder(tmp_path)

    rep = tiny_library.add_folder(docs, embed=False)
    assert broken.calls == 1 and rep.failed == 1 and rep.problems == [(str(scan), REASON)]
    row = tiny_library.store.file_by_path(str(scan))
    assert (row.status, row.error) == ("failed", REASON)

    for touch in (False, True):  # the same bytes, touched or not: not OCR'd, counted, not listed again
        if touch:
            os.utime(scan, ns=(scan.stat().st_atime_ns, scan.stat().st_mtime_ns + 10**9))
        rep = tiny_library.sync(embed=False)
        assert broken.calls == 1 and rep.failed == 1 and rep.problems == [], rep.problems
        row = tiny_library.store.file_by_path(str(scan))
        assert (row.status, row.error) == ("failed", REASON)

    broken.name = "mended"  # another engine (or version): tried again
    rep = tiny_library.sync(embed=False)
    assert broken.calls == 2 and rep.problems == [(str(scan), REASON)]
    tiny_library.sync(embed=False)
    assert broken.calls == 2

    text_image(["November storm warning"], size=(200, 200)).save(scan)  # other bytes: tried again
    tiny_library.sync(embed=False)
    assert broken.calls == 3

    rep = tiny_library.reindex(embed=False)  # a reindex tries every file again
    assert broken.calls == 4 and rep.problems == [(str(scan), REASON)]
    assert tiny_library.search("gardening", mode="lexical").hits


def test_a_corrupt_image_is_not_read_again_at_every_sync(tmp_path, tiny_library, monkeypatch):
    """A newcomer's four corrupt JPEGs were read by OCR again, and listed as newly not indexed, at every sync: an
    image the decoder cannot read fails the same way on the same bytes, and is remembered like an engine's error."""
    broken = BrokenEngine()  # never reached: the decoder fails first
    monkeypatch.setattr(step, "available_engine", lambda: broken)
    monkeypatch.setattr(step, "engine_name", lambda: broken.name)
    docs, scan = _folder(tmp_path)
    cut = docs / "cut.png"
    cut.write_bytes(scan.read_bytes()[:300])  # a truncated download
    fake = docs / "fake.jpg"
    fake.write_bytes(b"this is not a JPEG at all\n" * 10)
    scan.unlink()
    reads = []
    real_open = step.readable

    def counted(path, *args, **kwargs):
        reads.append(Path(path).name)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(step, "readable", counted)
    rep = tiny_library.add_folder(docs, embed=False)
    assert sorted(reads) == ["cut.png", "fake.jpg"] and rep.failed == 2
    reasons = {Path(p).name: r for p, r in rep.problems}
    assert reasons["fake.jpg"] == "not a readable image" and reasons["cut.png"].startswith("corrupt image: ")
    rep = tiny_library.sync(embed=False)
    assert sorted(reads) == ["cut.png", "fake.jpg"]  # not read again
    assert rep.failed == 2 and rep.problems == [], rep.problems  # counted, not listed again
    row = tiny_library.store.file_by_path(str(fake))
    assert (row.status, row.error) == ("failed", "not a readable image")
    assert broken.calls == 0


def test_a_failure_another_try_may_not_meet_is_tried_again(tmp_path, tiny_library, monkeypatch):
    """A timeout (an ExtractionError of the engine) is not remembered, and its reason says OCR once."""
    from searchapp.base.errors import ExtractionError

    class SlowEngine(BrokenEngine):
        def recognize(self, image, cancel=None) -> str:
            self.calls += 1
            raise ExtractionError("OCR timed out after 60 s")

    slow = SlowEngine()
    monkeypatch.setattr(step, "available_engine", lambda: slow)
    monkeypatch.setattr(step, "engine_name", lambda: slow.name)
    docs, scan = _folder(tmp_path)
    rep = tiny_library.add_folder(docs, embed=False)
    assert rep.problems == [(str(scan), "OCR timed out after 60 s")]
    tiny_library.sync(embed=False)
    assert slow.calls == 2


def _broken(monkeypatch, engine) -> None:
    monkeypatch.setattr(step, "available_engine", lambda: engine)
    monkeypatch.setattr(step, "engine_name", lambda: engine.name)


def test_a_pdf_keeps_its_text_layer_when_ocr_fails_on_its_pages(tmp_path, tiny_library, monkeypatch):
    """One OCR failure on page 2 deleted the passages of page 1's text layer, for good: the failure was cached
    and the next syncs recorded the PDF failed again without listing it."""
    broken = BrokenEngine()
    _broken(monkeypatch, broken)
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = scan_pdf(docs / "report.pdf")
    for n in range(3):
        rep = tiny_library.sync(embed=False) if n else tiny_library.add_folder(docs, embed=False)
        assert broken.calls == 1 and rep.problems == [] and rep.failed == 0
        row = tiny_library.store.file_by_path(str(pdf))
        assert (row.status, row.error) == ("indexed", None)
        assert [Path(h.path).name for h in tiny_library.search("quarterly invoices", mode="lexical").hits] == [
            "report.pdf"]
        assert f"page 2 not OCR'd: {REASON}" in entry_notes(tiny_library.store, row.id)
        assert entry_state(tiny_library.store, str(pdf))[0] == "indexed"  # not waiting for OCR any more


class OutOfMemoryEngine(BrokenEngine):
    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Failed to allocate memory for requested "
                           "buffer of size 536870912")


def test_a_failure_of_memory_is_not_remembered(tmp_path, tiny_library, monkeypatch):
    """Out of memory on an image is tried again next sync (it was cached for those bytes until they changed);
    on a PDF with a text layer the text layer stays indexed, waiting for OCR."""
    oom = OutOfMemoryEngine()
    _broken(monkeypatch, oom)
    docs, scan = _folder(tmp_path)
    pdf = scan_pdf(docs / "report.pdf")
    rep = tiny_library.add_folder(docs, embed=False)
    assert oom.calls == 2 and {p for p, _ in rep.problems} == {str(scan), str(pdf)}
    assert all("Failed to allocate memory" in reason for _, reason in rep.problems)
    rep = tiny_library.sync(embed=False)
    assert oom.calls == 4 and {p for p, _ in rep.problems} == {str(scan), str(pdf)}
    assert tiny_library.store.file_by_path(str(scan)).status == "failed"
    assert entry_state(tiny_library.store, str(pdf))[0] == "ocr_pages_pending"  # indexed, pages waiting (0155)
    assert tiny_library.search("quarterly invoices", mode="lexical").hits


def test_another_version_or_device_of_the_engine_tries_again(tmp_path, tiny_library, monkeypatch):
    """A cached failure names the engine's versions and its device: an upgrade, or the CPU where CUDA failed,
    may read the bytes."""
    broken = BrokenEngine()
    broken.device = "cuda"  # known once the engine is built (RapidOCR 3's)
    _broken(monkeypatch, broken)
    monkeypatch.setattr(step, "engine_version", lambda name: "engine 1.0")
    docs, scan = _folder(tmp_path)
    tiny_library.add_folder(docs, embed=False)
    tiny_library.sync(embed=False)
    assert broken.calls == 1
    monkeypatch.setattr(step, "engine_version", lambda name: "engine 1.1")  # an upgrade
    rep = tiny_library.sync(embed=False)
    assert broken.calls == 2 and rep.problems == [(str(scan), REASON)]
    tiny_library.sync(embed=False)
    assert broken.calls == 2
    broken.device = "cpu"  # the GPU gone
    tiny_library.sync(embed=False)
    assert broken.calls == 3
    tiny_library.sync(embed=False)
    assert broken.calls == 3
