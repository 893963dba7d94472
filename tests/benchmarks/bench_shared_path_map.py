"""What the path map (decision 0134) costs a shared library's search, and what `status --check` costs.

Cranfield's 1,400 abstracts, one .txt file each, indexed by words by "desk-a" into a database on the test server
(tests/pg_server.py: PostgreSQL 18 + pgvector on a local socket). "desk-b" then runs Cranfield's queries by words
(k 10, by file), by turns, ROUNDS times: "before" = the search without renaming its hits (shared_paths.local_hits
made a no-op: what the search did before the map), "no map" = as shipped without library.path_map (one more query:
the hits' machines and paths), "map" = with desk-a's folder mapped to another mount point. Then `status --check`'s
verdict (check_shared: the totals, files' passage counts, HNSW, folders), by turns with plain `status`. Wall and
this process's CPU; the server backend's CPU (utime + stime from /proc). One JSON line per variant and round.
Run: .venv/bin/python tests/benchmarks/bench_shared_path_map.py   (ROUNDS=3)
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



def measure(lib: Any, run: Callable[[], object], n: int) -> dict[str, float]:
    pid = int(lib.store.one("SELECT pg_backend_pid()")[0])
    server, cpu, wall = process_cpu(pid), time.process_time(), time.perf_counter()
    run()
    return {"wall_ms_each": round((time.perf_counter() - wall) * 1000 / n, 2),
            "client_cpu_ms_each": round((time.process_time() - cpu) * 1000 / n, 2),
            "server_cpu_ms_each": round((process_cpu(pid) - server) * 1000 / n, 2)}


def line(**fields: object) -> None:
    print(json.dumps({"bench": "shared_path_map", **fields,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                      "cpu": "AVX2-only 2-core EPYC", "load": round(os.getloadavg()[0], 2)}), flush=True)


def main() -> None:
    from pg_server import PgServer

    from searchapp.base.config import load_config
    from searchapp.library import shared_paths
    from searchapp.library.shared import SharedLibrary
    from searchapp.library.shared_check import check_shared

    work = Path(tempfile.mkdtemp(prefix="bench-shared-path-map-"))
    docs, mount = work / "a" / "docs", work / "b" / "docs"
    docs.mkdir(parents=True)
    mount.parent.mkdir()
    mount.symlink_to(docs, target_is_directory=True)
    for d in map(json.loads, (DATA / "corpus.jsonl").read_text().splitlines()):
        (docs / f"{d['_id']}.txt").write_text((d.get("title", "") + "\n\n" + d["text"]).strip(), encoding="utf-8")
    queries = [json.loads(q)["text"] for q in (DATA / "queries.jsonl").read_text().splitlines()][:100]
    os.environ["SEARCHAPP_NO_READ_AHEAD"] = "1"
    server = PgServer().start()
    walls: dict[str, list[float]] = {}
    try:
        plain = load_config(work / "lib", env={}, overrides={"models": {"reranker": ""}})
        mapped = plain.replace(library={"path_map": (f"desk-a:{docs}={mount}",)})
        address = server.address(server.new_database())
        with SharedLibrary(plain, address, create=True, machine="desk-a") as a:
            rep = a.add_folder(docs, embed=False)
            line(step="first sync", files=rep.added, passages=rep.chunks_added)
        real_local_hits = shared_paths.local_hits
        with SharedLibrary(plain, address, machine="desk-b") as b, \
                SharedLibrary(mapped, address, machine="desk-b") as bm:
            first = bm.search(queries[0], mode="lexical").hits[0]
            assert first.path.startswith(str(mount)) and first.indexed_path.startswith(str(docs))

            def run(lib: Any) -> Callable[[], object]:
                return lambda: [lib.search(q, mode="lexical") for q in queries]

            def before() -> object:
                shared_paths.local_hits = lambda *a, **k: None  # type: ignore[assignment]
                try:
                    return run(b)()
                finally:
                    shared_paths.local_hits = real_local_hits

            variants: dict[str, tuple[Any, Callable[[], object]]] = {
                "before": (b, before), "no map": (b, run(b)), "map": (bm, run(bm))}
            for n in range(ROUNDS):
                for name, (lib, go) in variants.items():
                    got = measure(lib, go, len(queries))
                    walls.setdefault(name, []).append(got["wall_ms_each"])
                    line(step="search by words", variant=name, round=n, queries=len(queries), **got)
                for name, go in (("status", bm.status), ("status --check", lambda: check_shared(bm))):
                    got = measure(bm, go, 1)
                    line(step=name, round=n, **got)
            med = {k: statistics.median(v) for k, v in walls.items()}
            line(step="ratios", no_map_over_before=round(med["no map"] / med["before"], 3),
                 map_over_before=round(med["map"] / med["before"], 3))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
