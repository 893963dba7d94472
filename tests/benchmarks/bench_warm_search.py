"""`searchapp search` wall time, direct (the command opens the library itself) against warm (a long-lived
process answers over library/warm/'s socket), on a library of --n synthetic passages.

Every figure is a whole command, `python -m searchapp search QUERY --json` in a fresh process, timed from
outside (median of --runs), so Python's start-up and the CLI's imports are in it; they are measured on their
own too (`python -c pass`, `import searchapp.cli.main`), since no socket can save them. The server is Library.serve()
in a process of its own (what `searchapp watch` and the window run), warmed by one search first.

Passages: word salad from a fixed 5,000-word vocabulary (seeded), 100 a file; vectors are random unit vectors
(seeded), stored with the packaged MiniLM's identity so a hybrid search really loads MiniLM and the HNSW graph,
as it would on a library of real text. What is found means nothing; how long it takes is the point.

    python tests/benchmarks/bench_warm_search.py --n 50000 --runs 5
One JSON line per result, each with the CPU flags and the load average.

Besides `search`, the two other commands a warm process serves, `status` and `similar`, are timed direct
(SEARCHAPP_NO_WARM=1) and warm. Direct and warm run by turns (direct, warm, direct, ...), the server up all the
while, so both see the same load: a ratio from a shared machine compares like with like.

`--library DIR` times an existing library instead (e.g. bench_million.py's million passages, whose stored
vectors share MiniLM's identity), with STS-B dev sentences as queries. Either way the library gets what a sync
that loaded the model leaves behind: the ONNX export of the query model (models/onnx_query.py), so the warm
process encodes queries as it would for a person; the direct command encodes them with NumPy (its cold path),
so the two outputs are compared on paths, order and scores to 4 decimals.

Before/after in one run: `--trees OLD NEW ...` (copies of the searchapp package, e.g. `git archive <commit>
searchapp | tar -x -C OLD`) times the warm commands with each tree's client, interleaved run by run, against one
server (the checkout's); each command runs through the same few lines that put its tree first on the path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _common import emit as _emit

WORK = Path(os.environ.get("SEARCHAPP_BENCH_DIR", "/tmp/searchapp-bench")) / "warm"
PER_FILE, DIM = 100, 384
QUERIES = ["velo mirat sunda", "karo pelim", "tessa durin oblan", "mivo"]


def emit(**row) -> None:
    _emit(bench="warm_search", **row, add_cpu_note=True)


def vocabulary(size: int = 5000) -> list[str]:
    rng = np.random.default_rng(7)
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    words = {"".join(rng.choice(list(consonants if i % 2 == 0 else vowels)) for i in range(int(rng.integers(4, 8))))
             for _ in range(size * 2)}
    fixed = {w for q in QUERIES for w in q.split()}
    return sorted(fixed) + sorted(words - fixed)[: size - len(fixed)]


def build(n: int) -> Path:
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.resources.model_set import ModelSet
    from searchapp.store import NewChunk, Store

    data = WORK / f"lib-{n}"
    if (data / "built.json").exists():
        return data
    import shutil

    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    cfg = load_config(data, env={})
    words = vocabulary()
    rng = np.random.default_rng(11)
    store = Store(data / "library.sqlite")
    t0 = time.perf_counter()
    root = None
    for f in range(n // PER_FILE):
        texts = [" ".join(words[i] for i in rng.integers(0, len(words), 40)) + "." for _ in range(PER_FILE)]
        vecs = rng.standard_normal((PER_FILE, DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        with store.atomic():
            root = root or store.add_root("/bench")
            body = "\n".join(texts)
            fid = store.upsert_file(root, f"/bench/d{f // 10:04d}/f{f:06d}.txt", len(body), 10**18 + f,
                                    hashlib.sha256(body.encode()).hexdigest(), "indexed", None, "text", len(texts))
            store.insert_chunks(fid, [NewChunk(o, 0, len(x), None, x, hashlib.sha1(x.encode()).hexdigest(), vecs[o])
                                      for o, x in enumerate(texts)])
    with store.atomic():
        for k, v in ModelSet(cfg).expected_meta().items():  # the packaged MiniLM's identity, read from its files
            store.set_meta(k, v)
        store.bump_generation()
    store.close()
    write_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    with Library(cfg) as lib:
        lib.index()  # missing: built from the stored vectors and saved
    built = {"n": n, "write_s": round(write_s, 1), "hnsw_build_s": round(time.perf_counter() - t0, 1)}
    (data / "built.json").write_text(json.dumps(built))
    emit(result="build", **built)
    return data


def adopted(library: Path) -> Path:
    """`library` itself when its stored vectors carry the packaged MiniLM's identity; otherwise (bench_million's
    hashed-word vectors) a copy of it that claims that identity, so a hybrid search loads MiniLM and the graph
    as on a real library (what is found means nothing; how long it takes is the point)."""
    import shutil

    from searchapp.base.config import load_config
    from searchapp.library.resources.model_set import ModelSet
    from searchapp.store import Store

    expected = ModelSet(load_config(library, env={})).expected_meta()
    store = Store(library / "library.sqlite")
    try:
        if all(store.get_meta(k) == v for k, v in expected.items()):
            return library
    finally:
        store.close()
    copy = WORK / f"adopted-{library.name}"
    if not (copy / "adopted.json").exists():
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir(parents=True, mode=0o700)
        for name in ("library.sqlite", "vectors.hnsw", "vectors.hnsw.json", "built.json"):
            if (library / name).exists():
                shutil.copy2(library / name, copy / name)
        store = Store(copy / "library.sqlite")
        with store.atomic():
            for k, v in expected.items():
                store.set_meta(k, v)
        store.close()
        (copy / "adopted.json").write_text(json.dumps({"from": str(library)}))
    return copy


def export_query_path(data: Path) -> None:
    """The ONNX query graph a sync leaves in the data folder (seconds, once)."""
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.models.onnx_query import export_query_model

    cfg = load_config(data, env={})
    with Library(cfg) as lib:
        fingerprint, path, max_len = lib.models._query_model()
        graph = export_query_model(path, pooling=cfg.models.pooling, max_seq_length=max_len,
                                   fingerprint=fingerprint, cache_dir=lib.models.query_cache_dir())
    if graph is None:
        raise SystemExit("no ONNX query export on this machine: the warm figures would not be a person's")


def comparable(out: dict) -> list:
    """What a person reads of a --json answer: files in order with scores to 4 decimals (the warm and the direct
    process encode the query by different fp32 paths, equal to ~1e-7)."""
    return [(h["key"], h["start"], h["end"], round(h["score"], 4)) for h in out["hits"]]


def walls(commands: list[tuple[list[str], dict]], runs: int) -> list[tuple[float, list[dict]]]:
    """Each (argv, env) run `runs` times, the commands by turns (a, b, a, b, ...) so that all see the same load on
    a shared machine, after one run of each not counted (bytecode written, pages cached, as for an installed app):
    each one's median wall ms and what it printed (JSON, when it did)."""
    results: list[tuple[list[float], list[dict]]] = [([], []) for _ in commands]
    for argv, env in commands:
        subprocess.run(argv, capture_output=True, env=env, timeout=600)
    for _ in range(runs):
        for (argv, env), (times, outs) in zip(commands, results, strict=True):
            t0 = time.perf_counter()
            p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
            times.append(time.perf_counter() - t0)
            if p.returncode != 0:
                raise SystemExit(f"{argv} failed ({p.returncode}): {p.stderr[-2000:]}")
            if p.stdout.startswith("{"):
                outs.append(json.loads(p.stdout))
    return [(round(statistics.median(times) * 1000, 1), outs) for times, outs in results]


