"""How `searchapp search` prints: hit blocks for one query, one line per input line for `search -`.

Every piece of text that came from a file is shown through base.terminal.printable (control characters
escaped); query words in the snippet are bold on a terminal. JSON output is exact and unescaped.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Optional, Sequence, TextIO

from ..base.member_paths import display_path
from ..base.page_names import page_label, pages_label
from ..base.plural import counted
from ..base.terminal import printable, render_marked
from ..library.search.result import WHY_EMPTY
from ..library.search.snippet import best_snippet

if TYPE_CHECKING:
    from ..base.types import Hit
    from ..library.search.result import SearchResult

__all__ = ["print_hits", "hit_line", "hit_place", "weak_mark", "empty_json", "result_json"]

SNIPPET_WIDTH = 240


def _scores(h: Hit) -> str:
    s, r = h.scores, h.ranks
    parts = []  # the first part is the score a person reads (Hit.shown_score), the rest every stage's
    if getattr(h, "order_label", None) == "match" and s.rerank is None and s.fused is not None:
        parts.append(f"match {s.fused:.3f}")  # the fused score that ordered the list; its parts follow
    if getattr(h, "order_label", None) == "words" and s.rerank is None and s.words is not None:
        parts.append(f"words {s.words:.3f} (no meaning yet)")  # its file has no vector yet: its words alone
    if s.rerank is not None:
        move = (r.fused or 0) - (r.rerank or 0)
        arrow = f" {'▲' if move > 0 else '▼'}{abs(move)}" if move else ""
        parts.append(f"relevance {s.rerank:.3f} (reranker logit {s.rerank_logit:.2f}){arrow}")
    if s.dense is not None:
        parts.append(f"similarity {s.dense:.3f}" + (f" #{r.dense}" if r.dense else ""))
    if s.lexical is not None:
        parts.append(f"bm25 {s.lexical:.2f}" + (f" #{r.lexical}" if r.lexical else ""))
    return " | ".join(parts)


def hit_place(h: Hit, here: Optional[str] = None) -> str:
    """Where a hit is, as a person reads it; `here`: on a shared library, the machine answering, so that a file
    another machine indexed says whose it is (and, when it cannot be opened here, that it is that machine's)."""
    where = printable(display_path(h.path)) + (f"  ({page_label(h.path, h.page)})" if h.page else "")
    if getattr(h, "ocr", False):
        where += "  (OCR)"  # the text was recognised from an image: spelling may be off
    theirs = h.indexed_elsewhere(here)
    available = getattr(h, "available", True)
    return where + place_mark(theirs, None if available else getattr(h, "unavailable", "") or "file or folder missing")


def weak_mark(h: Hit) -> str:
    """What follows a weak match's place (search/weak.py): the nearest there is, not an answer (search and similar
    alike)."""
    return "  [weak match]" if getattr(h, "weak", False) else ""


def place_mark(theirs: Optional[str], unavailable: Optional[str]) -> str:
    """What follows a file's place on a shared library: "  [desk-a's]" (another machine indexed it), "  [desk-a's,
    unavailable here: why]", "  [unavailable: why]", or "" (search, similar and duplicates alike)."""
    if unavailable is not None:
        return (f"  [{printable(theirs)}'s, unavailable here: {unavailable}]" if theirs
                else f"  [unavailable: {unavailable}]")
    return f"  [{printable(theirs)}'s]" if theirs else ""


def print_hits(res: SearchResult, *, color: bool, marks: Optional[str] = None, out: Optional[TextIO] = None) -> None:
    """The human form of one result: rank and place, stage scores, the best-matching window of the passage.
    `marks`: the text whose words are marked (library.query_help.marked_text; default: the query). `out`:
    where it is printed (default: standard output)."""
    if not res.hits:  # and why, when the filters left no file (library/search/empty_reason.py)
        why = res.said(*WHY_EMPTY)
        # one write, newline included: print() writes the line and its end apart, and a note between the two (an
        # unbuffered stdout) began on this line
        (sys.stdout if out is None else out).write(f"no results: {printable(why)}\n" if why else "no results\n")
        return
    for h in res.hits:
        snip = best_snippet(h.text, res.with_searched(res.query if marks is None else marks), SNIPPET_WIDTH,
                            getattr(h, "focus", None))
        print(f"{h.ranks.final:>2}. {hit_place(h, res.here)}" + ("  [new]" if h.new else "")  # a saved search's
              + weak_mark(h), file=out)
        scores = _scores(h)
        if getattr(h, "named", False):  # first for its name: no stage scored it (search/named.py)
            print("    named like the query" + ("" if res.words_matched else " (no passage holds its words)"), file=out)
        elif scores:  # a listing by date (a query of only operators and fields) has no scores
            print(f"    {scores}", file=out)
        print(render_marked(snip.text, snip.spans, color=color, width=100, indent="    "), file=out)
        if getattr(h, "more", None):  # results by file: the file's other matching passages
            pages = sorted({m.page for m in h.more if m.page})
            print(f"    + {counted(len(h.more), 'more passage')} in this file"
                  + (f" ({pages_label(h.path, pages)})" if pages else ""), file=out)
        if getattr(h, "copies", None):  # exact copies of this file, folded into its row
            n = len(h.copies)
            gone = getattr(h, "copies_unavailable", None) or {}  # a copy on a missing folder says so, as a hit does
            print(f"    +{n} cop{'y' if n == 1 else 'ies'}: " + ", ".join(
                printable(display_path(p)) + (f" [unavailable: {printable(gone[p])}]" if p in gone else "")
                for p in h.copies), file=out)
        near = getattr(h, "near_copies", None)  # other files of this document folded into its row (near_copies.py)
        if near:
            print(f"    +{len(near)} near cop{'y' if len(near) == 1 else 'ies'}: " + ", ".join(
                f"{printable(display_path(n.path))} ({round(100 * n.similarity)}% same text)" for n in near), file=out)
        if getattr(h, "common_to", 0):  # repeated text: this row stands for every file holding it
            print(f"    common to {h.common_to} files (text repeated across files: one row stands for them)", file=out)


def hit_line(query: str, res: Optional[SearchResult]) -> str:
    """`search -` without --json: exactly one line per input line: the query, then each hit's place, tab-separated."""
    places = [hit_place(h) for h in (res.hits if res is not None else [])]
    return "\t".join([printable(query)] + places)


def result_json(res: SearchResult, notice: Optional[str] = None, served_by: Optional[str] = None) -> str:
    """`served_by`: "warm" (a long-lived process answered) or "direct" (this process searched)."""
    data = res.to_json()
    data["query_warnings"] = list(res.warnings)  # what the query parser took as plain words
    if notice:
        data["notice"] = notice  # added only when a query could not be searched (empty, common words only)
    if served_by:
        data["served_by"] = served_by
    return json.dumps(data)


def empty_json(query: str, mode: str, notice: str, warnings: Sequence[str] = (), served_by: Optional[str] = None) -> str:
    data = {"query": query, "mode": mode, "reranked": False, "hits": [], "notice": notice,
            "query_warnings": list(warnings)}
    if served_by:
        data["served_by"] = served_by
    return json.dumps(data)

