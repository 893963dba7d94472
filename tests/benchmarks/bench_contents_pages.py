"""Which passages the contents-page rule (library/search/contents_pages.py) marks, on real text: how narrow it is.

- IR collections (../shared/data/ir, BEIR layout): every document (title and text) counted with a run of leader dots
  and as a contents page. A document without a leader run has no passage the rule can mark, so 0 there is 0
  passages whatever the chunking.
- libraries (`--library DATA_DIR`, e.g. one of docling's test files indexed with `index --words-only`): every
  passage marked, printed with its file and page and its first words to be read by a person (each must be a contents
  page, a list of figures or an index), and the passages with a leader run the rule leaves alone.

One JSON line a figure:

    python tests/benchmarks/bench_contents_pages.py [--ir cranfield,scifact-train] [--library DIR ...]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from bench_quality import DATA

from searchapp.library.search.contents_pages import LEADERS, is_contents
from _common import emit


def ir_counts(name: str) -> dict:
    docs = leaders = marked = 0
    with open(DATA / "ir" / name / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            text = f"{d.get('title') or ''}\n{d.get('text') or ''}"
            docs += 1
            leaders += LEADERS.search(text) is not None
            marked += is_contents(text)
    return {"collection": name, "documents": docs, "with_leader_dots": leaders, "marked_contents": marked}


def library_counts(data_dir: Path, show: int) -> None:
    db = sqlite3.connect(f"file:{data_dir / 'library.sqlite'}?mode=ro", uri=True)
    rows = db.execute("SELECT f.path, c.page, c.text FROM chunks c JOIN files f ON f.id = c.file_id "
                      "ORDER BY f.path, c.ordinal").fetchall()
    marked = [(p, pg, t) for p, pg, t in rows if is_contents(t)]
    left = [(p, pg, t) for p, pg, t in rows if LEADERS.search(t) and not is_contents(t)]
    emit(library=str(data_dir), passages=len(rows), marked_contents=len(marked),
         files_marked=len({p for p, _, _ in marked}), with_leader_dots_not_marked=len(left))
    for kind, found in (("marked", marked), ("not_marked", left)):
        for p, pg, t in found[:show]:
            emit(kind=kind, path=Path(p).name, page=pg, text=" ".join(t.split())[:140])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ir", default="cranfield,scifact-train", help="comma list of ../shared/data/ir collections")
    ap.add_argument("--library", action="append", default=[], type=Path, help="a data dir whose passages to read")
    ap.add_argument("--show", type=int, default=200, help="passages printed of each kind, per library")
    args = ap.parse_args()
    for name in filter(None, args.ir.split(",")):
        emit(ir_counts(name))
    for lib in args.library:
        library_counts(lib, args.show)


if __name__ == "__main__":
    main()
