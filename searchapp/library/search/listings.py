"""A container's own entry (its listing: its name, then its members' names, members.listing) beside its members.

An mbox's listing holds every message's subject, so a query a message answers matched the listing too, and the
listing took a row beside, often above, the messages it lists: a newcomer's `personal.mbox` came second for
"recieve the package" (under the message itself), third for "pet clause lease" (above the letter's message), eighth
for a landlord query. The message is the answer; its name in a list of names is not.

So, among one search's candidates, a listing's passage leaves the file ranking when a member of its container is a
candidate too and that member's passages hold every query word the listing's passage holds (none, when meaning alone
found it). The listing stays where it is the only answer: for a word of the container's own name ("personal.mbox",
which no member holds), for a member's name its own text does not hold (`beach.jpg` of a zip of photos), and where
no member is a candidate. A name counts as typed: a query word that is a whole word of the container's name
(named.py's rule for names), never one its stem or prefix matches ("quote" of `quoted.mbox`: the mbox's listing,
"quoted.mbox: 1 message 1: (no subject)", was fourth for "Müller heat pump quote", above real documents).

A member counts when it is a candidate even where it was folded away as an exact copy of another file
(folding.py): its content is shown, by that copy's row ("+1 copy: notes-backup.zip › sourdough.md"). Asked only
for the members left after that folding, a zip's listing ("notes-backup.zip: 2 members sourdough.md volcano.md")
found no member answering "sourdough starter" and took a row of its own, first of all for "sourdough OR volcano"
(0.73, its members' notes 0.44). Like the other folding of results by file (folding.py), it is not done in results by
passage, where every passage is a row.

`similar` compares no listing (listing_entry): `similar notes-backup.zip` compared the zip's listing, names only,
and answered its own member first (a newcomer); a listing said nothing of any other file either. A container asked
of is compared by its members' text instead (similar.py, decision 0208).
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ...base.member_paths import name_words, split_member
from ...ingest.extractors.members import is_listing, is_listing_text
from ...store.cjk import is_cjk
from ...store.rows import ChunkRow
from .snippet import holds_terms, query_terms

__all__ = ["answered_listings", "listing_entry"]


def listing_entry(row: ChunkRow) -> bool:
    """Whether the entry of `row` (its first passage: an entry's passages are all its listing or none of them, and
    only the first starts with the listing's heading) is a container's listing: an archive's or a mailbox's own
    entry, or a document of no text of its own but files, stored as its listing (sync/members.py)."""
    return is_listing(row.path) or is_listing_text(row.path, row.text)


def answered_listings(query: str, passages: Sequence[int], file_of: Mapping[int, int], texts: Mapping[int, str],
                      path_of: Mapping[int, str]) -> set[int]:
    """The listing passages among `passages` that a candidate member of their container answers (module doc).
    `passages`: every candidate, those folded away as copies of another file's too."""
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
        if held & _named(path, terms):
            continue  # a search for the container's own name
        if held <= _held_by(members[path], texts, terms):
            out.add(c)
    return out


def _held_by(passages: Iterable[int], texts: Mapping[int, str], terms: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for c in passages:
        out |= _held(texts[c], terms)
    return out


def _named(path: str, terms: Sequence[str]) -> set[str]:
    """The query terms the name of `path` holds as typed: a whole word of it (base/member_paths.name_words), or a CJK
    term anywhere in it (CJK has no spaces between words)."""
    words = set(name_words(path))
    name = " ".join(words)
    return {t for t in terms if t in words or (is_cjk(t) and t in name)}


def _held(text: str, terms: Sequence[str]) -> set[str]:
    """The query terms `text` holds, as the snippet marks them (snippet.holds_terms)."""
    return {t for t in terms if holds_terms(text, [t])}
