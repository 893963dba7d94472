"""Meaning on a shared library: pgvector's HNSW against exact search and against the desktop's hnswlib index.

Cranfield's 1,400 abstracts (title and text, one passage each, cut at the model's 256 tokens) and its 225 queries
embedded once with the packaged all-MiniLM-L6-v2; the vectors written into a shared library's table (PgStore,
which builds `USING hnsw (vector vector_cosine_ops)` with pgvector's defaults m=16, ef_construction=64) and into
the library's hnswlib index (searchapp.ann with the app's index config). Per query and ef: the top 10 of each,
recall@10 against the exact top 10 (NumPy), wall milliseconds per query (server on a local socket).
One JSON line per (index, ef). Run: .venv/bin/python tests/benchmarks/bench_shared_dense.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
DATA = Path(os.environ.get("SEARCHAPP_IR_DATA", HERE.parents[2] / "shared" / "data" / "ir")) / "cranfield"


def main() -> None:
    from pg_server import PgServer

    from searchapp.ann.factory import create_index
    from searchapp.base.config import IndexConfig
    from searchapp.models import BiEncoder
    from searchapp.store.postgres.pg_index import PgVectorIndex
    from searchapp.store.postgres.pg_store import PgStore
    from searchapp.store.rows import NewChunk

    docs = [(d.get("title", "") + "\n" + d["text"]).strip()
            for d in map(json.loads, (DATA / "corpus.jsonl").read_text().splitlines())]
    queries = [q["text"] for q in map(json.loads, (DATA / "queries.jsonl").read_text().splitlines())]
    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu")
    t = time.perf_counter()
    vecs = np.asarray(enc.encode(docs), dtype=np.float32)
    qvecs = np.asarray(enc.encode(queries), dtype=np.float32)
    embed_s = time.perf_counter() - t
    exact = np.argsort(-(qvecs @ vecs.T), axis=1, kind="stable")[:, :10]
    server = PgServer().start()
    try:
        pg = PgStore(server.address(server.new_database()), create=True)
        t = time.perf_counter()
        with pg.atomic():
            root = pg.add_root("/cranfield")
            rows = []
            for i, text in enumerate(docs):
                fid = pg.upsert_file(root, f"/cranfield/{i}", len(text), 1, None, "indexed", None, "txt", 1)
                rows.append((fid, NewChunk(0, 0, len(text), None, text, f"h{i}", None)))
            ids = pg.insert_chunks_of(rows)
            pg.set_vectors(ids, vecs)  # the first vectors: the column's dimension and the HNSW index
        build_s = time.perf_counter() - t
        row_of = {cid: i for i, cid in enumerate(ids)}
        hnsw = create_index(IndexConfig(), vecs.shape[1])
        t = time.perf_counter()
        hnsw.add(np.arange(len(docs), dtype=np.int64), vecs)
        hnsw_build_s = time.perf_counter() - t
        index = PgVectorIndex(pg, vecs.shape[1])
        for ef in (40, 100):
            for name in ("pgvector-hnsw", "hnswlib"):
                got, wall = [], 0.0
                for q in qvecs:
                    w = time.perf_counter()
                    if name == "pgvector-hnsw":
                        found, _ = index.search(q, 10, ef=ef)
                        got.append([row_of[int(c)] for c in found[0]])
                    else:
                        found, _ = hnsw.search(q[None, :], 10, ef=ef)
                        got.append([int(c) for c in found[0]])
                    wall += time.perf_counter() - w
                recall = float(np.mean([len(set(g) & set(e.tolist())) / 10 for g, e in zip(got, exact, strict=True)]))
                print(json.dumps({"bench": "shared_dense", "index": name, "ef": ef, "passages": len(docs),
                                  "queries": len(queries), "recall_at_10": round(recall, 4),
                                  "query_wall_ms": round(1000 * wall / len(queries), 2),
                                  "build_s": round(build_s if name == "pgvector-hnsw" else hnsw_build_s, 2),
                                  "embed_s": round(embed_s, 1), "cpu": "AVX2-only 2-core EPYC",
                                  "load": os.getloadavg()[0]}), flush=True)
        pg.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
