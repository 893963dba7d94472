"""Undo and reindex on a shared library (decision 0135): what keeping a Remove's rows costs the Remove, what Undo
costs against indexing the folder again, and a words-only reindex.

Cranfield's 1,400 abstracts, one .txt file each, indexed by words (`add_folder(embed=False)`) into a database on
the test server (tests/pg_server.py: PostgreSQL 18 + pgvector on a local socket, fsync off). Then by turns, ROUNDS
times: "undo" = remove(undoable=True) + undo_remove(); "again" = remove(undoable=False) + add_folder(embed=False);
"reindex" = reindex(embed=False). Each step's wall, this process's CPU and the server backend's CPU (utime +
stime from /proc: the server runs on this machine). One JSON line per step and round, then the medians' ratios.
Run: .venv/bin/python tests/benchmarks/bench_shared_undo.py   (ROUNDS=3)
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
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
from _common import process_cpu  # noqa: E402
DATA = Path(os.environ.get("SEARCHAPP_IR_DATA", HERE.parents[2] / "shared" / "data" / "ir")) / "cranfield"
ROUNDS = int(os.environ.get("ROUNDS", "3"))



def measure(lib: Any, run: Callable[[], object]) -> dict[str, float]:
    pid = int(lib.store.one("SELECT pg_backend_pid()")[0])
    server, cpu, wall = process_cpu(pid), time.process_time(), time.perf_counter()
    run()
    return {"wall_s": round(time.perf_counter() - wall, 3), "client_cpu_s": round(time.process_time() - cpu, 3),
            "server_cpu_s": round(process_cpu(pid) - server, 3)}


def line(**fields: object) -> None:
    print(json.dumps({"bench": "shared_undo", **fields,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                      "cpu": "AVX2-only 2-core EPYC", "load": round(os.getloadavg()[0], 2)}), flush=True)


def main() -> None:
    from pg_server import PgServer

    from searchapp.base.config import load_config
    from searchapp.library.shared import SharedLibrary

    work = Path(tempfile.mkdtemp(prefix="bench-shared-undo-"))
    docs = work / "docs"
    docs.mkdir()
    for d in map(json.loads, (DATA / "corpus.jsonl").read_text().splitlines()):
        (docs / f"{d['_id']}.txt").write_text((d.get("title", "") + "\n\n" + d["text"]).strip(), encoding="utf-8")
    os.environ["SEARCHAPP_NO_READ_AHEAD"] = "1"  # the words pass in this process, as in bench_shared_sync
    server = PgServer().start()
    walls: dict[str, list[float]] = {}
    try:
        config = load_config(work / "lib", env={}, overrides={"models": {"reranker": ""}})
        with SharedLibrary(config, server.address(server.new_database()), create=True) as lib:
            rep = lib.add_folder(docs, embed=False)
            line(step="first sync", files=rep.added, passages=rep.chunks_added)
            steps: dict[str, Callable[[], object]] = {
                "remove kept": lambda: lib.remove_folder(docs, undoable=True), "undo": lib.undo_remove,
                "remove plain": lambda: lib.remove_folder(docs), "index again": lambda: lib.add_folder(docs, embed=False),
                "reindex": lambda: lib.reindex(embed=False)}
            for n in range(ROUNDS):
                for step, run in steps.items():
                    got = measure(lib, run)
                    walls.setdefault(step, []).append(got["wall_s"])
                    line(step=step, round=n, **got)
            med = {k: statistics.median(v) for k, v in walls.items()}
            line(step="ratios", remove_kept_over_plain=round(med["remove kept"] / med["remove plain"], 2),
                 undo_over_index_again=round(med["undo"] / med["index again"], 3),
                 reindex_over_index_again=round(med["reindex"] / med["index again"], 2))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
