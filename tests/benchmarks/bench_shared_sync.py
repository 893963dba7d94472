"""A first sync by words, SQLite library vs shared library (issue 44 item 4 asks >= 50 % of SQLite's rate).

Cranfield's 1,400 abstracts written as one .txt file each; `add_folder(embed=False)` (the words pass: scan,
read, chunk with the packaged MiniLM's tokenizer, write) into a fresh SQLite library and a fresh database on the
test server (tests/pg_server.py: PostgreSQL 18 + pgvector on a local socket, fsync off), by turns, ROUNDS times.
One JSON line per run and one with the ratio of the medians. The server's CPU is not in `client_cpu_s`.
Run: .venv/bin/python tests/benchmarks/bench_shared_sync.py
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
DATA = Path(os.environ.get("SEARCHAPP_IR_DATA", HERE.parents[2] / "shared" / "data" / "ir")) / "cranfield"
ROUNDS = int(os.environ.get("ROUNDS", "2"))


def main() -> None:
    from pg_server import PgServer

    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.shared import SharedLibrary

    work = Path(tempfile.mkdtemp(prefix="bench-shared-sync-"))
    docs = work / "docs"
    docs.mkdir()
    for d in map(json.loads, (DATA / "corpus.jsonl").read_text().splitlines()):
        (docs / f"{d['_id']}.txt").write_text((d.get("title", "") + "\n\n" + d["text"]).strip(), encoding="utf-8")
    os.environ["SEARCHAPP_NO_READ_AHEAD"] = "1"  # the same in-process words pass on both engines
    os.environ["SEARCHAPP_NO_BACKGROUND_PRIORITY"] = "1"  # both at normal priority (SharedLibrary does not lower it)
    server = PgServer().start()
    walls: dict[str, list[float]] = {"sqlite": [], "postgresql": []}
    try:
        for n in range(ROUNDS):
            for engine in ("sqlite", "postgresql"):
                config = load_config(work / f"lib-{engine}-{n}", env={}, overrides={"models": {"reranker": ""}})
                lib = (Library(config) if engine == "sqlite" else
                       SharedLibrary(config, server.address(server.new_database()), create=True))
                cpu, wall = time.process_time(), time.perf_counter()
                rep = lib.add_folder(docs, embed=False)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                lib.close()
                walls[engine].append(wall)
                print(json.dumps({"bench": "shared_sync", "engine": engine, "round": n, "files": rep.added,
                                  "passages": rep.chunks_added, "wall_s": round(wall, 2),
                                  "client_cpu_s": round(cpu, 2), "files_per_s": round(rep.added / wall, 1),
                                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                                  "cpu": "AVX2-only 2-core EPYC", "load": os.getloadavg()[0]}), flush=True)
        ratio = statistics.median(walls["sqlite"]) / statistics.median(walls["postgresql"])
        print(json.dumps({"bench": "shared_sync", "postgresql_rate_share_of_sqlite": round(ratio, 3),
                          "target": 0.5, "cpu": "AVX2-only 2-core EPYC", "load": os.getloadavg()[0]}), flush=True)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
