"""`word*` on a shared library: the postings' primary key read as a range [prefix, successor) on terms in the "C"
collation (schema 6, decision 0133) vs the same prefix where the btree cannot serve it (a term column in a
language collation, as a database made with en_US.UTF-8 has: no range of its order is a prefix's terms).

A fresh library on the test server (tests/pg_server.py: PostgreSQL 18, local socket, fsync off) gets PASSAGES
synthetic passages with TERMS postings each (INSERT ... SELECT generate_series; terms from a vocabulary of
VOCAB words). The test server's databases are made in C.UTF-8, so the language collation is modelled by reading
the same table with index scans turned off for the statement (`SET LOCAL enable_indexscan/bitmapscan off`):
the plan such a server runs. By turns, READS times each way for each prefix (rows summed per passage, as
PgLexical._postings reads them). Server CPU is the backend's own (/proc). One JSON line per measure, and the
ratio of medians.
Run: .venv/bin/python tests/benchmarks/bench_shared_prefix.py   (PASSAGES=1000000 TERMS=8 VOCAB=200000 READS=5)
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
from _common import process_cpu  # noqa: E402
PASSAGES = int(os.environ.get("PASSAGES", "1000000"))
TERMS = int(os.environ.get("TERMS", "8"))
VOCAB = int(os.environ.get("VOCAB", "200000"))
READS = int(os.environ.get("READS", "5"))
PREFIXES = ["w1234", "w99", "w5"]  # ~10, ~100 and ~10k distinct terms



def line(**fields) -> None:
    print(json.dumps({"bench": "shared_prefix", **fields, "cpu": "AVX2-only 2-core EPYC",
                      "load": round(os.getloadavg()[0], 2)}), flush=True)


def main() -> None:
    from pg_server import PgServer

    from searchapp.store.postgres.pg_scope import prefix_range
    from searchapp.store.postgres.pg_store import PgStore

    server = PgServer().start()
    try:
        store = PgStore(server.address(server.new_database()), create=True, machine="bench")
        pid = int(store.one("SELECT pg_backend_pid()")[0])
        root = store.add_root("/bench")
        fid = store.upsert_file(root, "/bench/f.txt", 1, 0, None, "indexed", None, "txt", PASSAGES)
        t0 = time.perf_counter()
        store.rows("INSERT INTO chunks (file_id, ordinal, start, \"end\", text, text_hash, n_tokens) SELECT %s, g, 0, "
                   "1, 'p', md5(g::text), 60 FROM generate_series(1, %s) g", (fid, PASSAGES))
        first = int(store.one("SELECT min(id) FROM chunks")[0])
        store.rows("INSERT INTO postings (term, chunk_id, tf, dl) SELECT 'w' || ((g::bigint * 7919 + t * 104729) %% %s), "
                   "%s + g, 1 + t %% 3, 60 FROM generate_series(0, %s) g, generate_series(1, %s) t "
                   "ON CONFLICT DO NOTHING", (VOCAB, first, PASSAGES - 1, TERMS))
        store.rows("VACUUM ANALYZE postings")
        rows = int(store.one("SELECT count(*) FROM postings")[0])
        line(measure="fill", passages=PASSAGES, postings=rows, wall_s=round(time.perf_counter() - t0, 1))
        sql = "SELECT chunk_id, sum(tf), min(dl) FROM postings WHERE {} GROUP BY chunk_id ORDER BY chunk_id"
        walls: dict[str, list[float]] = {"range": [], "no index": []}
        for _ in range(READS):
            for prefix in PREFIXES:
                low, high = prefix_range(prefix)
                for how in walls:
                    cpu, wall = process_cpu(pid), time.perf_counter()
                    with store.atomic():
                        if how == "no index":
                            store.rows("SET LOCAL enable_indexscan = off")
                            store.rows("SET LOCAL enable_bitmapscan = off")
                            store.rows("SET LOCAL enable_indexonlyscan = off")
                        # Its own statement text per way: psycopg prepares a statement run 5 times, and a
                        # prepared plan is not planned again when the settings change.
                        got = store.rows(f"/* {how} */ " + sql.format("term >= %s AND term < %s"), (low, high))
                    wall, cpu = time.perf_counter() - wall, process_cpu(pid) - cpu
                    walls[how].append(wall)
                    line(measure="prefix", how=how, prefix=prefix, passages_found=len(got), postings=rows,
                         wall_ms=round(wall * 1000, 1), server_cpu_ms=round(cpu * 1000))
        line(measure="prefix", how="ratio no index/range", postings=rows,
             ratio=round(statistics.median(walls["no index"]) / statistics.median(walls["range"]), 1))
        plan = [r[0] for r in store.rows("EXPLAIN " + sql.format("term >= %s AND term < %s"), prefix_range("w99"))]
        line(measure="plan", how="range", plan=" / ".join(p.strip() for p in plan))
        store.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
