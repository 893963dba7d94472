"""`searchapp saved list|add|run|remove` (saved searches, "smart folders") and `searchapp history list|clear`.

Both live in <data-dir>/searches.sqlite (library/query/saved.py says what is kept and how "new" is counted).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ...base.config import Config
from ..global_options import add_no_color
from ...base.search_modes import SEARCH_MODES
from ...base.plural import counted
from ...base.terminal import printable, use_color
from ..open_library import open_library as _library
from ..options import query_may_start_with_a_dash
from ..typed_text import typed_text

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ...library import Library
    from ...library.query.saved import SavedSearch, SavedSearches
    from ...library.search.result import SearchResult
    from ...library.shared import SharedLibrary
    from ..progress import TerminalProgress

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("saved", help="saved searches: list (the default; with new hits since last opened), add, run, "
                       "remove")
    # No ACTION lists them, as its help says ("list or ..."): a bare `saved` or `history` was a usage error. Its
    # --json is the list's: given before or after `list` (the action's own default must not undo the first).
    s.set_defaults(handler=cmd_saved_list)
    s.add_argument("--json", action="store_true", help="with no ACTION: list as JSON")
    ss = s.add_subparsers(dest="saved_command", metavar="ACTION")
    p = ss.add_parser("list", help="every saved search with how many new files it lists since it was last run")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_saved_list)
    p = ss.add_parser("add", help="save QUERY (fields like type:pdf included) as NAME and run it once")
    p.add_argument("name", metavar="NAME", type=typed_text, help="the name to run it by")
    p.add_argument("query", metavar="QUERY", type=typed_text, help="what to search, as `searchapp search` takes it")
    p.add_argument("--mode", choices=SEARCH_MODES, help="retrieval mode (default from config)")
    p.add_argument("--k", type=int, help="files in its list (default from config: 10)")
    p.add_argument("--literal", action="store_true", help="search the words as typed (no query syntax)")
    p.add_argument("--replace", action="store_true", help="replace a saved search of the same name")
    query_may_start_with_a_dash(p)
    p.set_defaults(handler=cmd_saved_add)
    p = ss.add_parser("run", help="run a saved search (its new hits are then no longer new)")
    p.add_argument("name", metavar="NAME", type=typed_text, help="its name, as `searchapp saved list` shows it")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print JSON (as `search --json`, plus `saved`)")
    add_no_color(p)
    p.set_defaults(handler=cmd_saved_run)
    p = ss.add_parser("remove", help="forget a saved search")
    p.add_argument("name", metavar="NAME", type=typed_text, help="its name, as `searchapp saved list` shows it")
    p.set_defaults(handler=cmd_saved_remove)

    h = sub.add_parser("history", help="recent queries (kept privately in the data dir): list (the default) or clear")
    h.set_defaults(handler=cmd_history_list)
    h.add_argument("--json", action="store_true", help="with no ACTION: list as JSON")
    hs = h.add_subparsers(dest="history_command", metavar="ACTION")
    p = hs.add_parser("list", help="recent queries, newest first")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_history_list)
    p = hs.add_parser("clear", help="forget every recent query")
    p.set_defaults(handler=cmd_history_clear)


def _saved(lib: Library | SharedLibrary) -> SavedSearches[SearchResult]:
    from ...library.query.saved import SavedSearches

    return SavedSearches(lib)


def cmd_saved_list(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    with _library(config, create=False) as lib:
        items = _saved(lib).refresh()  # re-runs only those not yet counted since the library last changed
        away = _away(lib, items)
    if args.json:
        print(json.dumps({"saved": [s.to_json() for s in items]}))
        return 0
    if not items:
        print("no saved searches (`searchapp saved add NAME QUERY` keeps one)")
    for s in items:
        new = f"{s.new_hits} new" if s.new_hits else "nothing new"
        where = f"; {away[s.name]}" if away[s.name] else ""
        print(f"{printable(s.name)}\t{new} ({counted(s.hits, 'file')}{where})\t{s.mode}\t{printable(s.query)}")
    return 0


def _away(lib: Library | SharedLibrary, items: list[SavedSearch]) -> dict[str, str]:
    """What `saved list` says of each saved search whose in: names no folder of the library (moved away: a
    newcomer's "Ducks" read "nothing new (0 files)" without a word of why), "" of the others: by the rule its
    search says it by (Library.unplaced, SharedLibrary.unplaced: one rule, either library), the library asked
    once for them all."""
    from ...library.query.syntax import parse_query
    from ...library.search.places import place_text

    typed = {s.name: parse_query(s.query, s.literal).folders for s in items}
    away = set(lib.unplaced(list(dict.fromkeys(f for folders in typed.values() for f in folders))))
    return {name: place_text([f for f in folders if f in away]) or "" for name, folders in typed.items()}


def cmd_saved_add(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    with _library(config, create=False) as lib:
        res = _saved(lib).add(args.name, args.query, mode=args.mode, k=args.k, literal=args.literal,
                              replace=args.replace)
    from ...library.query.saved import counted_hits

    # the number `saved list` says: weak matches (the nearest there is) are not counted (a newcomer read 10, then 4)
    print(f"saved {printable(args.name.strip())}: {counted(len(counted_hits(res.hits)), 'file')} now; "
          "new ones are counted from here")
    return 0


def cmd_saved_run(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library.query.help import marked_text
    from ...library.search.result import LISTING, PLACE, UNSEARCHABLE
    from ..search_output import print_hits, result_json
    from .search import searched_today

    # the missing reranker's note comes with the day's first search, as `search` says it: it came with every run
    told = not args.json and searched_today(config)
    with _library(config, create=False) as lib:
        saved = _saved(lib)
        item = saved.get(args.name)
        res = saved.run(args.name)
    said = res.said(UNSEARCHABLE, LISTING) if told else res.notice
    # an in: no folder of the library is at: a saved search naming a folder that moved finds nothing (decision 0157)
    # and while meaning is being added, how far it is, as `search` says it (a saved search's rows lacked it)
    for notice in (*res.warnings, said, res.said(PLACE), res.reindex_notice, res.meaning_notice):
        if notice:
            print(f"searchapp: note: {printable(notice)}", file=sys.stderr)
    if args.json:
        data = json.loads(result_json(res, res.notice if not res.hits else None))
        data["saved"] = item.name
        for shown, hit in zip(data["hits"], res.hits, strict=True):
            shown["new"] = hit.new  # not in its list when it was last opened
        print(json.dumps(data))
        return 0
    print_hits(res, color=use_color(sys.stdout, no_color=args.no_color), marks=marked_text(item.query, item.literal))
    return 0


def cmd_saved_remove(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    with _library(config, create=False) as lib:
        _saved(lib).remove(args.name)
    print(f"removed saved search {printable(args.name)}")
    return 0


def cmd_history_list(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library.query.saved import SearchHistory

    entries = SearchHistory(config).entries()
    if args.json:
        print(json.dumps({"history": [{"query": q, "mode": m, "at": at} for q, m, at in entries]}))
        return 0
    if not entries:  # said on standard error: standard output stays one query a line, none here
        print("no recent queries", file=sys.stderr)
    for q, _, _ in entries:
        print(printable(q))
    return 0


def cmd_history_clear(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library.query.saved import SearchHistory

    n = SearchHistory(config).clear()
    print(f"cleared {n} recent quer{'y' if n == 1 else 'ies'}")
    return 0
