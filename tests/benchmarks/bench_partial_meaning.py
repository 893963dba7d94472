"""Search while meaning is unfinished: one collection embedded, another searchable by words only.

A new library spends its first minutes to hours in this state (words first, then meaning). Built from
../shared/data: SciFact-sub (the first 100 judged SciFact-train claims, their abstracts and 250 others) is fully
embedded; Cranfield (1,400 abstracts) is added with `embed=False`, so its files have words and no vectors.
Two question sets are asked of that one library, each scored as a person sees it (the default top 10 of
`search`, read as a ranking of files, nDCG@10 x 100):
- "words-only side": Cranfield's questions, whose answers have no vectors yet;
- "embedded side":   SciFact's claims, whose answers have vectors (the fix must not cost them much).
Then Cranfield is embedded too and both sets are asked again ("all embedded").

The baseline is lexical search in the same run and library: hybrid must not fall below it while meaning is
unfinished (goal: hybrid >= lexical - 1 on the words-only side). One JSON line per (state, question set, mode).
The libraries are cached under /tmp/searchapp-bench-partial (a second run only searches):

    python tests/benchmarks/bench_partial_meaning.py [--max-queries N]

`--five` (issue 41, item 4; decision 0109): the fully embedded library copied, its vectors kept only for the
first 5 % of passages in the meaning queue's order (newest-modified files first), as a library 5 % through its
meaning pass. Both question sets are asked of it with the default search (hybrid, first stage: no reranker) with
`search.embed_on_search` 0 (no embedding on the spot: the ranking before item 4) and its default, and of the full
library; goal: the default within 3 nDCG@10 points of the full library. Each query starts cold (this process's
vectors from earlier queries are dropped), so the figure is a first search's. Then Similar is asked for sampled
files without vectors: how many answer (at least one similar file) with and without embedding on the spot.
One JSON line per (question set, state) and one per Similar setting; CPU seconds per query beside the wall.

    python tests/benchmarks/bench_partial_meaning.py --five [--max-queries N] [--similar N]
    python tests/benchmarks/bench_partial_meaning.py --five --words-side-only --budgets 0,8,16,32 --similar 0

`--budgets`: the gap against the budget, each value asked by turns in one run (what a query's on-the-spot
embedding buys, and what it costs this CPU in CPU seconds a query).

`--cli N`: what a person waits for at the command line. The first N questions of each set, each asked of the 5 %
library as a fresh `searchapp search --json` process (start to exit: no torch, so the passages go through the query
path, search/meaning_now.py) at each budget, by turns (the order rotated each question); with `--cli-trees OLD
NEW`, each budget on each tree (`git archive REV searchapp | tar -x -C DIR`). One JSON line per (tree, budget):
median seconds and CPU seconds (process and children). `--busy`: one spinning process beside them (a program
holding a core).

    python tests/benchmarks/bench_partial_meaning.py --five --cli 20 --budgets 0,8,16 [--cli-trees OLD NEW] [--busy]

First measurement (2026-11-29, `--five --scifact-only --max-queries 30 --similar 10`: SciFact-sub, 803 passages,
40 with vectors; 2-core AMD EPYC, AVX2 only, shared, load 12-18, so CPU seconds beside wall): all embedded 88.56;
5 % embedded, no embedding on the spot 79.55 (-9.01; lexical 81.12); embed_on_search 8 (the default then) 83.35
(-5.21, 1.3 CPU s a query); 16: 85.50 (-3.06, 2.2 CPU s); 32: 87.60 (-0.96, 4.3 CPU s). Similar for 10 files
without vectors: 0 of 10 answered without embedding, 10 of 10 with (16 passages, 0.6 CPU s a call).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path
from typing import Optional

from bench_quality import bench_config, load_collection, ndcg10

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.store.vector_queue import queue_order
from searchapp.evaluation.ir import write_corpus
from _common import cpu_note

CACHE = Path(os.environ.get("SEARCHAPP_BENCH_CACHE", "/tmp/searchapp-bench-partial"))
MODES = SEARCH_MODES


def shown_run(lib, queries: dict[str, str], doc_of: dict[str, str], mode: str) -> dict[str, list[str]]:
    run = {}
    for qid, text in queries.items():
        hits = lib.search(text, mode=mode, rerank=False).to_json()["hits"]
        run[qid] = [d for d in (doc_of.get(h["path"]) for h in hits) if d is not None]
    return run


def five_percent_copy(full: Path, five: Path, share: float = 0.05) -> tuple[int, int]:
    """`five`: a copy of the library `full` whose vectors are kept for the first `share` of passages in the
    meaning queue's order and cleared for the rest (the vector index rebuilt from what is left). (kept, all)."""
    import sqlite3

    shutil.rmtree(five, ignore_errors=True)
    shutil.copytree(full, five, ignore=shutil.ignore_patterns("*.lock", "vectors.*", "wanted.json", "searches.sqlite"))
    conn = sqlite3.connect(five / "library.sqlite")
    order = [r[0] for r in conn.execute(  # the meaning queue's own order
        f"SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id {queue_order()}")]  # noqa: S608 (a constant)
    keep = max(1, int(len(order) * share))
    with conn:
        conn.executemany("UPDATE chunks SET vector = x'' WHERE id = ?", [(i,) for i in order[keep:]])
    conn.close()
    return keep, len(order)


