"""What a search hands a front end: its hits, the query parser's warnings, and typed notices about them.

Library.search decides what is said (is the query searchable, was it only a listing, why no reranker ran, is
a reindex or the meaning pass under way); the CLI and the window only render it. Neither parses the query
again nor compares notice texts: a notice's `kind` says what it is about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Optional

from ...base.member_paths import display_path
from ...base.types import Hit, NearCopy

if TYPE_CHECKING:  # for the type checker alone: a result is read without the search pipeline's imports
    from ..resources.lock import Holder
    from .filter_scope import FilterStats

__all__ = ["SearchResult", "Notice", "UNSEARCHABLE", "LISTING", "PLACE", "FILTERED", "ABSENT", "OUTSIDE",
           "WHY_EMPTY", "COMMON", "NAMED", "WEAK", "RESPELLED", "TYPO", "DID_YOU_MEAN", "common_text", "RERANKER", "REINDEX", "MEANING", "LOADING", "SAME",
           "NEAR", "MEMBERS",
           "LISTING_NOTICE", "LOADING_NOTICE", "meaning_text", "writer_embeds", "embeds_next"]

# Notice kinds, in the order a search says them.
UNSEARCHABLE = "unsearchable"  # nothing to match or embed (empty, common words only): no hits at all
LISTING = "listing"  # only operators and fields: the allowed files, newest first, unranked
PLACE = "place"  # an in: value at which no folder of the library is (search/places.py): a typo finds nothing
# Why a search found nothing when its filters are the reason (search/empty_reason.py): FILTERED, they leave no file
# of the library now (a sync adding files may change that); ABSENT, a type no file has and no reader takes; OUTSIDE,
# a place outside every indexed folder (a PLACE notice names it too). No sync of the library's folders brings either.
FILTERED = "filtered"
ABSENT = "absent"
OUTSIDE = "outside"
WHY_EMPTY = (FILTERED, ABSENT, OUTSIDE)
COMMON = "common"  # a hybrid query of only common words: its words rank nothing, meaning alone ranks
NAMED = "named"  # words no passage holds, typed as a file's name (search/named.py): `name:` lists the files
RERANKER = "reranker"  # reranking was asked for but no reranker can run: first-stage order
REINDEX = "reindex"  # a reindex is under way: results come only from what it embedded so far
MEANING = "meaning"  # passages still without a vector: the dense side lacks them
LOADING = "loading"  # the vector index was still opening: a hybrid search answered by its words alone
SAME = "same"  # Similar files: the source's exact copies, the same file elsewhere (not listed as similar)
MEMBERS = "members"  # Similar files of a container (a zip, a mailbox): compared by its members' text, said so
NEAR = "near"  # Similar files: the source's near copies, the same document (not listed as similar: near_copies.py)
WEAK = "weak"  # every row shares no word with the query and is far from it in meaning (search/weak.py)
RESPELLED = "respelled"  # a word typed with ue for ü, searched as the library writes it (search/respelled.py)
TYPO = "typo"  # a word no passage holds, searched as the word one edit away the library holds (search/typos.py)
DID_YOU_MEAN = "did_you_mean"  # a word no passage holds that the model knows: searched as typed, the word one edit away offered

# What a notice of these kinds says is about its own query; the others are about the library or the models (one
# run's lines share them: `search -` says those once, these on each line they are about).
OF_THE_QUERY = frozenset({LISTING, PLACE, *WHY_EMPTY, COMMON, NAMED, WEAK, RESPELLED, TYPO, DID_YOU_MEAN})
LISTING_NOTICE = "no words to rank by: newest matching first"
LOADING_NOTICE = "meaning is still loading — word matches only"


@dataclass(frozen=True)
class Notice:
    kind: str  # one of the kinds above
    text: str  # one line for a person


def writer_embeds(writer: Optional[Holder]) -> Optional[str]:
    """Who embeds the passages still waiting while a process writes the library, as `status` and a search both say
    it, or None (no writer: `searchapp index` does). Advising `searchapp index` then only sent the person to wait
    behind the window or a watch, or, said of a `searchapp index` in its meaning pass, to start a second one."""
    if writer is None:
        return None
    if writer.yields:  # its lock says it is in its meaning pass (sync/handover.py): these are what it embeds
        return f"{writer} is embedding them now"
    if embeds_next(writer.doing):
        return f"{writer} is writing the library now and embeds them next"
    return f"{writer} is writing the library now: a watch or the window embeds them as it goes, else `searchapp index`"


_VALUED = ("--data-dir", "--config", "--library")  # the options before a command that take a value (global_options)


def embeds_next(doing: str) -> bool:
    """Whether a writer's command line ("searchapp index /docs", lock.Holder.doing) embeds what waits once its words
    are written: an index without --words-only, a watch, the window (`searchapp gui`, or `searchapp` alone)."""
    words = doing.split()
    if not words or words[0] not in ("searchapp", "searchapp.exe"):
        return False  # another program using the library (a script, a test): nothing known of it
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _VALUED else 1
    command = words[i] if i < len(words) else "gui"
    # argparse takes any unambiguous prefix of an option: `--words` or `--wo` is --words-only too
    words_only = any(w.startswith("--wo") and "--words-only".startswith(w) for w in words[i + 1:])
    return command in ("watch", "gui") or (command == "index" and not words_only)


def common_text(words: list[str]) -> str:
    """The note of a hybrid search of only common words (pipeline.run_search)."""
    return (f"only common words ({', '.join(words)}): they are in nearly every passage and rank nothing, so these "
            "are ranked by meaning alone")


def meaning_text(percent: int, mode: str = "hybrid", writer: Optional[Holder] = None) -> str:
    """The note beside results while passages still lack vectors. Dense mode reads meaning alone, so there the rest
    are not found at all; Similar compares by meaning only files that have it, and finds the rest by their words
    (decision 0159). `writer`: the process writing the library now, if any (writer_embeds: it embeds them, not a
    `searchapp index` of the person's)."""
    who = writer_embeds(writer)
    if who is not None and writer is not None and (writer.yields or embeds_next(writer.doing)):
        who += ": `searchapp status` shows how far"  # where status's own line says the percentage already
    if mode == "dense":
        return (f"meaning: {percent}% of passages; dense mode finds only those (hybrid or lexical finds the rest "
                f"by their words; {who or '`searchapp index` finishes the meaning'})")
    if mode == "similar":
        return (f"meaning: {percent}% of passages; files without it yet are found similar by their words, marked "
                f"\"by words\" ({who or '`searchapp index` finishes it'})")
    return (f"meaning: {percent}% of passages; the rest are found by their words only until "
            f"they are embedded ({who or '`searchapp index` finishes it'})")


def written_as(text: str, changes: Iterable[tuple[str, str]]) -> str:
    """`text` with each whole word `typed` of `changes` ((typed, searched) pairs) written as `searched`: the one
    rewriting of a query's words searched otherwise than typed (respelled.py, typos.py, the snippets' marks)."""
    for typed, searched in changes:
        text = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", searched, text)
    return text


@dataclass
class SearchResult:
    query: str
    mode: str
    hits: list[Hit]
    reranked: bool
    notices: list[Notice] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what the query parser took as plain words
    meaning_percent: Optional[int] = None  # < 100: passages still without a vector (dense search lacks them)
    timings_ms: dict[str, float] = field(default_factory=dict)
    filter_stats: Optional[FilterStats] = None  # with filters: how many passages were allowed, how far the search went
    group: str = "file"
    # How the query was read: "strict" (its syntax applies), "plain" (a long question: its operators were read as
    # plain words, a warning says which) or "literal" (--literal: no syntax at all).
    reading: str = "strict"
    # The words side found a passage (False: it ran and matched none; a search.named note may follow). True where
    # it did not run (dense, a listing) or was not asked (only common words).
    words_matched: bool = True
    same_file: list[str] = field(default_factory=list)  # Similar files: the source's exact copies (stored paths)
    near_copies: list[NearCopy] = field(default_factory=list)  # Similar files: the source's near copies, best first
    here: Optional[str] = None  # a shared library's: the machine answering (a hit another machine indexed says so)
    # Words searched otherwise than typed (a typo, ue for ü: search/typos.py, respelled.py): typed -> searched
    searched_as: dict[str, str] = field(default_factory=dict)
    # Words no passage holds that the model knows, searched as typed: typed -> the word one edit away the library holds
    did_you_mean: dict[str, str] = field(default_factory=dict)

    def with_searched(self, text: str) -> str:
        """`text` (the words a snippet marks) with each word searched otherwise written as it was searched: the
        passage holds "receive", and a snippet marking "recieve" marked nothing and showed the passage's start."""
        return written_as(text, self.searched_as.items())

    def said(self, *kinds: str) -> Optional[str]:
        """The text of the first notice of one of `kinds`, or None."""
        return next((n.text for n in self.notices if n.kind in kinds), None)

    @property
    def notice(self) -> Optional[str]:
        """What is said about this query's results: why it found nothing, that it only lists, or why it was
        not reranked."""
        return self.said(UNSEARCHABLE, LISTING, RERANKER)

    @property
    def reindex_notice(self) -> Optional[str]:
        return self.said(REINDEX)

    @property
    def meaning_notice(self) -> Optional[str]:
        return self.said(MEANING)

    def to_json(self) -> dict[str, Any]:
        out = {"query": self.query, "mode": self.mode, "reranked": self.reranked, "group": self.group,
               "reading": self.reading, "hits": [h.to_json() for h in self.hits]}
        if self.reindex_notice:
            out["reindex_notice"] = self.reindex_notice
        if self.said(PLACE):
            out["place_notice"] = self.said(PLACE)  # an in: value no folder of the library is at
        if self.said(*WHY_EMPTY):
            out["filter_notice"] = self.said(*WHY_EMPTY)  # no hits because the filters leave no file
        if self.mode == "similar":
            out["same_file"] = [display_path(p) for p in self.same_file]  # as a hit's `copies`
            out["near_copies"] = [n.to_json() for n in self.near_copies]  # as a hit's `near_copies`
            if self.said(MEMBERS):
                out["members_notice"] = self.said(MEMBERS)  # a container: compared by its members' text
        if self.said(COMMON):
            out["words_notice"] = self.said(COMMON)  # only common words: ranked by meaning alone
        if self.searched_as:
            out["searched_as"] = dict(self.searched_as)  # a word typed one way, searched another (with a note)
        if self.did_you_mean:
            out["did_you_mean"] = dict(self.did_you_mean)  # a known word no passage holds, searched as typed
        if self.said(NAMED):
            out["name_notice"] = self.said(NAMED)  # no passage holds the words; files are named like them
        if self.said(WEAK):
            out["weak_notice"] = self.said(WEAK)  # every row is a weak match (search/weak.py)
        if self.said(LOADING):
            out["meaning"] = "loading"  # words only: the vector index was still opening
        if self.meaning_percent is not None:
            out["meaning_percent"] = self.meaning_percent
            out["meaning_notice"] = self.meaning_notice
        if self.filter_stats is not None:
            out["timings"] = {**{f"{k}_ms": round(v, 2) for k, v in self.timings_ms.items()}, **self.filter_stats}
        return out
