"""What the OCR step adds to every shared sync and live update when none of this machine's scans wait (decision
0138): one look-up of the files waiting for OCR under the roots the sync holds (ledger.pending_ocr_files with
root_ids), against the same look-up over every machine's files (what the desktop's step asks of its own library),
and the scoped look-up with a partial index of the waiting files (not in the schema yet: measured here to decide).

Two fresh libraries (one with that index) on the test server (tests/pg_server.py: PostgreSQL 18 + pgvector, local socket, fsync off) gets
FILES files under this machine's root (none waiting) and FILES under another machine's root (WAITING of them
waiting for OCR), by INSERT ... SELECT generate_series. Then, by turns, READS times each look-up; wall and the
server backend's CPU (from /proc: the server runs here). One JSON line per measure, the ratio of medians last.
Run: .venv/bin/python tests/benchmarks/bench_shared_ocr_check.py   (FILES=200000 WAITING=1000 READS=9)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)
from _common import emit, process_cpu  # noqa: E402

FILES = int(os.environ.get("FILES", "200000"))
WAITING = int(os.environ.get("WAITING", "1000"))
READS = int(os.environ.get("READS", "9"))


def line(**fields) -> None:
    emit({"bench": "shared_ocr_check"}, **fields, cpu="AVX2-only 2-core EPYC", load=round(os.getloadavg()[0], 2))


def fill(store, machine: str, root: int, waiting: int) -> None:
    store.rows("INSERT INTO files (root_id, machine, path, size, mtime_ns, status, kind, ocr) SELECT %s, %s, "
               "'/share/' || %s || '/f' || g || '.png', 100, g, 'indexed', 'png', CASE WHEN g <= %s THEN "
               "'pending' END FROM generate_series(1, %s) g", (root, machine, machine, waiting, FILES))


def main() -> None:
    from pg_server import PgServer

    from searchapp.store.ledger import pending_ocr_files

    server = PgServer().start()
    try:
        plain, indexed = library(server, pending_index=False), library(server, pending_index=True)
        looks = {"scoped": lambda: pending_ocr_files(plain[0], 1, [plain[1]]),  # what a shared sync runs now
                 "every_machine": lambda: pending_ocr_files(plain[0], 1),
                 "scoped_partial_index": lambda: pending_ocr_files(indexed[0], 1, [indexed[1]])}
        pids = {"scoped": plain[2], "every_machine": plain[2], "scoped_partial_index": indexed[2]}
        assert looks["scoped"]() == looks["scoped_partial_index"]() == [] and len(looks["every_machine"]()) == 1
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in looks}
        for _ in range(READS):
            for name, look in looks.items():  # by turns: the load shifts them alike
                cpu, wall = process_cpu(pids[name]), time.perf_counter()
                look()
                times[name].append((time.perf_counter() - wall, process_cpu(pids[name]) - cpu))
        for name, got in times.items():
            line(measure=name, files=2 * FILES, waiting_elsewhere=WAITING, reads=READS,
                 wall_ms_median=round(1000 * statistics.median(w for w, _ in got), 2),
                 server_cpu_ms_total=round(1000 * sum(c for _, c in got), 1))
        med = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
        line(measure="ratio", scoped_over_every_machine=round(med["scoped"] / med["every_machine"], 2),
             partial_index_over_scoped=round(med["scoped_partial_index"] / med["scoped"], 4))
        plain[0].close()
        indexed[0].close()
    finally:
        server.stop()


def library(server, pending_index: bool):
    """(this machine's store, its root, its backend's pid) over a fresh library of both machines' files;
    `pending_index`: with a partial index of the files waiting for OCR (not in the schema: measured here)."""
    from searchapp.store.postgres.pg_store import PgStore

    address = server.address(server.new_database())
    other = PgStore(address, create=True, machine="other")
    fill(other, "other", other.add_root("/share/other"), WAITING)
    other.close()
    store = PgStore(address, machine="here")
    root = store.add_root("/share/here")
    fill(store, "here", root, 0)
    if pending_index:
        store.rows("CREATE INDEX files_ocr_pending ON files(root_id, mtime_ns DESC) WHERE ocr = 'pending'")
    store.rows("VACUUM ANALYZE files")
    return store, root, int(store.one("SELECT pg_backend_pid()")[0])


if __name__ == "__main__":
    main()
