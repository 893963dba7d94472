"""Words on a shared library: which PostgreSQL ranking is closer to the SQLite library's BM25 (decision 0119).

Cranfield (1,400 abstracts, 225 queries, ../shared/data/ir/cranfield), one passage per abstract, written through
each store's own insert (no model: words only). Per query, the top 10 of
  sqlite    Store.search_lexical (FTS5's BM25, porter unicode61)
  postings  PgStore.search_lexical (the postings table, FTS5's tokenizer, the same formula)
  tsvector  PostgreSQL full text: to_tsvector('english') OR'ed query, ts_rank_cd
and how each agrees with sqlite (the same top 10 in the same order; overlap@10), nDCG@10 against the qrels, and
CPU milliseconds per query in this process (PostgreSQL's own time is not counted: it is the server's).
One JSON line per ranking. Run: .venv/bin/python tests/benchmarks/bench_shared_lexical.py
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
DATA = Path(os.environ.get("SEARCHAPP_IR_DATA", HERE.parents[2] / "shared" / "data" / "ir")) / "cranfield"


def load() -> tuple[list[tuple[str, str]], list[tuple[str, str]], dict[str, dict[str, int]]]:
    docs = [(d["_id"], (d.get("title", "") + "\n" + d["text"]).strip())
            for d in map(json.loads, (DATA / "corpus.jsonl").read_text().splitlines())]
    queries = [(q["_id"], q["text"]) for q in map(json.loads, (DATA / "queries.jsonl").read_text().splitlines())]
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        q, d, s = line.split("\t")
        qrels.setdefault(q, {})[d] = int(s)
    return docs, [q for q in queries if q[0] in qrels], qrels


def ndcg10(ranked: list[str], rel: dict[str, int]) -> float:
    dcg = sum((2 ** rel.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(sorted(rel.values(), reverse=True)[:10]))
    return dcg / ideal if ideal else 0.0


def fill(store, docs) -> dict[int, str]:
    from searchapp.store.rows import NewChunk

    ids: dict[int, str] = {}
    with store.atomic():
        root = store.add_root("/cranfield")
        for doc_id, text in docs:
            fid = store.upsert_file(root, f"/cranfield/{doc_id}", len(text), 1, None, "indexed", None, "txt", 1)
            cid = store.insert_chunks_of([(fid, NewChunk(0, 0, len(text), None, text, f"h{doc_id}", None))])[0]
            ids[cid] = doc_id
    return ids


def main() -> None:
    from pg_server import PgServer

    from searchapp.store.postgres.pg_store import PgStore
    from searchapp.store import Store

    docs, queries, qrels = load()
    server = PgServer().start()
    try:
        lite = Store(Path(tempfile.mkdtemp(prefix="bench-shared-")) / "library.sqlite")
        pg = PgStore(server.address(server.new_database()), create=True)
        walls = []
        for store in (lite, pg):  # the words pass's writes alone: one transaction of 1,400 one-passage files
            t = time.perf_counter()
            walls.append((fill(store, docs), time.perf_counter() - t))
        (lite_ids, lite_wall), (pg_ids, pg_wall) = walls
        print(json.dumps({"bench": "shared_lexical", "fill_wall_s": {"sqlite": round(lite_wall, 2),
                                                                     "postgresql": round(pg_wall, 2)},
                          "cpu": "AVX2-only 2-core EPYC", "load": os.getloadavg()[0]}), flush=True)
        pg.rows("CREATE INDEX ts ON chunks USING gin (to_tsvector('english', text))")

        def tsvector(q: str) -> list[tuple[int, float]]:
            words = [w for w in "".join(c if c.isalnum() else " " for c in q.lower()).split()]
            expr = " | ".join(dict.fromkeys(words)) or "''"
            return [(int(i), float(s)) for i, s in pg.rows(
                "SELECT id, ts_rank_cd(to_tsvector('english', text), to_tsquery('english', %s)) AS s FROM chunks "
                "WHERE to_tsvector('english', text) @@ to_tsquery('english', %s) ORDER BY s DESC, id LIMIT 10",
                (expr, expr))]

        ways = {"sqlite": (lambda q: lite.search_lexical(q, 10), lite_ids),
                "postings": (lambda q: pg.search_lexical(q, 10), pg_ids), "tsvector": (tsvector, pg_ids)}
        tops: dict[str, dict[str, list[str]]] = {w: {} for w in ways}
        cpu: dict[str, float] = dict.fromkeys(ways, 0.0)
        wall: dict[str, float] = dict.fromkeys(ways, 0.0)
        scores_same = 0
        for qid, text in queries:
            for way, (search, names) in ways.items():  # by turns, one query at a time
                t, w = time.process_time(), time.perf_counter()
                hits = search(text)
                cpu[way] += time.process_time() - t
                wall[way] += time.perf_counter() - w
                tops[way][qid] = [names[c] for c, _ in hits]
                if way == "postings":
                    scores_same += [round(s, 12) for _, s in hits] == [round(s, 12) for _, s in lite.search_lexical(text, 10)]
        for way in ways:
            same = sum(tops[way][q] == tops["sqlite"][q] for q, _ in queries)
            overlap = sum(len(set(tops[way][q]) & set(tops["sqlite"][q])) for q, _ in queries) / (10 * len(queries))
            line = {"bench": "shared_lexical", "ranking": way, "query_wall_ms": round(1000 * wall[way] / len(queries), 2), "queries": len(queries), "docs": len(docs),
                    "same_top10_as_sqlite": same, "overlap_at_10": round(overlap, 4),
                    "ndcg_at_10": round(sum(ndcg10(tops[way][q], qrels[q]) for q, _ in queries) / len(queries), 4),
                    "client_cpu_ms_per_query": round(1000 * cpu[way] / len(queries), 3),
                    "cpu": "AVX2-only 2-core EPYC", "load": os.getloadavg()[0]}
            if way == "postings":
                line["same_scores_as_sqlite"] = scores_same
            print(json.dumps(line), flush=True)
        pg.close()
        lite.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
