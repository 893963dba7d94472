"""`searchapp search QUERY|-`: hybrid, dense or lexical retrieval, reranked when possible.

`similar` and `duplicates` (discover.py) register right after it; `similar` shares its filter options
(cli/filter_options.py).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Protocol, TextIO

from ...base.config import Config
from ..global_options import add_no_color
from ...base.errors import ConnectionLost, DataDirError, StoreError
from ...base.search_modes import SEARCH_MODES
from ...base.terminal import printable, use_color
from ..filter_options import add_filter_options, filters_from
from ..open_library import open_local_library as _library
from ..options import query_may_start_with_a_dash
from ..typed_text import typed_lines, typed_text

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ...library import Library
    from ...library.query.filters import SearchFilters
    from ...library.search.result import SearchResult
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_search", "run_search", "warm_request", "MEANING_WAIT"]

# Seconds a direct hybrid search waits for the vector index to open before it answers by words (with Python's
# start-up and the library's open, about 2 s from the command's start); `--wait` waits for it however long.
MEANING_WAIT = 1.5


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("search", help="search the library")
    s.add_argument("query", type=typed_text,
                   help="the query; '-' reads one query per line from standard input and prints one line "
                   "per input line (tab-separated: query, then each hit; JSON lines with --json)")
    s.add_argument("--k", type=int, help="number of hits (default from config: 10)")
    s.add_argument("--mode", choices=SEARCH_MODES, help="retrieval mode (default hybrid)")
    s.add_argument("--no-rerank", action="store_true", help="skip the cross-encoder")
    s.add_argument("--reranker", metavar="PATH", help="cross-encoder folder or Hugging Face id (overrides config)")
    s.add_argument("--candidates", type=int, help="candidates per retriever, reranked (default 50)")
    s.add_argument("--group", choices=["file", "passage"],
                   help="file: each file once with its other matching passages (default); passage: every passage a row")
    s.add_argument("--literal", action="store_true",
                   help='search the words as typed: no query syntax ("phrases", -word, OR, word*, type:, in:, ...)')
    s.add_argument("--json", action="store_true", help="print JSON")
    add_no_color(s)
    s.add_argument("--wait", action="store_true",
                   help="wait for the vector index however long it takes to open: a hybrid search of a big library "
                        "otherwise answers by its words alone after about 2 s (said in a note and in --json)")
    s.add_argument("--direct", action="store_true",
                   help="open the library here even when `searchapp watch` or the window serves it (also: "
                        "SEARCHAPP_NO_WARM=1)")
    add_filter_options(s)
    query_may_start_with_a_dash(s)
    s.set_defaults(handler=cmd_search)


def cmd_search(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    searcher = _Searcher(args, config)
    try:
        code = searcher.whole_command() if args.query != "-" else None
        return run_search(args, searcher) if code is None else code
    finally:
        searcher.close()


class Searcher(Protocol):
    """What run_search asks of a searcher: _Searcher here, a shared library's (commands/shared.py) or a warm
    process's answer (cli/warm_run.py). Read-only properties: a plain attribute of a narrower type fits."""

    @property
    def served_by(self) -> str: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def marks(self) -> Optional[str]: ...
    @property
    def history(self) -> Optional[str]: ...
    @property
    def config(self) -> Config: ...

    def line_served(self, n: int, line: str, said: Said, out: TextIO, err: TextIO) -> bool: ...

    def search(self, query: str, *, single: bool) -> SearchResult: ...


class Said:
    """Whether a run of `search -` has said the search's notices (once per run, across the lines the warm process
    answers and those answered here)."""

    def __init__(self, notice_shown: bool = False) -> None:
        self.notice_shown = notice_shown


