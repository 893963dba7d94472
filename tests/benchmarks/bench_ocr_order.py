"""The reading order of OCR'd text boxes, scored offline in seconds: the boxes an engine found on each page
(saved by `BENCH_OCR_BOXES=DIR python tests/benchmarks/bench_ocr.py FOLDER`, one DIR/ENGINE-NAME.json per
page) put in order by searchapp/ingest/ocr/reading_order.py, and, as the baseline in the same run, in rows
across the whole page; each against the page's ground truth (FOLDER/NAME.txt, as bench_ocr.py reads it).

    python tests/benchmarks/bench_ocr_order.py BOXES [FOLDER] [--engine rapidocr3] [--per-page]

One JSON line per order: CER over all pages (edit distance / reference length, whitespace runs as one
space), the median page CER, and how many pages it reads better and worse than the baseline (by more than
0.005). The text of every box is the engine's, so what differs is the order alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from bench_ocr import DATA, cpu_flag, edit_distance, load, normal

from searchapp.ingest.ocr.reading_order import rows_of, lines_in_reading_order


def rows_across(results) -> str:
    """Every box of the page grouped into lines across the page, top to bottom (no columns at all)."""
    boxes = []
    for box, text, _score in results:
        if text.strip():
            xs, ys = [p[0] for p in box], [p[1] for p in box]
            boxes.append((min(xs), min(ys), max(xs), max(ys), text.strip()))
    return "\n".join(" ".join(b[4] for b in line) for line in rows_of(boxes))


ORDERS = {"rows across the page (baseline)": rows_across, "reading_order.py": lines_in_reading_order}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("boxes", type=Path)
    ap.add_argument("folder", nargs="?", type=Path, default=DATA)
    ap.add_argument("--engine", default="rapidocr3")
    ap.add_argument("--per-page", action="store_true")
    args = ap.parse_args(argv)
    pages = []
    for truth in sorted(args.folder.glob("*.txt")):
        saved = args.boxes / f"{args.engine}-{truth.stem}.json"
        if saved.is_file():
            pages.append((truth.stem, json.loads(saved.read_text()), normal(truth.read_text(encoding="utf-8"))))
    if not pages:
        print(f"no {args.engine}-NAME.json in {args.boxes} beside a NAME.txt in {args.folder}", file=sys.stderr)
        return 2
    cer: dict[str, dict[str, float]] = {}
    for name, order in ORDERS.items():
        edits = chars = 0
        cer[name] = {}
        for stem, results, ref in pages:
            e = edit_distance(normal(order(results)), ref)
            edits, chars = edits + e, chars + len(ref)
            cer[name][stem] = e / max(1, len(ref))
        cer[name]["_all"] = edits / max(1, chars)
    base = cer[next(iter(ORDERS))]
    for name, per in cer.items():
        pages_cer = [v for k, v in per.items() if k != "_all"]
        line = {"bench": "ocr_order", "engine": args.engine, "order": name, "pages": len(pages_cer),
                "cer": round(per["_all"], 4), "median_page_cer": round(statistics.median(pages_cer), 4),
                "better_pages": sum(per[s] < base[s] - 0.005 for s, _, _ in pages),
                "worse_pages": sum(per[s] > base[s] + 0.005 for s, _, _ in pages),
                "cpu": cpu_flag(), "load": load()}
        if args.per_page:
            line["per_page"] = {s: round(per[s], 3) for s, _, _ in pages}
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
