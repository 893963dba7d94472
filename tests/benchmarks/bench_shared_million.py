"""Issue 44 item 4: the same library in SQLite and in PostgreSQL with pgvector, side by side in one run.

The passages, files and vectors are bench_million's (its generator, reused: real sentences from ../shared/data,
one or two a passage, 100 passages a file, 10 files a folder, 1 % PDFs; each vector a seeded hashed-word
projection of the passage's own text, 384 dimensions: NOT MiniLM, so recall figures say nothing about the
model). The server is the test server (tests/pg_server.py: PostgreSQL 18 + pgvector 0.8.6 on a local socket,
fsync off), restarted here with --shared-buffers and --maintenance-work-mem.

  1. words pass: --sync-passages of the same text written as .txt files, `add_folder(embed=False)` (the real
     words pass: scan, read, chunk with MiniLM's tokenizer, BM25 postings) into a fresh SQLite library and a
     fresh database, by turns: passages/s each and the ratio (the issue asks >= 0.5); on each PostgreSQL library
     so made (no vector yet, as in the middle of a first sync), the window's status refresh and `summary()`.
  2. build: --passages written through each store (Store.insert_chunks; PgStore.insert_chunks_of, its COPY and
     postings) with their vectors, then the vector index built from them (hnswlib by Library.index(); pgvector's
     `CREATE INDEX ... USING hnsw` with the app's m=16, ef_construction=200): seconds each.
  3. recall@10 of each index against exact (NumPy over every vector), --recall-queries queries, at ef 40 and 100.
  4. hybrid search p50/p95 through the library's search API (Library.search / SharedLibrary.search, no rerank):
     no filter, `--in` one folder, `--type pdf`; SQLite and PostgreSQL interleaved query by query (with
     --ahead-turns also PostgreSQL with its words read after pgvector's search, as before pg_words_ahead.py).
  5. disk per passage (SQLite file + HNSW file; pg_total_relation_size of each table, each index's size) and
     server memory (RSS and PSS of every postgres process, shared_buffers).
  6. duplicates on each, cancelled after --dup-limit seconds. --only-duplicates skips 3-5 and runs it by turns:
     SQLite, PostgreSQL (batched neighbour pass), PostgreSQL as before (one statement per passage), batched,
     SQLite; with the batched statement's EXPLAIN ANALYZE first (the HNSW index scanned inside the LATERAL).

One JSON line a figure; every line carries the load average (`uptime`), CPU and the passage count.
    .venv/bin/python tests/benchmarks/bench_shared_million.py --passages 1000000          # the issue's figure
    .venv/bin/python tests/benchmarks/bench_shared_million.py --passages 100000 --dup-limit 300   # a quicker look
    .venv/bin/python tests/benchmarks/bench_shared_million.py --words-only --sync-passages 20000  # 1. alone
    .venv/bin/python tests/benchmarks/bench_shared_million.py --passages 20000 --batch 10000 --sync-passages 0 \
        --dup-limit 300 --shared-buffers 256MB --maintenance-work-mem 512MB --only-duplicates   # duplicates only
Never part of `make test`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import bench_million as bm
import numpy as np
from _common import emit as _emit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for pg_server (the test server; tests/ is not a package)

PASSAGES = 0
TICK = os.sysconf("SC_CLK_TCK")


def emit(**row) -> None:
    _emit(bench="shared_million", passages=PASSAGES, vectors=bm.VECTORS_NOTE, **row,
          uptime=subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), add_cpu_note=True)


# -- the server ----------------------------------------------------------------------------------------------
def start_server(shared_buffers: str, maintenance_mem: str):
    from pg_server import PgServer

    server = PgServer().start()
    server._run("pg_ctl", "-D", str(server.data), "-w", "-m", "fast", "stop")
    server._run("pg_ctl", "-D", str(server.data), "-w", "-t", "60", "-l", str(server.data / "server.log"), "-o",
                f"-h '' -k {server.socket} -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                f"-c shared_buffers={shared_buffers} -c maintenance_work_mem={maintenance_mem} "
                "-c max_connections=40 -c max_wal_size=4GB", "start")
    return server


def postgres_pids(server) -> list[int]:
    master = int((server.data / "postmaster.pid").read_text().split()[0])
    pids = [master]
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            with contextlib.suppress(OSError):
                if int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == master:
                    pids.append(int(p.name))
    return pids


def proc_kb(pid: int, field: str, source: str = "status") -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/{source}").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def server_cpu(server) -> float:
    total = 0.0
    for pid in postgres_pids(server):
        with contextlib.suppress(OSError):
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / TICK  # with reaped workers' time
    return total


# -- 1. the words pass through the real sync ------------------------------------------------------------------
def words_pass(server, work: Path, n: int, rounds: int) -> None:
    from searchapp.base.config import load_config
    from searchapp.library import Library
    import searchapp
    from searchapp.library.shared import SharedLibrary
    from searchapp.store.postgres.schema import SCHEMA_VERSION

    docs = work / "sync-docs"
    pool = bm.text_pool(200000)
    vec = bm.TextVectors()
    for s in range(0, n, 10000):
        texts, _ = bm.passages(s, min(s + 10000, n), 2000, pool, vec)
        for off in range(0, len(texts), bm.PER_FILE):
            f = (s + off) // bm.PER_FILE
            p = docs / Path(bm.file_path(f)).relative_to("/bench").with_suffix(".txt")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("\n\n".join(texts[off:off + bm.PER_FILE]), encoding="utf-8")
    text_mb = sum(p.stat().st_size for p in docs.rglob("*.txt")) / 2**20
    os.environ["SEARCHAPP_NO_READ_AHEAD"] = "1"  # the same in-process words pass on both engines
    os.environ["SEARCHAPP_NO_BACKGROUND_PRIORITY"] = "1"
    walls: dict[str, list[float]] = {"sqlite": [], "postgresql": []}
    for r in range(rounds):
        for engine in (("sqlite", "postgresql") if r % 2 == 0 else ("postgresql", "sqlite")):
            config = load_config(work / f"sync-{engine}-{r}", env={}, overrides={"models": {"reranker": ""}})
            lib = (Library(config) if engine == "sqlite" else
                   SharedLibrary(config, server.address(server.new_database()), create=True))
            cpu, wall, scpu = time.process_time(), time.perf_counter(), server_cpu(server)
            rep = lib.add_folder(docs, embed=False)
            wall, cpu, scpu = time.perf_counter() - wall, time.process_time() - cpu, server_cpu(server) - scpu
            if engine == "postgresql":
                status_refresh(lib, rep.chunks_added)
            lib.close()
            walls[engine].append(rep.chunks_added / wall)
            emit(result="words_pass", engine=engine, round=r, files=rep.added, synced_passages=rep.chunks_added,
                 wall_s=round(wall, 1), client_cpu_s=round(cpu, 1), server_cpu_s=round(scpu, 1),
                 passages_per_s=round(rep.chunks_added / wall), files_per_s=round(rep.added / wall, 1),
                 text_mb=round(text_mb, 1), mb_per_s=round(text_mb / wall, 2), source_sentences=n,
                 pg_schema=SCHEMA_VERSION, searchapp_tree=str(Path(searchapp.__file__).parent.parent),
                 note="the chunker joins a file's sentences into passages of up to 256 tokens")
    emit(result="words_pass_ratio", postgresql_rate_share_of_sqlite=round(
        statistics.median(walls["postgresql"]) / statistics.median(walls["sqlite"]), 3), target=0.5)
    shutil.rmtree(docs, ignore_errors=True)


def status_refresh(lib, passages: int) -> None:
    """The window's status refresh (`status(wait_for_meaning=False)`, every few seconds during a sync) and the
    command line's `summary()` on the library the words pass just made: no vector yet, as mid-first-sync."""
    for name, call in (("status", lambda: lib.status(wait_for_meaning=False)), ("summary", lib.summary)):
        times = []
        for _ in range(10):
            t = time.perf_counter()
            call()
            times.append((time.perf_counter() - t) * 1000)
        emit(result="status_refresh", call=name, synced_passages=passages, p50_ms=round(statistics.median(times), 1),
             max_ms=round(max(times), 1))


