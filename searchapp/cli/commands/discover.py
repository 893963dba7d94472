"""`searchapp similar` and `searchapp duplicates`.

Both commands only read: they use stored vectors, never load a model, and never create a library.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import TYPE_CHECKING, Optional, TextIO

from ...base.config import Config
from ..global_options import add_no_color
from ...base.member_paths import display_name, display_path
from ...base.plural import counted
from ...base.terminal import printable
from ..filter_options import add_filter_options, filters_from

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ...library import DuplicateReport, Library, NearGroup, SearchResult
    from ...library.shared import SharedLibrary
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_similar", "cmd_duplicates", "print_similar", "print_duplicates"]

SHARED_SHOWN = 8  # a row found by words names this many of the source's distinctive words it holds (--json: all)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("similar", help="files most like an indexed file (more like this), from stored vectors")
    s.add_argument("path", metavar="PATH", help="an indexed file")
    s.add_argument("--page", type=int, help="only this page of PATH (1-based) is the source")
    s.add_argument("--k", type=int, help="number of files (default from config: 10)")
    s.add_argument("--json", action="store_true", help="print JSON (the shape of `search --json`)")
    add_no_color(s, marks=False)
    add_filter_options(s)
    s.set_defaults(handler=cmd_similar)

    s = sub.add_parser("duplicates", help="exact copies and near duplicates (rewordings) among indexed files")
    s.add_argument("--threshold", type=float, metavar="T",
                   help="similarity 0..1 above which two files count as near duplicates (default 0.80)")
    s.add_argument("--json", action="store_true", help="print JSON")
    add_no_color(s, marks=False)
    s.set_defaults(handler=cmd_duplicates)


def _open_existing(config: Config) -> Library | SharedLibrary:
    """The library; a missing one is "no library at DIR" (exit 2): a read never creates one."""
    if config.library.address:  # a shared library (cli/open_library.py)
        from ..open_library import open_library

        return open_library(config, create=False)
    from ...library import Library

    return Library(config, create=False)


def cmd_similar(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    # --k is checked with the other options (cli/options.py), --page by the library (library/search/similar.py).
    filters = filters_from(args)
    with _open_existing(config) as lib:
        res = lib.similar(args.path, page=args.page, k=args.k, filters=filters)
    return print_similar(args, res)


def print_similar(args: argparse.Namespace, res: SearchResult, out: Optional[TextIO] = None) -> int:
    """Print `similar`'s result as the command does (on `out`, default standard output). Also what a warm
    process runs for the thin entry point (cli/warm_run.py)."""
    from ...library.search.result import MEMBERS, NEAR, SAME
    from ...library.search.similar import SimilarHit
    from ..search_output import hit_place, weak_mark

    if args.json:
        print(json.dumps(res.to_json()), file=out)
        return 0
    for kind in (SAME, NEAR):  # the source's exact and near copies: the same document, not a similar one
        if res.said(kind):
            print(printable(res.said(kind) or ""), file=out)
    if res.said(MEMBERS):  # a container: compared by its members' text, not its listing of their names
        print(printable(res.said(MEMBERS) or ""), file=out)
    if not res.hits:
        if res.meaning_percent is None:
            print("no similar files", file=out)
        else:  # neither meaning (the files that have it) nor words (the rest) found one (the window says the same)
            print(f"no similar files yet: no other file shares this one's distinctive words, and only files with "
                  f"meaning can be compared by meaning, which is {res.meaning_percent}% done (`searchapp index` adds "
                  "it)", file=out)
        return 0
    shown = None  # the query file's passage last shown: a hit matched by the same one does not repeat it
    for rank, h in enumerate(res.hits, start=1):
        assert isinstance(h, SimilarHit)  # find_similar makes each hit one (library/search/similar.py)
        # as a search's row: "(page 3)", "(OCR)", whose file it is on a shared library, and unavailable here
        print(f"{rank:>2}. {hit_place(h, res.here)}{weak_mark(h)}", file=out)  # far in meaning (decision 0207)
        if h.by == "words":  # its score is the words' share, never a meaning similarity (decision 0159)
            named = ", ".join(h.words[:SHARED_SHOWN]) + (", …" if len(h.words) > SHARED_SHOWN else "")
            shares = f" | shares: {printable(named)}" if h.words else ""
            print(f"    words {h.scores.words or 0.0:.2f} (by words: {h.why}){shares}", file=out)
        else:
            print(f"    similarity {h.scores.dense:.3f} | best passage pair {h.best_pair:.3f}", file=out)
        if h.copies:  # exact copies of this hit, folded into its row as a search folds them
            n = len(h.copies)
            print(f"    +{n} cop{'y' if n == 1 else 'ies'}: " + ", ".join(printable(display_path(p)) for p in h.copies),
                  file=out)
        this = (h.source_page, h.source_text)
        pair = (("this:", h.source_text),) if this != shown and h.by != "words" else ()  # words: no passage pair
        shown = this if pair else shown
        for label, text in pair + (("that:", h.text),):
            print(_snippet(label, text), file=out)
    return 0


def _snippet(label: str, text: str) -> str:
    snippet = printable(" ".join(text.split()))
    snippet = snippet[:200] + ("…" if len(snippet) > 200 else "")
    return textwrap.fill(f"{label} {snippet}", width=100, initial_indent="    ", subsequent_indent="          ")


def cmd_duplicates(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    # --threshold is checked by the library (library/search/duplicates.py), which the GUI calls too.
    with _open_existing(config) as lib:
        rep = lib.duplicates(args.threshold, progress=progress, cancel=cancel)
    progress.close()
    return print_duplicates(args, rep)


def print_duplicates(args: argparse.Namespace, rep: DuplicateReport, out: Optional[TextIO] = None) -> int:
    """Print `duplicates`' report as the command does (on `out`, default standard output)."""
    if args.json:
        print(json.dumps(rep.to_json()), file=out)
        return 0
    if rep.meaning_percent is not None:  # near duplicates are found by meaning: say what it covers
        print(f"near duplicates: only files with meaning are compared, and meaning is {rep.meaning_percent}% done "
              "(`searchapp index` adds it)", file=out)
    if not rep.exact and not rep.near:
        print("no duplicates", file=out)
        return 0
    if rep.exact:
        print(f"exact copies ({counted(len(rep.exact), 'group')}):", file=out)
        for group in rep.exact:
            print("  " + "\n  = ".join(_place(rep, p) for p in group), file=out)
    if rep.near:
        groups = rep.near_groups
        print(f"near duplicates ({counted(len(groups), 'group')} of {counted(len(rep.near), 'pair')}, "
              f"similarity >= {rep.threshold:.2f}):", file=out)
        if rep.caution:
            print(f"  ({rep.caution})", file=out)
        for g in groups:
            print("\n".join(_near_group_lines(rep, g)), file=out)
    return 0


