"""The app's OCR judged by the OCR benchmark's own evaluator: https://github.com/scribeocr/ocr-benchmark scores an
engine's hOCR against ground_truth/*.hocr word by word, words matched by their boxes, punctuation ignored
(its run_eval.js with scribe.js-ocr's compareOCR; published averages: Tesseract.js 84.76 %, Scribe.js 93.65 %).

    python tests/benchmarks/bench_ocr_scribe.py CHECKOUT --node-modules DIR [--out DIR] [--engine rapidocr3]

CHECKOUT: a checkout of that repository (img/, ground_truth/, run_eval.js, stats/). DIR: a node_modules folder
holding scribe.js-ocr 0.5.0, the version the benchmark's package-lock pins (outside the repository and never
in `make test`), e.g.:
    mkdir /tmp/scribe && cd /tmp/scribe && echo '{"type":"module","dependencies":{"scribe.js-ocr":"0.5.0"}}' \
        > package.json && npm install --ignore-scripts
With it the evaluator gives the published per-page figures for results/scribejs exactly.

One fresh process OCRs every page with ground truth through the engine's own `lines` (the function its text
path reads: searchapp/ingest/ocr/engine.py), pages scaled as the app scales them and boxes put back in the
image's pixels, and writes OUT/results/searchapp/NAME.hocr (the product's word boxes: RapidOCR's where they
agree with the line, word_boxes.py) and OUT/results/searchapp_proportional (the same lines cut in proportion to
their characters). The evaluator then runs unchanged on a copy of the checkout. One JSON line per page (the
app's accuracy beside the two published engines') and one summary per variant: average of the per-page
accuracies (as the benchmark's summarize.js takes it), the OCR process's peak RSS, its seconds per page, and
word recall (bench_ocr.py's measure: the ground truth's words, as a multiset, found on the page).

First measurement (2026-11-29, AVX2-only 2-core EPYC, load 5-13; the pages OCR'd in two processes to finish in
time): average 94.48 % (proportional cut 93.97 %) against Tesseract.js 84.76 % and Scribe.js 93.65 %; word
recall 0.9748; peak RSS 0.81 GB; ~1 min per page on the busy machine (decision 0114).
With a page's lines turned upside down all together or not at all (ingest/ocr/orientation.py; 2026-11-29,
one process, load 3.4-8.5): 96.70 % (proportional 96.09 %), word recall 0.9877, CER 0.200 -> 0.192 (bench_ocr.py's
measure on the same lines), peak RSS 788 MB; no page lower, slide_01 64.7 -> 97.4 %, filing_01 94.5 -> 99.5 %.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

from bench_ocr import cpu_flag, load, words
from hocr import write_hocr

VARIANTS = ("searchapp", "searchapp_proportional")
PUBLISHED = {"tesseractjs_lstm": "tesseract_js", "scribejs": "scribe_js"}


class _Words(HTMLParser):
    """The texts of an hOCR file's ocrx_word elements."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self.depth: list[str] = []
        self.word: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class", "") or ""
        self.depth.append(cls)
        if cls == "ocrx_word":
            self.word = []

    def handle_endtag(self, tag):
        if (self.depth.pop() if self.depth else "") == "ocrx_word" and self.word is not None:
            self.words.append("".join(self.word).strip())
            self.word = None

    def handle_data(self, data):
        if self.word is not None:
            self.word.append(data)


def truth_files(checkout: Path) -> dict[str, Path]:
    out = {}
    for p in sorted((checkout / "ground_truth").glob("*.hocr")):
        out[p.name.replace(".truth.hocr", "").replace(".hocr", "")] = p
    return out