# -- 2. the same library in PostgreSQL ------------------------------------------------------------------------
def build_pg(server, cfg, n: int, real: int, batch: int, pool_size: int):
    """bench_million.build's passages and files written through PgStore; the HNSW index built after the rows."""
    from searchapp.library.shared import SharedLibrary
    from searchapp.store import NewChunk
    from searchapp.store.postgres.schema import hnsw_index

    address = server.address(server.new_database())
    lib = SharedLibrary(cfg, address, create=True, encoder=bm.TextEncoder([]))
    store = lib.store
    pool, vectors = bm.text_pool(max(pool_size, real)), bm.TextVectors()
    alter, create = hnsw_index(bm.DIM)
    ids: list[int] = []
    all_vecs = np.zeros((n, bm.DIM), dtype=np.float32)
    t0, c0 = time.perf_counter(), server_cpu(server)
    with store.atomic():
        for k, v in lib.models.expected_meta().items():
            store.set_meta(k, v)
        store.rows(alter)
        store.set_meta("shared_dim", str(bm.DIM))
        root = store.add_root("/bench")
    for s in range(0, n, batch):
        texts, vecs = bm.passages(s, min(s + batch, n), real, pool, vectors)
        all_vecs[s:s + len(texts)] = vecs
        with store.atomic():
            rows = []
            for off in range(0, len(texts), bm.PER_FILE):
                f = (s + off) // bm.PER_FILE
                body = "\n".join(texts[off:off + bm.PER_FILE])
                mtime = int(time.mktime((2020 + f % 5, 1 + f % 12, 1, 12, 0, 0, 0, 0, -1))) * 10**9
                fid = store.upsert_file(root, bm.file_path(f), len(body), mtime,
                                        hashlib.sha256(body.encode()).hexdigest(), "indexed", None, "text",
                                        len(texts[off:off + bm.PER_FILE]))
                rows += [(fid, NewChunk(o, 0, len(x), None, x, hashlib.sha1(x.encode()).hexdigest(),
                                        vecs[off + o])) for o, x in enumerate(texts[off:off + bm.PER_FILE])]
            ids += store.insert_chunks_of(rows)
            if s + batch >= n:
                store.bump_generation()
    store.rows("VACUUM ANALYZE")
    write_s, write_cpu = time.perf_counter() - t0, server_cpu(server) - c0
    t0, c0 = time.perf_counter(), server_cpu(server)
    store.rows(create)
    hnsw_s, hnsw_cpu = time.perf_counter() - t0, server_cpu(server) - c0
    emit(result="build", engine="postgresql", write_s=round(write_s, 1), write_server_cpu_s=round(write_cpu, 1),
         passages_per_s_write=round(n / write_s), hnsw_build_s=round(hnsw_s, 1),
         hnsw_build_server_cpu_s=round(hnsw_cpu, 1), hnsw="m=16 ef_construction=200 (the app's)",
         maintenance_work_mem=store.one("SHOW maintenance_work_mem")[0],
         max_parallel_maintenance_workers=store.one("SHOW max_parallel_maintenance_workers")[0])
    return lib, np.asarray(ids, dtype=np.int64), all_vecs