def run_search(args: argparse.Namespace, searcher: Searcher, out: Optional[TextIO] = None, err: Optional[TextIO] = None,
               color: Optional[bool] = None, lines: Optional[Iterable[str]] = None, first_line: int = 1,
               said: Optional[Said] = None, told: Optional[bool] = None) -> int:
    """Search and print, as `searchapp search` does: results on `out`, notes on `err` (default: standard output
    and error), query words marked when `color` (default: use_color of standard output). `searcher`: a _Searcher,
    or what a warm process runs a thin client's command with (cli/warm_run.py). `search -` reads `lines` (default:
    standard input), numbered from `first_line`, with `said` carried over (a warm process answers one line)."""
    from ...library.search.result import LOADING, OF_THE_QUERY, OUTSIDE, PLACE, RERANKER, UNSEARCHABLE, WHY_EMPTY
    from ..search_output import print_hits, result_json

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    said = Said() if said is None else said
    # Whether the missing reranker's note was said today: read before this search is recorded (here; a warm process
    # that records it as it answers reads it first and passes it: `told`)
    if told is None:
        told = lines is None and args.query != "-" and not args.json and searched_today(searcher.config)

    def say(res: SearchResult, line: str = "", result_line: bool = False) -> None:
        """The parser's warnings (an unknown field, an unbalanced quote: said, never an error), then the
        search's notices: those about its query (OF_THE_QUERY) each time, with its line; the others once per run.
        `result_line`: why the filters left nothing is said on the "no results" line (print_hits), not here, nor
        the in: place that reason names (OUTSIDE) a second time."""
        skip = (set(WHY_EMPTY) | ({PLACE} if res.said(OUTSIDE) else set())) if result_line else set()
        for warning in res.warnings:
            note(f"searchapp: {line}note: {printable(warning)}", out, err)
        for notice in res.notices:
            if notice.kind in OF_THE_QUERY and notice.kind not in skip:
                note(f"searchapp: {line}note: {printable(notice.text)}", out, err)
        if not said.notice_shown:
            for notice in res.notices:
                if notice.kind == RERANKER and told:
                    continue
                if notice.kind not in OF_THE_QUERY:
                    more = " (--wait waits for meaning)" if notice.kind == LOADING else ""
                    note(f"searchapp: note: {printable(notice.text)}{more}", out, err)
                    said.notice_shown = True

    if args.query == "-":
        # One output line per input line, blank lines included, so outputs line up with inputs.
        lost, retry = 0, _Retry()  # lines a shared library's lost connection failed (decisions 0125, 0171)
        for n, line in enumerate(typed_lines(sys.stdin if lines is None else lines), start=first_line):
            if not searcher.line_served(n, line, said, out, err):
                lost += _answer_line(args, searcher, n, line.strip(), retry, say, out, err)
        return 3 if lost else 0  # the exit code of a lost shared library (docs/cli.md), once every line is answered
    res = searcher.search(args.query, single=True)
    say(res, result_line=not args.json)
    if not res.hits:  # say what a person cannot see, or "No results" is all they get
        _why_nothing(args, searcher.config, res, out, err)
    if not searcher.read_only:  # one query a person typed (not `search -`'s lines); nothing beside a read-only library
        problem = searcher.history if searcher.history is not None else _record(searcher.config, args.query, res.mode)
        if problem:
            note(f"searchapp: warning: {printable(problem)}", out, err)
    if args.json:
        # `notice` says why a query could not be searched; a missing reranker is no reason for no hits
        print(result_json(res, res.said(UNSEARCHABLE) if not res.hits else None, served_by=searcher.served_by), file=out)
        return 0
    color = use_color(sys.stdout, no_color=args.no_color) if color is None else color
    print_hits(res, color=color, marks=searcher.marks, out=out)
    return 0


def _answer_line(args: argparse.Namespace, searcher: Searcher, n: int, q: str, retry: "_Retry",
                 say: Callable[..., None], out: TextIO, err: TextIO) -> int:
    """Line `n` of `search -` (query `q`) answered on `out`, its notes on `err`; 1 when a shared library's lost
    connection failed it (its line then has no hits; the next line connects again), else 0."""
    from ..search_output import empty_json, hit_line, result_json
    from ...library.search.result import UNSEARCHABLE

    try:
        res = _line_search(searcher, q, n, retry, out, err)
    except StoreError as exc:
        if not searcher.config.library.address:  # a desktop library's damage is no line's alone
            raise
        note(f"searchapp: line {n}: error: {printable(str(exc))}", out, err)
        print(empty_json(q, args.mode or searcher.config.search.mode, str(exc), [], searcher.served_by) if args.json
              else hit_line(q, None), file=out, flush=True)
        return 1
    problem = res.said(UNSEARCHABLE)
    if problem:
        note(f"searchapp: line {n}: {printable(problem)}", out, err)
        print(empty_json(q, res.mode, problem, res.warnings, searcher.served_by) if args.json
              else hit_line(q, None), file=out, flush=True)
        return 0
    say(res, f"line {n}: ")
    print(result_json(res, served_by=searcher.served_by) if args.json else hit_line(q, res), file=out, flush=True)
    return 0


