"""PDF text layers: pypdf against pdfium (pypdfium2) on real PDFs, in the same run, and the app's reader
(`extractors.pdf`: pypdf, pdfium for the pages whose pypdf text is garbled).

    python tests/benchmarks/bench_pdf_text.py [FOLDER] [--max-pages 50] [--timeout 20] [--limit N]

FOLDER (default ../shared/data/pdfs) holds real PDFs; nothing of it is committed; without it the run says
so in one line and exits 0. The figures in docs/formats.md came from the 971 PDFs of
mozilla/pdf.js test/pdfs (papers, forms, scans and many odd fonts gathered from bug reports): e.g.
`git clone --depth 1 https://github.com/mozilla/pdf.js && cp pdf.js/test/pdfs/*.pdf FOLDER`.

Each file is read by every reader in turn (so a busy machine slows all of them alike), at most --max-pages
pages per file, a file stopped after --timeout seconds (counted as failed, its time kept). One JSON line
per reader: files, pages, pages/s, characters (visible, on pages that are not garbled), word characters
(letters in tokens of 2-20 letters: words run together or glyph codes do not count), the share of garbled
pages (`garbled.is_garbled`: glyph names such as /g18, control bytes), empty pages, failed files, and pages
won (more word characters than the other reader on that page; pypdf and pdfium only). Each line carries the
CPU (avx512_bf16 or not) and the load average.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import signal
import time
from pathlib import Path

from searchapp.ingest.extractors.encoding import clean_text
from searchapp.ingest.extractors.garbled import is_garbled

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "pdfs"
_WORD = re.compile(r"(?<!\S)[^\W\d_]{2,20}[.,;:!?)\"']*(?!\S)")


class _Timeout(Exception):
    pass


def _alarm(*_args) -> None:
    raise _Timeout()


def cpu_flag() -> str:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    return "avx512_bf16" if "avx512_bf16" in flags else "no avx512_bf16"


def read_pypdf(path: Path, max_pages: int) -> list[str]:
    from pypdf import PdfReader

    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        reader.decrypt("")
    out = []
    for page in reader.pages[:max_pages]:
        try:
            out.append(page.extract_text() or "")
        except Exception:  # one page, as the app counts it
            out.append("")
    return out


def read_pdfium(path: Path, max_pages: int) -> list[str]:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    out = []
    try:
        for i in range(min(len(pdf), max_pages)):
            page = pdf[i]
            textpage = page.get_textpage()
            out.append(textpage.get_text_range())
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return out


def read_app(path: Path, max_pages: int) -> list[str]:
    from searchapp.ingest.extractors import pdf as app

    kept = app.MAX_PAGES
    app.MAX_PAGES = max_pages
    try:
        doc = app.extract_pdf(path, max_bytes=0)
    finally:
        app.MAX_PAGES = kept
    return [doc.text[p.start:p.end] for p in doc.pages]


READERS = {"pypdf": read_pypdf, "pdfium": read_pdfium, "app": read_app}


def word_chars(text: str) -> int:
    return sum(len(m.group(0).rstrip(".,;:!?)\"'")) for m in _WORD.finditer(text))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, nargs="?", default=DATA)
    ap.add_argument("--max-pages", type=int, default=50)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (by name)")
    args = ap.parse_args()
    logging.disable(logging.CRITICAL)  # pypdf's and the app's per-page warnings
    files = sorted(p for p in args.folder.iterdir() if p.suffix.lower() == ".pdf") if args.folder.is_dir() else []
    if not files:
        print(json.dumps({"bench": "pdf_text", "skipped": f"no PDFs in {args.folder}"}))
        return
    if args.limit:
        files = files[:args.limit]
    signal.signal(signal.SIGALRM, _alarm)
    stats = {name: {"files": 0, "pages": 0, "seconds": 0.0, "chars": 0, "word_chars": 0, "garbled_pages": 0,
                    "empty_pages": 0, "failed_files": 0, "pages_won": 0} for name in READERS}
    for path in files:
        pages: dict[str, list[str]] = {}
        for name, read in READERS.items():
            s = stats[name]
            t = time.perf_counter()
            signal.alarm(args.timeout)
            try:
                texts = [clean_text(x).strip() for x in read(path, args.max_pages)]
            except _Timeout:
                texts = None
            except Exception:  # a file the reader cannot open
                texts = None
            finally:
                signal.alarm(0)
                s["seconds"] += time.perf_counter() - t
            s["files"] += 1
            if texts is None:
                s["failed_files"] += 1
                continue
            pages[name] = texts
            s["pages"] += len(texts)
            for text in texts:
                if not text:
                    s["empty_pages"] += 1
                elif is_garbled(text):
                    s["garbled_pages"] += 1
                else:
                    s["chars"] += len(text) - sum(1 for c in text if c.isspace())
                    s["word_chars"] += word_chars(text)
        a, b = pages.get("pypdf", []), pages.get("pdfium", [])
        for x, y in zip(a, b, strict=True):
            wx = 0 if is_garbled(x) else word_chars(x)
            wy = 0 if is_garbled(y) else word_chars(y)
            if wx > wy:
                stats["pypdf"]["pages_won"] += 1
            elif wy > wx:
                stats["pdfium"]["pages_won"] += 1
    load = os.getloadavg()[0]
    for name, s in stats.items():
        print(json.dumps({
            "bench": "pdf_text", "reader": name, **s, "seconds": round(s["seconds"], 2),
            "pages_per_s": round(s["pages"] / s["seconds"], 1) if s["seconds"] else None,
            "garbled_share": round(s["garbled_pages"] / s["pages"], 4) if s["pages"] else None,
            "pages_won": s["pages_won"] if name != "app" else None,
            "max_pages": args.max_pages, "cpu": cpu_flag(), "load1": round(load, 2)}), flush=True)


if __name__ == "__main__":
    main()
