"""Words first, meaning in the background: seconds until a folder of small text files is searchable by words,
as the person waits (the whole `searchapp index --words-only` command, a fresh process from start to exit, then a
fresh `searchapp search --mode lexical` that finds the words) and inside a process that has already started
(phase 1 alone), against a bare SQLite FTS5 load of the same files' text and against the old one-phase sync, all
run in the same run.

    python tests/benchmarks/bench_words_first.py [--files 10000] [--baseline-files 200] [--profile out.prof]
    python tests/benchmarks/bench_words_first.py --files 10000 --trees OLD NEW [--rounds 5]
    python tests/benchmarks/bench_words_first.py --files 10000 --stages-only

- `command_words_only` (what a person waits for; goals on a 2-core CPU: 1 file <= 1 s and <= 200 MB peak RSS,
  10,000 files <= 5 s): for 1 file and for `--files` files, each into a fresh data dir, `seconds` is the
  `searchapp index --words-only FOLDER` process from its start to its exit, `peak_rss_mb` its peak resident
  memory (the largest of it and the processes it waited for, as `/usr/bin/time` reports it), `cpu_s` its CPU
  seconds (with its read-ahead worker's: on a shared machine the steadier figure; `index --words-only` runs at
  the normal priority since decision 0106, while `phase1_words` below runs at the background one unless
  SEARCHAPP_NO_BACKGROUND_PRIORITY=1 is in the environment), `search_s` the
  lexical search after it (its process, start to exit), `found` whether that search listed a file. Beside them:
  `bare_fts5_s`, the same files loaded into FTS5 in this process, and `bare_fts5_process_s`, that load as a
  fresh Python process (interpreter start-up included: the floor a command pays). Bytecode is compiled once
  before the clock (an installed package has it; with PYTHONDONTWRITEBYTECODE set it goes to a temporary
  PYTHONPYCACHEPREFIX).
- `phase1_words` (in-process): `add_folder(embed=False)` on `--files` files, timed from the call to its return,
  the chunking tokenizer loaded before the clock starts (a running app has it). Not what a person waits for at
  the command line: start-up, imports and the tokenizer are outside it.
- `bare_fts5`: the same files read and their whole text inserted into one FTS5 table with the library's
  tokenizer, in one transaction, in this process: the floor a words pass pays for reading and indexing words.
- `stages` (in-process, where a words pass's seconds go): the library's own steps run one after another over
  all `--files` files in this process, each timed alone (wall and CPU): `scan`, `read_hash` (each file read once
  for its sha256 and its bytes), `extract` (decode and the text caps), `chunk` (passages_of with a fresh
  chunking tokenizer, as a sync starts: every distinct word tokenized once), `store` (the Batcher's
  transactions, `BATCH_FILES` files each, into a fresh library database). `loop_rest_s` and `loop_rest_cpu_s`
  are `phase1_words` less their sum: the per-file loop itself (cancel checks, budgets, bookkeeping). Beside them the fixed costs of a
  command: `python_start_s` (a bare interpreter, start to exit), `imports_s` (an interpreter importing the
  modules `index --words-only` imports, start to exit) and `chunker_load_s` (the model folder's tokenizer.json
  read into a chunking tokenizer, in this process).
- `one_phase_vs_words_first`: on the first `--baseline-files` files, two fresh libraries: the old one-phase sync
  (a file's words were committed only with its vectors, so nothing was searchable by words until every passage
  was embedded) runs as the words pass then the meaning pass back to back in one timed `add_folder` call; the
  words-first sync is `add_folder(embed=False)`. Both are run, neither is extrapolated. `--baseline-files 0`
  skips it (the embedding takes minutes on 2 cores).
- `--trees OLD NEW`: two source trees (each holding a `searchapp/`, e.g. `git archive HEAD searchapp | tar -x -C
  OLD`), each timed on the same files, interleaved OLD, NEW, OLD, ... (a shared machine's load falls on both
  alike): the whole command (`tree_command`, a fresh `python -m searchapp` on that tree) and the in-process words
  pass (`tree_words`); one JSON line per run and a `trees` line with each median.

Files: scifact-train corpus texts (title + abstract), one per file, reused with a numbered line when more
files are asked for than the corpus has (so no two files are the same text). The real packaged MiniLM
tokenizer chunks them. Prints one JSON line per result, with the CPU's bf16 flag and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The query model's one-time ONNX export runs as the first sync's call returns, after its words are committed
# and searchable: not part of what this measures (seconds until searchable by words).
os.environ.setdefault("SEARCHAPP_NO_QUERY_EXPORT", "1")
REPO = Path(__file__).resolve().parents[2]
if "--tree" in sys.argv:  # a child of --trees: that tree's searchapp, not this checkout's
    sys.path.insert(0, os.path.abspath(sys.argv[sys.argv.index("--tree") + 1]))

from searchapp.base.config import load_config  # noqa: E402
from searchapp.library import Library  # noqa: E402
from _common import cpu_note  # noqa: E402

DATA = next((d for d in (REPO.parent / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            REPO.parent / "shared" / "data")
CORPUS = DATA / "ir" / "scifact-train" / "corpus.jsonl"


def write_files(folder: Path, n: int) -> None:
    docs = [json.loads(line) for line in open(CORPUS, encoding="utf-8")]
    folder.mkdir(parents=True)
    for i in range(n):
        d = docs[i % len(docs)]
        copy = ""
        if i >= len(docs):  # a reused text with its sentences rotated: passages differ, no vector is shared
            parts = d.get("text", "").split(". ")
            k = 1 + (i // len(docs)) % max(1, len(parts) - 1)
            d = {"title": f"{d.get('title', '')} (copy {i // len(docs)})", "text": ". ".join(parts[k:] + parts[:k])}
        sub = folder / f"d{i // 1000:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc-{i:05d}.txt").write_text(f"{d.get('title', '')}\n\n{d.get('text', '')}{copy}", encoding="utf-8")


def bare_fts5(folder: Path, db_path: Path) -> tuple[int, float, float]:
    """Every file's text in one FTS5 table (the library's word tokenizer), one transaction: (files, wall and
    CPU seconds)."""
    import sqlite3

    t0, c0 = time.perf_counter(), time.process_time()
    db = sqlite3.connect(db_path)
    db.execute("CREATE VIRTUAL TABLE t USING fts5(path UNINDEXED, text, "
               "tokenize='porter unicode61 remove_diacritics 2')")
    n = 0
    with db:
        for dirpath, _dirs, names in os.walk(folder):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as fh:
                    db.execute("INSERT INTO t(path, text) VALUES (?, ?)", (path, fh.read()))
                n += 1
    db.close()
    return n, time.perf_counter() - t0, time.process_time() - c0


BARE_FTS5_PROCESS = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE VIRTUAL TABLE t USING fts5(path UNINDEXED, text, tokenize='porter unicode61 remove_diacritics 2')")
with db:
    for dirpath, _dirs, names in os.walk(sys.argv[1]):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as fh:
                db.execute("INSERT INTO t(path, text) VALUES (?, ?)", (path, fh.read()))
db.close()
"""