RETRY_WAITS_S = (0.5, 1.0, 2.0, 4.0, 8.0)  # a server restarting: ~15 s in all, then the line is lost


class _Retry:
    """How long `search -` asks a line again after a shared library's connection failed it (decision 0171): while
    an outage lasts, each wait of RETRY_WAITS_S once, so a restart of a few seconds loses no line; past them, each
    line one try until one is answered (a server gone for good fails every line at once, not 15 s a line)."""

    def __init__(self) -> None:
        self.waits = list(RETRY_WAITS_S)

    def answered(self) -> None:
        self.waits = list(RETRY_WAITS_S)

    def next_wait(self) -> Optional[float]:
        return self.waits.pop(0) if self.waits else None


def _line_search(searcher: "Searcher", q: str, n: int, retry: _Retry, out: TextIO, err: TextIO) -> "SearchResult":
    """One line of `search -`: asked again while `retry` allows when a shared library's connection failed it."""
    import time

    while True:
        try:
            res = searcher.search(q, single=False)
        except ConnectionLost as exc:
            wait = retry.next_wait()
            if wait is None:
                raise
            note(f"searchapp: line {n}: {printable(exc.retried)}; asking again in {wait:g} s", out, err)
            time.sleep(wait)
            continue
        retry.answered()
        return res


def note(text: str, out: TextIO, err: TextIO) -> None:
    """One line on `err`, on a line of its own: what `out` holds is written first (stdout, a pipe, is buffered: a
    note written while a result line sat there could land inside it)."""
    out.flush()
    print(text, file=err, flush=True)


def _why_nothing(args: argparse.Namespace, config: Config, res: SearchResult, out: TextIO, err: TextIO) -> None:
    """Beside no results: a --in folder that is not there (a typo filters everything out), and a sync writing the
    library now (a first one commits as it goes: the same search finds more in a moment), unless no sync can
    change the answer (a type no file has and no reader takes, a place outside every indexed folder): said as the
    reason, it sent a person to wait for nothing."""
    from ...library.resources.lock import writer_holder_info
    from ...library.search.result import ABSENT, OUTSIDE

    for folder in getattr(args, "within", None) or []:
        if not os.path.exists(os.path.expanduser(folder)):
            note(f"searchapp: note: --in {printable(folder)}: no such folder here", out, err)
    holder = None if res.said(ABSENT, OUTSIDE) else writer_holder_info(config.data_dir)
    if holder is not None:
        note(f"searchapp: note: {printable(str(holder))} is indexing this library now: search again in a moment",
             out, err)


def searched_today(config: Config) -> bool:
    """Whether this library's search history holds a search made today (local time), by the command line or the
    window. The note that no reranker runs came with every search of a fresh install (none ships): a newcomer read
    it as noise by the tenth. So it comes with the day's first search; `status` says it always, `--json` carries
    it, the window keeps its notice. No history kept ([search] history = 0): said every time, as before."""
    from ...library.query.saved import SearchHistory

    try:
        entries = SearchHistory(config).entries()
    except (StoreError, DataDirError):  # no history to read: say the note
        return False
    midnight = datetime.datetime.combine(datetime.date.today(), datetime.time()).timestamp()
    return any(at >= midnight for _query, _mode, at in entries[:1])


def _record(config: Config, query: str, mode: str) -> Optional[str]:
    """Keep `query` in the search history; why not, when it was not kept for a reason worth saying."""
    from ...library.query.saved import SearchHistory  # SQLite: a served search's server records it instead

    history = SearchHistory(config)
    return None if history.record(query, mode) else history.problem


def warm_request(args: argparse.Namespace, config_key: str, context: dict[str, Any], query: str, single: bool,
                 absolute: Callable[[str], str]) -> dict[str, Any]:
    """What the warm process's search (library/warm/server.WarmServer.search) is asked for `query` under the
    parsed `args` of a command it runs (cli/warm_run.py). `absolute`: makes an --in folder absolute (expanded `~`,
    then joined to the folder the command runs in)."""
    a = args
    within = [absolute(f) for f in (getattr(a, "within", None) or []) if f]
    types, after, before = getattr(a, "types", None) or [], getattr(a, "after", None), getattr(a, "before", None)
    filters = ({"within": within, "types": list(types), "after": after, "before": before}
               if within or types or after or before else None)
    return {"config": config_key, "context": context,
            "query": query, "k": a.k, "mode": a.mode, "candidates": a.candidates, "group": a.group,
            "literal": a.literal, "rerank": False if a.no_rerank else None, "check_empty": single,
            "filters": filters, "meaning_wait": None if a.wait else MEANING_WAIT,
            "record": single}  # one query a person typed goes in the history (as run_search records a direct one)


