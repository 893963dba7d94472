"""Which OCR engine reads page images, and how it is kept small: a thread cap and a pixel cap.

Decisions:
- Engines, in order: the `tesseract` command when it is on PATH (as Recoll does), then RapidOCR
  (PP-OCRv4 ONNX models inside the `rapidocr-onnxruntime` wheel: the `ocr` extra, so OCR works after
  `make setup` with no system package), else none. Tesseract first because it measured better on real
  English scans at the same speed and a fifth of the memory (tests/benchmarks/bench_ocr.py: CER 0.27 vs
  0.44, word recall 0.87 vs 0.80, ~150 MB vs ~1.2 GB peak RSS). SEARCHAPP_OCR_ENGINE picks one
  ("rapidocr", "tesseract") or turns OCR off ("none").
- Nothing heavy is imported until an engine is built: `import searchapp` never loads onnxruntime or
  OpenCV. `ocr_unavailable_reason()` only looks for the package and the command, so `status` is cheap.
- OCR is background work: at most MAX_THREADS threads, one recognition at a time per engine (a lock).
- A page above MAX_PAGE_PIXELS is scaled down before recognition: ~200 dpi for an A4 page is enough for
  printed text, and it bounds the time and memory one page can cost.
- RapidOCR is given only its own bundled config and models: it reads no other file and opens no
  network connection; no model is a pickle (ONNX protobufs read by onnxruntime).
- Importing OpenCV's non-headless wheel (which rapidocr-onnxruntime depends on) sets Qt's plugin
  path to OpenCV's Qt 5 plugins in os.environ; that would break the window's Qt 6 in any process
  started from here, so those variables are put back as they were.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import math
import os
import shutil
import subprocess
import threading
import time
from typing import Optional, Protocol

from ...base.errors import ExtractionError
from ...base.progress import CancelToken

__all__ = ["OcrEngine", "available_engine", "ocr_unavailable_reason", "engine_name", "fit_pixels",
           "ENGINE_ENV", "MAX_PAGE_PIXELS", "MAX_THREADS", "TESSERACT_TIMEOUT_S"]

ENGINE_ENV = "SEARCHAPP_OCR_ENGINE"
ENGINES = ("tesseract", "rapidocr")  # the order tried when ENGINE_ENV is unset
MAX_PAGE_PIXELS = 4_000_000  # A4 at ~200 dpi; larger pages are scaled down first
MAX_THREADS = 2
TESSERACT_TIMEOUT_S = 300  # one page; ~60 s is seen on a busy 2-core machine, 5x that is a hang
CANCEL_POLL_S = 0.25  # how often a running tesseract checks for a cancel
NOT_INSTALLED = "OCR is not installed: `make setup` installs it (or pip install 'searchapp[ocr]')"

log = logging.getLogger(__name__)


class OcrEngine(Protocol):
    name: str

    def recognize(self, image, cancel: Optional[CancelToken] = None) -> str:
        """The text of one page image (PIL.Image), one line of text per line, in reading order. `cancel`
        interrupts the page where the engine can be interrupted (tesseract: its process is killed)."""
        ...


def _threads() -> int:
    return max(1, min(MAX_THREADS, os.cpu_count() or 1))


def fit_pixels(image, max_pixels: int = MAX_PAGE_PIXELS):
    """`image` as RGB, scaled down to at most `max_pixels` pixels (aspect kept); transparency on white."""
    from PIL import Image

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        image = Image.new("RGB", rgba.size, "white")
        image.paste(rgba, mask=rgba.getchannel("A"))
    elif image.mode != "RGB":
        image = image.convert("RGB")
    w, h = image.size
    if w * h > max_pixels:
        f = math.sqrt(max_pixels / (w * h))
        image = image.resize((max(1, int(w * f)), max(1, int(h * f))), Image.Resampling.LANCZOS)
    return image


def _lines_in_reading_order(results) -> str:
    """RapidOCR boxes ([[4 points], text, score], ...) grouped into lines: boxes whose vertical
    extents overlap by half the smaller height are one line, read left to right."""
    boxes = []
    for box, text, _score in results:
        ys = [p[1] for p in box]
        xs = [p[0] for p in box]
        if text.strip():
            boxes.append((min(ys), max(ys), min(xs), text.strip()))
    boxes.sort()
    lines: list[list] = []  # [top, bottom, [(x, text)]]
    for top, bottom, x, text in boxes:
        if lines:
            lt, lb, items = lines[-1]
            overlap = min(lb, bottom) - max(lt, top)
            if overlap > 0.5 * min(lb - lt, bottom - top):
                items.append((x, text))
                lines[-1][0], lines[-1][1] = min(lt, top), max(lb, bottom)
                continue
        lines.append([top, bottom, [(x, text)]])
    return "\n".join(" ".join(t for _, t in sorted(items)) for _, _, items in lines)


class RapidOcrEngine:
    name = "rapidocr"

    def __init__(self, threads: Optional[int] = None) -> None:
        threads = threads or _threads()
        kept = {k: os.environ.get(k) for k in ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR")}
        try:
            import cv2
            from rapidocr_onnxruntime import RapidOCR
        finally:
            for k, v in kept.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        cv2.setNumThreads(threads)
        logging.getLogger("RapidOCR").setLevel(logging.WARNING)
        logging.getLogger("OrtInferSession").setLevel(logging.WARNING)
        self._ocr = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
        self._lock = threading.Lock()

    def recognize(self, image, cancel: Optional[CancelToken] = None) -> str:
        # One page runs to its end inside onnxruntime (seconds); the caller checks cancel between pages.
        image = fit_pixels(image)
        with self._lock:
            results, _elapsed = self._ocr(image)
        return _lines_in_reading_order(results or ())


class TesseractEngine:
    name = "tesseract"

    def __init__(self, command: str, threads: Optional[int] = None) -> None:
        self._command = command
        self._env = {**os.environ, "OMP_THREAD_LIMIT": str(threads or _threads())}

    def recognize(self, image, cancel: Optional[CancelToken] = None) -> str:
        buf = io.BytesIO()
        fit_pixels(image).save(buf, format="PNG")
        try:
            proc = subprocess.Popen([self._command, "stdin", "stdout"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self._env)
        except OSError as exc:
            raise ExtractionError(f"tesseract cannot run: {exc.strerror or exc}") from None
        out, err = _wait(proc, buf.getvalue(), cancel)
        if proc.returncode != 0:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            raise ExtractionError(f"tesseract failed: {lines[-1] if lines else proc.returncode}"[:300])
        text = out.decode("utf-8", "replace").replace("\f", "")
        return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _wait(proc: subprocess.Popen, data: bytes, cancel: Optional[CancelToken]) -> tuple[bytes, bytes]:
    """(stdout, stderr) of `proc` fed `data`; a cancel kills it within CANCEL_POLL_S (a page can take a
    minute on a busy machine), and so does TESSERACT_TIMEOUT_S."""
    deadline = time.monotonic() + TESSERACT_TIMEOUT_S
    feed: Optional[bytes] = data
    try:
        while True:
            try:
                return proc.communicate(input=feed, timeout=CANCEL_POLL_S)
            except subprocess.TimeoutExpired:
                feed = None  # sent already: a retried communicate() must not send it again
            if cancel is not None:
                cancel.check()
            if time.monotonic() > deadline:
                raise ExtractionError(f"OCR took longer than {TESSERACT_TIMEOUT_S} s on one page")
    except BaseException:  # a cancel, the timeout, Ctrl+C: the process never outlives its page
        proc.kill()
        proc.communicate()
        raise


def _wanted() -> tuple[str, ...]:
    choice = os.environ.get(ENGINE_ENV, "").strip().lower()
    if not choice:
        return ENGINES
    if choice == "none":
        return ()
    return (choice,) if choice in ENGINES else ()


def _installed(name: str) -> bool:
    if name in _failed:
        return False
    if name == "rapidocr":
        return importlib.util.find_spec("rapidocr_onnxruntime") is not None
    return shutil.which("tesseract") is not None


def engine_name() -> Optional[str]:
    """The engine `available_engine()` would build, without building it (cheap: for `status`)."""
    return next((n for n in _wanted() if _installed(n)), None)


def ocr_unavailable_reason() -> Optional[str]:
    """None when OCR can run; else one line for `status` and the window."""
    choice = os.environ.get(ENGINE_ENV, "").strip().lower()
    if choice == "none":
        return f"OCR is turned off ({ENGINE_ENV}=none)"
    if choice and choice not in ENGINES:
        return f"unknown OCR engine {choice!r} in {ENGINE_ENV} (use {', '.join(ENGINES)} or none)"
    if engine_name() is None:
        return NOT_INSTALLED if not choice else f"OCR engine {choice!r} is not installed"
    return None


_built: dict[str, OcrEngine] = {}
_failed: set[str] = set()  # installed but would not load (a broken install): reported as not installed
_build_lock = threading.Lock()


def _build(name: str) -> OcrEngine:
    if name == "rapidocr":
        return RapidOcrEngine()
    return TesseractEngine(shutil.which("tesseract") or "tesseract")


def available_engine() -> Optional[OcrEngine]:
    """The first engine that is installed and loads (built once per process, ~1 s for RapidOCR), or None."""
    with _build_lock:
        for name in _wanted():
            if name in _built:
                return _built[name]
            if not _installed(name):
                continue
            try:
                _built[name] = _build(name)
                return _built[name]
            except Exception as exc:  # a broken install: say so once, try the next engine
                log.warning("OCR engine %s cannot load: %s", name, exc)
                _failed.add(name)
        return None
