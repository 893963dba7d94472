"""Peak RSS and speed of OCRing a long image-only PDF through `ocr_document` with RapidOCR.

    python tests/benchmarks/bench_ocr_memory.py [--pages 200] [--checkpoints 10,50,100,200] [--engine rapidocr3]

Renders `--pages` small pages (1000x400 px at the 300 dpi OCR renders at) from text with PIL, makes them an
image-only PDF with fpdf2, then, in one subprocess (SEARCHAPP_OCR_ENGINE=--engine) with one engine, OCRs
pages 1-10, 11-50, 51-100, 101-200 (one `ocr_document` call each) and after each prints ru_maxrss (the
process's peak RSS so far; for tesseract also the largest of its command's processes) and pages/s. One JSON line per checkpoint, with CPU flags and load average.
Never run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORDS = ("invoice ledger harbour lantern orchard meadow copper violet station quarry ember willow "
         "falcon granite river summit canyon beacon thistle cobalt").split()


def make_pdf(path: Path, pages: int) -> None:
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=30)
    w_mm, h_mm = 1000 / 300 * 25.4, 400 / 300 * 25.4  # 1000x400 px when rendered at 300 dpi
    pdf = FPDF(unit="mm", format=(w_mm, h_mm))
    pdf.set_auto_page_break(False)
    tmp = path.parent / "pages"
    tmp.mkdir(exist_ok=True)
    for i in range(pages):
        im = Image.new("L", (1000, 400), 255)
        draw = ImageDraw.Draw(im)
        for line in range(4):
            words = [WORDS[(i * 7 + line * 3 + j) % len(WORDS)] for j in range(5)]
            draw.text((30, 30 + 90 * line), f"Page {i + 1}: " + " ".join(words), font=font, fill=0)
        png = tmp / f"p{i}.png"
        im.save(png)
        pdf.add_page()
        pdf.image(str(png), x=0, y=0, w=w_mm, h=h_mm)
    pdf.output(str(path))


def child(path: str, checkpoints: list[int]) -> None:
    """One process, one engine: OCR pages up to each checkpoint in turn (one `ocr_document` call per stretch)
    and print the process's peak RSS so far, so growth with the page count shows."""
    import resource

    from searchapp.ingest.ocr import available_engine, ocr_document

    engine = available_engine()
    t0, done = time.perf_counter(), 0
    for n in checkpoints:
        doc = ocr_document(path, pages=list(range(done + 1, n + 1)), engine=engine)
        secs = time.perf_counter() - t0
        print(json.dumps({"pages": n, "pages_read_now": len(doc.pages), "secs": round(secs, 1),
                          "pages_per_s": round(n / secs, 2),
                          "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                          "peak_child_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
                          "engine": type(engine).__name__, "load_avg": round(os.getloadavg()[0], 2)}), flush=True)
        done = n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--checkpoints", default="10,50,100,200")
    ap.add_argument("--engine", default="rapidocr3", choices=("rapidocr3", "rapidocr", "tesserocr", "tesseract"))
    ap.add_argument("--child", nargs=2)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], [int(x) for x in args.child[1].split(",")])
        return
    flags = subprocess.run("grep -o avx512_bf16 /proc/cpuinfo | head -1", shell=True, capture_output=True,
                           text=True).stdout.strip() or "none"
    with tempfile.TemporaryDirectory(prefix="bench-ocr-mem-") as tmp:
        pdf = Path(tmp) / "scan.pdf"
        make_pdf(pdf, args.pages)
        env = dict(os.environ, SEARCHAPP_OCR_ENGINE=args.engine, PYTHONPATH=str(REPO))
        points = [n for n in (int(x) for x in args.checkpoints.split(",")) if n <= args.pages]
        print(json.dumps({"pdf_pages": args.pages, "pdf_mb": round(pdf.stat().st_size / 2**20, 1), "cpu_flags": flags,
                          "cores": os.cpu_count(), "load_avg_start": round(os.getloadavg()[0], 2)}), flush=True)
        subprocess.run([sys.executable, __file__, "--child", str(pdf), ",".join(map(str, points))], env=env,
                       check=True)


if __name__ == "__main__":
    main()
