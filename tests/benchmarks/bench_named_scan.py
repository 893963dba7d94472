"""A plain search of several words in a library of 100,000 files: what the passes over the file names cost
(search/named.py, decisions 0160 and 0181), before and after they were made one, in the same run.

A plain query of at most ten words asks the names twice: which indexed files are named like it (listed first),
and, where none is, which files not indexed are (said, with why: "budget-2024.pdf is named like the query but is
not indexed: truncated PDF"). Before, each was a pass over the files table, the name cut from each path by
rtrim() and folded by a Python call on every row. After: the paths that can match are found by LIKE first (in C),
and the names are read once for both questions (Store.files_named).

The library: --files entries written through the Store (no model, no file on disk), names of two made-up words
and a number (`kadeso-lopu-004211.txt`, 100 to a folder), one passage of twelve such words each; --unindexed
percent of them not indexed (failed: a truncated PDF; skipped: empty; excluded: a secret), so without passages.
Searches are lexical (no model: the names' share of a search is then at its largest; a hybrid search adds its
dense stage to both sides). Query kinds, --queries each:
- words:       three words of one passage (the words find it; no file is named so: both passes run)
- no passage:  three made-up words no passage nor name holds (both passes run)
- not indexed: the two name words of a file not indexed (both passes run; the note names the file)
- named:       the two name words of an indexed file (listed first; the second pass does not run)
Variants, interleaved (their order turned each query) in one process over one library:
- before / before_no_unindexed: the code as it was (names matched without LIKE; one pass for each question), and
  the same without the not-indexed question (named.not_indexed_named answering None): what that pass cost
- after / after_no_unindexed: the code now, and the same without the not-indexed question
Every variant's results are compared with `after`'s (paths and notices): `differ` counts queries that differ.
First, the same queries' name passes alone, before and after by turns (`part: name passes alone`): the second
question alone (`unindexed_*`: before, its own pass over the names; after, a look-up of the ids the first read)
and both (`both_*`), so that the second pass's few milliseconds are not lost in a loaded machine's noise.

    python tests/benchmarks/bench_named_scan.py [--files 100000] [--unindexed 2] [--queries 20] [--repeat 5]
    python tests/benchmarks/bench_named_scan.py --engine postgresql   # a shared library: the name passes alone
(on PostgreSQL, before is the same name_fragment read by each question; after, read once.)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import statistics
import sys
import time
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
from _common import emit

WORK = Path(os.environ.get("SEARCHAPP_BENCH_DIR", "/tmp/searchapp-bench")) / "named-scan"
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "so", "vi", "de", "po", "ba", "fe", "gu", "ho", "ji", "ze"]
UNREAD = [("failed", "truncated PDF (no end-of-file marker): an incomplete download?", "pdf"),
          ("skipped", "empty", "text"), ("excluded", "secret: its name matches id_rsa*", None)]
PER_FOLDER, WORDS = 100, 12


def vocabulary(rng: random.Random, size: int = 8000) -> list[str]:
    return sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)})


def build(files: int, unindexed: float) -> tuple[Path, dict[str, list[str]]]:
    """The library (built once, kept under WORK) and its queries by kind."""
    from searchapp.store import NewChunk, Store

    rng = random.Random(0)
    vocab = vocabulary(rng)
    data = WORK / f"lib-{files}-{unindexed:g}"
    every = max(1, round(100 / unindexed)) if unindexed > 0 else 0
    names: list[tuple[str, str, bool]] = []  # (first name word, second, indexed)
    passages: list[str] = []
    rows: list[tuple[str, str]] = []  # (path, passage text: "" for an entry not indexed)
    for f in range(files):
        a, b = rng.choice(vocab), rng.choice(vocab)
        unread = bool(every) and f % every == every // 2
        text = "" if unread else " ".join(rng.choice(vocab) for _ in range(WORDS))
        rows.append((f"/bench/dir{f // PER_FOLDER:04d}/{a}-{b}-{f:06d}.txt", text))
        names.append((a, b, not unread))
        if text:
            passages.append(text)
    if not (data / "built").exists():
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True)
        t0 = time.perf_counter()
        store, zero = Store(data / "library.sqlite"), np.zeros(384, np.float32)
        with store.atomic():
            root = store.add_root("/bench")
            for f, (path, text) in enumerate(rows):
                if not text:
                    status, why, kind = UNREAD[(f // every) % len(UNREAD)]
                    store.upsert_file(root, path, 10, f * 10**9, None, status, why, kind, 0)
                    continue
                fid = store.upsert_file(root, path, len(text), f * 10**9, None, "indexed", None, "text", 1)
                store.insert_chunks(fid, [NewChunk(0, 0, len(text), None, text,
                                                   hashlib.sha1(text.encode()).hexdigest(), zero)])
            store.bump_generation()
        store.close()
        (data / "built").write_text("1")
        emit(bench="named_scan", note="built", files=files, seconds=round(time.perf_counter() - t0, 1))
    return data, queries(rng, vocab, names, passages)


def queries(rng: random.Random, vocab: list[str], names: list[tuple[str, str, bool]],
            passages: list[str]) -> dict[str, list[str]]:
    known = set(vocab)
    made_up = [w for w in ("".join(rng.choice("xyqw") + rng.choice("aeiou") for _ in range(3)) for _ in range(400))
               if w not in known]
    return {
        "words": [" ".join(rng.sample(p.split(), 3)) for p in rng.sample(passages, 200)],
        "no passage": [" ".join(rng.sample(made_up, 3)) for _ in range(200)],
        "not indexed": [f"{a} {b}" for a, b, ok in names if not ok][:200],
        "named": [f"{a} {b}" for a, b, ok in rng.sample(names, 400) if ok][:200],
    }


def pg_library(server, files: int, unindexed: float) -> tuple[Any, dict[str, list[str]]]:
    """The same entries (names, states; one passage row each, no words: the name passes read no postings) in a
    shared library on the test server (tests/pg_server.py), written by COPY, and the same queries."""
    from searchapp.store.postgres.pg_store import PgStore

    rng = random.Random(0)
    vocab = vocabulary(rng)
    every = max(1, round(100 / unindexed)) if unindexed > 0 else 0
    store = PgStore(server.address(server.new_database()), create=True, machine="bench")
    root = store.add_root("/bench")
    names, passages, rows = [], [], []
    for f in range(files):
        a, b = rng.choice(vocab), rng.choice(vocab)
        unread = bool(every) and f % every == every // 2
        text = "" if unread else " ".join(rng.choice(vocab) for _ in range(WORDS))
        status, why, kind = UNREAD[(f // every) % len(UNREAD)] if unread else ("indexed", None, "text")
        rows.append((root, "bench", f"/bench/dir{f // PER_FOLDER:04d}/{a}-{b}-{f:06d}.txt", 10, f * 10**9, status,
                     why, kind, 0 if unread else 1))
        names.append((a, b, not unread))
        if text:
            passages.append(text)
    t0 = time.perf_counter()
    with store.atomic(), store._pg.cursor() as cur:
        with cur.copy("COPY files (root_id, machine, path, size, mtime_ns, status, error, kind, n_chunks) FROM STDIN") as cp:
            for r in rows:
                cp.write_row(r)
        cur.execute("INSERT INTO chunks (file_id, ordinal, start, \"end\", text, text_hash, n_tokens) "
                    "SELECT id, 0, 0, 1, 'p', md5(id::text), 1 FROM files WHERE status = 'indexed'")
    store.rows("VACUUM ANALYZE files")
    emit(bench="named_scan", engine="postgresql", note="built", files=files, seconds=round(time.perf_counter() - t0, 1))
    return store, queries(rng, vocab, names, passages)


def _name_matches_before(globs: Sequence[str]) -> Any:
    """store/scope.name_matches as it was: every path's name cut and folded."""
    from searchapp.store.scope import fold

    base = "fold(substr(f.path, length(rtrim(f.path, replace(f.path, ?, ''))) + 1))"
    params: list[Any] = []
    for glob in globs:
        params += [os.sep, fold(glob)]
    return "(" + " OR ".join(f"{base} GLOB ?" for _ in globs) + ")", params


