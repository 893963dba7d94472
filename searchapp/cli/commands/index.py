"""`searchapp index [PATH...]`: add folders or files and index them; with no path, re-sync every indexed folder."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import shlex
import sys
from typing import TYPE_CHECKING

from ...base.config import Config
from ...base.errors import Cancelled
from ...base.plural import counted, entry_counts
from ...base.priority import in_front
from ...base.terminal import printable
from ..open_library import open_local_library as _library
from ..writer_wait import add_wait_option, wait_turn

if TYPE_CHECKING:
    from ...library import SyncReport
    from ...library.report.not_indexed import MemberGroups, Row
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_index", "print_report", "newly_not_indexed", "print_missing", "print_left_out", "print_stopped_before",
           "stopped_text"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("index", help="add folders or files to the library and index them (re-syncs known ones)")
    s.add_argument("paths", nargs="*", metavar="PATH", help="folders or files; none: re-sync every indexed folder")
    s.add_argument("--json", action="store_true", help="print the sync report as JSON")
    s.add_argument("--also", action="store_true",
                   help="a shared library: index a folder another machine indexes already as this machine's too (its "
                        "files then twice in the library); without it such a folder is refused before anything is read")
    s.add_argument("--words-only", action="store_true",
                   help="stop once every file is searchable by words; its meaning (vectors) is embedded by the "
                        "next `searchapp index` without --words-only")
    add_wait_option(s)
    s.set_defaults(handler=cmd_index)


def cmd_index(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    # --words-only: seconds the person waits for, not yielding the CPU to every other program
    with in_front() if args.words_only else contextlib.nullcontext():
        return _index(args, config, progress, cancel)


def _index(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...library import SyncReport

    with _library(config) as lib:
        wait_turn(lib, args, cancel)  # a cancel while waiting: nothing done, as main says it
        total = SyncReport()
        if not args.paths and not lib.roots():
            print("searchapp: nothing to sync; add a folder with `searchapp index PATH`", file=sys.stderr)
            return 2
        try:
            if args.paths:
                total = lib.add_folders(args.paths, progress, cancel, embed=not args.words_only)
            else:
                total = lib.sync(progress=progress, cancel=cancel, embed=not args.words_only)
        except Cancelled as exc:
            if exc.report is None:  # stopped waiting for another writer, before its sync began: main says so
                raise
            progress.close()
            print(f"searchapp: {stopped_text(exc.report, lib.meaning(), args.paths)}", file=sys.stderr)
            from ...library.sync.unsaid import unsaid_counts

            stopped = lib.stopped_sync()  # what it left out (and any sync stopped before it): never said otherwise
            if stopped is not None and stopped.left_out:
                print_left_out(f"{unsaid_counts(stopped)}:", stopped.problems, stopped.left_out)
            return Cancelled.exit_code
        progress.close()
        print_report(total, args.json)
        notice = lib.index_notice()
        if notice:
            print(f"searchapp: {printable(notice)}", file=sys.stderr)
    return print_missing(total.missing_roots)


def print_missing(missing_roots: list[tuple[str, str]]) -> int:
    """Say each indexed folder a sync could not read, as status says it (`moved` first: a rename keeps its
    meaning), on either library; the exit code: docs/cli.md, a folder that cannot be read is an error."""
    from ...library.sync.roots import missing_advice

    for path, reason in missing_roots:
        print(f"searchapp: error: {printable(path)}: {printable(reason)}; its passages are kept and still searchable. "
              f"{printable(missing_advice(path))}", file=sys.stderr)
    return 1 if missing_roots else 0


def stopped_text(rep: SyncReport, meaning: tuple[int, int], paths: list[str]) -> str:
    """What an index stopped by Ctrl+C (or a `kill`) kept, and how to go on. "cancelled; nothing half-written was
    kept" read as if everything was lost (a newcomer), where every finished batch is kept: the files written so
    far (`rep`, the sync's report when it stopped) and the library's passages with a vector (`meaning`: embedded,
    all). Each folder of `paths` was a library folder once its sync began, so a plain index goes on with it; the
    ones after it were not added yet, and are named again."""
    embedded, passages = meaning
    files = rep.added + rep.updated
    # "what was finished is kept (7,096 of 7096 passages embedded)" after a stop before any file was read: the
    # passages were other folders', the one file the bar counted was not kept, and the two figures were written two
    # ways (a newcomer). The files this sync kept come first, said as none where none was; the passages are the
    # library's, said so, both figures grouped.
    said = [f"{entry_counts(files, rep.members_written, grouped=True)} added or updated before the stop "
            f"{'is' if files == 1 else 'are'} kept"] if files else []  # files and items apart (decision 0163)
    if rep.ocr_pending:  # scans recorded to wait for OCR: rows of the folder too (status counts them)
        said.append(f"{counted(rep.ocr_pending, 'file', grouped=True)} kept waiting for OCR")
    kept = ", ".join(said) or "no file was read to its end before the stop: none added yet"
    rest = ", the rest searchable by their words" if embedded < passages else ""
    again = " ".join(["searchapp index", *(shlex.quote(printable(p)) for p in paths)] if len(paths) > 1 else
                     ["searchapp index"])
    return (f"stopped: {kept}; {embedded:,} of the library's {counted(passages, 'passage', grouped=True)} embedded"
            f"{rest}; `{again}` goes on from there")


def _passages_detail(total: SyncReport) -> str:
    """How the written passages got their vectors. After `--words-only` none did: saying "the rest reused" then
    (as this line did) hid that meaning is still to come."""
    detail = f"{total.chunks_embedded} embedded"
    if total.chunks_reused:  # "1258 embedded" after 1,288 were said to wait: the 30 copies were not said (a newcomer)
        detail += (f", {total.chunks_reused} reused from copies of their text" if total.chunks_reused > 1 else
                   ", 1 reused from a copy of its text")
    # the meaning pass embeds every passage waiting, this folder's or not: a sync of one subfolder that printed
    # "0 passages written (2314 embedded)" for 37 s said nothing of why (a newcomer)
    earlier = total.chunks_embedded + total.chunks_reused - total.chunks_added
    if earlier > 0:  # "at least": some written now may be copies of passages already waiting (one vector each)
        detail += (": each had waited for its meaning since an earlier sync" if not total.chunks_added else
                   f": at least {earlier:,} of them had waited for their meaning since an earlier sync")
    if total.chunks_pending:
        # Not "`searchapp index` embeds them" where another process's meaning pass does (its note says so)
        return (f"{detail}; {total.chunks_pending} in the library still to embed, searchable by words now"
                + ("" if total.embedded_by else ": `searchapp index` embeds them"))
    return detail + (", the rest reused" if total.chunks_added > total.chunks_embedded + total.chunks_reused else "")


def print_report(total: SyncReport, as_json: bool) -> None:
    """A sync's report: JSON on stdout, or its counts there and what was not indexed (grouped as `status`
    groups it) and its notes on stderr. The shared library's `index` prints the same (commands/shared.py)."""
    if as_json:
        before = total.stopped_before
        listed_apart = ("problems", "left_out", "missing_roots", "stopped_before")
        print(json.dumps({**{k: v for k, v in total.__dict__.items() if k not in listed_apart},
                          "stopped_before": None if before is None else dataclasses.asdict(before),
                          "problems": [{"path": p, "reason": r} for p, r in total.problems],
                          "left_out": [{"path": p, "reason": r} for p, r in total.left_out],
                          "missing_roots": [{"path": p, "reason": r} for p, r in total.missing_roots]}))
    else:
        from ...library.report.status import scanned_counts, unopened_counts

        print(f"{scanned_counts(total.scanned, total.members)} scanned: "
              f"{total.said('added', 'updated', 'unchanged', 'removed', 'skipped', 'failed')}; "
              f"{counted(total.chunks_added, 'passage')} written ({_passages_detail(total)})")
        unopened = unopened_counts(total.not_document_types, total.left_out_by_rules, total.folders_left_out)
        if unopened:  # every file met is counted somewhere (decision 0180)
            print(f"also met, never opened: {unopened}")
        if total.problems or total.no_words:
            print_left_out(newly_not_indexed(total), [(p, "", r) for p, r in total.problems + total.no_words],
                           len(total.problems) + len(total.no_words))
        if total.reason_changed:  # no file lost: ones not indexed before either, for another reason now
            print(f"{counted(len(total.reason_changed), 'file')} not indexed before either, now for another reason:",
                  file=sys.stderr)
            for line in reason_changed_lines(total, 10):
                print(line, file=sys.stderr)
        _list_left_out(total.left_out)
        print_stopped_before(total)
        for n in total.notes + [n for n in (total.reread_note(),) if n is not None]:
            print(f"searchapp: note: {printable(n)}", file=sys.stderr)
        _list_read_differently(total.read_differently)


