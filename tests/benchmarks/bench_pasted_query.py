"""A pasted question is not a query language: the default search against `--literal`, before and after long
questions were read as plain words (reading.as_searched), in the same run.

What is scored is what a person sees: the default `search --json` top 10 (default mode and grouping, no
reranking), its paths read as a ranking of files, nDCG@10 x 100 (bench_quality's "shown"). Per collection:
- literal:        `search --literal` (no syntax at all)
- default_before: the query parsed strictly, as before (every quote a required phrase, every -word excluded)
- default_after:  the default search now
- strict_first:   a comparator: the strict reading's files first, then the literal reading's (a fallback that
                  keeps strict hits on top), merged from the two runs above
Collections (../shared/data, benchmarks only): cranfield (225 questions, 3 hold " -dash"), scifact-pasted (the
first 100 judged SciFact-train claims plus every judged claim the parser reads syntax in, their judged
abstracts and 250 others: the full 5,183 abstracts take over an hour to embed on 2 shared cores), trecqa (dev
questions over their candidate sentences). `--stress` adds each collection again with a quoted pair of
words put into every question of PROSE_WORDS words or more (the two adjacent words around its longest word,
as a quotation inside a pasted paragraph would be): how much a strict reading of quotes costs when it
happens in most questions. A query the parser reads no syntax in is searched identically by all readings,
so only those with syntax are searched more than once.

Libraries are cached under /tmp/searchapp-bench-quality (bench_quality's cache; SEARCHAPP_BENCH_CACHE).

    python tests/benchmarks/bench_pasted_query.py [--collections cranfield,scifact-pasted,trecqa] [--stress]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import bench_quality
from searchapp.datasets.beir import BeirCollection, load_beir
from searchapp.library.query import reading, syntax

_load_collection = bench_quality.load_collection


def scifact_pasted() -> BeirCollection:
    coll = load_beir(bench_quality.DATA / "ir" / "scifact-train", split="test")
    judged = [q for q in coll.queries if q in coll.qrels]
    qids = list(dict.fromkeys(judged[:100] + [q for q in judged if syntax.parse_query(coll.queries[q]).has_syntax]))
    rng = np.random.default_rng(0)
    docs = {d for q in qids for d in coll.qrels[q]}
    others = sorted(d for d in coll.corpus if d not in docs)
    docs |= {others[i] for i in rng.choice(len(others), size=250, replace=False)}
    out = BeirCollection()
    out.corpus = {d: v for d, v in coll.corpus.items() if d in docs}
    out.queries = {q: coll.queries[q] for q in qids}
    out.qrels = {q: dict(coll.qrels[q]) for q in qids}
    return out


def load_collection(name: str) -> BeirCollection:
    return scifact_pasted() if name == "scifact-pasted" else _load_collection(name)


bench_quality.load_collection = load_collection  # prepare() builds and caches the library through it


_EDGE = ".,;:?!\"'()[]"


def quoted(text: str) -> str:
    """A long question with two adjacent words around its longest word in quotes (punctuation around them kept
    outside the quotes: `levels "of homocysteine".`); shorter ones as they are."""
    words = text.split()
    plain = [bool(w.strip(_EDGE)) and not w.startswith("-") for w in words]  # a word, not an operator
    pairs = [i for i in range(len(words) - 1) if plain[i] and plain[i + 1]]
    if len(words) < reading.PROSE_WORDS or not pairs:
        return text
    i = max(pairs, key=lambda j: len(words[j].strip(_EDGE)))
    a, b = words[i], words[i + 1]
    lead, tail = a[: len(a) - len(a.lstrip(_EDGE))], b[len(b.rstrip(_EDGE)):]
    inner = f"{a.lstrip(_EDGE)} {b.rstrip(_EDGE)}".replace('"', "")
    return " ".join(words[:i] + [f'{lead}"{inner}"{tail}'] + words[i + 2:])


@contextmanager
def strict_reading():
    """The default search as it was: every query read strictly (Library.search's reader swapped back)."""
    import searchapp.library.library as library_module

    kept = library_module.read_query
    library_module.read_query = syntax.parse_query
    try:
        yield
    finally:
        library_module.read_query = kept


def shown(lib, text: str, doc_of: dict[str, str], literal: bool = False) -> list[str]:
    res = lib.search(text, rerank=False, literal=literal)
    return [doc_of.get(h["path"]) for h in res.to_json()["hits"]]


def merged(first: list[str], then: list[str], k: int = 10) -> list[str]:
    return list(dict.fromkeys(first + then))[:k]


def cpu_flag() -> str:
    try:
        return "yes" if "avx512_bf16" in Path("/proc/cpuinfo").read_text() else "no"
    except OSError:
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collections", default="cranfield,scifact-pasted,trecqa")
    ap.add_argument("--stress", action="store_true", help="also every long question with a quoted pair of words")
    args = ap.parse_args()

    from searchapp.library import Library
    from searchapp.models import BiEncoder

    encoder = bench_quality.QueryCache(BiEncoder("all-MiniLM-L6-v2", device="cpu"))
    for name in args.collections.split(","):
        coll, doc_of, root = bench_quality.prepare(name, encoder)
        queries = {q: t for q, t in coll.queries.items() if q in coll.qrels}
        sets = [("as asked", queries)]
        if args.stress:
            sets.append(("quoted pair", {q: quoted(t) for q, t in queries.items()}))
        with Library(bench_quality.bench_config(bench_quality.library_dir(root, None)), encoder=encoder) as lib:
            for label, qs in sets:
                t0 = time.perf_counter()
                with_syntax = [q for q, t in qs.items() if syntax.parse_query(t).has_syntax]
                literal = {q: shown(lib, t, doc_of, literal=True) for q, t in qs.items()}
                after = dict(literal)  # no syntax read: every reading searches the text as typed
                before = dict(literal)
                for q in with_syntax:
                    after[q] = shown(lib, qs[q], doc_of)
                with strict_reading():
                    for q in with_syntax:
                        before[q] = shown(lib, qs[q], doc_of)
                first = {q: merged(before[q], literal[q]) if q in with_syntax else literal[q] for q in qs}
                plain_read = sum(1 for q in with_syntax if reading.read_query(qs[q]).as_words)
                row = {"bench": "pasted_query", "collection": name, "queries": label, "n": len(qs),
                       "with_syntax": len(with_syntax), "read_as_plain_words": plain_read,
                       "literal": bench_quality.ndcg10(literal, coll.qrels),
                       "default_before": bench_quality.ndcg10(before, coll.qrels),
                       "default_after": bench_quality.ndcg10(after, coll.qrels),
                       "strict_first": bench_quality.ndcg10(first, coll.qrels)}
                if with_syntax:  # the same figures over the questions that hold syntax only
                    runs = (("literal", literal), ("default_before", before), ("default_after", after),
                            ("strict_first", first))
                    row["syntax_only"] = {k: bench_quality.ndcg10({q: run[q] for q in with_syntax}, coll.qrels)
                                          for k, run in runs}
                row["after_minus_literal"] = round(row["default_after"] - row["literal"], 2)
                row.update(seconds=round(time.perf_counter() - t0, 1), avx512_bf16=cpu_flag(),
                           load_avg=round(os.getloadavg()[0], 2))
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