def timed_run(lib, queries: dict[str, str], doc_of: dict[str, str], fresh: bool) -> tuple[dict, float, float]:
    """(the shown run, wall seconds per query, CPU seconds per query) of the default search (no reranker)."""
    run = {}
    t0, c0 = time.perf_counter(), time.process_time()
    for qid, text in queries.items():
        if fresh:
            lib.fresh.clear()  # every query a first one: no vectors from the queries before it
        hits = lib.search(text, rerank=False).to_json()["hits"]
        run[qid] = [d for d in (doc_of.get(h["path"]) for h in hits) if d is not None]
    n = max(1, len(queries))
    return run, round((time.perf_counter() - t0) / n, 3), round((time.process_time() - c0) / n, 3)


def scifact_full(encoder) -> Path:
    """A fully embedded library of SciFact-sub alone: the partial library less its words-only Cranfield (a
    machine too busy to embed Cranfield in the time at hand: `--five --scifact-only`)."""
    from searchapp.library import Library

    dst = CACHE / "library-full-scifact"
    if not (dst / "bench-built").exists():
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(CACHE / "library-partial", dst,
                        ignore=shutil.ignore_patterns("*.lock", "wanted.json", "searches.sqlite"))
        with Library(bench_config(dst), encoder=encoder) as lib:
            lib.remove_folder(CACHE / "cranfield")
            assert lib.store.pending_count() == 0
        (dst / "bench-built").write_text("")
    return dst


def five_percent(qsets: dict, doc_of: dict[str, str], encoder, max_similar: int,
                 full_dir: Path = CACHE / "library-full", budgets: tuple[Optional[int], ...] = (0, None),
                 cli: int = 0, trees: Optional[list[str]] = None, busy: bool = False) -> None:
    """The --five measurement (see the module's docstring)."""
    import random

    from searchapp.library import Library

    five_dir = full_dir.with_name(full_dir.name.replace("full", "five"))
    kept, passages = five_percent_copy(full_dir, five_dir)
    if cli:
        cli_five(five_dir, qsets, budgets, cli, trees or [str(Path(__file__).resolve().parents[2])], busy)
        return
    common = {"bench": "partial_meaning_5pct", "passages_with_vectors": kept, "passages": passages,
              "cpu": cpu_note(), "load": os.getloadavg()[0]}
    scores: dict[tuple[str, str], float] = {}
    for label, (queries, qrels) in qsets.items():
        with Library(bench_config(full_dir), encoder=encoder) as lib:
            run, wall, cpu = timed_run(lib, queries, doc_of, fresh=False)
        scores[(label, "full")] = ndcg10(run, qrels)
        print(json.dumps({**common, "questions": label, "state": "all embedded", "ndcg@10_shown": scores[(label, "full")],
                          "queries": len(queries), "s_per_query": wall, "cpu_s_per_query": cpu}), flush=True)
        for budget in budgets:  # by turns in one run: no embedding on the spot, then the default (or --budgets)
            cfg = bench_config(five_dir) if budget is None else bench_config(five_dir, embed_on_search=budget)
            with Library(cfg, encoder=encoder) as lib:
                run, wall, cpu = timed_run(lib, queries, doc_of, fresh=True)
                lexical = ndcg10(shown_run(lib, queries, doc_of, "lexical"), qrels) if budget == 0 else None
                used = cfg.search.embed_on_search
            got = ndcg10(run, qrels)
            line = {**common, "questions": label, "state": "5% embedded", "embed_on_search": used,
                    "ndcg@10_shown": got, "vs_full": round(got - scores[(label, "full")], 2), "queries": len(queries),
                    "s_per_query": wall, "cpu_s_per_query": cpu}
            if lexical is not None:
                line["lexical_ndcg@10_shown"] = lexical
            print(json.dumps(line), flush=True)
    if max_similar <= 0:
        return
    with Library(bench_config(five_dir), encoder=encoder) as lib:
        waiting = _files_without_vectors(lib)
    sample = random.Random(0).sample(waiting, min(max_similar, len(waiting)))
    for budget in (0, None):
        cfg = bench_config(five_dir) if budget is None else bench_config(five_dir, embed_on_search=budget)
        with Library(cfg, encoder=encoder) as lib:
            t0, c0 = time.perf_counter(), time.process_time()
            answered = 0
            for path in sample:
                lib.fresh.clear()
                answered += bool(lib.similar(path).hits)
            n = max(1, len(sample))
            print(json.dumps({**common, "similar": "files without vectors", "embed_budget": cfg.search.embed_on_search,
                              "asked": len(sample), "answered": answered,
                              "s_per_call": round((time.perf_counter() - t0) / n, 3),
                              "cpu_s_per_call": round((time.process_time() - c0) / n, 3)}), flush=True)