def _place(rep: DuplicateReport, path: str) -> str:
    """A file of the report as shown, marked as a search's row is on a shared library (another machine's, or not to
    be opened here)."""
    from ..search_output import place_mark

    return printable(display_path(path)) + place_mark(rep.whose.get(path), rep.unavailable.get(path))


def _near_group_lines(rep: DuplicateReport, g: NearGroup) -> list[str]:
    """A group of near duplicates: two files as their pair (as before groups); more as the group's files, the
    lowest and highest similarity inside it, its weakest pair (what to compare first) and, when two of its files
    are not near duplicates, those two: what links the group is said (decision 0186). --json lists every pair."""
    weakest = rep.near[g.weakest]
    n = len(g.paths)
    if n == 2:
        lines = [f"  {weakest.similarity:.3f}  {_place(rep, weakest.a)}", f"         {_place(rep, weakest.b)}"]
    else:
        low = f"<{rep.threshold:.2f}" if g.not_near else f"{g.lowest:.3f}"  # two of its files are not near at all
        lines = [f"  {n} files, {counted(len(g.near), 'near pair')}, similarity {low}–{g.highest:.3f}:",
                 *(f"         {_place(rep, p)}" for p in g.paths),
                 f"         weakest pair {weakest.similarity:.3f}: {printable(display_name(weakest.a))}  ≈  "
                 f"{printable(display_name(weakest.b))}"]
    if weakest.pairs:
        best = weakest.pairs[0]
        for label, text in (("a:", best.a_text), ("b:", best.b_text)):
            snippet = printable(" ".join(text.split()))
            lines.append(f"         {label} {snippet[:120]}{'…' if len(snippet) > 120 else ''}")
    if g.apart:  # in one group through others: said, as the weakest pair alone would hide it
        a, b, steps = g.apart
        lines.append(f"         not every two are near duplicates: {printable(display_name(a))} and "
                     f"{printable(display_name(b))} are linked only through {counted(steps - 1, 'other file')} "
                     f"({g.not_near} of {n * (n - 1) // 2} pairs of files are not near duplicates)")
    return lines