LAST_CPU_S = [0.0]  # what a shared machine's load leaves alone, beside the wall seconds


def command_env(tree: str, tmp: Path) -> dict[str, str]:
    """The environment a timed command runs in: `tree`'s searchapp first, bytecode kept (see the docstring)."""
    env = {**os.environ, "PYTHONPATH": tree + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "SEARCHAPP_NO_WARM": "1"}  # a `watch` serving elsewhere on this machine must not answer the search
    if env.pop("PYTHONDONTWRITEBYTECODE", None):
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def timed_process(argv: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(seconds from start to exit, peak RSS in MB, exit code, stdout; stderr after it when it failed) of one
    fresh process. Its CPU seconds (its own and its children's) go to LAST_CPU_S."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        # An empty folder to run in: `python -m` puts the folder it runs in first on sys.path, so from the
        # repository's root every --trees run would import this checkout's searchapp, not its tree's.
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=cwd)
        _pid, status, usage = os.wait4(proc.pid, 0)  # the child's own rusage: its peak RSS (KB on Linux)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        LAST_CPU_S[0] = usage.ru_utime + usage.ru_stime
        out.seek(0)
        err.seek(0)
        text = out.read().decode("utf-8", "replace")
        if proc.returncode != 0:
            text += err.read().decode("utf-8", "replace")
        return seconds, usage.ru_maxrss / 1024, proc.returncode, text


def words_command(folder: Path, data_dir: Path, env: dict[str, str], query: str) -> dict:
    """`searchapp index --words-only FOLDER` into a fresh `data_dir`, then a lexical search for `query`, each a
    fresh process timed from start to exit."""
    app = [sys.executable, "-m", "searchapp", "--data-dir", str(data_dir)]
    seconds, rss, code, out = timed_process(app + ["index", "--words-only", str(folder)], env)
    cpu_s = LAST_CPU_S[0]
    if code != 0:
        raise SystemExit(f"index --words-only failed ({code}): {out[-2000:]}")
    search_s, search_rss, code, out = timed_process(app + ["search", query, "--mode", "lexical", "--json"], env)
    if code != 0:
        raise SystemExit(f"search failed ({code}): {out[-2000:]}")
    hits = json.loads(out.splitlines()[0]).get("hits") or []
    return {"seconds": round(seconds, 2), "cpu_s": round(cpu_s, 2), "peak_rss_mb": round(rss),
            "search_s": round(search_s, 2), "search_cpu_s": round(LAST_CPU_S[0], 2),
            "search_peak_rss_mb": round(search_rss), "found": bool(hits),
            "searchable_after_s": round(seconds + search_s, 2)}


def first_words(folder: Path) -> str:
    """A word of the folder's first file, to search for."""
    first = min(folder.rglob("*.txt"))
    words = [w for w in first.read_text(encoding="utf-8").split() if w.isalpha() and len(w) > 5]
    return words[0] if words else "the"


def command_figures(folder: Path, tmp: Path, label: str, env: dict[str, str]) -> None:
    """The whole command on `folder` beside the bare FTS5 floor of the same files (in this process, and as a
    fresh process), one JSON line."""
    n, bare_s, _ = bare_fts5(folder, tmp / f"bare-{label}.sqlite")
    bare_proc_s, _, code, out = timed_process([sys.executable, "-c", BARE_FTS5_PROCESS, str(folder),
                                               str(tmp / f"bare-{label}-proc.sqlite")], env)
    if code != 0:
        raise SystemExit(f"bare FTS5 process failed: {out[-2000:]}")
    at = cpu_note()
    fig = words_command(folder, tmp / f"lib-{label}", env, first_words(folder))
    print(json.dumps({"bench": "words_first", "result": "command_words_only", "files": n, **fig,
                      "bare_fts5_s": round(bare_s, 2), "bare_fts5_process_s": round(bare_proc_s, 2),
                      **at, "loadavg_after": cpu_note()["load_avg"]}), flush=True)


def warm_bytecode(folder: Path, tmp: Path, env: dict[str, str]) -> None:
    """One untimed run of the command, so every module it imports has its bytecode (as an install does)."""
    words_command(folder, tmp / "lib-warm", env, "the")


def words_pass(folder: Path, data_dir: Path, embed: bool, profile: str = "") -> tuple[Library, object, float, float]:
    """(the open library, its report, wall and CPU seconds of one add_folder call); the tokenizer and model
    are loaded before the clock starts (a running app has them)."""
    config = load_config(data_dir, env={}, overrides={"models": {"reranker": ""}})
    lib = Library(config)
    chunker = getattr(lib.models, "chunker", None)  # an older tree (--trees) chunked with the loaded model
    (chunker() if chunker is not None else lib.models.encoder).token_offsets("warm up")
    if embed:
        lib.models.passage_encoder().encode(["warm up"])
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile(time.process_time)  # CPU time: a shared machine's load does not distort it
        prof.enable()
    t0, c0 = time.perf_counter(), time.process_time()
    rep = lib.add_folder(folder, embed=embed)
    seconds = time.perf_counter() - t0
    cpu_s = time.process_time() - c0  # every thread of this process: what a shared machine's load leaves alone
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)
    return lib, rep, seconds, cpu_s


