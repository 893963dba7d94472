"""`searchapp search QUERY|-`: hybrid, dense or lexical retrieval, reranked when possible.

`similar` and `duplicates` (discover.py) register right after it; `similar` shares its filter options
(cli/filter_options.py).
"""

from __future__ import annotations

import sys

from ...base.config import Config
from ...base.terminal import printable, use_color
from ..filter_options import add_filter_options, filters_from
from ..open_library import open_library as _library
from ..options import query_may_start_with_a_dash

__all__ = ["register", "cmd_search"]


def register(sub) -> None:
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
    s.add_argument("--literal", action="store_true",
                   help='search the words as typed: no query syntax ("phrases", -word, OR, word*, type:, in:, ...)')
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--no-color", action="store_true", help="never mark query words in bold (also: NO_COLOR set)")
    add_filter_options(s)
    query_may_start_with_a_dash(s)
    s.set_defaults(handler=cmd_search)


def cmd_search(args, config: Config, progress, cancel) -> int:
    from ...base.errors import ConfigError
    from ...library.query.check import EMPTY_QUERY, is_empty_query
    from ...library.query.help import marked_text
    from ...library.query.saved import SearchHistory
    from ...library.search.result import UNSEARCHABLE
    from ..search_output import empty_json, hit_line, print_hits, result_json

    if args.query != "-" and is_empty_query(args.query):
        raise ConfigError(EMPTY_QUERY)
    if args.no_rerank:
        config = config.replace(search={"rerank": False})
    filters = filters_from(args)
    with _library(config, create=False) as lib:
        if args.reranker and config.search.rerank:
            lib.require_reranker()  # named on the command line: load it or fail (exit 5), never fall back
        notice_shown = False

        def search(query: str):
            return lib.search(query, k=args.k, mode=args.mode, candidates=args.candidates, filters=filters,
                              group=args.group, literal=args.literal)

        def say(res, line: str = "") -> None:
            """The parser's warnings (an unknown field, an unbalanced quote: said, never an error), then the
            search's notices, once per run."""
            nonlocal notice_shown
            for warning in res.warnings:
                print(f"searchapp: {line}note: {printable(warning)}", file=sys.stderr)
            if not notice_shown:
                for notice in res.notices:
                    print(f"searchapp: note: {printable(notice.text)}", file=sys.stderr)
                    notice_shown = True

        if args.query == "-":
            # One output line per input line, blank lines included, so outputs line up with inputs.
            for n, line in enumerate(sys.stdin, start=1):
                q = line.strip()
                res = search(q)
                problem = res.said(UNSEARCHABLE)
                if problem:
                    print(f"searchapp: line {n}: {printable(problem)}", file=sys.stderr)
                    print(empty_json(q, res.mode, problem, res.warnings) if args.json else hit_line(q, None),
                          flush=True)
                    continue
                say(res, f"line {n}: ")
                print(result_json(res) if args.json else hit_line(q, res), flush=True)
            return 0
        res = search(args.query)
        say(res)
        if not lib.read_only:  # one query a person typed (not `search -`'s lines); nothing beside a read-only library
            history = SearchHistory(config)
            if not history.record(args.query, res.mode) and history.problem:
                print(f"searchapp: warning: {printable(history.problem)}", file=sys.stderr)
        if args.json:
            print(result_json(res, res.notice if not res.hits else None))
            return 0
        print_hits(res, color=use_color(sys.stdout, no_color=args.no_color),
                   marks=marked_text(args.query, args.literal))
    return 0
