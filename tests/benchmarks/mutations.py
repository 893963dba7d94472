"""A small mutation check of the code where ranking and data safety live: does each test guard what it names?

Each entry below is a hand-written mutation: a file, an exact piece of its text, what it becomes, and the tests
that should fail on it. The committed tree (`git archive REV`, HEAD by default) is copied to a temporary folder;
each mutation is made in that copy (never in the working tree, which others may be editing), its tests are run
there with the venv's Python, and the copy's file is put back before the next one. A mutation is *killed* when
its tests fail and *survives* when they pass. Before anything runs, every entry's old text must occur exactly
once in its file: the script stops (exit 2) when one does not, so the list stays true as the code changes.

One JSON line per mutation, then a score line:

    .venv/bin/python tests/benchmarks/mutations.py [--rev HEAD] [--only NAME ...] [--no-baseline] [--list]

Each selection is run once unmutated first (a baseline: a kill must come from the mutation, not from a test
that already fails there; a selection that fails unmutated leaves its mutations unscored, listed, exit 1);
--no-baseline skips that. Not part of `make test`: `make mutations` runs it (minutes:
the selections are kept narrow, and pytest stops at the first failure).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 1200  # per pytest run; a run past it counts as not killed (a hang is no proof the tests guard)


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # relative to the repository root
    old: str  # exact text, found exactly once in the file
    new: str
    tests: tuple[str, ...]  # pytest arguments: node ids, files, or "-k", "expr"
    why: str = ""  # what the mutation breaks, in a person's words


R = "tests/integration/library/"
MUTATIONS: list[Mutation] = [
    # -- the seven of issue 38 item 4 -------------------------------------------------------------------------
    # Issue 38 named `all(...)` -> `any(...)` (every matching segment repeated); the near-duplicate rewrite
    # (1e6decd) replaced that rule with "its own words hold at most half of the query words it matches".
    Mutation("boilerplate-own-words-ignored", "searchapp/library/search/boilerplate.py",
             "if 2 * len(own) > len(every):", "if False:", (R + "test_boilerplate_rule.py",),
             "a passage with one repeated matching segment is folded though its own words match too"),
    Mutation("ocr-rows-any-overlap", "searchapp/ingest/ocr/reading_order.py",
             "if min(bottom, b[3]) - max(top, b[1]) > 0.5 * min(bottom - top, b[3] - b[1]):",
             "if min(bottom, b[3]) - max(top, b[1]) > 0:",
             ("tests/unit/ingest/test_ocr_reading_order.py",), "two lines touching by a few pixels read as one"),
    Mutation("ocr-row-pad-zero", "searchapp/ingest/ocr/reading_order.py", "ROW_PAD = 0.2", "ROW_PAD = 0.0",
             ("tests/unit/ingest/test_ocr_reading_order.py",),
             "boxes that touch leave no gap across: rows read across columns"),
    Mutation("ocr-section-gap-4", "searchapp/ingest/ocr/reading_order.py", "SECTION_GAP = 1.5", "SECTION_GAP = 4.0",
             ("tests/unit/ingest/test_ocr_reading_order.py",), "stacked articles read column by column across both"),
    Mutation("ledger-ocr-pending-after-indexed", "searchapp/store/ledger.py",
             "    WHEN ocr = 'pending' AND status = 'indexed' THEN 'ocr_pages_pending'\n"
             "    WHEN ocr = 'pending' THEN 'ocr_pending'\n"
             "    WHEN status = 'indexed' AND ocr = 'done' THEN 'ocr_done'\n"
             "    WHEN status = 'indexed' THEN 'indexed'\n",
             "    WHEN ocr = 'pending' THEN 'ocr_pending'\n"
             "    WHEN status = 'indexed' AND ocr = 'done' THEN 'ocr_done'\n"
             "    WHEN status = 'indexed' THEN 'indexed'\n"
             "    WHEN ocr = 'pending' AND status = 'indexed' THEN 'ocr_pages_pending'\n",
             ("tests/unit/store/test_store_ledger.py",
              R + "test_ocr_sync.py::"
              "test_a_pdf_whose_scanned_page_waits_is_indexed_by_its_text_layer_and_listed_as_waiting"),
             "an indexed PDF whose scanned pages wait for OCR is counted among the files not indexed"),
    Mutation("prose-no-sentence-end", "searchapp/library/query/reading.py",
             'return counts["plain"] + counts["operator"] >= PROSE_WORDS or bool(_SENTENCE_END.search(parsed.raw))',
             'return counts["plain"] + counts["operator"] >= PROSE_WORDS',
             (R + "test_query_reading.py",), "a short pasted sentence keeps its quotes and dashes as operators"),
    Mutation("beside-close-drops-finished", "searchapp/library/sync/meaning_beside.py",
             "not job[1].cancelled() and job[1].exception() is None)\n            self.write_done(wait=True)\n",
             "not job[1].cancelled() and job[1].exception() is None)\n",
             (R + "test_meaning_beside.py", "-k", "close_keeping"),
             "a cancel drops encodes that finished: their passages are embedded again"),
    # -- ranking ----------------------------------------------------------------------------------------------
    Mutation("convex-weights-swapped", "searchapp/library/search/fusion.py",
             "scores[item] = dense_weight * d + (1.0 - dense_weight) * lx",
             "scores[item] = (1.0 - dense_weight) * d + dense_weight * lx",
             ("tests/unit/library/test_fusion.py",), "hybrid's convex fusion weighs the sides the wrong way round"),
    Mutation("rrf-vectorless-one-weight", "searchapp/library/search/fusion.py",
             "scores[item] = scores.get(item, 0.0) + total / (k + rank)",
             "scores[item] = scores.get(item, 0.0) + w / (k + rank)",
             ("tests/unit/library/test_fusion.py",), "a passage without a vector yet sinks under every embedded one"),
    Mutation("rrf-weights-swapped", "searchapp/library/search/pipeline.py",
             "weights = [w, 1.0 - w] if req.mode == \"hybrid\" else None",
             "weights = [1.0 - w, w] if req.mode == \"hybrid\" else None",
             (R + "test_fusion_weights.py",), "search.fusion = rrf weighs the sides the wrong way round"),
    Mutation("convex-weight-flipped", "searchapp/library/search/pipeline.py",
             "return convex_fusion(dense_score, lexical_score, w, order, no_vector)",
             "return convex_fusion(dense_score, lexical_score, 1.0 - w, order, no_vector)",
             (R + "test_fusion_weights.py",), "hybrid search gives search.dense_weight to the lexical side"),
    Mutation("bm25-b", "searchapp/store/bm25_postings.py", "K1, B = 1.2, 0.75", "K1, B = 1.2, 0.5",
             (R + "test_bm25_postings.py",), "BM25's length normalisation differs from FTS5's"),
    Mutation("bm25-idf-floor", "searchapp/store/bm25_postings.py", "return idf if idf > 0.0 else 1e-6",
             "return idf if idf > 0.0 else 0.0", (R + "test_bm25_postings.py",),
             "a word in most passages scores nothing, where FTS5 gives it a trace"),
    Mutation("grouping-worst-passage", "searchapp/library/search/grouping.py",
             "if d is not None and (g.dense is None or d > g.dense):",
             "if d is not None and (g.dense is None or d < g.dense):",
             ("tests/unit/library/test_grouping_rule.py", R + "test_grouping.py"),
             "a file's dense score is its worst passage's, not its best"),
    Mutation("grouping-last-rank", "searchapp/library/search/grouping.py",
             "if found is not None and getattr(found, side) is None:", "if found is not None:",
             ("tests/unit/library/test_grouping_rule.py", R + "test_grouping.py"),
             "a file's rank on a side is its last passage's, not its first"),
    Mutation("query-operator-cap", "searchapp/library/query/syntax.py", "MAX_OPERATORS = 100",
             "MAX_OPERATORS = 100_000", (R + "test_trust_query.py", "-k", "capped or enforced"),
             "a query of thousands of operators is not capped"),
    # -- data safety ------------------------------------------------------------------------------------------
    Mutation("sync-touched-ignores-hash", "searchapp/library/sync/words_pass.py",
             'if old is not None and old.sha256 == sha and old.status == "indexed":',
             'if old is not None and old.status == "indexed":',
             (R + "test_library_sync.py::test_edit_delete_add_rename",),
             "a file changed with a new mtime is taken as touched: its old text stays indexed"),
    Mutation("sync-keeps-deleted-vectors", "searchapp/library/sync/words_pass.py",
             "        if removed:\n            index.remove(removed)\n",
             "        if False:\n            index.remove(removed)\n",
             (R + "test_library_sync.py::test_edit_delete_add_rename",),
             "a deleted file's vectors stay in the vector index"),
    Mutation("sync-failed-file-not-retried", "searchapp/library/sync/words_pass.py",
             'return old is None or (old.size, old.mtime_ns) != (f.size, f.mtime_ns) or old.status == "failed"',
             "return old is None or (old.size, old.mtime_ns) != (f.size, f.mtime_ns)",
             (R + "test_file_boundary.py", "-k", "a_step_that_raises"),
             "a file that failed is not read again until its mtime changes"),
    Mutation("sync-one-file-bug-aborts", "searchapp/library/sync/file_boundary.py",
             'return one_line(f"internal error: {type(exc).__name__}: {exc}")', "return None",
             (R + "test_file_boundary.py", "-k", "a_step_that_raises"),
             "one file's bug (an extractor, the chunker) stops the whole sync instead of failing that file"),
    Mutation("remove-folder-keeps-vectors", "searchapp/store/root_records.py",
             'self.execute("DELETE FROM roots WHERE id = ?", (root_id,))\n        return ids',
             'self.execute("DELETE FROM roots WHERE id = ?", (root_id,))\n        return []',
             (R + "test_reliability.py::test_removing_a_folder_compacts_index_and_database",
              R + "test_undo_remove.py"),
             "a removed folder's vectors stay in the vector index"),
    Mutation("undo-ignores-generation", "searchapp/store/removed_roots.py",
             "if kept is None or kept[0] != generation:", "if kept is None:",
             (R + "test_undo_remove.py",), "Undo restores a folder over writes made since the Remove"),
    Mutation("undo-ignores-taken-ids", "searchapp/store/removed_roots.py",
             "    if taken is not None:\n        return None\n", "    if False:\n        return None\n",
             ("tests/unit/store/test_removed_roots.py",),
             "Undo puts rows back over ids or paths taken again since"),
    Mutation("index-crc-unchecked", "searchapp/ann/base.py",
             'if size != meta.get("file_size") or crc != meta.get("crc32"):', 'if size != meta.get("file_size"):',
             ("tests/unit/ann/test_ann.py", "-k", "corrupt"), "a vector index with a flipped byte is loaded as sound"),
    # -- near duplicates in groups (decision 0186) --------------------------------------------------------------
    Mutation("near-groups-not-joined", "searchapp/library/search/near_groups.py",
             "            parent[max(ra, rb)] = min(ra, rb)", "            pass",
             (R + "test_duplicates_batches.py", "-k", "grouped"),
             "near pairs sharing a file are not joined: every pair is a group of its own, as before groups"),
    Mutation("near-groups-copies-not-alike", "searchapp/library/search/near_groups.py",
             "// 2 + sum(n * (n - 1) // 2", "// 2 + 0 * sum(n * (n - 1) // 2",
             (R + "test_duplicates_batches.py", "-k", "grouped"),
             "two exact copies inside a group are counted as files that are not near duplicates"),
]


def sh(cmd: list[str], cwd: Path, env: dict, timeout: float) -> tuple[int, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return 124, out


def copy_tree(rev: str, dest: Path) -> None:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def check_texts(tree: Path, mutations: list[Mutation]) -> list[str]:
    """Entries whose old text is not found exactly once (or whose new text equals it)."""
    bad = []
    for m in mutations:
        f = tree / m.path
        if not f.is_file():
            bad.append(f"{m.name}: {m.path} does not exist")
            continue
        n = f.read_text(encoding="utf-8").count(m.old)
        if n != 1 or m.old == m.new:
            bad.append(f"{m.name}: old text found {n} times in {m.path}" if n != 1 else f"{m.name}: new == old")
    return bad


def run_tests(tree: Path, tests: tuple[str, ...], timeout: float) -> tuple[int, str, float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HF_HUB_OFFLINE="1", PYTHONPATH=str(tree),
               PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    rc, out = sh([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests], tree, env, timeout)
    return rc, out, time.monotonic() - start


def last_line(out: str) -> str:
    lines = [ln for ln in out.strip().splitlines() if ln.strip()]
    return lines[-1][-300:] if lines else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="HEAD", help="the commit whose tree is mutated (default HEAD)")
    ap.add_argument("--only", nargs="*", default=None, help="run only these mutations (by name)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of each test selection")
    ap.add_argument("--list", action="store_true", help="print the mutations and exit")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S)
    args = ap.parse_args(argv)
    chosen = [m for m in MUTATIONS if args.only is None or m.name in args.only]
    if args.only is not None and len(chosen) != len(set(args.only)):
        known = {m.name for m in MUTATIONS}
        print(f"unknown mutation(s): {sorted(set(args.only) - known)}", file=sys.stderr)
        return 2
    if args.list:
        for m in chosen:
            print(json.dumps({"mutation": m.name, "file": m.path, "tests": list(m.tests), "why": m.why}))
        return 0
    # Stopped with SIGTERM: the running pytest is killed and the copy removed (subprocess.run and the finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tree = Path(tempfile.mkdtemp(prefix="searchapp-mutations-"))
    try:
        copy_tree(args.rev, tree)
        bad = check_texts(tree, chosen)
        if bad:
            for line in bad:
                print(f"MUTATION LIST OUT OF DATE: {line}", file=sys.stderr)
            return 2
        broken: set[tuple[str, ...]] = set()  # selections that fail unmutated: their mutations are not scored
        if not args.no_baseline:
            for tests in dict.fromkeys(m.tests for m in chosen):
                rc, out, secs = run_tests(tree, tests, args.timeout)
                print(json.dumps({"baseline": list(tests), "rc": rc, "seconds": round(secs, 1),
                                  "result": last_line(out)}), flush=True)
                if rc != 0:
                    broken.add(tests)
                    print(f"BASELINE FAILS (rc {rc}) for {list(tests)}: its mutations are not scored\n{out[-3000:]}",
                          file=sys.stderr)
        unscored = [m.name for m in chosen if m.tests in broken]
        chosen = [m for m in chosen if m.tests not in broken]
        killed: list[str] = []
        survived: list[str] = []
        for m in chosen:
            f = tree / m.path
            original = f.read_text(encoding="utf-8")
            f.write_text(original.replace(m.old, m.new, 1), encoding="utf-8")
            try:
                rc, out, secs = run_tests(tree, m.tests, args.timeout)
            finally:
                f.write_text(original, encoding="utf-8")
            # 1: a test failed; 2: a collection or import error the mutation caused. 5 (nothing collected) and
            # 124 (timed out) prove nothing.
            dead = rc in (1, 2)
            (killed if dead else survived).append(m.name)
            print(json.dumps({"mutation": m.name, "file": m.path, "killed": dead, "rc": rc,
                              "seconds": round(secs, 1), "tests": list(m.tests), "result": last_line(out)}),
                  flush=True)
        print(json.dumps({"score": f"{len(killed)}/{len(chosen)}", "killed": len(killed), "total": len(chosen),
                          "survived": survived, "unscored_baseline_fails": unscored, "rev": args.rev}), flush=True)
        return 1 if unscored else 0
    finally:
        shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