def wall(argv: list[str], runs: int, env: dict) -> tuple[float, list[dict]]:
    """Median wall ms of `argv` over `runs` runs, and what each printed (walls, for one command)."""
    return walls([(argv, env)], runs)[0]


def wall_by_turns(direct: tuple[list[str], dict], warm: tuple[list[str], dict], runs: int
                  ) -> tuple[tuple[float, list[dict]], tuple[float, list[dict]]]:
    """The direct and the warm command by turns (walls): each one's median wall ms and what it printed."""
    d, w = walls([direct, warm], runs)
    return d, w


SERVER = """
import sys, time
from searchapp.base.config import load_config
from searchapp.cli.warm_run import run_command
from searchapp.library import Library
lib = Library(load_config(sys.argv[1]))
assert lib.serve(commands=None if len(sys.argv) > 3 and sys.argv[3] == "searches-only" else run_command) is None
lib.search(sys.argv[2])  # loads the model and the graph, as a watch's first search would
print("serving", flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
lib.close()
"""


# The searchapp package from the tree in argv[1] (not the checkout's editable install), then `searchapp ARGS...`.
FROM_TREE = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
             "sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'searchapp'; import runpy; "
             "runpy.run_module('searchapp', run_name='__main__')")


def compare_trees(data: Path, trees: list[str], runs: int, env: dict) -> None:
    """Warm commands with each tree's client, run by run in turn (a change in the machine's load falls on both)."""
    for mode in ("lexical", "hybrid"):
        times: dict[str, list[float]] = {t: [] for t in trees}
        for i in range(runs + 1):
            for tree in trees:
                argv = [sys.executable, "-c", FROM_TREE, tree, "--data-dir", str(data), "search", QUERIES[0],
                        "--mode", mode, "--json"]
                t0 = time.perf_counter()
                p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
                if i:  # the first is not counted: bytecode written, pages cached
                    times[tree].append((time.perf_counter() - t0) * 1000)
                if p.returncode != 0 or json.loads(p.stdout)["served_by"] != "warm":
                    raise SystemExit(f"{tree}: {p.stderr[-2000:]}")
        emit(result="warm_command_by_tree", mode=mode, runs=runs,
             **{f"tree{i}": {"tree": t, "median_ms": round(statistics.median(times[t]), 1), "min_ms": round(min(times[t]), 1)}
                for i, t in enumerate(trees)})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--trees", nargs="+", metavar="TREE", help="compare copies of the package (see above)")
    ap.add_argument("--library", type=Path, help="time this existing library instead of building one")
    args = ap.parse_args()
    global QUERIES
    if args.library:
        from bench_million import query_texts

        data, QUERIES = adopted(args.library), query_texts(4)
        args.n = json.loads((data / "built.json").read_text())["n"] if (data / "built.json").exists() else None
    else:
        data = build(args.n)
    export_query_path(data)
    # Bytecode as an installed app has it (a checkout run with PYTHONDONTWRITEBYTECODE compiles every changed
    # module on every start: 60 ms and more), kept outside the tree.
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPYCACHEPREFIX": str(WORK / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    py = sys.executable
    start_ms, _ = wall([py, "-c", "pass"], args.runs, env)
    imports_ms, _ = wall([py, "-c", "import searchapp.cli.main"], args.runs, env)
    thin_ms, _ = wall([py, "-c", "import searchapp.cli.entry, searchapp.library.warm.exchange"], args.runs, env)
    emit(result="startup", python_ms=start_ms, cli_imports_ms=imports_ms, thin_client_imports_ms=thin_ms,
         note="python -c pass; python -c 'import searchapp.cli.main'; the thin entry point's imports (cli/entry.py) "
              "(wall, whole process)")
    cmd = [py, "-m", "searchapp", "--data-dir", str(data), "search"]
    server = subprocess.Popen([py, "-c", SERVER, str(data), QUERIES[1]], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
    no_warm = {**env, "SEARCHAPP_NO_WARM": "1"}
    try:
        assert server.stdout.readline().strip() == "serving"
        if args.trees:
            compare_trees(data, args.trees, args.runs, env)
            return
        for mode in ("hybrid", "lexical"):
            # direct and warm by turns; --wait: a cold open of a big library would otherwise answer by words while
            # its graph loads
            (d_ms, d_outs), (ms, outs) = wall_by_turns(
                (cmd + [QUERIES[0], "--mode", mode, "--json", "--direct", "--wait"], env),
                (cmd + [QUERIES[0], "--mode", mode, "--json"], env), args.runs)
            assert all(o["served_by"] == "direct" for o in d_outs)
            assert all(o["served_by"] == "warm" for o in outs), outs[-1].get("served_by")
            same = comparable(outs[-1]) == comparable(d_outs[-1])
            emit(result="cli_search", n=args.n, mode=mode, runs=args.runs, direct_ms=d_ms, warm_ms=ms,
                 ratio=round(d_ms / ms, 1), warm_minus_startup_ms=round(ms - thin_ms, 1),
                 same_output=same, reranked=outs[-1]["reranked"], by_turns=True)
        # `status`, which a warm process serves too: opening the library here (SEARCHAPP_NO_WARM) against asking it
        status = [py, "-m", "searchapp", "--data-dir", str(data), "status", "--json"]
        (direct_ms, d_out), (warm_ms, w_out) = wall_by_turns((status, no_warm), (status, env), args.runs)
        same = {k: v for k, v in d_out[-1].items() if k != "notes"} == {k: v for k, v in w_out[-1].items() if k != "notes"}
        emit(result="status", n=args.n, runs=args.runs, direct_ms=direct_ms, warm_ms=warm_ms,
             ratio=round(direct_ms / warm_ms, 1), same_output=same)
        # and `similar` (files most like one of the library's, from stored vectors)
        import sqlite3

        with sqlite3.connect(f"file:{data / 'library.sqlite'}?mode=ro", uri=True) as db:
            some_file = db.execute("SELECT path FROM files WHERE n_chunks > 0 ORDER BY id LIMIT 1").fetchone()[0]
        similar = [py, "-m", "searchapp", "--data-dir", str(data), "similar", some_file, "--json"]
        (direct_ms, d_out), (warm_ms, w_out) = wall_by_turns((similar, no_warm), (similar, env), args.runs)
        same = comparable(d_out[-1]) == comparable(w_out[-1])
        emit(result="similar", n=args.n, runs=args.runs, direct_ms=direct_ms, warm_ms=warm_ms,
             ratio=round(direct_ms / warm_ms, 1), same_output=same)
        # the exchange alone, from a process already started: what a warm search costs past start-up (the one op:
        # the command as typed, answered with what to print)
        from searchapp.cli.warm_ask import ask_command

        for mode in ("hybrid", "lexical"):
            ms = []
            for q in QUERIES * 3:
                t0 = time.perf_counter()
                reply, _ = ask_command(["search", q, "--mode", mode, "--json"], str(data), True)
                assert reply is not None and reply["code"] == 0
                ms.append((time.perf_counter() - t0) * 1000)
            emit(result="round_trip", n=args.n, mode=mode, queries=len(ms), median_ms=round(statistics.median(ms), 1),
                 max_ms=round(max(ms), 1))
    finally:
        server.stdin.close()
        server.wait(timeout=120)


if __name__ == "__main__":
    main()
