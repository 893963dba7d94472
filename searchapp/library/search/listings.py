"""A container's own entry (its listing: its name, then its members' names, members.listing) beside its members.

An mbox's listing holds every message's subject, so a query a message answers matched the listing too, and the
listing took a row beside, often above, the messages it lists: a newcomer's `personal.mbox` came second for
"recieve the package" (under the message itself), third for "pet clause lease" (above the letter's message), eighth
for a landlord query. The message is the answer; its name in a list of names is not.

So, among one search's candidates, a listing's passage leaves the file ranking when a member of its container is a
candidate too and that member's passages hold every query word the listing's passage holds (none, when meaning alone
found it). The listing stays where it is the only answer: for a word of the container's own name ("personal.mbox",
which no member holds), for a member's name its own text does not hold (`beach.jpg` of a zip of photos), and where
no member is a candidate. Like the other folding of results by file (folding.py), it is not done in results by
passage, where every passage is a row.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

from ...base.member_paths import split_member
from ...ingest.extractors.members import is_listing
from .snippet import holds_terms, query_terms

__all__ = ["answered_listings"]


def answered_listings(query: str, passages: Sequence[int], file_of: Mapping[int, int], texts: Mapping[int, str],
                      path_of: Mapping[int, str]) -> set[int]:
    """The listing passages among `passages` that a candidate member of their container answers (module doc)."""
    containers = {path_of[file_of[c]] for c in passages if is_listing(path_of[file_of[c]])}
    members: dict[str, list[int]] = {}  # container path -> its members' candidate passages
    for c in passages:
        container, name = split_member(path_of[file_of[c]])
        if name is not None and container in containers:
            members.setdefault(container, []).append(c)
    if not members:
        return set()
    terms = query_terms(query)
    out: set[int] = set()
    for c in passages:
        path = path_of[file_of[c]]
        if path not in members:
            continue
        held = _held(texts[c], terms)
        if held & _held(os.path.basename(path), terms):
            continue  # a search for the container's own name
        if held <= _held_by(members[path], texts, terms):
            out.add(c)
    return out


def _held_by(passages: Iterable[int], texts: Mapping[int, str], terms: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for c in passages:
        out |= _held(texts[c], terms)
    return out


def _held(text: str, terms: Sequence[str]) -> set[str]:
    """The query terms `text` holds, as the snippet marks them (snippet.holds_terms)."""
    return {t for t in terms if holds_terms(text, [t])}
