"""A thin client's whole `searchapp search`, `status` or `similar` command (cli/entry.py), run inside the warm
process that serves the library: parsed by the command line's own parser, searched through the server's checks
(library/warm/server.WarmServer.search: the same settings, the same folder and time zone where the query reads
them) and printed into strings by the command line's own printing (commands/search.run_search, commands/status.
print_status, commands/discover.print_similar), so the thin client prints what the full command line would have.
A served `status` is this process's view: its index followed to the last commit, its quick_check at most a
minute old.

Declined (protocol.Refused, the thin client then runs the full command line) whenever the command is not one this
process can answer as asked: arguments argparse would complain about or answer itself (help, usage errors: it
would print them into this process, so it never prints here), `search -` without one of its lines (the full
command line asks a line at a time: the request's `line`, answered as run_search prints that line), `--direct`,
`--reranker`, `status --files`, SEARCHAPP_NO_WARM, a data dir that is not this library's, other settings, an
error (the full command line says it, with its exit code).
"""

from __future__ import annotations

import argparse
import io
import os
import threading
from typing import TYPE_CHECKING, Any, Mapping, NoReturn, Optional, TextIO

from ..base.errors import SearchAppError
from ..base.terminal import color_wanted
from ..library.warm.protocol import VERSION, Refused, config_key
from .warm_argv import WARM_COMMANDS, command_word

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from ..base.config import Config
    from ..library.search.result import SearchResult
    from ..library.warm.library_protocol import CommandLibrary, ServedSearch
    from .commands.search import Said

__all__ = ["run_command"]


class _Quiet(argparse.ArgumentParser):
    """A parser that declines instead of printing or exiting (help, version, usage errors)."""

    def _print_message(self, message: str, file: Optional[SupportsWrite[str]] = None) -> None:
        raise Refused("not-served", "the command prints argparse's own output")

    def exit(self, status: int = 0, message: Optional[str] = None) -> NoReturn:
        raise Refused("not-served", "argparse would exit")

    def error(self, message: str) -> NoReturn:
        raise Refused("not-served", f"argparse: {message}")


_parser_lock = threading.Lock()
_parsers: dict[str, argparse.ArgumentParser] = {}


def _parse(argv: list[str]) -> argparse.Namespace:
    group = WARM_COMMANDS.get(command_word(argv) or "")
    if group is None:
        raise Refused("not-served", "the full command line runs this one")
    with _parser_lock:  # built once per process and group, read by one server thread at a time
        if group not in _parsers:
            from .parser import build_parser

            _parsers[group] = build_parser((group,), parser_class=_Quiet)
        return _parsers[group].parse_args(argv)


def _absolute(path: str, ctx: Mapping[str, Any]) -> str:
    """`path` as the client's os.path.abspath(os.path.expanduser(path)) reads it, in the client's folder and
    home (the client's `~user` is this machine's passwd entry, as here)."""
    return os.path.normpath(_rooted(path, ctx))


def _rooted(path: str, ctx: Mapping[str, Any]) -> str:
    """`path` with the client's `~` expanded and joined to the client's folder, not normalised: what this process
    does with it afterwards (a member key's `a.zip//m.txt` must keep its `//`) is what the client's would."""
    if path == "~" or path.startswith("~/"):
        path = str(ctx["home"]) + path[1:]
    else:
        path = os.path.expanduser(path)
    return os.path.join(str(ctx["cwd"]), path)


class _Answered:
    """What commands/search.run_search asks of a searcher, for one query the server has searched."""

    served_by = "warm"
    read_only = False

    def __init__(self, config: Config, res: SearchResult, marks: str, history: Optional[str]) -> None:
        self.config, self._res, self.marks, self.history = config, res, marks, history

    def search(self, query: str, *, single: bool) -> SearchResult:
        return self._res

    def line_served(self, n: int, line: str, said: Said, out: TextIO, err: TextIO) -> bool:
        return False  # searched here (self._res), printed by run_search as the full command line prints it