def cli_five(five_dir: Path, qsets: dict, budgets: tuple[Optional[int], ...], n: int, trees: list[str],
             busy: bool = False) -> None:
    """The --cli measurement (see the module's docstring)."""
    import statistics
    import subprocess
    import sys
    import tempfile

    from searchapp.base.config import save_config

    tmp = Path(tempfile.mkdtemp(prefix="bench-partial-cli-"))
    configs = {}
    for budget in budgets:
        cfg = bench_config(five_dir) if budget is None else bench_config(five_dir, embed_on_search=budget)
        configs[budget] = str(save_config(cfg, tmp / f"budget-{budget}.toml"))
    runs = [(tree, budget) for tree in trees for budget in budgets]
    figures: dict[tuple[str, Optional[int]], list[tuple[float, float]]] = {run: [] for run in runs}
    questions = [text for queries, _qrels in qsets.values() for text in list(queries.values())[:n]]
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        _cli_rounds(questions, runs, five_dir, configs, tmp, figures)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    shutil.rmtree(tmp, ignore_errors=True)
    for (tree, budget), got in figures.items():
        print(json.dumps({"bench": "partial_meaning_5pct_cli", "tree": tree, "embed_on_search": budget,
                          "questions": len(got), "median_s": round(statistics.median(g[0] for g in got), 2),
                          "median_cpu_s": round(statistics.median(g[1] for g in got), 2), "busy_neighbour": busy,
                          "cpu": cpu_note(), "load": os.getloadavg()[0]}), flush=True)


def _cli_rounds(questions: list[str], runs: list, five_dir: Path, configs: dict, tmp: Path, figures: dict) -> None:
    """Each question as a fresh search process per (tree, budget), the order rotated each question."""
    import sys

    from bench_words_first import LAST_CPU_S, command_env, timed_process

    for i, text in enumerate(questions):
        for tree, budget in runs[i % len(runs):] + runs[:i % len(runs)]:
            argv = [sys.executable, "-m", "searchapp", "--data-dir", str(five_dir), "--config", configs[budget],
                    "search", text, "--json"]
            seconds, _rss, code, out = timed_process(argv, command_env(tree, tmp))
            if code != 0:
                raise SystemExit(f"search failed ({code}): {out[-2000:]}")
            figures[(tree, budget)].append((seconds, LAST_CPU_S[0]))


