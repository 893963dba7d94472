"""What the first sync after an upgrade costs (decision 0152): every entry was read by an older reader, so the sync
reads each file again, its bytes unchanged, and keeps the passages that come out the same. Before that decision the
only way to the new readers' text was `reindex`, which drops every passage and vector and embeds them all again.

    python tests/benchmarks/bench_reader_upgrade.py [--files 300] [--rounds 3] [--words-only]

One library of `--files` SciFact abstracts as files, embedded with the packaged MiniLM (the passage path this CPU
chooses), then, by turns in each round (a shared machine's load falls on all alike):
- `unchanged_sync`: a sync with nothing changed (the floor: scan and stat);
- `upgrade_sync`: every row's reader set back to none, as a library written before 0152 holds them, then a sync;
- `reindex`: what a person had to run before, with its embedding.
With `--words-only` nothing is embedded (the library, and `reindex --words-only`): the reading alone, at scale.
Each prints wall and CPU seconds, the entries read again, the passages written and embedded, and the ratio of its
seconds to `reindex`'s in the same round. Prints one JSON line per result, with the CPU's flags and the load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("SEARCHAPP_NO_QUERY_EXPORT", "1")  # the query model's one-time export is not measured here

from searchapp.base.config import load_config
from searchapp.library import Library
from _common import cpu_note, emit
from bench_words_first import CORPUS, write_files


def timed(name: str, lib: Library, run) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    rep = run()
    return {"bench": "reader_upgrade", "step": name, "seconds": round(time.perf_counter() - t0, 3),
            "cpu_s": round(time.process_time() - c0, 3), "reread": rep.reread, "updated": rep.updated,
            "unchanged": rep.unchanged, "passages_written": rep.chunks_added, "passages_embedded": rep.chunks_embedded}


def forget_readers(lib: Library) -> None:
    with lib.store.atomic():
        lib.store.conn.execute("UPDATE files SET reader = NULL")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--words-only", action="store_true")
    args = ap.parse_args()
    if not CORPUS.is_file():
        sys.exit(f"no corpus at {CORPUS} (../shared/data)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        write_files(folder, args.files)
        lib = Library(load_config(Path(tmp) / "data", env={}, overrides={"models": {"reranker": ""}}))
        first = timed("first_sync", lib, lambda: lib.add_folder(folder, embed=not args.words_only))
        emit(first, files=args.files, words_only=args.words_only, add_cpu_note=True)
        for r in range(1, args.rounds + 1):
            rows = [timed("unchanged_sync", lib, lambda: lib.sync(embed=not args.words_only))]
            forget_readers(lib)
            rows.append(timed("upgrade_sync", lib, lambda: lib.sync(embed=not args.words_only)))
            rows.append(timed("reindex", lib, lambda: lib.reindex(embed=not args.words_only)))
            base = rows[-1]["seconds"]
            for row in rows:
                emit(row, round=r, files=args.files, words_only=args.words_only, ratio_to_reindex=round(row["seconds"] / base, 4),
                     load_avg=cpu_note()["load_avg"])
        lib.close()


if __name__ == "__main__":
    main()
