"""Dot leaders, and the passages of a contents page (a table of contents, a list of figures) made of them.

A book's or a report's contents page lists every heading of the document, so a query about its topic matches it
by many words, and it became the file's shown passage: "how do I control which rows a user can see in DB2" showed
redp5110_sampled.pdf's page 2, `1.3.2 New controls: Row and Column Access Control. . . . . . . 5`, where pages 7
and 10 answer. The file is right; the passage is a list of where the answers are.

A contents passage is one made of contents lines, line after line: a heading, a run of leader dots, a page
number (arabic, at most three digits, or roman in the front matter), or a line a chunk cut inside its dots. At least
CONTENTS_LINES of its lines end in a page number, those numbers go up (never down: the roman ones first), and its
contents lines hold CONTENTS_SHARE or more of its characters (its first line may be the page's title, "Contents",
its last a heading cut before its dots, a long heading may wrap: 0.72 on IRS Publication 15's contents page).
Lists that use leader dots for their own content are not contents pages, and their lines are what a query about an
item should find: a schedule of controlled substances ("(39) Norlevorphanol ........ 9634", 21 CFR 1308 in tika's
testPDF_bad_page_303226.pdf: four-digit codes, going up for a while), a price list ("Monthly ........ 325.00"),
a book's index ("Calendar ........ 8", its numbers in the order of its words).
Measured (bench_contents_pages.py, decision 0195, before flattened pages were read, below): no document of SciFact's
5,183 abstracts or Cranfield's 1,400 has a run of leader dots in such a passage; on docling's test PDFs the 13
passages marked are redp5110_sampled.pdf's contents page, and of a newcomer's 5,152 passages the 19 marked are that
page and IRS Publication 15's.

A contents page's lines are told where its line breaks were lost too: flattened onto one line (a reader that joined
the lines of a page, a web page whose entries are inline, a chunk's text written on one line), each entry's end is
where a leader run is followed by a page number that no digit (arabic) or letter (roman) follows, and the line is
cut there into its entries (`Notices . . . vii Chapter 1 . . . 1 1.3 DB2 . . . 3`); a contents page written as a
Markdown or text table (docling's export of redp5110_sampled.pdf: `| Notices . . . . | . vii |`) is read without
its cell bars, a stray dot before the page number taken as a leader's. The rule is then the same: a line of text
with leader runs in it (a schedule, a price list) is no more a contents page flattened than written out. Measured:
one of SciFact's 5,183 "abstracts" is such a page, a review's contents flattened onto one line (`Metabolic
Aspects. . . . . 169 Alleviation of Histidine Toxicity . . . . 170 …`), marked now (it was not); docling's Markdown
export of redp5110_sampled.pdf marks as its PDF does; of 1,708 windows of 2,000 characters of the text files holding
leader dots in Apache POI's, Tika's and docling's repositories, that export's contents page is the one marked,
before none.

The pipeline (pipeline.py: _rows_by_file) treats such a passage as it treats a passage of repeated text: the file is ranked and
shown by its other candidate passages when it has any, by the contents page when it has none.

Snippets (snippet.py) show a run of leader dots as one " … ": `Access Control … 5 Chapter 2.` where the dots took
the whole window.
"""

from __future__ import annotations

import re
from typing import Mapping, Optional, Sequence

__all__ = ["CONTENTS_LINES", "CONTENTS_SHARE", "LEADERS", "collapse_leaders", "is_contents", "contents_beside_others"]

CONTENTS_LINES = 3  # lines ending in a page number a passage holds before it can be a contents page
CONTENTS_SHARE = 0.6  # of a contents page's characters (its lines', spaces at their ends aside) in contents lines

