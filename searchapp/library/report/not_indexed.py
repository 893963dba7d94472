"""The entries with no searchable text and why (the window's Not indexed list, status's `not_indexed` and `failed`):
waiting for OCR, no text, skipped or failed; and, listed beside them but counted apart, the indexed PDFs whose
pages without text wait for OCR (decision 0155: found by their text layer, so not "not indexed").

A container's members left out for one reason are one row, "N of its members: <reason>", on the container's path: a zip
of 135 members in a compression method zipfile lacks would otherwise bury every other row. The members it stands
for are kept beside the rows (`member_groups`), for a list that expands it.
"""

from __future__ import annotations

from typing import Optional

from ...base.member_paths import split_member
from ...ingest.extractors.svg import KIND as SVG
from ...ingest.ocr.engine import no_text_read, ocr_unavailable_reason
from ...store import Store
from ...store.ledger import QUIET_STATES, files_in_state, left_out_by_rule

__all__ = ["not_indexed_entries", "not_indexed_rows", "group_members", "group_in_states", "state_words", "entries_in",
           "members_in", "pages_waiting_in", "ocr_waiting_in",
           "NOT_INDEXED_STATES", "PAGES_WAITING", "STATE_WORDS", "Row", "MemberGroups", "QUIET_STATES",
           "left_out_by_rule"]

# The ledger states of store/ledger.NOT_INDEXED (status != 'indexed'): what both the window's button and
# `status`'s "not indexed (N)" count (entries_in).
NOT_INDEXED_STATES = ("ocr_pending", "no_text", "skipped", "failed")
# Indexed by its text layer, pages waiting for OCR: in the window's list (after the others) and
# `status --files ocr_pages_pending`, never in the count of entries not indexed.
PAGES_WAITING = "ocr_pages_pending"
# What a person reads for a ledger state (store/ledger.py's names are for scripts: `status --files STATE`).
STATE_WORDS = {"ocr_pending": "waiting for OCR", PAGES_WAITING: "indexed; pages wait for OCR",
               "no_text": "no text found", "skipped": "skipped", "failed": "failed", "ocr_done": "indexed (OCR)",
               "indexed": "indexed"}
MAX_LISTED = 10_000  # per state, for the window's list

Row = tuple[str, str, str]  # (path, state, reason)
MemberGroups = dict[tuple[str, str, str], list[str]]  # (row path, row state, row reason) -> the member keys a
# grouped row stands for: two groups of one container with one reason and count may differ only by state


def state_words(state: str) -> str:
    return STATE_WORDS.get(state, state)


def not_indexed_rows(store: Store, limit: int = MAX_LISTED, owner: Optional[str] = None) -> list[Row]:
    """(path, ledger state, reason) of every entry that waits for OCR, has no text, was skipped or failed, then
    of the indexed ones whose pages wait for OCR (PAGES_WAITING); `owner`: of one machine's folders only (a shared
    library: files_in_state)."""
    out = []
    unavailable = ocr_unavailable_reason()  # said beside each waiting file: why it is still waiting
    for state in (*NOT_INDEXED_STATES, PAGES_WAITING):
        for _, row in files_in_state(store, state, limit, owner):
            reason = row.error or ""
            if state == PAGES_WAITING:
                reason = "text layer indexed; pages without text wait for OCR"
            if state in ("ocr_pending", PAGES_WAITING) and unavailable:
                reason += f" ({unavailable})"
            if state == "no_text" and row.ocr == "done":  # read by OCR too: "no text found" alone read as unread
                reason = no_text_read(row.kind)
            elif state == "no_text" and row.kind == SVG:  # a drawing of shapes alone (an icon): an image, no words
                reason = "image: a drawing without text"
            out.append((row.path, state, reason))
    return out


def not_indexed_entries(store: Store, limit: int = MAX_LISTED, owner: Optional[str] = None
                        ) -> tuple[list[Row], MemberGroups]:
    """The rows of the Not indexed list, states in words and members grouped, and the members of each group
    (`owner`: see not_indexed_rows)."""
    rows, groups = group_members(not_indexed_rows(store, limit, owner))
    return [(p, state_words(s), r) for p, s, r in rows], {(p, state_words(s), r): m for (p, s, r), m in groups.items()}