def newly_not_indexed(rep: SyncReport) -> str:
    """The header of the entries this sync newly left not indexed, files and members apart as the scan line and
    `status` count them: "56 files and 173 items in archives and mail newly not indexed". The images without words
    are among them (`status` and the window count them): "214 newly not indexed" beside status's 229 read as
    15 entries lost (a newcomer); they are named last, the files a person may mend first."""
    from ...base.member_paths import split_member

    entries = rep.problems + rep.no_words
    members = sum(split_member(p)[1] is not None for p, _ in entries)
    pictures = (f", {len(rep.no_words):,} of them images without words (named last)"
                if rep.no_words and rep.problems else "")
    # the scans waiting for OCR are not indexed too (status counts them), said by the summary line, not listed here
    waiting = rep.ocr_pending - rep.moved_waiting
    besides = f", besides the {waiting:,} waiting for OCR" if waiting else ""
    return (f"{entry_counts(len(entries), members)} newly not indexed{pictures}{besides} (`searchapp status` "
            "lists every one not indexed):")


def reason_changed_lines(rep: SyncReport, shown: int) -> list[str]:
    """The first `shown` entries not indexed before either and left out another way now, as a person needs them:
    "  x.pdf: now skipped: encrypted …" (a failed PDF a reader now tells is encrypted), then how many more."""
    from ...base.member_paths import display_path

    lines = [f"  {printable(display_path(p))}: now {state}: {printable(r)}" for p, state, r in rep.reason_changed[:shown]]
    more = len(rep.reason_changed) - shown
    return lines + ([f"  ... and {more} more (`searchapp status` lists them)"] if more > 0 else [])


