"""`searchapp` command line: parse, call the library, print. Errors become one clean line and an exit code.

Exit codes: 0 ok, 1 error, 2 bad usage or config, 3 library database/index error, 4 model mismatch
(re-index needed), 5 model could not be loaded, 130 cancelled.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Optional, Sequence

from .. import __version__
from ..base.config import Config, load_config
from ..base.errors import Cancelled, SearchAppError
from ..base.progress import CancelToken
from ..base.terminal import printable, use_color
from . import models as models_cli
from . import discover, train_eval
from .global_options import accept_after_command
from .options import check_options
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
    s.add_argument("query", help="the query; '-' reads one query per line from standard input and prints one line "
                   "per input line (tab-separated: query, then each hit; JSON lines with --json)")
    s.add_argument("--k", type=int, help="number of hits (default from config: 10)")
    s.add_argument("--mode", choices=["hybrid", "dense", "lexical"], help="retrieval mode (default hybrid)")
    s.add_argument("--no-rerank", action="store_true", help="skip the cross-encoder")
    s.add_argument("--reranker", metavar="PATH", help="cross-encoder folder or Hugging Face id (overrides config)")
    s.add_argument("--candidates", type=int, help="candidates per retriever, reranked (default 50)")
    s.add_argument("--group", choices=["file", "passage"],
                   help="file: each file once with its other matching passages (default); passage: every passage a row")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--no-color", action="store_true", help="never mark query words in bold (also: NO_COLOR set)")
    discover.add_filter_options(s)
    discover.add_parsers(sub)

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
    e.add_argument("--strict", action="store_true", help="fail (exit 2) on judgements for missing documents or queries")
    train_eval.add_ir_options(e)
    e.add_argument("--json", action="store_true")
    train_eval.add_eval_parsers(ev)
    train_eval.add_train_parser(sub)

    models_cli.add_models_parser(sub)
    sub.add_parser("config", help="list every setting with its current value and meaning")
    sub.add_parser("gui", help="open the desktop app (also what `searchapp` with no command does)")
    accept_after_command(p)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args.command = "gui"  # a double-click or a bare `searchapp` opens the window
    cancel = CancelToken()
    _install_sigint(cancel)
    progress = TerminalProgress()
    _explicit_model_paths(args)
    config = None
    try:
        check_options(args)
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
        print(f"searchapp: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except sqlite3.DatabaseError as exc:  # damage found mid-query (garbage pages behind a valid header)
        progress.close()
        from ..library.data_dir import damaged_message, is_damage

        db = Path(config.data_dir if config else ".") / "library.sqlite"
        message = damaged_message(db, exc) if is_damage(exc) else f"library database error: {exc}"
        print(f"searchapp: error: {printable(message)}", file=sys.stderr)
        return 3
    except OSError as exc:  # a full or read-only disk outside the library's own checks: one line, not a traceback
        progress.close()
        print(printable(f"searchapp: error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")),
              file=sys.stderr)
        return 3
    finally:
        progress.close()


def _explicit_model_paths(args) -> None:
    """A model folder typed on the command line counts as a path even when named like a hub id
    (`--reranker models/x`); config files and defaults never do (see models/resolve.py)."""
    from ..models.resolve import explicit_path  # no torch: resolve only reads files

    for name in ("reranker", "model", "base"):
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            setattr(args, name, explicit_path(value))


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


def _library(config: Config, *, create: bool = True):
    """create=False for commands that only read: a mistyped --data-dir is "no library at DIR", not a new one."""
    from ..library import Library

    lib = Library(config, create=create)
    notice = lib.open_notice()
    if notice:
        print(f"searchapp: note: {printable(notice)}", file=sys.stderr)
    return lib


# -- commands --------------------------------------------------------------
def cmd_index(args, config: Config, progress, cancel) -> int:
    from ..library import SyncReport

    with _library(config) as lib:
        total = SyncReport()
        if args.paths:
            for path in args.paths:
                total.merge(lib.add_folder(path, progress=progress, cancel=cancel))
        else:
            if not lib.roots():
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
                    print(f"  {printable(p)}: {printable(r)}", file=sys.stderr)
                if len(failed) > 10:
                    print(f"  ... and {len(failed) - 10} more", file=sys.stderr)
            for n in total.notes:
                print(f"searchapp: note: {printable(n)}", file=sys.stderr)
        notice = lib.index_notice()
        if notice:
            print(f"searchapp: {printable(notice)}", file=sys.stderr)
    for path, reason in total.missing_roots:
        print(f"searchapp: error: {printable(path)}: {printable(reason)}; its passages are kept and still searchable "
              f"(`searchapp remove {printable(path)}` forgets it)", file=sys.stderr)
    return 1 if total.missing_roots else 0  # README: a folder that cannot be read is an error


def cmd_search(args, config: Config, progress, cancel) -> int:
    from ..base.errors import ConfigError
    from ..library.query_check import EMPTY_QUERY, is_empty_query, query_problem
    from .search_output import empty_json, hit_line, print_hits, result_json

    if args.query != "-" and is_empty_query(args.query):
        raise ConfigError(EMPTY_QUERY)
    if args.no_rerank:
        config = config.replace(search={"rerank": False})
    mode = args.mode or config.search.mode
    filters = discover.filters_from(args)
    with _library(config, create=False) as lib:
        if args.reranker and config.search.rerank:
            lib.require_reranker()  # named on the command line: load it or fail (exit 5), never fall back
        notice_shown = False

        def run(query: str):
            nonlocal notice_shown
            res = lib.search(query, k=args.k, mode=args.mode, candidates=args.candidates, filters=filters,
                             group=args.group)
            if not notice_shown:
                for notice in (res.notice, res.reindex_notice):
                    if notice:
                        print(f"searchapp: note: {printable(notice)}", file=sys.stderr)
                        notice_shown = True
            return res

        if args.query == "-":
            # One output line per input line, blank lines included, so outputs line up with inputs.
            for n, line in enumerate(sys.stdin, start=1):
                q = line.strip()
                problem = query_problem(q, mode)
                if problem:
                    print(f"searchapp: line {n}: {printable(problem)}", file=sys.stderr)
                    print(empty_json(q, mode, problem) if args.json else hit_line(q, None), flush=True)
                    continue
                res = run(q)
                print(result_json(res) if args.json else hit_line(q, res), flush=True)
            return 0
        res = run(args.query)
        if args.json:
            print(result_json(res, res.notice if not res.hits and res.notice else None))
            return 0
        print_hits(res, color=use_color(sys.stdout, no_color=args.no_color))
    return 0


def cmd_watch(args, config: Config, progress, cancel) -> int:
    import time

    with _library(config, create=False) as lib:
        if not lib.roots():
            print("searchapp: nothing to watch; add a folder with `searchapp index PATH`", file=sys.stderr)
            return 2
        rep = lib.sync(progress=progress, cancel=cancel)  # catch up with what changed while nothing watched
        progress.close()
        print(f"caught up: {rep.added} added, {rep.updated} updated, {rep.removed} removed", flush=True)
        for path, reason in rep.missing_roots:
            print(f"searchapp: {printable(path)}: {printable(reason)}; its passages are kept", file=sys.stderr, flush=True)

        def changed(rep, paths) -> None:
            if rep.added or rep.updated or rep.removed or rep.skipped or rep.failed:
                what = ", ".join(f"{n} {k}" for k, n in (("added", rep.added), ("updated", rep.updated),
                                 ("removed", rep.removed), ("skipped", rep.skipped), ("failed", rep.failed)) if n)
                shown = printable(paths[0]) + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")
                print(f"{time.strftime('%H:%M:%S')} {what}: {shown}", flush=True)

        def failed(exc) -> None:
            print(f"searchapp: live update failed (will retry): {printable(exc)}", file=sys.stderr, flush=True)

        watcher = lib.start_watching(changed, debounce=args.debounce, on_error=failed, force_polling=args.poll)
        if watcher.note:
            print(f"searchapp: note: {printable(watcher.note)}", file=sys.stderr)
        print(f"watching {len(lib.roots())} folder(s) ({watcher.mode}); Ctrl+C stops", flush=True)
        try:
            while not cancel.cancelled:
                time.sleep(0.2)
        finally:
            lib.stop_watching()
    print("stopped watching", flush=True)
    return 0


def cmd_status(args, config: Config, progress, cancel) -> int:
    with _library(config, create=False) as lib:
        st = lib.status()
    code = _status_exit_code(st) if args.check else 0
    if args.json:
        print(json.dumps(st.to_json()))
        return code
    print(f"library: {printable(st.data_dir)}")
    for r in st.roots:
        print(f"  {printable(r.path)}: {r.files} files, {r.chunks} passages"
              + (f"  [MISSING: {printable(r.reason)}; kept and searchable, `searchapp remove` forgets it]" if r.missing else ""))
    if not st.roots:
        print("  (no folders yet: `searchapp index PATH`)")
    by = ", ".join(f"{n} {s}" for s, n in sorted(st.files.items())) or "0"
    print(f"files: {by}; passages: {st.chunks}; vectors: {st.vectors}; consistent: {'yes' if st.consistent else 'NO'}")
    b = st.bi_encoder
    print(printable(f"bi-encoder: {b['spec']} ({b['pooling']} pooling)" + (
        f"; library built with {b['library_model']} ({b['library_pooling']})" if b["library_model"] else "")))
    rr = st.reranker
    print(printable(f"reranker: {rr['path'] if rr['available'] == 'yes' else 'not available'}"
                    + (f" — {rr['message']}" if rr["message"] else "")))
    print(f"device: {st.device}")
    for n in st.notes:
        print(f"note: {printable(n)}")
    if st.reindex_needed:
        print(f"reindex needed: {printable(st.reindex_needed)}")
    if st.failed:
        print(f"not indexed ({len(st.failed)}):")
        for path, status, reason in st.failed:
            print(f"  [{status}] {printable(path)}: {printable(reason)}")
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
    with _library(config, create=False) as lib:
        n = lib.remove_folder(args.path)
    print(f"removed {printable(os.path.abspath(args.path))} ({n} files)")
    return 0


def cmd_reindex(args, config: Config, progress, cancel) -> int:
    with _library(config, create=False) as lib:
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
        print(f"searchapp: error: {printable(args.dir)} is not a folder", file=sys.stderr)
        return 2
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    result = evaluate_ir(Path(args.dir), config, modes=modes, rerank=False if args.no_rerank else None,
                         split=args.split, max_queries=args.max_queries, progress=progress, cancel=cancel,
                         strict=args.strict)
    progress.close()
    from ..evaluation.judgements import describe

    dangling = describe(result["judgement_problems"])
    if dangling:
        print(f"searchapp: warning: {printable(dangling)}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{printable(result['collection'])}: {result['documents']} documents ({result['chunks']} passages, "
          f"indexed in {result['index_seconds']:.0f} s), {result['queries']} queries")
    print(f"{'mode':<16}{'nDCG@10':>9}{'MRR@10':>9}{'R@10':>8}{'R@100':>8}{'ms/query':>10}")
    for name, m in result["modes"].items():
        print(f"{printable(name):<16}{m['ndcg@10'] * 100:>9.2f}{m['mrr@10'] * 100:>9.2f}{m['recall@10'] * 100:>8.2f}"
              f"{m['recall@100'] * 100:>8.2f}{m['ms_per_query']:>10.1f}")
    if result["reranker"] not in ("yes", "not requested"):
        print(f"note: no reranked rows: {printable(result['reranker'])}", file=sys.stderr)
    return 0


def cmd_config(args, config: Config, progress, cancel) -> int:
    from ..base.config_toml import config_as_toml, setting_sources

    sources = setting_sources(config, data_dir=args.data_dir, config_file=args.config)
    # Paths (the --config file, the data dir) may hold control characters: escaped the TOML way, so the
    # output stays pasteable into a config file and never drives the terminal.
    text = config_as_toml(config, sources)
    sys.stdout.write("\n".join(printable(line, toml=True) for line in text.split("\n")))
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
    "similar": discover.cmd_similar,
    "duplicates": discover.cmd_duplicates,
    "train": train_eval.cmd_train,
    "config": cmd_config,
    "models": models_cli.cmd_models,
    "gui": cmd_gui,
}
