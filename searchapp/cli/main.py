"""`searchapp` command line: parse, call the library, print. Errors become one clean line and an exit code.

Exit codes: 0 ok, 1 error, 2 bad usage or config, 3 library database/index error, 4 model mismatch
(re-index needed), 5 model could not be loaded, 130 cancelled.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import textwrap
from pathlib import Path
from typing import Optional, Sequence

from .. import __version__
from ..base.config import Config, load_config
from ..base.errors import Cancelled, SearchAppError
from ..base.progress import CancelToken
from . import train_eval
from .progress import TerminalProgress

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="searchapp", description="Find things in your own files by meaning.")
    p.add_argument("--version", action="version", version=f"searchapp {__version__}")
    p.add_argument("--data-dir", help="library location (default: $SEARCHAPP_DATA_DIR or the per-user data directory)")
    p.add_argument("--config", help="config file (default: <data-dir>/config.toml)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("index", help="add folders or files to the library and index them (re-syncs known ones)")
    s.add_argument("paths", nargs="*", metavar="PATH", help="folders or files; none: re-sync every indexed folder")
    s.add_argument("--json", action="store_true", help="print the sync report as JSON")

    s = sub.add_parser("search", help="search the library")
    s.add_argument("query", help="the query; '-' reads one query per line from standard input (JSON lines out)")
    s.add_argument("--k", type=int, help="number of hits (default from config: 10)")
    s.add_argument("--mode", choices=["hybrid", "dense", "lexical"], help="retrieval mode (default hybrid)")
    s.add_argument("--no-rerank", action="store_true", help="skip the cross-encoder")
    s.add_argument("--reranker", metavar="PATH", help="cross-encoder folder or Hugging Face id (overrides config)")
    s.add_argument("--candidates", type=int, help="candidates per retriever, reranked (default 50)")
    s.add_argument("--group", choices=["file", "passage"],
                   help="file: each file once with its other matching passages (default); passage: every passage a row")
    s.add_argument("--json", action="store_true", help="print JSON")

    s = sub.add_parser("watch", help="keep the library current: sync every change under the indexed folders until Ctrl+C")
    s.add_argument("--debounce", type=float, default=1.0, metavar="SECONDS",
                   help="quiet time after the last change before it is indexed (default 1)")
    s.add_argument("--poll", action="store_true", help="poll for changes instead of using file-system events")

    s = sub.add_parser("status", help="what is indexed, problems, models, device")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--check", action="store_true",
                   help="exit 4 when a reindex is needed, 3 when not consistent, 1 when a folder is missing")

    s = sub.add_parser("remove", help="forget an indexed folder and everything under it")
    s.add_argument("path", metavar="PATH")

    s = sub.add_parser("reindex", help="rebuild every passage and vector with the current model and chunking")
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("eval", help="measure retrieval quality")
    ev = s.add_subparsers(dest="eval_command", metavar="KIND")
    e = ev.add_parser("ir", help="nDCG@10, MRR@10, Recall@10/@100 per mode on a BEIR-layout folder")
    e.add_argument("dir", metavar="DIR")
    e.add_argument("--split", default="test", help="qrels split (qrels/<split>.tsv)")
    e.add_argument("--modes", default="dense,lexical,hybrid", help="comma-separated modes")
    e.add_argument("--no-rerank", action="store_true", help="skip reranked variants")
    e.add_argument("--reranker", metavar="PATH", help="cross-encoder folder or id")
    e.add_argument("--max-queries", type=int, help="evaluate only the first N judged queries")
    train_eval.add_ir_options(e)
    e.add_argument("--json", action="store_true")
    train_eval.add_eval_parsers(ev)
    train_eval.add_train_parser(sub)

    sub.add_parser("config", help="list every setting with its current value and meaning")
    sub.add_parser("gui", help="open the desktop app (also what `searchapp` with no command does)")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args.command = "gui"  # a double-click or a bare `searchapp` opens the window
    cancel = CancelToken()
    _install_sigint(cancel)
    progress = TerminalProgress()
    try:
        overrides = {}
        if getattr(args, "reranker", None):
            overrides["models"] = {"reranker": args.reranker}
        overrides = train_eval.model_overrides(args, overrides)
        config = load_config(args.data_dir, args.config, overrides=overrides)
        return _COMMANDS[args.command](args, config, progress, cancel)
    except Cancelled:
        progress.close()
        print("searchapp: cancelled; nothing half-written was kept (finished sync batches stay indexed)", file=sys.stderr)
        return Cancelled.exit_code
    except SearchAppError as exc:
        progress.close()
        print(f"searchapp: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full or read-only disk outside the library's own checks: one line, not a traceback
        progress.close()
        print(f"searchapp: error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return 3
    finally:
        progress.close()


def _install_sigint(cancel: CancelToken) -> None:
    """First Ctrl+C asks long jobs to stop at the next batch boundary; a second one interrupts at once."""

    def handler(signum, frame):
        if cancel.cancelled:
            raise KeyboardInterrupt
        cancel.cancel()
        print("\nsearchapp: stopping after the current batch (Ctrl+C again to abort)", file=sys.stderr)

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread (e.g. embedded use)
        pass


def _library(config: Config):
    from ..library import Library

    return Library(config)


# -- commands --------------------------------------------------------------
def cmd_index(args, config: Config, progress, cancel) -> int:
    from ..library import SyncReport

    with _library(config) as lib:
        total = SyncReport()
        if args.paths:
            for path in args.paths:
                total.merge(lib.add_folder(path, progress=progress, cancel=cancel))
        else:
            if not lib.store.roots():
                print("searchapp: nothing to sync; add a folder with `searchapp index PATH`", file=sys.stderr)
                return 2
            total = lib.sync(progress=progress, cancel=cancel)
        progress.close()
        if args.json:
            print(json.dumps({**{k: v for k, v in total.__dict__.items() if k not in ("problems", "missing_roots")},
                              "problems": [{"path": p, "reason": r} for p, r in total.problems],
                              "missing_roots": [{"path": p, "reason": r} for p, r in total.missing_roots]}))
        else:
            print(f"{total.scanned} files scanned: {total.added} added, {total.updated} updated, "
                  f"{total.unchanged} unchanged, {total.removed} removed, {total.skipped} skipped, {total.failed} failed; "
                  f"{total.chunks_added} passages written ({total.chunks_embedded} embedded, the rest reused)")
            failed = [(p, r) for p, r in total.problems]
            if failed:
                print(f"{len(failed)} files not indexed (`searchapp status` lists them all):", file=sys.stderr)
                for p, r in failed[:10]:
                    print(f"  {p}: {r}", file=sys.stderr)
                if len(failed) > 10:
                    print(f"  ... and {len(failed) - 10} more", file=sys.stderr)
            for n in total.notes:
                print(f"searchapp: note: {n}", file=sys.stderr)
        notice = lib.index_notice()
        if notice:
            print(f"searchapp: {notice}", file=sys.stderr)
    for path, reason in total.missing_roots:
        print(f"searchapp: error: {path}: {reason}; its passages are kept and still searchable "
              f"(`searchapp remove {path}` forgets it)", file=sys.stderr)
    return 1 if total.missing_roots else 0  # README: a folder that cannot be read is an error


def cmd_search(args, config: Config, progress, cancel) -> int:
    if args.no_rerank:
        config = config.replace(search={"rerank": False})
    with _library(config) as lib:
        notice_shown = False

        def run(query: str):
            nonlocal notice_shown
            res = lib.search(query, k=args.k, mode=args.mode, candidates=args.candidates, group=args.group)
            if res.notice and not notice_shown:
                print(f"searchapp: note: {res.notice}", file=sys.stderr)
                notice_shown = True
            return res

        if args.query == "-":
            for line in sys.stdin:
                q = line.strip()
                if q:
                    print(json.dumps(run(q).to_json()), flush=True)
            return 0
        res = run(args.query)
        if args.json:
            print(json.dumps(res.to_json()))
            return 0
        if not res.hits:
            print("no results")
            return 0
        for h in res.hits:
            _print_hit(h, res.reranked)
    return 0


def _print_hit(h, reranked: bool) -> None:
    s, r = h.scores, h.ranks
    where = h.path + (f"  (page {h.page})" if h.page else "")
    parts = []  # the first part is the score a person reads (Hit.shown_score), the rest every stage's
    if s.rerank is not None:
        move = (r.fused or 0) - (r.rerank or 0)
        arrow = f" {'▲' if move > 0 else '▼'}{abs(move)}" if move else ""
        parts.append(f"relevance {s.rerank:.3f} (reranker logit {s.rerank_logit:.2f}){arrow}")
    if s.dense is not None:
        parts.append(f"similarity {s.dense:.3f}" + (f" #{r.dense}" if r.dense else ""))
    if s.lexical is not None:
        parts.append(f"bm25 {s.lexical:.2f}" + (f" #{r.lexical}" if r.lexical else ""))
    snippet = " ".join(h.text.split())
    snippet = snippet[:240] + ("…" if len(snippet) > 240 else "")
    if not h.available:
        where += "  [unavailable: file or folder missing]"
    print(f"{r.final:>2}. {where}")
    print(f"    {' | '.join(parts)}")
    print(textwrap.fill(snippet, width=100, initial_indent="    ", subsequent_indent="    "))
    if h.more:
        pages = sorted({m.page for m in h.more if m.page})
        print(f"    + {len(h.more)} more passage{'s' if len(h.more) > 1 else ''} in this file"
              + (f" (pages {', '.join(map(str, pages))})" if pages else ""))


def cmd_watch(args, config: Config, progress, cancel) -> int:
    import time

    with _library(config) as lib:
        if not lib.store.roots():
            print("searchapp: nothing to watch; add a folder with `searchapp index PATH`", file=sys.stderr)
            return 2
        rep = lib.sync(progress=progress, cancel=cancel)  # catch up with what changed while nothing watched
        progress.close()
        print(f"caught up: {rep.added} added, {rep.updated} updated, {rep.removed} removed", flush=True)
        for path, reason in rep.missing_roots:
            print(f"searchapp: {path}: {reason}; its passages are kept", file=sys.stderr, flush=True)

        def changed(rep, paths) -> None:
            if rep.added or rep.updated or rep.removed or rep.skipped or rep.failed:
                what = ", ".join(f"{n} {k}" for k, n in (("added", rep.added), ("updated", rep.updated),
                                 ("removed", rep.removed), ("skipped", rep.skipped), ("failed", rep.failed)) if n)
                shown = paths[0] + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")
                print(f"{time.strftime('%H:%M:%S')} {what}: {shown}", flush=True)

        def failed(exc) -> None:
            print(f"searchapp: live update failed (will retry): {exc}", file=sys.stderr, flush=True)

        watcher = lib.start_watching(changed, debounce=args.debounce, on_error=failed, force_polling=args.poll)
        if watcher.note:
            print(f"searchapp: note: {watcher.note}", file=sys.stderr)
        print(f"watching {len(lib.store.roots())} folder(s) ({watcher.mode}); Ctrl+C stops", flush=True)
        try:
            while not cancel.cancelled:
                time.sleep(0.2)
        finally:
            lib.stop_watching()
    print("stopped watching", flush=True)
    return 0


def cmd_status(args, config: Config, progress, cancel) -> int:
    with _library(config) as lib:
        st = lib.status()
    code = _status_exit_code(st) if args.check else 0
    if args.json:
        print(json.dumps(st.to_json()))
        return code
    print(f"library: {st.data_dir}")
    for r in st.roots:
        print(f"  {r.path}: {r.files} files, {r.chunks} passages"
              + (f"  [MISSING: {r.reason}; kept and searchable, `searchapp remove` forgets it]" if r.missing else ""))
    if not st.roots:
        print("  (no folders yet: `searchapp index PATH`)")
    by = ", ".join(f"{n} {s}" for s, n in sorted(st.files.items())) or "0"
    print(f"files: {by}; passages: {st.chunks}; vectors: {st.vectors}; consistent: {'yes' if st.consistent else 'NO'}")
    b = st.bi_encoder
    print(f"bi-encoder: {b['spec']} ({b['pooling']} pooling)" + (
        f"; library built with {b['library_model']} ({b['library_pooling']})" if b["library_model"] else ""))
    rr = st.reranker
    print(f"reranker: {rr['path'] if rr['available'] == 'yes' else 'not available'}" + (f" — {rr['message']}" if rr["message"] else ""))
    print(f"device: {st.device}")
    for n in st.notes:
        print(f"note: {n}")
    if st.reindex_needed:
        print(f"reindex needed: {st.reindex_needed}")
    if st.failed:
        print(f"not indexed ({len(st.failed)}):")
        for path, status, reason in st.failed:
            print(f"  [{status}] {path}: {reason}")
    return code


def _status_exit_code(st) -> int:
    """`status --check`: the README's exit codes for what needs attention, the most serious first."""
    if st.reindex_needed:
        return 4
    if not st.consistent:
        return 3
    if any(r.missing for r in st.roots):
        return 1
    return 0