def run_command(request: dict[str, Any], library: CommandLibrary, search: ServedSearch) -> dict[str, Any]:
    """The reply to a checked "command" request (library/warm/protocol.py) for the open `library`; `search`: the
    server's (search request -> (SearchResult, marks, history)). Raises Refused to decline."""
    from ..base.config import load_config
    from .options import check_options

    env: dict[str, str] = request["env"]
    ctx = request["context"]
    args = _parse(list(request["argv"]))
    if args.command not in WARM_COMMANDS or env.get("SEARCHAPP_NO_WARM", "") not in ("", "0"):
        raise Refused("not-served", "the full command line runs this one")
    # The socket the client found is where it read the data dir to be; argparse must read it the same way.
    named = args.data_dir or env.get("SEARCHAPP_DATA_DIR") or None
    if (named is not None) != request["data_dir_given"] or (named is not None
                                                            and _absolute(named, ctx) != request["data_dir"]):
        raise Refused("data-dir", "the data dir was read otherwise")
    try:
        same = os.path.samefile(request["data_dir"], library.config.data_dir)
    except OSError:
        same = False
    if not same:
        raise Refused("data-dir", "another library's data dir")
    try:
        check_options(args)
        theirs = load_config(request["data_dir"], _absolute(args.config, ctx) if args.config else None, env=env)
    except SearchAppError as exc:  # said by the full command line, with its exit code
        raise Refused("error", str(exc)) from None
    key = config_key(theirs)
    if key != config_key(library.config):
        raise Refused("config", "the settings differ from this process's")
    out, err = io.StringIO(), io.StringIO()
    if args.command == "status":
        code = _status(args, library, out)
    elif args.command == "similar":
        code = _similar(args, request, library, out)
    else:
        code, said = _search(args, request, theirs, key, search, out, err)
        if said is not None:
            return {"v": VERSION, "ok": True, "stdout": out.getvalue(), "stderr": err.getvalue(), "code": code,
                    "said": said}
    return {"v": VERSION, "ok": True, "stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


def _search(args: argparse.Namespace, request: dict[str, Any], config: Config, key: str, search: ServedSearch,
            out: io.StringIO, err: io.StringIO) -> tuple[int, Optional[bool]]:
    """(exit code, and for a line of `search -` whether the run has said its notices now)."""
    from .commands.search import Said, run_search, searched_today, warm_request

    line = request.get("line")
    if args.direct or args.reranker or (args.query == "-") != (line is not None):
        raise Refused("not-served", "the full command line runs this one")  # `search -` is asked a line at a time
    ctx, env = request["context"], request["env"]
    color = color_wanted(request["tty"], no_color=args.no_color, env=env)
    # --in folders as the client reads them (its folder and home): "no such folder here" is said of those
    args.within = [_absolute(p, ctx) for p in args.within or [] if p]
    if line is None:
        told = not args.json and searched_today(config)  # before the search below records this one
        res, marks, history = search(warm_request(args, key, ctx, args.query, True, lambda f: _absolute(f, ctx)))
        return run_search(args, _Answered(config, res, marks, history), out=out, err=err, color=color,
                          told=told), None
    res, _, _ = search(warm_request(args, key, ctx, line["text"].strip(), False, lambda f: _absolute(f, ctx)))
    said = Said(line["said"])
    code = run_search(args, _Answered(config, res, "", None), out=out, err=err, color=color, lines=[line["text"]],
                      first_line=line["n"], said=said)
    return code, said.notice_shown


def _similar(args: argparse.Namespace, request: dict[str, Any], library: CommandLibrary, out: io.StringIO) -> int:
    """`searchapp similar` from the open library: PATH and --in folders read in the client's folder and home,
    dates in its time zone (declined where that is not this process's)."""
    from ..library.query.filters import SearchFilters
    from ..library.warm.protocol import context
    from .commands.discover import print_similar

    ctx = request["context"]
    if (args.after or args.before) and ctx.get("tz") != context()["tz"]:
        raise Refused("context", "dates are read in the time zone, and it differs")
    try:
        f = SearchFilters.build([_absolute(p, ctx) for p in args.within or [] if p], args.types or [], args.after,
                                args.before)
        # PATH as the client reads it: relative to the client's folder, not to this process's
        res = library.similar(_rooted(args.path, ctx), page=args.page, k=args.k, filters=f if f.active else None)
    except SearchAppError as exc:  # said by the full command line, with its exit code
        raise Refused("error", str(exc)) from None
    return print_similar(args, res, out)


def _status(args: argparse.Namespace, library: CommandLibrary, out: io.StringIO) -> int:
    """`searchapp status` from the open library: its index followed to the last commit, SQLite's quick_check at
    most a minute old (library/resources/integrity.py); this process is the one answering searches."""
    from .commands.status import print_status

    if args.files or args.within:  # a listing of files: read straight from SQLite by the full command line
        raise Refused("not-served", "the full command line runs this one")
    try:
        st = library.status(fresh_check=bool(args.check))
    except SearchAppError as exc:
        raise Refused("error", str(exc)) from None
    return print_status(args, st, os.getpid(), out)
