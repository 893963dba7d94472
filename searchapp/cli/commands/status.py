"""`searchapp status [--json] [--check]`: what is indexed, problems, models, device.

Only reads: it never loads torch (tests/e2e/test_fast_start.py), and never creates a library.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Optional, TextIO

from ... import __version__
from ...base.config import Config
from ...base.errors import ConfigError
from ...base.member_paths import display_path
from ...base.plural import counted
from ...base.terminal import printable
from ...library.sync.meaning_rate import left_note
from ...models.sentence_conventions import describe_prompt
from ..open_library import open_library as _library
from ..open_library import open_local_library

if TYPE_CHECKING:
    from ...library.report.status import BiEncoderStatus, LibraryStatus
    from ...base.progress import CancelToken
    from ..library_protocol import LedgerReader
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_status", "print_status", "print_ledger", "ledger_state", "ledger_places"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("status", help="what is indexed, problems, models, device")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--check", action="store_true",
                   help="exit 4 when a reindex is needed, 3 when not consistent, 1 when a folder is missing")
    s.add_argument("--files", nargs="?", const="all", metavar="STATE",
                   help="list every file (or member) with its state: indexed, ocr_done, ocr_pending, "
                        "ocr_pages_pending, no_text, skipped, failed, empty, excluded (one state, or all; "
                        "excluded: the files a rule left out, a secret or a lockfile, counted by rule first); "
                        "a folder in place of STATE lists that folder's files, as --in does")
    s.add_argument("--in", dest="within", action="append", default=[], metavar="PATH",
                   help="with --files (or alone): only the files at or below this folder (repeatable)")
    s.set_defaults(handler=cmd_status)
    e = sub.add_parser("explain", help="why a file is or is not found: its folder, the rule, its text")
    e.add_argument("path", help="a file, or a member as `archive.zip › folder/file.pdf`")
    e.add_argument("--text", action="store_true",
                   help="print its whole text, read again as the sync reads it (a member from its archive or mail), "
                        "not the first lines")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(handler=cmd_explain)


def cmd_status(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    if getattr(args, "files", None) or getattr(args, "within", None):
        return _list_files(args, config)
    from ...library.warm.ping import ping

    with open_local_library(config, create=False) as lib:
        st = lib.status(fresh_check=bool(args.check))
    return print_status(args, st, ping(config.data_dir))  # a `searchapp watch` or window serving it, or None


def print_status(args: argparse.Namespace, st: LibraryStatus, warm: Optional[int], out: Optional[TextIO] = None) -> int:
    """Print `st` as `searchapp status` does (on `out`, default standard output); the exit code. `warm`: the
    process answering searches (the warm index), or None. Also what a warm process runs for the thin entry
    point (cli/warm_run.py), with its own status."""
    out = sys.stdout if out is None else out

    def say(line: str) -> None:
        print(line, file=out)

    code = _status_exit_code(st) if args.check else 0
    if args.json:
        say(json.dumps({"version": __version__, **st.to_json(), "warm_pid": warm}))
        return code
    say(f"library: {printable(st.data_dir)}")
    if st.writer:
        say(f"  being written now by {printable(st.writer)}: the counts below grow as it goes")
    from ...library.report.status import by_rule_counts, by_status, cut_lines, folder_counts, unopened_counts
    from ...library.sync.roots import missing_advice

    for r in st.roots:
        say(f"  {printable(display_path(r.path))}: {folder_counts(r.files, r.members, r.chunks)}"
            + (f"  [MISSING: {printable(r.reason)}; kept and searchable. {printable(missing_advice(r.path))}]"
               if r.missing else "")
            + (f"  [a move here from {printable(r.moving_from)} stopped halfway: `searchapp moved "
               f"{printable(r.moving_from)} {printable(r.path)}` goes on]" if r.moving_from else ""))
    if not st.roots:
        say("  (no folders yet: `searchapp index PATH`)")
    # The files a person has, and apart what was read out of their archives and mail (decision 0163)
    members = f"; in archives and mail: {by_status(st.members, st.members_ocr_pending, st.members_empty)}" if st.members else ""
    say(f"files: {by_status(st.files, st.files_ocr_pending, st.files_empty)}{members}; passages: {st.chunks}; vectors: {st.vectors}; "
        f"consistent: {_consistent_word(st)}")
    unopened = unopened_counts(st.not_document_types, st.left_out_by_rules, st.folders_left_out)
    if unopened:  # every file met is counted somewhere (decision 0180)
        say(f"also met, never opened: {unopened}; {counted(st.files_met(), 'file')} met by the last full syncs")
    meaning = st.to_json()["meaning"]
    left = left_note(st.chunks - st.embedded, st.meaning_rate)  # "about 1 h 05 min at the last measured ..."
    if not st.chunks:  # "meaning: 100% of passages" of none read as a finished library
        say("searchable: nothing yet (no passages)")
    else:
        # "done in" only while a process embeds them: with none running, a time to completion misleads (a
        # cancelled `index` left "done in about 5 s" standing with nothing at work)
        when = (f", done in {left}" if st.writer else f": {left} once `searchapp index` or the window embeds them") \
            if left else ""
        say(f"searchable by words: {st.chunks} passages; meaning: {meaning['percent']}% of passages"
            + (f" ({st.chunks - st.embedded} still to embed{when})" if st.embedded < st.chunks else ""))
    _say_models(st, warm, say)
    for n in st.notes:
        say(f"note: {printable(n)}")
    if st.reindex_needed:
        say(f"reindex needed: {printable(st.reindex_needed)}")
    if st.left_out:  # left out on purpose: counted, not listed among the problems (decision 0177)
        say(f"left out: {by_rule_counts(st.left_out)} (`searchapp status --files excluded` and `--files empty` "
            "list them)")
    if st.passwords_hidden:  # kept, searchable by their other words; the password is not (decision 0197)
        holds = "holds" if st.passwords_hidden == 1 else "hold"  # "1 file hold" (a newcomer)
        say(f"passwords hidden: {counted(st.passwords_hidden, 'file')} {holds} a connection string whose password "
            "is not in the library (`searchapp explain FILE` says which)")
    for line in cut_lines(st.cut, st.cut_count, st.chunks):  # why a word at the end of a huge file is not found
        say(printable(line))
    if st.failed:
        from ...base.plural import entry_counts

        # The window's count, by the core's one rule: a grouped row is its members, files and members apart (decision
        # 0163), and mid-sync the scans its OCR step reads are waiting, not "not indexed" (decision 0201)
        entries, of_members, waiting = st.not_indexed_counts()
        rows = len(st.failed)
        parts = [entry_counts(entries, of_members)] if entries or not waiting else []  # "3 waiting for OCR" alone
        said = " · ".join(parts + ([f"{waiting:,} waiting for OCR"] if waiting else []))
        say(f"not indexed: {said}" + (f" in {counted(rows, 'row')}" if entries + waiting != rows else "") + ":")
        for row in st.failed:  # by the state the ledger's query gave it: the one `status --files STATE` finds it by
            path, _, reason = row
            say(f"  [{st.failed_states[row]}] {printable(display_path(path))}: {printable(reason)}")
    return code


def _say_models(st: LibraryStatus, warm: Optional[int], say: Callable[[str], None]) -> None:
    """The models, the device, the version and who answers searches: what embeds and ranks, in status's lines."""
    b = st.bi_encoder
    say(printable(f"bi-encoder: {b['spec']} ({b['pooling']} pooling)" + (
        f"; library built with {b['library_model']} ({b['library_pooling']})" if b["library_model"] else "")))
    if b.get("query_prompt") is not None:  # the model's files were read (it is installed)
        say("  " + bi_encoder_conventions(b))
    rr = st.reranker
    say(printable(f"reranker: {rr['path'] if rr['available'] == 'yes' else 'not available'}"
                  + (f" — {rr['message']}" if rr["message"] else "")))
    say(f"device: {st.device}")
    say(f"version: searchapp {__version__}")  # of the process that answered (a warm one may be older: decision 0154)
    if st.passage_path:
        say(f"passages: {st.passage_path}")
    if st.query_path:
        say(f"queries: {st.query_path}")
    say(f"warm index: searches are answered by process {warm} (`searchapp watch` or the window)" if warm
        else "warm index: none (each search opens the library; `searchapp watch` keeps it open)")