def group_members(rows: list[Row]) -> tuple[list[Row], MemberGroups]:
    """`rows` with the members of one container in one state for one reason folded into one row on the
    container's path, "N of its members: <reason>" (only when there are two or more); in the order first met."""
    by: dict[tuple[str, str, str, bool], list[str]] = {}
    for path, state, reason in rows:
        container, member = split_member(path)
        by.setdefault((container, state, reason, member is not None), []).append(path)
    out: list[Row] = []
    groups: MemberGroups = {}
    for (where, state, reason, members), paths in by.items():
        if not members or len(paths) == 1:
            out += [(p, state, reason) for p in paths]
            continue
        shown = f"{len(paths)} of its members: {reason}"  # the container itself may be indexed (a mail)
        out.append((where, state, shown))
        groups[(where, state, shown)] = paths
    return out, groups


def group_in_states(rows: list[tuple[str, Row]]) -> tuple[list[Row], MemberGroups, dict[Row, str]]:
    """group_members of `rows`, (ledger state, row) each, within each state: the grouped rows (a state's in the
    order first met), the members of each group, and each row's state as the query that listed it gave it (its
    status and reason do not give it; a group's members are all in its state)."""
    by_state: dict[str, list[Row]] = {}
    for state, row in rows:
        by_state.setdefault(state, []).append(row)
    out: list[Row] = []
    groups: MemberGroups = {}
    states: dict[Row, str] = {}
    for state, listed in by_state.items():
        grouped, members = group_members(listed)
        out += grouped
        groups.update(members)
        states.update(dict.fromkeys(grouped, state))
    return out, groups, states


def entries_in(rows: list[Row], groups: MemberGroups, ocr_under_way: bool = False) -> int:
    """How many entries not indexed `rows` stand for (a grouped row: its members): what `status` counts in its
    states and a sync in "skipped" and "failed", so the window's button and the command line's header say the same
    number. A row of an indexed file whose pages wait for OCR (PAGES_WAITING, by its ledger name or in words) is
    listed but not counted: its text layer is found (decision 0155). `ocr_under_way` (LibraryStatus's): neither are
    the entries waiting for OCR, which the sync running now reads in its OCR step (ocr_waiting_in counts them)."""
    left = _not_counted(ocr_under_way)
    return sum(len(groups.get(row, ())) or 1 for row in rows if row[1] not in left)


_PAGES_WAITING_NAMES = frozenset((PAGES_WAITING, STATE_WORDS[PAGES_WAITING]))
_OCR_WAITING_NAMES = frozenset(("ocr_pending", STATE_WORDS["ocr_pending"]))


def _not_counted(ocr_under_way: bool) -> frozenset[str]:
    return _PAGES_WAITING_NAMES | _OCR_WAITING_NAMES if ocr_under_way else _PAGES_WAITING_NAMES


def members_in(rows: list[Row], groups: MemberGroups, ocr_under_way: bool = False) -> int:
    """Of entries_in's entries, the members of archives and mail: said apart from the files wherever the entries not
    indexed are counted ("56 files and 173 items in archives and mail", decision 0163), as the scan line says them."""
    left = _not_counted(ocr_under_way)
    return sum(len(groups[row]) if row in groups else split_member(row[0])[1] is not None
               for row in rows if row[1] not in left)


def ocr_waiting_in(rows: list[Row], groups: MemberGroups) -> int:
    """How many entries of `rows` wait for OCR (files and members; not the indexed PDFs whose pages wait)."""
    return sum(len(groups.get(row, ())) or 1 for row in rows if row[1] in _OCR_WAITING_NAMES)


def pages_waiting_in(rows: list[Row], groups: MemberGroups) -> int:
    """How many indexed entries of `rows` have pages that wait for OCR (entries_in's rows it does not count)."""
    return sum(len(groups.get(row, ())) or 1 for row in rows if row[1] in _PAGES_WAITING_NAMES)