def ocr_pages(checkout: Path, out: Path, engine_name: str) -> dict:
    """OCR every page with ground truth (run in a fresh process: its peak RSS is the engine's)."""
    from searchapp.ingest.ocr import engine as eng
    from searchapp.ingest.ocr.images import iter_image_pages
    from searchapp.ingest.ocr.word_boxes import split_line

    engine = eng._build(engine_name)
    truths = truth_files(checkout)
    for v in VARIANTS:
        (out / "results" / v).mkdir(parents=True, exist_ok=True)
    found = total = 0
    seconds, per_page = 0.0, {}
    for image in sorted((checkout / "img").iterdir()):
        if image.stem not in truths:
            continue
        _, page = next(iter_image_pages(image, 1))
        t = time.perf_counter()
        lines = engine.lines(page)
        seconds += time.perf_counter() - t
        w, h = page.size
        (out / "results" / VARIANTS[0] / f"{image.stem}.hocr").write_text(write_hocr(w, h, lines), encoding="utf-8")
        cut = [(line, split_line(line[:4], line[4])) for line, _ in lines]
        (out / "results" / VARIANTS[1] / f"{image.stem}.hocr").write_text(write_hocr(w, h, cut), encoding="utf-8")
        parser = _Words()
        parser.feed(truths[image.stem].read_text(encoding="utf-8"))
        rw, hw = words(" ".join(parser.words)), words("\n".join(line[4] for line, _ in lines))
        hit = sum((rw & hw).values())
        found, total = found + hit, total + sum(rw.values())
        per_page[image.stem] = round(hit / max(1, sum(rw.values())), 4)
    return {"pages": len(per_page), "word_recall": round(found / max(1, total), 4), "word_recall_per_page": per_page,
            "s_per_page": round(seconds / max(1, len(per_page)), 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def evaluate(checkout: Path, node_modules: Path, out: Path) -> dict[str, dict[str, float]]:
    """The benchmark's run_eval.js, unchanged, on a copy of the checkout holding our results: accuracy per page
    (correct / total, in %) for our variants and the published engines' stats."""
    work = out / "eval"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(checkout, work, ignore=shutil.ignore_patterns(".git", "node_modules", "img"))
    (work / "node_modules").symlink_to(node_modules.resolve())
    shutil.rmtree(work / "results")
    shutil.copytree(out / "results", work / "results")
    published = {v: work / "stats" / f"eval_stats_{k}.csv" for k, v in PUBLISHED.items()}
    scores = {v: _accuracy(p) for v, p in published.items()}
    for v in VARIANTS:
        subprocess.run(["node", "run_eval.js", f"results/{v}"], cwd=work, check=True, timeout=1800,
                       stdout=subprocess.DEVNULL)
        scores[v] = _accuracy(work / "stats" / f"eval_stats_{v}.csv")
    return scores


def _accuracy(path: Path) -> dict[str, float]:
    with path.open(newline="") as f:
        return {row["file"]: 100.0 * int(row["correct"]) / int(row["total"]) for row in csv.DictReader(f)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--node-modules", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench_ocr_scribe"))
    ap.add_argument("--engine", default="rapidocr3")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print("@@" + json.dumps(ocr_pages(args.checkout, args.out, args.engine)))
        return 0
    load_before = load()
    done = subprocess.run([sys.executable, __file__, str(args.checkout), "--node-modules", str(args.node_modules),
                           "--out", str(args.out), "--engine", args.engine, "--child"],
                          capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode != 0 or "@@" not in done.stdout:
        print(json.dumps({"bench": "ocr_scribe", "failed": done.stderr.strip().splitlines()[-3:]}))
        return 1
    ocr = json.loads(done.stdout.split("@@", 1)[1])
    scores = evaluate(args.checkout, args.node_modules, args.out)
    pages = sorted(scores[VARIANTS[0]])
    for page in pages:
        print(json.dumps({"bench": "ocr_scribe_page", "page": page,
                          **{k: round(v.get(page, float("nan")), 2) for k, v in scores.items()},
                          "word_recall": ocr["word_recall_per_page"].get(page.split(".")[0])}))
    print(json.dumps({"bench": "ocr_scribe", "engine": args.engine, "pages": len(pages),
                      **{f"average_{k}": round(sum(v.values()) / len(v), 2) for k, v in scores.items()},
                      "word_recall": ocr["word_recall"], "peak_rss_mb": ocr["peak_rss_mb"],
                      "s_per_page": ocr["s_per_page"], "cpu": cpu_flag(), "load_before": load_before,
                      "load_after": load()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