class _Searcher:
    """The warm index first (a long-lived process answers over a private socket: library/warm/): the whole
    command (whole_command), or one line of `search -` at a time (line_served), asked as the thin entry point asks
    (cli/warm_ask.ask_command: the one op); else the library opened here, once, on first need. Either way the same
    Library.search runs with the same settings, and the same code prints it."""

    def __init__(self, args: argparse.Namespace, config: Config) -> None:
        self.args, self.config = args, config
        self.served_by = "direct"
        self.read_only = False
        self.marks: Optional[str] = None  # None: the query's own words (print_hits)
        self.history: Optional[str] = None  # the warm process recorded the query: "" kept, else why not
        self._lib: Optional[Library] = None  # opened on first need (a shared library's search: commands/shared.py)
        self._filters: Optional[SearchFilters] = None
        # Asked only with the settings a server can share: a reranker named here must load here (exit 5 if not).
        # Not asked again after the thin entry point's whole command was declined (cli/entry.py: `skip_warm`).
        self._warm = not (getattr(args, "direct", False) or os.environ.get("SEARCHAPP_NO_WARM", "") not in ("", "0")
                          or getattr(args, "reranker", None) or getattr(args, "skip_warm", False))

    def whole_command(self) -> Optional[int]:
        """The exit code of this command answered and printed by the warm process, or None: run it here."""
        from ..warm_ask import write_reply

        reply = self._ask(None)
        return None if reply is None else write_reply(reply)

    def line_served(self, n: int, line: str, said: Said, out: TextIO, err: TextIO) -> bool:
        """Whether the warm process answered line `n` of `search -` (printed on `out` and `err`)."""
        from ..warm_ask import write_reply

        reply = self._ask({"n": n, "text": line, "said": said.notice_shown})
        if reply is None:
            return False
        write_reply(reply, out, err)
        said.notice_shown = bool(reply.get("said", said.notice_shown))
        return True

    def _ask(self, line: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
        """The warm process's reply to this command as typed (argv), on the data dir argparse read; once one is
        declined, none is asked again in this run."""
        if not self._warm or getattr(self.args, "argv", None) is None:
            return None
        from ..warm_ask import ask_command

        named = self.args.data_dir or os.environ.get("SEARCHAPP_DATA_DIR") or None
        data_dir = os.path.abspath(os.path.expanduser(named)) if named else str(self.config.data_dir)
        reply, _ = ask_command(self.args.argv, data_dir, named is not None, line)
        if reply is None:
            self._warm = False
        return reply

    def search(self, query: str, *, single: bool) -> SearchResult:
        return self._search_here(query, single)

    def _search_here(self, query: str, single: bool) -> SearchResult:
        from ...base.errors import ConfigError
        from ...library.query.check import EMPTY_QUERY, is_empty_query

        a = self.args
        if single and is_empty_query(query):
            raise ConfigError(EMPTY_QUERY)
        if self._lib is None:
            self._filters = filters_from(a)
            config = self.config.replace(search={"rerank": False}) if a.no_rerank else self.config
            self._lib = _library(config, create=False)
            self.read_only = self._lib.read_only
            if a.reranker and config.search.rerank:
                self._lib.models.require_reranker()  # named on the command line: load it or fail (exit 5), never fall back
            if not a.wait and (a.mode or config.search.mode) == "hybrid":
                # Opened beside the words search; not begun when it could not be ready within MEANING_WAIT (it
                # would hold the interpreter lock past it: library/resources/background_load.py). A small index just loads.
                self._lib.load_in_background(give_up_after=MEANING_WAIT)
        self.served_by = "direct"
        if single:
            from ...library.query.help import marked_text

            self.marks = marked_text(query, a.literal)
        return self._lib.search(query, k=a.k, mode=a.mode, candidates=a.candidates, filters=self._filters,
                                group=a.group, literal=a.literal, meaning_wait=None if a.wait else MEANING_WAIT)

    def close(self) -> None:
        if self._lib is not None:
            self._lib.close()