def _files_without_vectors(lib) -> list[str]:
    rows = lib.store.conn.execute("SELECT f.path FROM files f WHERE EXISTS (SELECT 1 FROM chunks c WHERE "
                                  "c.file_id = f.id AND length(c.vector) = 0) ORDER BY f.id").fetchall()
    return [r[0] for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-queries", type=int, default=0)
    ap.add_argument("--fresh", action="store_true", help="rebuild the libraries")
    ap.add_argument("--five", action="store_true", help="a library 5%% through its meaning pass (issue 41)")
    ap.add_argument("--similar", type=int, default=50, help="--five: files without vectors Similar is asked for")
    ap.add_argument("--budgets", default="",
                    help="--five: embed_on_search values asked by turns, e.g. 0,8,16,32 (default: 0 and the default)")
    ap.add_argument("--words-side-only", action="store_true", help="--five: Cranfield's questions alone")
    ap.add_argument("--cli", type=int, default=0, help="--five: questions per set asked as fresh search processes")
    ap.add_argument("--cli-trees", nargs=2, metavar=("OLD", "NEW"), help="--cli: two source trees, by turns")
    ap.add_argument("--busy", action="store_true", help="--cli: one spinning process beside the searches")
    ap.add_argument("--scifact-only", action="store_true",
                    help="--five over SciFact-sub alone (its full library made from the partial one: no embedding)")
    args = ap.parse_args()
    from searchapp.library import Library
    from searchapp.models import BiEncoder

    if args.fresh:
        shutil.rmtree(CACHE, ignore_errors=True)
    embedded, words = load_collection("scifact-sub"), load_collection("cranfield")
    doc_of: dict[str, str] = {}
    for name, coll in (("scifact-sub", embedded), ("cranfield", words)):
        folder = CACHE / name
        marker = CACHE / f"{name}.json"
        if not marker.exists():
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(json.dumps(write_corpus(coll, folder)))
        doc_of.update({p: f"{name}:{d}" for p, d in json.loads(marker.read_text()).items()})
    sets = {"words-only side": ("cranfield", words), "embedded side": ("scifact-sub", embedded)}
    qsets = {}
    for label, (name, coll) in sets.items():
        qids = [q for q in coll.queries if q in coll.qrels]
        if args.max_queries:
            qids = qids[: args.max_queries]
        qsets[label] = ({q: coll.queries[q] for q in qids},
                        {q: {f"{name}:{d}": g for d, g in coll.qrels[q].items()} for q in qids})

    encoder = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    partial, full = CACHE / "library-partial", CACHE / "library-full"
    budgets = tuple(int(b) for b in args.budgets.split(",")) if args.budgets else (0, None)
    if args.five and args.scifact_only and (partial / "bench-built").exists():
        five_percent({"embedded side": qsets["embedded side"]}, doc_of, encoder, args.similar, scifact_full(encoder),
                     budgets, args.cli, args.cli_trees, args.busy)
        return
    if args.words_side_only:
        qsets = {"words-only side": qsets["words-only side"]}
    if args.five and (full / "bench-built").exists():
        five_percent(qsets, doc_of, encoder, args.similar, budgets=budgets, cli=args.cli, trees=args.cli_trees,
                     busy=args.busy)
        return
    for state, lib_dir in (("meaning unfinished", partial), ("all embedded", full)):
        t0 = time.perf_counter()
        built_marker = lib_dir / "bench-built"
        with Library(bench_config(lib_dir), encoder=encoder) as lib:
            if not built_marker.exists():  # built once: a later sync would embed the words-only side too
                lib.add_folder(CACHE / "scifact-sub")
                lib.add_folder(CACHE / "cranfield", embed=(state == "all embedded"))
                built_marker.write_text("")
            with_vectors, passages = lib.meaning()
            built = round(time.perf_counter() - t0, 1)
            for label, (queries, qrels) in qsets.items():
                for mode in MODES:
                    score = ndcg10(shown_run(lib, queries, doc_of, mode), qrels)
                    print(json.dumps({"bench": "partial_meaning", "state": state, "questions": label, "mode": mode,
                                      "ndcg@10_shown": score, "queries": len(queries),
                                      "passages_with_vectors": with_vectors, "passages": passages,
                                      "build_s": built, "cpu": cpu_note()}), flush=True)
    if args.five:  # the full library is built now
        five_percent(qsets, doc_of, encoder, args.similar, budgets=budgets, cli=args.cli, trees=args.cli_trees,
                     busy=args.busy)


if __name__ == "__main__":
    main()