def answer_queries(lib, encoder) -> None:
    """The shared library `lib` encodes its queries with `encoder` (bench_million's text -> vector map), never
    with an ONNX export: its models made again around it."""
    lib.models = type(lib.models)(lib.config, encoder=encoder)
    lib.models.library_state = lambda: (lib.store.meta(), lib.store.has_chunks())
    lib.models._onnx_query = False


# -- 3. recall@10 against exact -------------------------------------------------------------------------------
def recall(sq_lib, pg_lib, pg_ids: np.ndarray, vecs: np.ndarray, count: int) -> None:
    from searchapp.store.postgres.pg_index import PgVectorIndex

    lines = (bm.DATA / "sts" / "stsb-dev.tsv").read_text().splitlines()[1:]
    qs = bm.TextVectors()([ln.split("\t")[1] for ln in lines[:count]])
    exact = np.stack([np.argpartition(-(vecs @ q), 10)[:10] for q in qs])  # rows of `vecs` (insertion order)
    row_of = {int(c): i for i, c in enumerate(pg_ids)}
    hnsw, pgv = sq_lib.index(), PgVectorIndex(pg_lib.store, bm.DIM)
    for ef in (40, 100):
        got: dict[str, list[set[int]]] = {"sqlite": [], "postgresql": []}
        ms: dict[str, list[float]] = {"sqlite": [], "postgresql": []}
        for i, q in enumerate(qs):
            for engine in (("sqlite", "postgresql") if i % 2 == 0 else ("postgresql", "sqlite")):
                t = time.perf_counter()
                if engine == "sqlite":  # the SQLite library's chunk ids are 1..n in insertion order
                    found, _ = hnsw.search(q[None, :], 10, ef=ef)
                    got[engine].append({int(c) - 1 for c in found[0] if c >= 0})
                else:
                    found, _ = pgv.search(q, 10, ef=ef)
                    got[engine].append({row_of[int(c)] for c in found[0] if c >= 0})
                ms[engine].append((time.perf_counter() - t) * 1000)
        for engine in got:
            r = float(np.mean([len(g & set(e.tolist())) / 10 for g, e in zip(got[engine], exact, strict=True)]))
            emit(result="recall_at_10", engine=engine, index="hnswlib" if engine == "sqlite" else "pgvector-hnsw",
                 ef=ef, queries=len(qs), recall=round(r, 4), p50_ms=round(statistics.median(ms[engine]), 2))