@contextmanager
def variant(name: str) -> Iterator[None]:
    from searchapp.library.search import named
    from searchapp.store import Store, scope

    kept = scope.name_matches, Store.files_named, named.not_indexed_named
    if name.startswith("before"):
        scope.name_matches = _name_matches_before
        Store.files_named = lambda self, globs: self.name_fragment(globs)  # type: ignore[method-assign]  # each question its own pass
    if name.endswith("no_unindexed"):
        named.not_indexed_named = lambda *a, **k: None  # type: ignore[assignment]
    try:
        yield
    finally:
        scope.name_matches, Store.files_named, named.not_indexed_named = kept  # type: ignore[method-assign,assignment]


def passes(store, words: list[str], *, before: bool, unindexed_only: bool) -> Any:
    """The questions put_named_first asks of the names (the search around them left out): the indexed files named
    like `words`, then the others; `unindexed_only`: the second alone, as much of it as is asked apart from the
    first (before: its own pass over the names; after: the ids the first read)."""
    from searchapp.library.search import named

    glob = named._glob(words)
    with variant("before" if before else "after"):
        names = None if before else store.files_named([glob])
        if unindexed_only:
            return named.not_indexed_named(store, words, None, names)
        return named.named_files(store, " ".join(words), 10, None, True, names), \
            named.not_indexed_named(store, words, None, names)