def bi_encoder_conventions(b: BiEncoderStatus) -> str:
    """What the bi-encoder's files declare, as one line: `pooling: cls (the model's); query prompt: "Represent…";
    passage prompt: none; normalized`."""
    whose = " (the model's)" if b["pooling_setting"] == "auto" else " (models.pooling)"
    source = " (from its model card)" if b["prompts_from"] == "model card" else ""
    norm = "normalized" if b["declares_normalize"] else "normalized by searchapp (the model declares no Normalize)"
    return (f"pooling: {b['pooling']}{whose}; query prompt: {describe_prompt(b['query_prompt'])}; "
            f"passage prompt: {describe_prompt(b['passage_prompt'])}{source}; {norm}")


def _consistent_word(st: LibraryStatus) -> str:
    """yes, NO, or (this process writing mid-sync: the index and the store may differ for that moment) not judged."""
    if not st.consistency_checked:
        return "not checked now (this process is syncing)"
    return "yes" if st.consistent else "NO"


def _status_exit_code(st: LibraryStatus) -> int:
    """`status --check`: docs/cli.md's exit codes for what needs attention, the most serious first."""
    if st.reindex_needed:
        return 4
    if not st.consistent:
        return 3
    if any(r.missing for r in st.roots):
        return 1
    return 0