def print_stopped_before(rep: SyncReport) -> None:
    """What an earlier sync, stopped before its summary (Ctrl+C, a kill, a crash), left out and never said: said
    with this one's (library/sync/unsaid.py), by `index` and `watch` alike."""
    before = rep.stopped_before
    if before is not None:
        from ...library.sync.unsaid import stopped_head, unsaid_counts

        print_left_out(f"searchapp: {stopped_head(before)}; {unsaid_counts(before)}:", before.problems,
                       before.left_out)


def print_left_out(header: str, problems: list[tuple[str, str, str]], n: int) -> None:
    """`header`, then the first ten of `problems` ((path, state, reason), the first of `n` entries) on stderr: a
    container's members left out for one reason are one row, as status shows them (not 135 rows)."""
    from ...base.member_paths import display_path
    from ...library.report.not_indexed import group_members

    rows, groups = group_members(problems)
    print(header, file=sys.stderr)
    for p, _state, r in rows[:10]:
        print(f"  {printable(display_path(p))}: {printable(r)}", file=sys.stderr)
    unlisted = n - len(problems)  # beyond the list a stopped sync keeps (sync/unsaid.py)
    if len(rows) > 10 or unlisted:
        print(f"  ... and {_rest(rows[10:], groups, unlisted)}", file=sys.stderr)


def _list_left_out(left_out: list[tuple[str, str]]) -> None:
    """The files this sync newly left out on purpose, named, with the rules' counts: a person who indexed their home
    folder reads that their keys stayed out, and which files were taken for keys (decision 0177); a developer, which
    lockfiles and bundles (decision 0178)."""
    from ...base.member_paths import display_path
    from ...library.report.not_indexed import left_out_by_rule
    from ...library.report.status import by_rule_counts

    if not left_out:
        return
    rules = left_out_by_rule(("excluded", r) for _, r in left_out)
    said = "as secrets" if set(rules) == {"secret"} else f"on purpose ({by_rule_counts(rules)})"
    print(f"{counted(len(left_out), 'file')} left out {said} (`searchapp status --files excluded` lists them):",
          file=sys.stderr)
    for p, r in left_out[:10]:
        print(f"  {printable(display_path(p))}: {printable(r)}", file=sys.stderr)
    if len(left_out) > 10:
        print(f"  ... and {counted(len(left_out) - 10, 'more file')}", file=sys.stderr)


def _rest(rows: list[Row], groups: MemberGroups, unlisted: int = 0) -> str:
    """The rows not listed, as files and lines: a grouped row stands for its members, so "163 files newly not
    indexed", ten lines and "... and 20 more" did not add up (a newcomer). Files, and the lines they take when
    fewer, so the header is the lines' counts plus this; `status --files` lists each file, member by member."""
    from ...library.report.not_indexed import entries_in

    files = entries_in(rows, groups) + unlisted
    lines = f" in {counted(len(rows), 'more line')}" if len(rows) != files and not unlisted else ""
    # "more", not "more files": the header counts files and items in archives and mail apart, and these are both
    return f"{files:,} more{lines} (`searchapp status --files` lists each one with its state)"


def _list_read_differently(paths: list[str]) -> None:
    """The files this version's readers now read differently (their bytes unchanged): which ones, as the
    problems are listed (a newcomer could not tell which file the note's "1 now read differently" was)."""
    from ...base.member_paths import display_path

    for p in paths[:10]:
        print(f"  {printable(display_path(p))}", file=sys.stderr)
    if len(paths) > 10:
        print(f"  ... and {len(paths) - 10} more", file=sys.stderr)