# A run of leader dots: four or more dots, each maybe followed by one space (". . . ." or "...."), or two or more
# ellipsis characters ("……", a Chinese or Japanese contents page's). "..." alone is an ellipsis in a sentence.
LEADERS = re.compile(r"\.(?:[ \t\u00a0]?\.){3,}|…(?:[ \t\u00a0]?…)+")
# What may follow the last leader run of a contents line: a page number, or nothing (a line the chunk cut inside
# its dots)
_PAGE = re.compile(r"[ \t\u00a0]*\.?[ \t\u00a0]*(\d{1,3}|[ivxlc]{1,7})?[ \t\u00a0]*", re.I)
# Where a contents line ends inside a longer line (a contents page flattened onto one): a leader run, then a page
# number that no digit or letter follows. LEADERS' two runs, each begun only where no run of its kind goes on
# (lookbehinds) and never given back (atomic): tried from every dot of a run and backtracked, a passage of 1,000
# dots took 0.2 s a search and a flattened form's 30,000 two minutes; now each run is read once.
_S = r"[ \t\u00a0]"
_RUN_ONCE = rf"(?:(?<!\.)(?<!\.{_S})(?>\.(?:{_S}?\.){{3,}})|(?<!…)(?<!…{_S})(?>…(?:{_S}?…)+))"
_ENTRY_END = re.compile(_RUN_ONCE + rf"{_S}*+\.?{_S}*+(?:\d{{1,3}}(?!\d)|[ivxlc]{{1,7}}(?![a-z]))", re.I)
_CELL_BARS = str.maketrans("|", " ")  # a table's cell bars: a contents page written as a Markdown or text table
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _page_of(line: str) -> Optional[str]:
    """The page number a contents line ends with ("" for a line cut inside its dots); None: not a contents line."""
    runs = list(LEADERS.finditer(line))
    found = _PAGE.fullmatch(line, runs[-1].end()) if runs else None
    return None if found is None else (found.group(1) or "")


def _number(page: str) -> tuple[int, int]:
    """(0, n) for a roman page number, (1, n) for an arabic one: the front matter comes first."""
    if page.isdigit():
        return 1, int(page)
    values = [_ROMAN[c] for c in page.lower()]
    return 0, sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def is_contents(text: str) -> bool:
    """Whether `text` (a passage) is a contents page's: see the module docstring."""
    if LEADERS.search(text) is None:  # most passages: no leaders at all (every form: "… …", dots spaced by a tab)
        return False
    lines = [entry for ln in text.splitlines() for entry in _entries(ln.translate(_CELL_BARS))]
    pages = [(p, len(ln)) for ln in lines if (p := _page_of(ln)) is not None]
    numbers = [_number(p) for p, _ in pages if p]
    return (len(numbers) >= CONTENTS_LINES and sum(n for _, n in pages) >= CONTENTS_SHARE * sum(map(len, lines))
            and all(a <= b for a, b in zip(numbers, numbers[1:], strict=False)))


def _entries(line: str) -> list[str]:
    """A line cut after each contents entry it holds (module docstring), each piece stripped: most lines are one."""
    pieces, at = [], 0
    for m in _ENTRY_END.finditer(line):
        pieces.append(line[at: m.end()].strip())
        at = m.end()
    return [p for p in pieces + [line[at:].strip()] if p] if pieces else [line.strip()]


def contents_beside_others(passages: Sequence[int], file_of: Mapping[int, int], texts: Mapping[int, str]) -> set[int]:
    """The contents passages among `passages` (one search's candidates) whose file has another candidate passage:
    they leave the file's signals, and the file is ranked and shown by its others (module docstring). A file
    found only by its contents page keeps it: that is what it has to show."""
    contents = {c for c in passages if is_contents(texts[c])}
    if not contents:
        return contents
    others = {file_of[c] for c in passages if c not in contents}
    return {c for c in contents if file_of[c] in others}


# A run with the spaces around it, and a snippet's own "…" where it was cut next to one: one " … " for all.
_RUN = re.compile(r"[ \t\u00a0…]*(?:" + LEADERS.pattern + r")[ \t\u00a0…]*")


def collapse_leaders(text: str) -> str:
    """`text` with each run of leader dots as one " … ": what a snippet shows of a contents line."""
    return _RUN.sub(" … ", text)