def _list_files(args: argparse.Namespace, config: Config) -> int:
    """`status --files [STATE] [--in PATH]`: one line (or one JSON object) per stored entry."""
    state = ledger_state(args)
    with open_local_library(config, create=False) as lib:
        return print_ledger(args, lib, state)


def ledger_state(args: argparse.Namespace) -> Optional[str]:
    """The state `status --files [STATE]` asks for (None: all), checked before any library is opened. A folder
    in its place (`--files ~/Documents`, what a person types first) asks for every state there (ledger_places)."""
    from ...library.report.explain import STATES

    state = None if args.files in (None, "all") else args.files
    if state is None or state in STATES or _names_a_place(state):
        return state if state in STATES else None
    near = difflib.get_close_matches(state, STATES, n=1)
    raise ConfigError(f"unknown state {state!r}" + (f", did you mean {near[0]!r}?" if near else "")
                      + f" (one of: {', '.join(STATES)}; a folder's files: --in PATH)")


def ledger_places(args: argparse.Namespace) -> list[str]:
    """The folders (or files) `status --files` lists the entries under, as the library stores names: each --in
    PATH, and a folder given in place of STATE; none: the whole library."""
    from ...base.stored_names import stored_name
    from ...library.report.explain import STATES

    typed = list(getattr(args, "within", None) or [])
    files = getattr(args, "files", None)
    if files not in (None, "all") and files not in STATES:  # ledger_state let it through: a place
        typed.append(files)
    return [stored_name(os.path.abspath(os.path.expanduser(p))) for p in typed]


def _names_a_place(word: str) -> bool:
    """A --files value that is a path, not a mistyped state: it holds a separator, starts with ~ or ., or exists."""
    return "/" in word or os.sep in word or word.startswith(("~", ".")) or os.path.exists(word)


def print_ledger(args: argparse.Namespace, lib: LedgerReader, state: Optional[str]) -> int:
    """Print the entries in `state` (None: all), from `lib` (a desktop or a shared library)."""
    from ...base.member_paths import member_fields

    from ...library.report.not_indexed import QUIET_STATES, left_out_by_rule
    from ...library.report.status import by_rule_counts

    rows = lib.ledger(state, under=ledger_places(args))
    rules = left_out_by_rule((s, r.error) for s, r in rows)  # left out on purpose, by rule ("secret: 3 files")
    if args.json:
        print(json.dumps({"files": [
            {**member_fields(r.path), "key": r.path, "state": s, "reason": r.error, "passages": r.n_chunks}
            for s, r in rows], **({"left_out": rules} if state in QUIET_STATES else {})}))
        return 0
    if state in QUIET_STATES and rules:
        print(by_rule_counts(rules))
    for s, r in rows:
        print(f"[{s}] {printable(display_path(r.path))}" + (f": {printable(r.error)}" if r.error else ""))
    return 0


