"""A shared library's phrase count (PgStore.files_with_phrase: how many files hold a sentence, up to a few), which
boilerplate detection asks of a search's candidates several times a search: the product's (the passages holding
the sentence's two longest words, a page at a time until the cap) against the former one (every posting of every
word of the sentence, and every text holding them all), swapped query by query in one run, through the library's
own search API (SharedLibrary.search, no rerank), in each mode. Prints p50/p95 per mode and way, and how many
queries got the same top 10 both ways.

The library is bench_shared_million's (bench_million's passages and hashed-word vectors, written through PgStore,
pgvector's HNSW built after), on the test server (tests/pg_server.py). Never part of `make test`.

    .venv/bin/python tests/benchmarks/bench_shared_phrase.py --passages 100000 [--queries 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_million as bm
import bench_shared_million as bs
from _common import emit


def former_files_with_phrase(self: Any, phrase: str, cap: int = 100_000) -> int:
    """The count as it was before 2026-11-30 (the baseline): the passages holding every term of the phrase."""
    from searchapp.store.postgres.pg_lexical import holds_phrase
    from searchapp.store.postgres.tokens import word_terms

    terms = word_terms(phrase)
    if not terms:
        return 0
    rows = self.rows("SELECT c.file_id, c.text FROM chunks c WHERE c.id IN (SELECT chunk_id FROM postings WHERE "
                     "term = ANY(%s) GROUP BY chunk_id HAVING count(*) = %s)", (list(terms), len(set(terms))))
    files: set[int] = set()
    for file_id, text in rows:
        if int(file_id) in files:
            continue
        if holds_phrase(text, terms):
            files.add(int(file_id))
            if len(files) >= cap:
                break
    return len(files)


def main() -> None:
    from searchapp.base.config import load_config
    from searchapp.store.postgres.pg_store import PgStore

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passages", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    ways = {"former": former_files_with_phrase, "now": PgStore.files_with_phrase}
    server = bs.start_server("512MB", "1GB")
    try:
        cfg = load_config(Path(tempfile.mkdtemp()) / "pg-cfg", env={})
        lib, _, _ = bs.build_pg(server, cfg, args.passages, 2000, 50000, 200000)
        qs = bm.query_texts(args.queries)
        bs.answer_queries(lib, bm.TextEncoder(qs))
        for mode in ("hybrid", "lexical", "dense"):
            ms: dict[str, list[float]] = {w: [] for w in ways}
            tops: dict[str, list[list[str]]] = {w: [] for w in ways}
            for way in ways:  # warm: the first touch of the pages a query reads
                PgStore.files_with_phrase = ways[way]  # type: ignore[method-assign]
                lib.search(qs[0], k=10, mode=mode, rerank=False)
            for i, q in enumerate(qs):
                for way in (("former", "now") if i % 2 == 0 else ("now", "former")):
                    PgStore.files_with_phrase = ways[way]  # type: ignore[method-assign]
                    t = time.perf_counter()
                    res = lib.search(q, k=10, mode=mode, rerank=False)
                    ms[way].append((time.perf_counter() - t) * 1000)
                    tops[way].append([h.path for h in res.hits])
            same = sum(a == b for a, b in zip(tops["former"], tops["now"], strict=True))
            for way, v in ms.items():
                v.sort()
                emit(bench="shared_phrase", passages=args.passages, mode=mode, way=way, queries=len(qs),
                     p50_ms=round(statistics.median(v), 1), p95_ms=round(v[int(0.95 * (len(v) - 1))], 1),
                     add_cpu_note=True)
            emit(bench="shared_phrase", passages=args.passages, mode=mode, same_top10=same, queries=len(qs),
                 p50_ratio=round(statistics.median(ms["former"]) / statistics.median(ms["now"]), 2))
        PgStore.files_with_phrase = ways["now"]  # type: ignore[method-assign]
        lib.close()
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