# -- 4. hybrid search, interleaved ----------------------------------------------------------------------------
def searches(sq_lib, pg_lib, n: int, queries: list[str], ahead_turns: bool = False) -> None:
    """`ahead_turns`: PostgreSQL also with its words read on the search's own connection after pgvector's search
    (pg_words_ahead.READ_AHEAD off, as before), by turns with SQLite and the read ahead."""
    from searchapp.library import SearchFilters
    from searchapp.store.postgres import pg_words_ahead

    dirs = max(1, n // bm.PER_FILE // bm.FILES_PER_DIR)
    cases = {"none": None, "--in one folder": SearchFilters.build(folders=[f"/bench/dir{dirs // 2:04d}"]),
             "--type pdf (1%)": SearchFilters.build(types=["pdf"])}
    libs = {"sqlite": (sq_lib, True), "postgresql": (pg_lib, True)}
    if ahead_turns:
        libs["postgresql, words read after (before)"] = (pg_lib, False)
    for name, f in cases.items():
        for lib, _ in libs.values():  # warm: first touch of the pages a query reads
            lib.search(queries[0], k=10, mode="hybrid", rerank=False, filters=f)
        ms: dict[str, list[float]] = {e: [] for e in libs}
        hits: dict[str, int] = dict.fromkeys(libs, 0)
        for i, q in enumerate(queries):
            order = list(libs)
            for engine in order[i % len(order):] + order[:i % len(order)]:
                lib, pg_words_ahead.READ_AHEAD = libs[engine]
                t = time.perf_counter()
                res = lib.search(q, k=10, mode="hybrid", rerank=False, filters=f)
                ms[engine].append((time.perf_counter() - t) * 1000)
                hits[engine] += len(res.hits)
        pg_words_ahead.READ_AHEAD = True
        for engine, v in ms.items():
            v.sort()
            emit(result="hybrid_search", engine=engine, filter=name, queries=len(queries), k=10,
                 p50_ms=round(statistics.median(v), 1), p95_ms=round(v[int(0.95 * (len(v) - 1))], 1),
                 mean_hits=round(hits[engine] / len(queries), 1))


# -- 5. disk and memory ---------------------------------------------------------------------------------------
def sizes(server, data: Path, pg_lib, n: int) -> None:
    files = {p.name: p.stat().st_size for p in data.iterdir() if p.is_file()}
    sq = sum(v for k, v in files.items() if k.startswith("library.sqlite"))
    hn = files.get("vectors.hnsw", 0)
    emit(result="disk", engine="sqlite", sqlite_mb=round(sq / 2**20, 1), hnsw_file_mb=round(hn / 2**20, 1),
         bytes_per_passage=round((sq + hn) / n))
    store = pg_lib.store
    tables = {str(t): (int(a), int(b)) for t, a, b in store.rows(
        "SELECT c.relname, pg_total_relation_size(c.oid), pg_indexes_size(c.oid) FROM pg_class c JOIN pg_namespace s "
        "ON s.oid = c.relnamespace WHERE s.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC")}
    indexes = {str(i): int(b) for i, b in store.rows(
        "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace "
        "WHERE s.nspname = 'public' AND c.relkind = 'i' ORDER BY 2 DESC LIMIT 12")}
    db = int(store.one("SELECT pg_database_size(current_database())")[0])
    emit(result="disk", engine="postgresql", database_mb=round(db / 2**20, 1), bytes_per_passage=round(db / n),
         tables_mb={t: round(a / 2**20, 1) for t, (a, _) in tables.items() if a > 2**20},
         table_indexes_mb={t: round(b / 2**20, 1) for t, (_, b) in tables.items() if b > 2**20},
         largest_indexes_mb={i: round(b / 2**20, 1) for i, b in indexes.items()})
    pids = postgres_pids(server)
    emit(result="server_memory", engine="postgresql", processes=len(pids),
         rss_sum_mb=round(sum(proc_kb(p, "VmRSS") for p in pids) / 1024, 1),
         pss_sum_mb=round(sum(proc_kb(p, "Pss", "smaps_rollup") for p in pids) / 1024, 1),
         shared_buffers=store.one("SHOW shared_buffers")[0], work_mem=store.one("SHOW work_mem")[0],
         client_peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
         note="PSS counts shared buffers once; the RSS sum counts them in every backend that touched them")


# -- 6. duplicates --------------------------------------------------------------------------------------------
class _PerPassage:
    """pgvector's index as `duplicates` asked it before batching: `search` only, one statement per passage with
    the vector sent each way (the baseline of the neighbour pass, measured by turns with the batched one)."""

    def __init__(self, index) -> None:
        self._index = index
        self.dim = index.dim

    def __len__(self) -> int:
        return len(self._index)

    def ids(self) -> np.ndarray:
        return self._index.ids()

    def search(self, queries, k, *, ef=None):
        return self._index.search(queries, k, ef=ef)


def explain_neighbours(pg_lib) -> None:
    """The batched neighbour statement's plan: the HNSW index must be scanned inside the LATERAL."""
    from searchapp.library.search.duplicates import NEIGHBOURS, SEARCH_EF
    from searchapp.store.postgres import pg_index

    store = pg_lib.store
    ids = [int(r[0]) for r in store.rows("SELECT id FROM chunks WHERE vector IS NOT NULL ORDER BY id LIMIT %s",
                                         (pg_index.NEIGHBOURS_PER_STATEMENT,))]
    with store.atomic():
        pg_index.PgVectorIndex(store, bm.DIM)._breadth(SEARCH_EF)
        plan = [str(r[0]) for r in store.rows("EXPLAIN (ANALYZE, BUFFERS) " + pg_index._NEIGHBOURS_SQL,
                                              (NEIGHBOURS + 1, ids))]
    emit(result="neighbours_plan", uses_hnsw=any("chunks_hnsw" in ln for ln in plan), plan=plan)


def duplicates(server, libs: dict, limit: float, baseline: float = 0, lanes: bool = False) -> None:
    """Each engine's `duplicates`, cancelled after `limit` s; with a `baseline` limit (s), PostgreSQL's also with
    the per-passage neighbour pass, by turns: SQLite, batched, per-passage, batched, SQLite. `lanes`: instead, the
    batched pass over one connection and over two (pg_index.TWO_LANES), by turns: SQLite, one, two, one, two, SQLite."""
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken
    from searchapp.library.search.duplicates import find_duplicates
    from searchapp.store.postgres.pg_index import PgVectorIndex

    pg = libs["postgresql"]

    def per_passage(cancel):
        return find_duplicates(pg.store, _PerPassage(PgVectorIndex(pg.store, pg.store.dim())), pg.store.dim(),
                               cancel=cancel)

    def one_lane(cancel):
        from searchapp.store.postgres import pg_index

        kept, pg_index.TWO_LANES = pg_index.TWO_LANES, False
        try:
            return pg.duplicates(cancel=cancel)
        finally:
            pg_index.TWO_LANES = kept

    runs = [("sqlite", "batched", libs["sqlite"].duplicates), ("postgresql", "batched", pg.duplicates)]
    if lanes:
        both = [("postgresql", "batched, one connection", one_lane),
                ("postgresql", "batched, 2 connections", pg.duplicates)]
        runs = [runs[0], *both, *both, runs[0]]
    elif baseline:
        runs += [("postgresql", "per-passage (before)", per_passage), runs[1], runs[0]]
    for engine, path, run in runs:
        cancel = CancelToken()
        timer = threading.Timer(baseline if run is per_passage else limit, cancel.cancel)
        timer.start()
        emit(result="duplicates_start", engine=engine, neighbour_pass=path, pid=os.getpid())
        t0, c0, s0 = time.perf_counter(), time.process_time(), server_cpu(server)
        try:
            rep = run(cancel=cancel)
            emit(result="duplicates", engine=engine, neighbour_pass=path, seconds=round(time.perf_counter() - t0, 1),
                 client_cpu_s=round(time.process_time() - c0, 1), server_cpu_s=round(server_cpu(server) - s0, 1),
                 near_pairs=len(rep.near), exact_groups=len(rep.exact),
                 neighbours_s=round(rep.stats.get("neighbours_ms", 0) / 1000, 1),
                 candidate_pairs=int(rep.stats.get("candidate_pairs", 0)),
                 client_peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
        except Cancelled:
            emit(result="duplicates", engine=engine, neighbour_pass=path, seconds=None,
                 cancelled_after_s=baseline if run is per_passage else limit,
                 client_cpu_s=round(time.process_time() - c0, 1), server_cpu_s=round(server_cpu(server) - s0, 1))
        finally:
            timer.cancel()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", type=int, default=1_000_000)
    ap.add_argument("--real", type=int, default=2000, help="passages of one real sentence (bench_million's --real)")
    ap.add_argument("--pool", type=int, default=200000, help="distinct real sentences (bench_million's --pool)")
    ap.add_argument("--batch", type=int, default=50000, help="passages a write transaction")
    ap.add_argument("--sync-passages", type=int, default=100000, help="passages through the real words pass (0: skip)")
    ap.add_argument("--sync-rounds", type=int, default=2)
    ap.add_argument("--words-only", action="store_true", help="only the words pass (1.), then stop")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--recall-queries", type=int, default=200)
    ap.add_argument("--dup-limit", type=float, default=900, help="cancel `duplicates` after N s (0: skip)")
    ap.add_argument("--lanes", action="store_true",
                    help="with --only-duplicates: the neighbour pass over one connection and over two, by turns")
    ap.add_argument("--only-duplicates", action="store_true",
                    help="build both libraries, then only `duplicates` (the neighbour plan, and PostgreSQL's "
                         "per-passage baseline by turns with the batched pass)")
    ap.add_argument("--baseline-limit", type=float, default=None,
                    help="with --only-duplicates: cancel the per-passage baseline after N s (default --dup-limit; "
                         "0: skip it)")
    ap.add_argument("--ahead-turns", action="store_true",
                    help="hybrid searches also with PostgreSQL's words read after pgvector's search, by turns")
    ap.add_argument("--shared-buffers", default="1GB")
    ap.add_argument("--maintenance-work-mem", default="2GB", help="the HNSW build's graph must fit to build fast")
    args = ap.parse_args()
    global PASSAGES
    PASSAGES = bm.PASSAGES = args.passages
    assert args.batch % bm.PER_FILE == 0
    from searchapp.base.config import load_config
    from searchapp.library import Library

    work = Path(tempfile.mkdtemp(prefix="bench-shared-million-"))
    server = start_server(args.shared_buffers, args.maintenance_work_mem)
    try:
        if args.sync_passages:
            words_pass(server, work, args.sync_passages, args.sync_rounds)
        if args.words_only:
            return
        data = bm.build(args.passages, args.real, args.batch, args.pool)  # emits the SQLite build line
        pg_lib, pg_ids, vecs = build_pg(server, load_config(work / "pg-cfg", env={}), args.passages, args.real,
                                        args.batch, args.pool)
        sq_lib = Library(load_config(data, env={}), encoder=bm.TextEncoder(bm.query_texts(args.queries)))
        answer_queries(pg_lib, sq_lib.models._encoder)
        sq_lib.models._onnx_query = False  # queries from the text -> vector map, never an ONNX export
        if not args.only_duplicates:
            recall(sq_lib, pg_lib, pg_ids, vecs, args.recall_queries)
            searches(sq_lib, pg_lib, args.passages, bm.query_texts(args.queries), args.ahead_turns)
            sizes(server, data, pg_lib, args.passages)
        del vecs
        if args.only_duplicates:
            explain_neighbours(pg_lib)
        if args.dup_limit > 0:
            baseline = args.dup_limit if args.baseline_limit is None else args.baseline_limit
            duplicates(server, {"sqlite": sq_lib, "postgresql": pg_lib}, args.dup_limit,
                       baseline if args.only_duplicates else 0, lanes=args.only_duplicates and args.lanes)
        sq_lib.close()
        pg_lib.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