def cmd_explain(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    with _library(config, create=False) as lib:
        info = lib.explain(args.path)
    # A path the library holds no entry for is an error (exit 1) after what explain found out: a script
    # asking about /nonexistent must not read "0" as "known"; so is an entry whose file was deleted since the last
    # sync (what the library holds of it is gone from disk). One changed since is known: found by its older text.
    code = 0 if info["known"] and info.get("on_disk") != "deleted" else 1
    if args.text and info["known"] and info["passages"]:
        code = _whole_text(info, config)
    elif args.text and info["known"]:  # skipped, failed, waiting for OCR, a folder: its state says why
        print(f"searchapp: {printable(info['shown_as'])} has no text in the library ({info['state']})", file=sys.stderr)
    if args.json:
        print(json.dumps(info))
        if not info["known"]:
            _not_in_library(info)
        return code
    print(f"path: {printable(info['shown_as'])}")
    if info.get("reached_as"):  # typed through a link: the library names it where it is
        print(f"  reached as: {printable(info['reached_as'])} (through a link)")
    if info["member"]:
        print(f"  member of: {printable(display_path(info['container']))}")
    folder = printable(display_path(info["folder"])) if info["folder"] else "(none: not under any indexed folder)"
    print(f"  folder: {folder}")
    if info.get("indexed_path") not in (None, info["path"]):  # a shared library's, mounted here by library.path_map
        # "indexed by" only of a file the library holds: a file that machine has not synced (or none at all) is
        # at that path of its folder, and was said "indexed by" it
        print(f"  indexed by: {printable(info['machine'])}, as {printable(info['indexed_path'])}" if info["known"]
              else f"  {printable(info['machine'])}'s path: {printable(info['indexed_path'])}")
    # a reason that only says the state again is said once ("state: empty (empty)" for an empty file: a newcomer)
    said = info["reason"] if info["reason"] and info["reason"].strip().casefold() != info["state"].casefold() else ""
    print(f"  state: {info['state']}" + (f" ({printable(said)})" if said else ""))
    if info.get("on_disk") not in (None, "as_read"):  # the file now, beside what the last sync read
        print(f"  on disk: {printable(info['on_disk_note'])}")
    if info["rule"]:
        print(f"  rule: {printable(info['rule'])}")
    if info["kind"]:
        print(f"  read as: {info['kind']}")
    print(f"  passages: {info['passages']}, with vectors: {info['vectors']}")
    for note in info.get("notes") or ():  # what its reading left out: why some of its words are not found
        print(f"  note: {printable(note)}")
    if info.get("whole"):  # the text as it reads, lines kept: a message, a page
        print("  text:\n" + "\n".join(f"    {printable(line)}" for line in info["text"].splitlines()))
    elif info["text"]:
        print(f"  text: {printable(info['text'])}")
    if not info["known"]:
        _not_in_library(info)
    return code


def _whole_text(info: dict[str, Any], config: Config) -> int:
    """Put the entry's whole text in `info["text"]` (explain --text): 0, or 1 with the reason on standard error
    when it cannot be read now (the file changed, moved, or is another machine's)."""
    from ...base.errors import SearchAppError
    from ...library.search.preview import file_text

    try:
        info["text"] = file_text(info["path"], config, ocr=info["state"] == "ocr_done").text
    except (SearchAppError, OSError) as exc:
        print(f"searchapp: cannot read {printable(info['shown_as'])} now: {exc}", file=sys.stderr)
        return 1
    info["whole"] = True
    return 0


def _not_in_library(info: dict[str, Any]) -> None:
    print(f"searchapp: {printable(info['shown_as'])} is not in the library: {printable(info['reason'] or info['state'])}",
          file=sys.stderr)
