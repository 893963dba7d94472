"""BM25's N and token total on a shared library: the per-root totals the triggers keep (decision 0123) vs the
count(*) a search ran before, at PASSAGES passages; and what the triggers cost a batch's COPY.

A fresh library on the test server (tests/pg_server.py: PostgreSQL 18 + pgvector, local socket, fsync off) is
filled with PASSAGES synthetic passages (one INSERT ... SELECT generate_series: the statement trigger counts them
once). Then, by turns, READS times each: the totals read and the old count. Then batches of BATCH passages are
written with COPY, by turns with the library's triggers on and off (ALTER TABLE ... DISABLE TRIGGER USER).
Server CPU is the backend's own (utime + stime from /proc, the server runs on this machine). One JSON line per
measure, with the ratio of medians.
Run: .venv/bin/python tests/benchmarks/bench_shared_totals.py   (PASSAGES=1000000 READS=7 BATCHES=10)
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
READS = int(os.environ.get("READS", "7"))
BATCHES = int(os.environ.get("BATCHES", "10"))
BATCH = 1000



def timed(store, pid: int, run) -> tuple[float, float]:
    cpu, wall = process_cpu(pid), time.perf_counter()
    run()
    return time.perf_counter() - wall, process_cpu(pid) - cpu


def line(**fields) -> None:
    print(json.dumps({"bench": "shared_totals", **fields, "cpu": "AVX2-only 2-core EPYC",
                      "load": round(os.getloadavg()[0], 2)}), flush=True)


def main() -> None:
    from pg_server import PgServer

    from searchapp.store.postgres.pg_store import PgStore

    server = PgServer().start()
    try:
        store = PgStore(server.address(server.new_database()), create=True, machine="bench")
        pid = int(store.one("SELECT pg_backend_pid()")[0])
        root = store.add_root("/bench")
        fid = store.upsert_file(root, "/bench/f.txt", 1, 0, None, "indexed", None, "txt", PASSAGES)
        t0 = time.perf_counter()
        store.rows("INSERT INTO chunks (file_id, ordinal, start, \"end\", text, text_hash, n_tokens) SELECT %s, g, 0, "
                   "1, 'passage ' || g, md5(g::text), 20 + g %% 180 FROM generate_series(1, %s) g", (fid, PASSAGES))
        store.rows("VACUUM ANALYZE chunks")
        line(measure="fill", passages=PASSAGES, wall_s=round(time.perf_counter() - t0, 1))
        assert store.lexical_totals() == tuple(int(x) for x in store.one(
            "SELECT count(*), sum(n_tokens) FROM chunks"))
        reads = {"totals": store.lexical_totals,
                 "count": lambda: store.one("SELECT count(*), coalesce(sum(n_tokens), 0) FROM chunks")}
        walls: dict[str, list[float]] = {k: [] for k in reads}
        for _ in range(READS):
            for name, read in reads.items():
                wall, cpu = timed(store, pid, read)
                walls[name].append(wall)
                line(measure="read", how=name, passages=PASSAGES, wall_ms=round(wall * 1000, 2),
                     server_cpu_ms=round(cpu * 1000))
        line(measure="read", how="ratio count/totals", passages=PASSAGES,
             ratio=round(statistics.median(walls["count"]) / statistics.median(walls["totals"]), 1))
        writes: dict[str, list[float]] = {"triggers": [], "none": []}
        for n in range(BATCHES):
            for how in ("triggers", "none"):
                store.rows(f"ALTER TABLE chunks {'ENABLE' if how == 'triggers' else 'DISABLE'} TRIGGER USER")

                def batch(n: int = n) -> None:
                    with store.atomic(), store._pg.cursor() as cur:
                        with cur.copy('COPY chunks (file_id, ordinal, start, "end", text, text_hash, n_tokens) '
                                      "FROM STDIN") as copy:
                            for i in range(BATCH):
                                copy.write_row((fid, i, 0, 1, f"batch {n} passage {i}", f"h{n}-{i}", 50))

                wall, cpu = timed(store, pid, batch)
                writes[how].append(wall)
                line(measure="copy", how=how, rows=BATCH, wall_ms=round(wall * 1000, 1),
                     server_cpu_ms=round(cpu * 1000))
        store.rows("ALTER TABLE chunks ENABLE TRIGGER USER")
        line(measure="copy", how="ratio triggers/none", rows=BATCH,
             ratio=round(statistics.median(writes["triggers"]) / statistics.median(writes["none"]), 2))
        store.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