class _NoVectors:
    """The vector index a words-only batch is given: it has nothing to add or remove (no vector is reused)."""

    def add(self, ids, vecs) -> None:
        raise AssertionError("a fresh words-only library reuses no vector")

    def remove(self, ids) -> None:
        pass


# What `index --words-only` imports before its first file (cli/main.py, the library, the sync, the extractors).
COMMAND_IMPORTS = ("import searchapp.cli.main, searchapp.library.library, searchapp.library.sync.words_pass, "
                   "searchapp.ingest.extractors, searchapp.models.tokenizer_file")


def stages(folder: Path, tmp: Path, env: dict[str, str], phase1: Optional[tuple[float, float]]) -> dict:
    """Each step of a words pass over every file of `folder`, timed alone in this process (see the docstring)."""
    from searchapp.base.hashing import file_sha256_and_bytes
    from searchapp.ingest.extractors import extract
    from searchapp.ingest.scan import ScannedFile, scan
    from searchapp.library.sync import words_pass
    from searchapp.library.sync.batches import Batcher, Pending
    from searchapp.ingest.passages import passages_of
    from searchapp.library.sync.contract import SyncReport
    from searchapp.store import Store

    config = load_config(tmp / "stages-lib", env={}, overrides={"models": {"reranker": ""}})
    lib = Library(config)
    out: dict = {}

    def timed(name: str, step):
        t0, c0 = time.perf_counter(), time.process_time()
        value = step()
        out[f"{name}_s"], out[f"{name}_cpu_s"] = round(time.perf_counter() - t0, 2), round(time.process_time() - c0, 2)
        return value

    files: list[ScannedFile] = timed("scan", lambda: scan([folder], config.scan).files)
    max_bytes = int(config.scan.max_file_mb * 2**20)
    read = timed("read_hash", lambda: [file_sha256_and_bytes(f.path, max_bytes) for f in files])
    docs = timed("extract", lambda: [extract(f.path, max_bytes=max_bytes, max_chars=config.scan.max_text_chars,
                                             data=data) for f, (_, data) in zip(files, read, strict=True)])
    chunker = timed("chunker_load", lib.models.chunker)  # the first call reads tokenizer.json (no model)
    lib.close()

    class NoBatch:
        cancel = None

    cut = timed("chunk", lambda: [passages_of(d, chunker, config, NoBatch()) for d in docs])
    store = Store(tmp / "stages-lib" / "library.db")
    store.add_root(str(folder))
    root = store.root_by_path(str(folder))
    batcher = Batcher(store, root, _NoVectors(), SyncReport(), None, None, words_pass.BATCH_CHUNKS,
                      words_pass.BATCH_FILES)

    def write() -> None:
        for f, (sha, _), d, (title, spans, hashes) in zip(files, read, docs, cut, strict=True):
            batcher.add(Pending(f, sha, d.kind, spans, title, hashes))
        batcher.flush()

    timed("store", write)
    out["passages"] = store.chunk_count()
    store.close()
    if phase1 is not None:  # phase1_words' (wall, CPU) seconds on the same files
        steps = ("scan", "read_hash", "extract", "chunk", "store")
        out["loop_rest_s"] = round(phase1[0] - sum(out[f"{k}_s"] for k in steps), 2)
        out["loop_rest_cpu_s"] = round(phase1[1] - sum(out[f"{k}_cpu_s"] for k in steps), 2)
    out["python_start_s"] = round(timed_process([sys.executable, "-c", "pass"], env)[0], 3)
    out["python_start_cpu_s"] = round(LAST_CPU_S[0], 3)
    out["imports_s"] = round(timed_process([sys.executable, "-c", COMMAND_IMPORTS], env)[0], 3)
    out["imports_cpu_s"] = round(LAST_CPU_S[0], 3)
    return out