def pass_row(store, kind: str, qs: list[str], repeat: int) -> dict[str, Any]:
    """passes' p50 before and after, by turns: the second question alone, and both."""
    from searchapp.library.search import named

    ms: dict[str, list[float]] = {k: [] for k in ("unindexed_before", "unindexed_after", "both_before", "both_after")}
    for i, q in enumerate(qs):
        words = named._WORD.findall(q)
        order = list(ms) if i % 2 else list(reversed(ms))
        for key in order:
            only, before = key.startswith("unindexed"), key.endswith("before")
            if only and not before:  # the names read by the first question, outside the timing
                fn = partial(named.not_indexed_named, store, words, None, store.files_named([named._glob(words)]))
            else:
                fn = partial(passes, store, words, before=before, unindexed_only=only)
            fn()
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn()
                ms[key].append((time.perf_counter() - t0) * 1000.0)
    return {"bench": "named_scan", "kind": kind, "part": "name passes alone", "queries": len(qs),
            **{k: round(statistics.median(v), 2) for k, v in ms.items()}}


def seen(res) -> tuple[Any, ...]:
    return tuple(h.path for h in res.hits), tuple(sorted((n.kind, n.text) for n in res.notices))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100000)
    ap.add_argument("--unindexed", type=float, default=2.0, help="percent of the entries not indexed")
    ap.add_argument("--queries", type=int, default=20, help="queries of each kind")
    ap.add_argument("--repeat", type=int, default=5, help="searches of each query in each variant")
    ap.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite",
                    help="postgresql: a shared library on the test server, the name passes alone")
    ap.add_argument("--passes-only", action="store_true", help="only the name passes, not whole searches")
    args = ap.parse_args()
    from searchapp.base.config import load_config
    from searchapp.library import Library

    if args.engine == "postgresql":  # the name passes alone: before, name_fragment read by each question
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for pg_server
        from pg_server import PgServer

        server = PgServer().start()
        try:
            store, kinds = pg_library(server, args.files, args.unindexed)
            emit(bench="named_scan", engine="postgresql", files=args.files, unindexed_pct=args.unindexed,
                 add_cpu_note=True)
            for kind, qs in kinds.items():
                emit(pass_row(store, kind, qs[:args.queries], args.repeat), engine="postgresql",
                     load_avg=[round(x, 2) for x in os.getloadavg()])
            store.close()
        finally:
            server.stop()
        return
    data, kinds = build(args.files, args.unindexed)
    variants = ["before", "before_no_unindexed", "after", "after_no_unindexed"]
    emit(bench="named_scan", files=args.files, unindexed_pct=args.unindexed, add_cpu_note=True)
    with Library(load_config(data, env={})) as lib:
        for kind, qs in kinds.items():
            emit(pass_row(lib.reader(), kind, qs[:args.queries], args.repeat),
                 load_avg=[round(x, 2) for x in os.getloadavg()])
        if args.passes_only:
            return
        search: Callable[[str], Any] = lambda q: lib.search(q, mode="lexical")  # noqa: E731
        for kind, qs in kinds.items():
            ms: dict[str, list[float]] = {v: [] for v in variants}
            differ = {"before": 0, "before_no_unindexed": 0}
            notes = 0
            for i, q in enumerate(qs[:args.queries]):
                order = variants[i % 4:] + variants[:i % 4]
                got = {}
                for v in order:
                    with variant(v):
                        got[v] = seen(search(q))  # warm, and what it shows
                        for _ in range(args.repeat):
                            t0 = time.perf_counter()
                            search(q)
                            ms[v].append((time.perf_counter() - t0) * 1000.0)
                differ["before"] += got["before"] != got["after"]
                differ["before_no_unindexed"] += got["before_no_unindexed"] != got["after_no_unindexed"]
                notes += any("not indexed" in t for _, t in got["after"][1])
            row: dict[str, Any] = {"bench": "named_scan", "kind": kind, "queries": min(len(qs), args.queries),
                                   "repeat": args.repeat, "not_indexed_said": notes}
            for v in variants:
                s = sorted(ms[v])
                row[v] = {"p50_ms": round(statistics.median(s), 2), "p95_ms": round(s[int(0.95 * (len(s) - 1))], 2)}
            p50 = {v: row[v]["p50_ms"] for v in variants}
            row["unindexed_pass_ms"] = {"before": round(p50["before"] - p50["before_no_unindexed"], 2),
                                        "after": round(p50["after"] - p50["after_no_unindexed"], 2)}
            row["with_over_without"] = {"before": round(p50["before"] / p50["before_no_unindexed"], 3),
                                        "after": round(p50["after"] / p50["after_no_unindexed"], 3)}
            row["after_over_before"] = round(p50["after"] / p50["before"], 3)
            row["differ"] = {"before": differ["before"], "no_unindexed": differ["before_no_unindexed"]}
            emit(row, load_avg=[round(x, 2) for x in os.getloadavg()])


if __name__ == "__main__":
    main()
