"""Repeated text and exact copies in the results, as a person sees them: before (search.fold_repeats = false) and
after (the default), same libraries, same run.

Collections, all from real text (never test fixtures):
- "footer": 200 TrecQA dev sentences (../shared/data), each a short note closed by a real open-access licence
  footer, beside 7 long licence texts from /usr/share/common-licenses (Apache-2.0, Artistic, BSD, CC0-1.0, GPL-2,
  LGPL-2.1, MPL-2.0): the files that treat the footer's topic at length. Queries ask about that topic; the
  licences are the relevant files. Figures: rows of footer notes in the top 10, rank of the first licence, nDCG@10.
- "disclaimer": SciFact-sub (bench_quality.py) with an on-topic medical disclaimer appended to every third file,
  against the same collection clean: nDCG@10 as shown (default `search --json` top 10 read as a ranking of files).
  Spread-out boilerplate must stay cheap: disclaimer within 0.5 of clean.
- "copies": the footer collection with 20 of its notes saved twice ("x.txt" and "x (1).txt"): rows that are a
  copy of a row above, in the top 10 of each note's own sentence as the query.
- `--dev cranfield,trecqa,scifact-sub`: bench_quality's collections, as shown, before/after (must not fall).
- `--scale 10000`: a words-only library of that many files from SciFact abstracts, three in ten PEP-like .rst files
  with a PEP's footer and trailer: lexical ms per query (p50, p95) with folding off/on, for the footer queries and
  for topical ones, and for the footer queries the "common to N" rows, PEP rows shown and the on-topic file's rank.

One JSON line per figure; the first line names the CPU (avx512_bf16, AMX) and the load average. Libraries are
cached under /tmp/searchapp-bench-boilerplate (and bench_quality's cache for --dev):

    python tests/benchmarks/bench_boilerplate.py [--dev cranfield,trecqa,scifact-sub] [--max-queries N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench_quality import DATA, bench_config, load_collection, ndcg10, prepare, trecqa_collection

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.evaluation.ir import write_corpus
from _common import cpu_note, emit

CACHE = Path(os.environ.get("SEARCHAPP_BENCH_BOILERPLATE", "/tmp/searchapp-bench-boilerplate"))
LICENCES = Path("/usr/share/common-licenses")
LONG = ("Apache-2.0", "Artistic", "BSD", "CC0-1.0", "GPL-2", "LGPL-2.1", "MPL-2.0")
# Real boilerplate: the footer of open-access articles (PLoS and others).
FOOTER = ("Copyright: This is an open-access article distributed under the terms of the Creative Commons Attribution "
          "License, which permits unrestricted use, distribution, and reproduction in any medium, provided the "
          "original author and source are credited.")
FOOTER_QUERIES = [
    "open access license for reproduction in any medium",
    "attribution license terms for distribution",
    "unrestricted use and distribution of a work provided the author is credited",
    "copyright license that permits reproduction and distribution",
    "licence terms for copying, distribution and modification of software",
    "who may reuse an article and must credit the original author",
]
# An on-topic disclaimer, as health sites and reports append it.
DISCLAIMER = ("Medical disclaimer: this summary is provided for research and education only and is not a substitute "
              "for professional medical advice, diagnosis or treatment. Always ask a physician about symptoms, "
              "drugs, dosage and therapy; results of clinical studies may not apply to an individual patient.")
MODES = SEARCH_MODES
VARIANTS = {"before": {"fold_repeats": False}, "after": {}}


def build(folder: Path, lib_dir: Path, encoder) -> None:
    from searchapp.library import Library

    t0 = time.perf_counter()
    with Library(bench_config(lib_dir), encoder=encoder) as lib:
        rep = lib.add_folder(folder)
    print(json.dumps({"stage": "index", "library": lib_dir.name, "seconds": round(time.perf_counter() - t0, 1),
                      "embedded": rep.chunks_embedded}), file=sys.stderr, flush=True)


def footer_collection(copies: int) -> tuple[Path, Path, set[str], dict[str, str]]:
    """(docs folder, library dir, licence paths, note path -> its sentence)."""
    name = "footer" if not copies else "copies"
    root = CACHE / name
    docs = root / "docs"
    sentences = list(dict.fromkeys(t for _, t in trecqa_collection(DATA / "pairs" / "trecqa-dev.tsv").corpus.values()))
    notes = {}
    if not (root / "docs.done").exists():
        shutil.rmtree(root, ignore_errors=True)
        docs.mkdir(parents=True)
        for i, s in enumerate(sentences[:200]):
            (docs / f"note-{i:03d}.txt").write_text(f"{s}\n\n{FOOTER}\n", encoding="utf-8")
            if i < copies:
                shutil.copy(docs / f"note-{i:03d}.txt", docs / f"note-{i:03d} (1).txt")
        for lic in LONG:
            shutil.copy(LICENCES / lic, docs / f"{lic}.txt")
        (root / "docs.done").write_text("")
    for i, s in enumerate(sentences[:200]):
        notes[str((docs / f"note-{i:03d}.txt").resolve())] = s
    return docs, root / "library", {str((docs / f"{lic}.txt").resolve()) for lic in LONG}, notes


def run_footer(encoder, max_queries: int) -> None:
    from searchapp.library import Library

    docs, lib_dir, licences, _ = footer_collection(0)
    if not (lib_dir / "library.sqlite").exists():
        build(docs, lib_dir, encoder)
    queries = FOOTER_QUERIES[: max_queries or None]
    qrels = {str(i): {p: 1 for p in licences} for i in range(len(queries))}
    for variant, search in VARIANTS.items():
        with Library(bench_config(lib_dir, **search), encoder=encoder) as lib:
            for mode in MODES:
                run, footer_rows, first_licence, ms, common = {}, [], [], [], []
                for i, q in enumerate(queries):
                    t0 = time.perf_counter()
                    hits = lib.search(q, mode=mode, rerank=False).to_json()["hits"]
                    ms.append((time.perf_counter() - t0) * 1000)
                    paths = [h["path"] for h in hits]
                    run[str(i)] = paths
                    footer_rows.append(sum("/note-" in p for p in paths))
                    common.append(sum(1 for h in hits if h["common_to"]) if "common_to" in hits[0] else 0)
                    first_licence.append(next((r for r, p in enumerate(paths, 1) if p in licences), 11))
                emit({"collection": "footer", "variant": variant, "mode": mode, "queries": len(queries),
                      "note_rows_in_top10": round(sum(footer_rows) / len(queries), 2),
                      "rows_marked_common": round(sum(common) / len(queries), 2),
                      "first_licence_rank": round(sum(first_licence) / len(queries), 2),
                      "ndcg10": ndcg10(run, qrels), "ms_per_query": round(sum(ms) / len(ms), 1)})


def run_copies(encoder, max_queries: int) -> None:
    from searchapp.library import Library

    docs, lib_dir, _, notes = footer_collection(20)
    if not (lib_dir / "library.sqlite").exists():
        build(docs, lib_dir, encoder)
    asked = list(notes.items())[: max_queries or 20]
    for variant, search in VARIANTS.items():
        with Library(bench_config(lib_dir, **search), encoder=encoder) as lib:
            for mode in MODES:
                extra = 0
                for _, sentence in asked:
                    hits = lib.search(sentence, mode=mode, rerank=False).to_json()["hits"]
                    stems = [h["path"].replace(" (1).txt", ".txt") for h in hits]
                    extra += len(stems) - len(set(stems))
                emit({"collection": "copies", "variant": variant, "mode": mode, "queries": len(asked),
                      "copy_rows_in_top10": round(extra / len(asked), 2)})


def run_disclaimer(encoder, max_queries: int) -> None:
    from searchapp.library import Library

    coll = load_collection("scifact-sub")
    queries = {q: t for q, t in coll.queries.items() if q in coll.qrels}
    if max_queries:
        queries = dict(list(queries.items())[:max_queries])
    libs = {}
    for state in ("clean", "disclaimer"):
        root = CACHE / f"scifact-sub-{state}"
        if not (root / "docs.done").exists():
            shutil.rmtree(root, ignore_errors=True)
            doc_of = write_corpus(coll, root / "docs")
            if state == "disclaimer":
                for i, path in enumerate(sorted(doc_of)):
                    if i % 3 == 0:
                        with open(path, "a", encoding="utf-8") as fh:
                            fh.write("\n\n" + DISCLAIMER + "\n")
            (root / "doc_of.json").write_text(json.dumps(doc_of))
            (root / "docs.done").write_text("")
        if not (root / "library" / "library.sqlite").exists():
            build(root / "docs", root / "library", encoder)
        libs[state] = (root / "library", json.loads((root / "doc_of.json").read_text()))
    for variant, search in VARIANTS.items():
        for mode in MODES:
            row = {"collection": "scifact-sub+disclaimer", "variant": variant, "mode": mode, "queries": len(queries)}
            for state, (lib_dir, doc_of) in libs.items():
                with Library(bench_config(lib_dir, **search), encoder=encoder) as lib:
                    run = {}
                    for qid, text in queries.items():
                        hits = lib.search(text, mode=mode, rerank=False).to_json()["hits"]
                        run[qid] = [doc_of.get(h["path"]) for h in hits]
                    row[state] = ndcg10(run, coll.qrels)
            row["disclaimer_minus_clean"] = round(row["disclaimer"] - row["clean"], 2)
            emit(row)


def run_dev(names: list[str], encoder, max_queries: int) -> None:
    from searchapp.library import Library

    for name in names:
        coll, doc_of, root = prepare(name, encoder)
        queries = {q: t for q, t in coll.queries.items() if q in coll.qrels}
        if max_queries:
            queries = dict(list(queries.items())[:max_queries])
        for mode in MODES:
            row = {"collection": name, "mode": mode, "queries": len(queries)}
            for variant, search in VARIANTS.items():
                with Library(bench_config(root / "library", **search), encoder=encoder) as lib:
                    run = {}
                    t0 = time.perf_counter()
                    for qid, text in queries.items():
                        hits = lib.search(text, mode=mode, rerank=False).to_json()["hits"]
                        run[qid] = [doc_of.get(h["path"]) for h in hits]
                    row[variant] = ndcg10(run, coll.qrels)
                    row[f"ms_per_query_{variant}"] = round((time.perf_counter() - t0) * 1000 / len(queries), 1)
            row["after_minus_before"] = round(row["after"] - row["before"], 2)
            emit(row)


PEP_FOOTER = ("Copyright\n=========\n\nThis document has been placed in the public domain.\n\n\n..\n   Local Variables:\n"
              "   mode: indented-text\n   indent-tabs-mode: nil\n   sentence-end-double-space: t\n   fill-column: 70\n"
              "   coding: utf-8\n   End:\n")
SCALE_QUERIES = ["This document has been placed in the public domain", "public domain licence of this document"]
ON_TOPIC = ("A guide to the public domain. A document enters the public domain when its copyright expires, or when its "
            "author has placed it there. A document placed in the public domain may be copied and published by anyone, "
            "without a licence.")


def scale_collection(n_files: int) -> tuple[Path, Path, list[str]]:
    """`n_files` files from real text (SciFact abstracts, each cut in two halves: distinct bodies), three in ten of
    them PEP-like .rst files ending with a PEP's footer and trailer, plus one file on the footer's topic; (docs, library
    dir, SciFact claims as topical queries)."""
    root = CACHE / f"scale-{n_files}"
    docs = root / "docs"
    base = DATA / "ir" / "scifact-train"
    claims = [json.loads(line)["text"] for line in (base / "queries.jsonl").read_text().splitlines()[:30]]
    if not (root / "docs.done").exists():
        shutil.rmtree(root, ignore_errors=True)
        docs.mkdir(parents=True)
        bodies = []
        for line in (base / "corpus.jsonl").read_text().splitlines():
            d = json.loads(line)
            cut = d["text"].find(". ", len(d["text"]) // 2) + 1 or len(d["text"]) // 2
            bodies += [(d["title"], d["text"][:cut]), (d["title"] + " (continued)", d["text"][cut:])]
        for i in range(n_files - 1):
            title, body = bodies[i % len(bodies)]
            if i % 10 < 3:
                (docs / f"pep-{i:05d}.rst").write_text(
                    f"PEP: {i}\nTitle: {title}\nStatus: Draft\nType: Informational\n\n\nAbstract\n========\n\n"
                    f"{body}\n\n\nReferences\n==========\n\n.. [1] The discussion has been archived.\n\n\n{PEP_FOOTER}",
                    encoding="utf-8")
            else:
                (docs / f"note-{i:05d}.txt").write_text(f"{title}\n\n{body}\n", encoding="utf-8")
        (docs / "public-domain-guide.txt").write_text(ON_TOPIC + "\n", encoding="utf-8")
        (root / "docs.done").write_text("")
    return docs, root / "library", claims


def run_scale(encoder, n_files: int) -> None:
    """Repeated text at `n_files` files, words only (no vector: folding must not need meaning): lexical search
    time per query with folding on and off, and for the footer queries whether the PEPs take one row."""
    from searchapp.library import Library

    docs, lib_dir, claims = scale_collection(n_files)
    if not (lib_dir / "library.sqlite").exists():
        t0 = time.perf_counter()
        with Library(bench_config(lib_dir), encoder=encoder) as lib:
            rep = lib.add_folder(docs, embed=False)
        print(json.dumps({"stage": "index words", "files": rep.scanned, "seconds": round(time.perf_counter() - t0, 1)}),
              file=sys.stderr, flush=True)
    for variant, search in VARIANTS.items():
        with Library(bench_config(lib_dir, **search), encoder=encoder) as lib:
            for kind, queries in (("footer", SCALE_QUERIES), ("topical", claims)):
                ms, rows = [], []
                for q in queries:
                    t0 = time.perf_counter()
                    hits = lib.search(q, mode="lexical", rerank=False, k=10).hits
                    ms.append((time.perf_counter() - t0) * 1000)
                    rows.append({"common_to": [h.common_to for h in hits if h.common_to],
                                 "pep_rows": sum(Path(h.path).name.startswith("pep-") and not h.common_to for h in hits),
                                 "guide_rank": next((i for i, h in enumerate(hits, 1)
                                                     if h.path.endswith("public-domain-guide.txt")), None)})
                ms.sort()
                row = {"part": "scale", "files": n_files, "variant": variant, "queries": kind, "mode": "lexical",
                       "ms_p50": round(ms[len(ms) // 2], 1), "ms_p95": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 1)}
                if kind == "footer":
                    row["per_query"] = rows
                emit(row)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="footer,copies,disclaimer")
    ap.add_argument("--dev", default="", help="bench_quality collections to score before/after, e.g. cranfield,trecqa")
    ap.add_argument("--max-queries", type=int, default=0)
    ap.add_argument("--scale", type=int, default=0, help="also a words-only library of this many files (e.g. 10000)")
    args = ap.parse_args()
    from bench_quality import QueryCache

    from searchapp.models import BiEncoder

    print(json.dumps(cpu_note()), flush=True)
    encoder = QueryCache(BiEncoder("all-MiniLM-L6-v2", device="cpu"))
    parts = args.parts.split(",")
    if "footer" in parts:
        run_footer(encoder, args.max_queries)
    if "copies" in parts:
        run_copies(encoder, args.max_queries)
    if "disclaimer" in parts:
        run_disclaimer(encoder, args.max_queries)
    if args.dev:
        run_dev(args.dev.split(","), encoder, args.max_queries)
    if args.scale:
        run_scale(encoder, args.scale)
    print(json.dumps(cpu_note()), flush=True)


if __name__ == "__main__":
    main()