def compare_trees(args) -> None:
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        write_files(folder, args.files)
        bare_fts5(folder, Path(tmp) / "warm.sqlite")  # a warm page cache for every run alike
        seconds: dict[str, list[float]] = {t: [] for t in args.trees}
        command: dict[str, list[float]] = {t: [] for t in args.trees}
        rss: dict[str, list[float]] = {t: [] for t in args.trees}
        cpu: dict[str, list[float]] = {t: [] for t in args.trees}  # the command's CPU s: steadier on a busy machine
        envs = {t: command_env(os.path.abspath(t), Path(tmp) / f"env-{i}") for i, t in enumerate(args.trees)}
        query = first_words(folder)
        for i, tree in enumerate(args.trees):
            warm_bytecode(folder, Path(tmp) / f"warm-{i}", envs[tree])
        at = cpu_note()
        for r in range(args.rounds):
            for i, tree in enumerate(args.trees):
                fig = words_command(folder, Path(tmp) / f"cmd-{r}-{i}", envs[tree], query)
                print(json.dumps({"bench": "words_first", "result": "tree_command", "tree": tree, **fig,
                                  **cpu_note()}), flush=True)
                command[tree].append(fig["seconds"])
                cpu[tree].append(fig["cpu_s"])
                rss[tree].append(fig["peak_rss_mb"])
                out = subprocess.run([sys.executable, __file__, "--tree", tree, "--folder", str(folder)],
                                     capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
                print(out, flush=True)
                seconds[tree].append(json.loads(out)["seconds"])
        old, new = args.trees
        med = statistics.median
        print(json.dumps({"bench": "words_first", "result": "trees", "files": args.files, "rounds": args.rounds,
                          "old_command_median_s": round(med(command[old]), 2),
                          "new_command_median_s": round(med(command[new]), 2),
                          "old_command_cpu_median_s": round(med(cpu[old]), 2),
                          "new_command_cpu_median_s": round(med(cpu[new]), 2),
                          "command_cpu_ratio": round(med(cpu[new]) / med(cpu[old]), 3),
                          "old_command_peak_rss_mb": round(med(rss[old])), "new_command_peak_rss_mb": round(med(rss[new])),
                          "old_in_process_median_s": round(med(seconds[old]), 2),
                          "new_in_process_median_s": round(med(seconds[new]), 2),
                          "old_command_s": command[old], "new_command_s": command[new],
                          "old_in_process_s": seconds[old], "new_in_process_s": seconds[new], "at_start": at,
                          **cpu_note()}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--baseline-files", type=int, default=200,
                    help="files synced by both the old one-phase sync and the words-first sync (0: skip)")
    ap.add_argument("--profile", default="", help="write a cProfile of the 10,000-file words pass here")
    ap.add_argument("--trees", nargs=2, metavar=("OLD", "NEW"), help="compare two source trees, interleaved")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--stages-only", action="store_true", help="only the in-process steps, timed one by one")
    ap.add_argument("--tree", help=argparse.SUPPRESS)  # a child of --trees: sync --folder once, print one line
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tree:
        with tempfile.TemporaryDirectory() as tmp:
            at = cpu_note()
            lib, rep, s, cpu = words_pass(Path(args.folder), Path(tmp) / "lib", embed=False)
            with lib:
                passages = lib.store.chunk_count()
            print(json.dumps({"bench": "words_first", "result": "tree_words", "tree": args.tree, "files": rep.added,
                              "passages": passages, "seconds": round(s, 2), "cpu_s_main": round(cpu, 2), **at}))
        return
    if args.trees:
        compare_trees(args)
        return
    if args.stages_only:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "docs"
            write_files(folder, args.files)
            bare_fts5(folder, Path(tmp) / "warm.sqlite")  # a warm page cache, as below
            print(json.dumps({"bench": "words_first", "result": "stages", "in_process": True, "files": args.files,
                              **stages(folder, Path(tmp), command_env(str(REPO), Path(tmp)), None), **cpu_note()}))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        write_files(folder, args.files)
        # Read every file once first so neither measurement below pays for a cold page cache.
        bare_fts5(folder, Path(tmp) / "warm.sqlite")
        one = Path(tmp) / "one"
        write_files(one, 1)
        env = command_env(str(REPO), Path(tmp))
        warm_bytecode(one, Path(tmp), env)
        command_figures(one, Path(tmp), "one", env)
        command_figures(folder, Path(tmp), "all", env)
        for label, where in (("one", one), ("all", folder)):
            at = cpu_note()
            n_bare, bare_s, bare_cpu = bare_fts5(where, Path(tmp) / f"bare-in-{label}.sqlite")
            print(json.dumps({"bench": "words_first", "result": "bare_fts5", "files": n_bare,
                              "seconds": round(bare_s, 3), "cpu_s": round(bare_cpu, 3), **at}))
            at = cpu_note()
            lib, rep, words_s, words_cpu = words_pass(where, Path(tmp) / f"lib-{label}-in", embed=False,
                                                      profile=args.profile if label == "all" else "")
            with lib:
                passages = lib.store.chunk_count()
                found = len(lib.search(first_words(where), mode="lexical").hits)
            print(json.dumps({"bench": "words_first", "result": "phase1_words", "in_process": True,
                              "files": rep.added, "passages": passages, "seconds": round(words_s, 2),
                              "cpu_s": round(words_cpu, 2), "files_per_s": round(rep.added / words_s, 1),
                              "lexical_hits": found, "bare_fts5_s": round(bare_s, 3),
                              "vs_bare_fts5": round(words_s / bare_s, 1),
                              "cpu_vs_bare_fts5": round(words_cpu / max(bare_cpu, 1e-3), 1),
                              **at, "loadavg_after": cpu_note()["load_avg"]}), flush=True)
        at = cpu_note()
        print(json.dumps({"bench": "words_first", "result": "stages", "in_process": True, "files": rep.added,
                          **stages(folder, Path(tmp), env, (words_s, words_cpu)), **at, "loadavg_after": cpu_note()["load_avg"]}),
              flush=True)
        if args.baseline_files <= 0:
            return
        # The same first files in a folder of their own, synced by each way into a fresh library.
        part = Path(tmp) / "part"
        write_files(part, min(args.baseline_files, args.files))
        at = cpu_note()
        new_lib, new_rep, new_s, _ = words_pass(part, Path(tmp) / "lib-new", embed=False)
        new_lib.close()
        old_lib, _, old_s, _ = words_pass(part, Path(tmp) / "lib-old", embed=True)
        with old_lib:
            embedded, total = old_lib.store.chunk_count() - old_lib.store.pending_count(), old_lib.store.chunk_count()
        assert embedded == total, "the one-phase run must end with every passage embedded"
        print(json.dumps({"bench": "words_first", "result": "one_phase_vs_words_first", "files": new_rep.added,
                          "passages": total, "words_first_s": round(new_s, 2), "one_phase_s": round(old_s, 2),
                          "ratio_old_vs_new": round(old_s / new_s, 1), "at_start": at, **cpu_note()}))


if __name__ == "__main__":
    main()
