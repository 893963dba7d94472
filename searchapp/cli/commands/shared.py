"""The command line on a shared library (`searchapp --library postgresql://… COMMAND`, or library.address in the
config): index, search, status and reindex run here over SharedLibrary, watch in shared_watch.py; history, saved, explain, similar,
duplicates, remove, undo, moved and the window (gui) are the desktop library's own commands over it (they open a SharedLibrary); config, models,
train and eval never open a library (but `eval ann`, which measures the desktop library's HNSW index, is refused); every other command ends in one line saying it is not there yet (exit 2), before anything
connects. Output is the SQLite library's own (cli/commands/search.run_search prints the hits)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Callable, Optional

from ...base.config import Config
from ...base.terminal import printable
from ...library.shared import NotShared, SharedLibrary, SharedStatus
from ..writer_wait import wait_turn
from .index import print_missing, print_report

if TYPE_CHECKING:
    from argparse import Namespace

    from ...base.progress import CancelToken
    from ...library.search.result import SearchResult
    from ..progress import TerminalProgress

__all__ = ["run_shared", "SHARED_COMMANDS", "ABOVE_THE_STORE", "NO_LIBRARY"]

SHARED_COMMANDS = ("index", "search", "status", "reindex", "watch")  # their shared forms are here
# The desktop library's own commands, run as they are: open_library gives them a SharedLibrary (decision 0124),
# and the window opens one itself (library_for: decision 0141).
ABOVE_THE_STORE = ("history", "saved", "explain", "similar", "duplicates", "remove", "undo", "moved", "gui")
NO_LIBRARY = ("config", "models", "train", "eval")  # never open the library: as without an address


def run_shared(args: Namespace, config: Config, address: str, progress: TerminalProgress, cancel: CancelToken) -> int:
    command = args.command
    handler: Callable[[Namespace, Config, TerminalProgress, CancelToken], int] = args.handler
    if command == "eval" and getattr(args, "eval_command", None) == "ann":  # it measures a library's own index
        raise NotShared("`eval ann`")
    if command in NO_LIBRARY:
        return handler(args, config, progress, cancel)
    config = config.replace(library={"address": address})  # what every layer below reads the address from
    if command in ABOVE_THE_STORE:
        return handler(args, config, progress, cancel)
    if command not in SHARED_COMMANDS:
        raise NotShared(f"the `{command}` command")
    if command == "index":
        return _index(args, config, address, progress, cancel)
    if command == "search":
        return _search(args, config, address)
    if command == "reindex":
        return _reindex(args, config, address, progress, cancel)
    if command == "watch":
        from .shared_watch import watch_shared

        return watch_shared(args, config, address, progress, cancel)
    return _status(args, config, address)


def _reindex(args: Namespace, config: Config, address: str, progress: TerminalProgress, cancel: CancelToken) -> int:
    with SharedLibrary(config, address, create=True) as lib:
        wait_turn(lib, args, cancel)
        rep = lib.reindex(progress=progress, cancel=cancel, embed=not args.words_only)
    progress.close()
    if rep.resumed is not None:
        print(f"searchapp: resumed the reindex begun earlier ({rep.resumed} files were still to read)", file=sys.stderr)
    print(f"re-indexed {rep.added + rep.updated} files into {rep.chunks_added} passages")
    for path, reason in rep.missing_roots:
        print(f"searchapp: error: {printable(path)}: {printable(reason)}; its passages are kept, and the next "
              "`reindex` or `index` reads its files", file=sys.stderr)
    return 1 if rep.missing_roots else 0


def _index(args: Namespace, config: Config, address: str, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library.sync.contract import SyncReport

    with SharedLibrary(config, address, create=True) as lib:
        wait_turn(lib, args, cancel)  # as on the desktop: another process writing its folders is waited for
        total = SyncReport()
        if args.paths:
            total = lib.add_folders(args.paths, progress, cancel, embed=not args.words_only, also=args.also)
        else:
            if not lib.store.roots():
                print("searchapp: nothing to sync on this machine; add a folder with `searchapp --library ADDRESS "
                      "index PATH`", file=sys.stderr)
                return 2
            total = lib.sync(progress=progress, cancel=cancel, embed=not args.words_only)
    progress.close()
    print_report(total, args.json)
    return print_missing(total.missing_roots)  # the desktop's words and advice


class _SharedSearcher:
    """What cli/commands/search.run_search asks of a searcher, over a shared library."""

    served_by = "shared"
    marks: Optional[str] = None
    history: Optional[str] = None  # None: run_search records the query (in the shared library: its config says so)

    def __init__(self, args: Namespace, config: Config, lib: SharedLibrary) -> None:
        self.args, self.config, self.lib = args, config, lib
        self.read_only = lib.read_only  # a role that may not write keeps no history

    def line_served(self, *_: object) -> bool:
        """`search -`: no warm process serves a shared library, every line is answered here."""
        return False

    def search(self, query: str, *, single: bool) -> SearchResult:
        from ...base.errors import ConfigError
        from ...library.query.check import EMPTY_QUERY, is_empty_query
        from ...library.query.help import marked_text
        from ..filter_options import filters_from

        a = self.args
        if single and is_empty_query(query):  # as the desktop's: a usage error (exit 2), not a notice
            raise ConfigError(EMPTY_QUERY)
        if single:
            self.marks = marked_text(query, a.literal)
        return self.lib.search(query, k=a.k, mode=a.mode, rerank=False if a.no_rerank else None,
                               candidates=a.candidates, group=a.group, literal=a.literal, filters=filters_from(a))


def _search(args: Namespace, config: Config, address: str) -> int:
    from .search import run_search

    with SharedLibrary(config, address) as lib:
        return run_search(args, _SharedSearcher(args, config, lib))


def _status(args: Namespace, config: Config, address: str) -> int:
    from .status import ledger_state, print_ledger

    from ...library.shared_check import check_shared, missing_folders

    listing = bool(getattr(args, "files", None) or getattr(args, "within", None))
    state = ledger_state(args) if listing else None  # a wrong state is said before anything connects
    as_json = getattr(args, "json", False)
    with SharedLibrary(config, address) as lib:
        if listing:
            return print_ledger(args, lib, state)
        st = lib.summary()
        st.missing = {(machine, path): why for machine, path, _, why in missing_folders(lib)}
        # The desktop's JSON, its keys and their meaning (this machine's folders, the library's totals), with every
        # machine's folders under "shared": a script reads either engine alike.
        desktop = lib.status()
        # --check: the desktop's exit codes, from what a shared library can be wrong about (shared_check.py)
        verdict = check_shared(lib) if getattr(args, "check", False) else None
    if as_json:
        print(json.dumps({**desktop.to_json(), "shared": st.__dict__,
                          **({"check": verdict.to_json()} if verdict else {})}))
        return verdict.code if verdict else 0
    # The desktop status's notes, as its `status` prints them: this machine's sync that stopped before its end (how
    # far it came, what it could not read: decision 0183), passages still to embed and whose sync embeds them, OCR
    # waiting, … Only --json had them: a newcomer whose server went away mid-sync saw a status that looked complete.
    said = [f"note: {printable(n)}" for n in desktop.notes]
    for line in status_lines(st) + said + ([printable(ln) for ln in verdict.lines()] if verdict else []):
        print(line)
    return verdict.code if verdict else 0


def status_lines(st: SharedStatus) -> list[str]:
    from ...library.report.status import folder_counts

    percent = 100 if not st.passages else int(100 * st.embedded / st.passages)
    lines = [f"shared library: {st.address} (this machine: {printable(st.machine)})",
             f"files: {st.files} ({st.problems} skipped or failed)" + (
                 f"; in archives and mail: {st.members} ({st.member_problems} skipped or failed)" if st.members else "")
             + f"; passages: {st.passages}, {percent}% with meaning",
             f"model: {printable(st.model or 'none yet')}" + (f" ({st.dim} dimensions)" if st.dim else ""),
             f"folders: {len(st.roots)}"]
    here = {(machine, path): local for machine, path, local in st.mounts}  # library.path_map's
    lines += [f"  {printable(machine)}: {printable(path)} ({folder_counts(files, members, chunks)})"
              + (f", here at {printable(here[machine, path])}" if (machine, path) in here else "")
              + _missing_mark(st, machine, path)
              for machine, path, files, chunks, members in st.roots]
    return lines + [printable(note) for note in st.unmatched]  # a mistyped map entry: nothing else shows it


def _missing_mark(st: SharedStatus, machine: str, path: str) -> str:
    """The desktop status's mark of a folder that cannot be read now; the advice for this machine's own only
    (another machine's folder is that machine's to move or remove)."""
    from ...library.sync.roots import missing_advice

    why = st.missing.get((machine, path))
    if why is None:
        return ""
    advice = f" {missing_advice(path)}" if machine == st.machine else ""
    return printable(f"  [MISSING: {why}; kept and searchable.{advice}]")