def cmd_remove(args, config: Config, progress, cancel) -> int:
    with _library(config) as lib:
        n = lib.remove_folder(args.path)
    print(f"removed {os.path.abspath(args.path)} ({n} files)")
    return 0


def cmd_reindex(args, config: Config, progress, cancel) -> int:
    with _library(config) as lib:
        rep = lib.reindex(progress=progress, cancel=cancel)
    progress.close()
    print(f"re-indexed {rep.added} files into {rep.chunks_added} passages")
    return 0


def cmd_eval(args, config: Config, progress, cancel) -> int:
    if args.eval_command in train_eval.EVAL_KINDS:
        return train_eval.cmd_eval(args, config, progress, cancel)
    if args.eval_command != "ir":
        print("searchapp: eval needs a kind: `searchapp eval ir DIR`", file=sys.stderr)
        return 2
    from ..evaluation.ir import evaluate_ir

    if not Path(args.dir).is_dir():
        print(f"searchapp: error: {args.dir} is not a folder", file=sys.stderr)
        return 2
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    result = evaluate_ir(Path(args.dir), config, modes=modes, rerank=False if args.no_rerank else None,
                         split=args.split, max_queries=args.max_queries, progress=progress, cancel=cancel)
    progress.close()
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['collection']}: {result['documents']} documents ({result['chunks']} passages, "
          f"indexed in {result['index_seconds']:.0f} s), {result['queries']} queries")
    print(f"{'mode':<16}{'nDCG@10':>9}{'MRR@10':>9}{'R@10':>8}{'R@100':>8}{'ms/query':>10}")
    for name, m in result["modes"].items():
        print(f"{name:<16}{m['ndcg@10'] * 100:>9.2f}{m['mrr@10'] * 100:>9.2f}{m['recall@10'] * 100:>8.2f}"
              f"{m['recall@100'] * 100:>8.2f}{m['ms_per_query']:>10.1f}")
    if result["reranker"] not in ("yes", "not requested"):
        print(f"note: no reranked rows: {result['reranker']}", file=sys.stderr)
    return 0


def cmd_config(args, config: Config, progress, cancel) -> int:
    from ..base.config import field_help

    for key, help_text in field_help().items():
        obj = config
        for part in key.split("."):
            obj = getattr(obj, part)
        print(f"{key} = {obj!r}\n    {help_text}")
    return 0


def cmd_gui(args, config: Config, progress, cancel) -> int:
    from ..gui import run_gui  # Qt is imported only when the window is wanted

    return run_gui(config)


_COMMANDS = {
    "index": cmd_index,
    "search": cmd_search,
    "watch": cmd_watch,
    "status": cmd_status,
    "remove": cmd_remove,
    "reindex": cmd_reindex,
    "eval": cmd_eval,
    "train": train_eval.cmd_train,
    "config": cmd_config,
    "gui": cmd_gui,
}
