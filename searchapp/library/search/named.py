"""A search whose words no passage holds, typed as a file's name (`sourdough`, `testMSChart`): file names are not in
the words index, so it found only what meaning made of the word (a newcomer: the two files named so were not in the
top 10, rows of meaning noise were). The files named like it come first, newest first, marked as such, then what
meaning found; the note says so and how to list them all (`name:`, the query syntax's own way). Decision 0160.

Asked for a plain query of a few words (one pass over the names, read once for the files indexed and the others:
Store.files_named; 15-21 ms at 100,000 files, tests/benchmarks/bench_named_scan.py). Where the words
side found nothing, the files named like it come first whatever their number; where it found something, only for
a query of two words or more that FEW or fewer files hold in their names, each as a whole word (decision 0181):
"Screenshot 2024-05-02 at 10.14.22", typed as a newcomer read it in their Downloads, was not in the top 100 (its
words "2024", "05" found spreadsheets), while one word the passages hold ("volcano") or a name held by dozens of
files ("notes") says little of which file is meant. On both engines: the names are matched by the store's own `name:`
(Store.name_fragment; a shared library's folds them in Python, as the desktop's GLOB reads them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ...base.member_paths import display_path, name_words
from ...base.types import Hit
from ..query.filters import SearchFilters
from ...store import Store
from ...store.rows import ChunkRow
from ...store.scope import INDEXED, UNINDEXED, Fragment, all_of
from .constraints import listed
from .folding import Folded, fold_copies, mark_folded
from ...store.lexical import STOP_WORDS
from .result import NAMED, WEAK, Notice, SearchResult

__all__ = ["Named", "named_files", "names_a_file", "named_first", "put_named_first", "not_indexed_named", "MAX_WORDS",
           "SHOWN"]

MAX_WORDS = 10  # a name is a few words ("Screenshot 2024-05-02 at 10.14.22" is eight); a question is not one
FEW = 3  # files named like a query its words found too: listed first only when this few (a name, not a topic)
SHOWN = 100  # files counted at most ("100 or more")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class Named:
    """The files named like a query: `hits` (the newest first, at most k, each its first passage), how many there
    are (`count`, at most SHOWN), and the note that says so."""

    hits: list[Hit]
    count: int
    text: str


def named_files(store: Store, query: str, k: int, scope: Optional[Fragment] = None,
                whole_words: bool = False, names: Optional[Fragment] = None) -> Optional[Named]:
    """The files named like `query` (its words in their order, anything between) within `scope` (the search's
    filters: a folder, types, dates), or None when none is. `whole_words`: each word a whole word of the name
    ("tax" names tax-2024.pdf, not syntax-cheatsheet.md), as where the words found something too. `names`: the
    entries named like it (_glob's), read already (Store.files_named)."""
    words = _WORD.findall(query)
    if not words or len(words) > MAX_WORDS:
        return None
    glob = _glob(words)
    found = store.newest_first(all_of([INDEXED, names or store.name_fragment([glob]), *([scope] if scope else [])]),
                               SHOWN, by_file=True)
    file_of, rows = store.chunk_files(found), store.chunks(found)  # read once, for the folding and the rows
    ids = _one_a_content(store, found, file_of, rows)
    if whole_words:
        ids = [c for c in ids if c in rows and _names_whole(words, rows[c].path)]
    if not ids:
        return None
    hits = listed(store, ids[:k], rows)
    for h in hits:
        h.named = True
    shown = {c: file_of[c] for c in ids[:k]}
    # a row's copies are those the search's scope allows, whatever their names (as a search lists them)
    mark_folded(store, hits, shown, Folded(sha_of=store.file_sha256s(list(shown.values()))), scope)
    n = len(ids)
    # what was counted, in name:'s own terms: a word alone is "contains"; several, the glob itself (the query's text
    # named `name:"sourdough bread"` for sourdough-bread.txt, or `name:sourdough?`: neither lists it)
    field = words[0] if len(words) == 1 else glob
    if n == 1:
        said = "the file named like it comes first"
    elif n <= len(hits):
        said = f"the {n} files named like it come first"
    else:
        said = f"{'100 or more' if n >= SHOWN else n} files are named like it, the newest {len(hits)} first"
    return Named(hits, n, f"{said} (`name:{field}` lists {'it' if n == 1 else 'them all'})")


def _glob(words: list[str]) -> str:
    """The name glob of a query's words: in their order, anything between (sourdough-bread, sourdough_bread)."""
    return "*" + "*".join(words) + "*"


def _one_a_content(store: Store, ids: list[int], file_of: dict[int, int], rows: dict[int, ChunkRow]) -> list[int]:
    """`ids` (each a file's first passage; `file_of` and `rows` theirs) with one per content: exact copies share a
    row, as in a search (a file named so in Documents and its backup were two rows)."""
    fids = [file_of[c] for c in ids if c in file_of]
    copies = fold_copies(store, fids, {file_of[c]: rows[c].path for c in ids if c in file_of and c in rows})
    cid_of = {f: c for c, f in file_of.items()}
    shown = dict.fromkeys(copies.row_of.get(f, f) for f in fids)  # the copy each content is shown by, in order
    return [cid_of[f] for f in shown if f in cid_of]


def named_first(hits: list[Hit], named: Named, k: int) -> list[Hit]:
    """The named files first, then the rows found for the query that are not of those files (nor copies of them),
    k in all, ranked anew."""
    first = {p for h in named.hits for p in (h.path, *h.copies)}
    out = named.hits + [h for h in hits if h.path not in first and not first.intersection(h.copies)]
    for rank, h in enumerate(out[:k], start=1):
        h.ranks.final = rank
    return out[:k]


def names_a_file(store: Store, word: str) -> bool:
    """Whether some indexed file's name holds `word` (then it is no typo to correct: typos.py; this module lists
    such files)."""
    return bool(store.newest_first(all_of([INDEXED, store.name_fragment([f"*{word}*"])]), 1, by_file=True))


def not_indexed_named(store: Store, words: list[str], scope: Optional[Fragment] = None,
                      names: Optional[Fragment] = None) -> Optional[str]:
    """What to say of the files not indexed (failed, skipped, left out) whose names hold `words`, each a whole
    word, where FEW or fewer are: a person searching for "budget 2024" whose budget-2024.xlsx could not be read
    found other files, or nothing, and no word of why. None when no such file (or too many to mean one).
    `names`: the entries named like them (_glob's), read already (Store.files_named)."""
    if not words or len(words) > MAX_WORDS:
        return None
    where = all_of([UNINDEXED, names or store.name_fragment([_glob(words)]), *([scope] if scope else [])])
    rows = [r for r in store.files_listed(where, SHOWN) if _names_whole(words, r[0])]
    if not rows or len(rows) > FEW:
        return None
    if len(rows) == 1:
        path, status, reason = rows[0]
        return (f"{display_path(path)} is named like the query but is not indexed: {_why(status, reason)} "
                "(`searchapp explain` says more)")
    said = "; ".join(f"{display_path(p)} ({_why(st, r)})" for p, st, r in rows)
    return f"{len(rows)} files named like the query are not indexed: {said} (`searchapp explain` says more)"


def _why(status: str, reason: Optional[str]) -> str:
    """An entry's reason, short: the first clause of what the sync recorded."""
    why = (reason or status).strip() or status
    return why if len(why) <= 80 else why[:79].rstrip() + "…"


def _names_whole(words: list[str], path: str) -> bool:
    """Whether the name of `path` holds `words` in their order, each a whole word of it (any case)."""
    i = 0
    for w in name_words(path):
        if i < len(words) and w == words[i].lower():
            i += 1
    return i == len(words)


def _on_top(hits: list[Hit], named: Named) -> bool:
    """Whether the files named like the query lead the list already (the words found them: nothing to say)."""
    top = hits[:len(named.hits)]
    return {h.path for h in top} == {h.path for h in named.hits}


def put_named_first(store: Store, result: SearchResult, query: str, k: int,
                    filters: Optional[SearchFilters]) -> None:
    """A search's files named like its query put first, and the note said: where its words found nothing, or where
    FEW or fewer files are named like it (the caller asks only for a plain query: not --literal, whose `budg*`
    names no `budget`, nor one with syntax)."""
    if result.mode == "dense":  # meaning alone was asked for
        return
    found, words = result.words_matched, _WORD.findall(query)
    if found and (len(words) < 2 or not {w.lower() for w in words} - STOP_WORDS):
        # One word the passages hold ("volcano", "retry") ranks by what the files say: a name holding it is one
        # file among those the words found. Only common words ("the of and"): a name holding them is chance.
        return
    if not words or len(words) > MAX_WORDS:
        return  # a question, not a name
    scope = filters.where() if filters is not None and filters.active else None
    # The names read once for both questions below (at 100,000 files a second pass over them was ~12 ms more)
    names = store.files_named([_glob(words)])
    named = named_files(store, query, k, scope, whole_words=found, names=names)
    if named is None:
        said = not_indexed_named(store, words, scope, names)  # "budget-2024.xlsx": there, but never read
        if said:
            result.notices.append(Notice(NAMED, said))
        return
    if found and (named.count > FEW or _on_top(result.hits, named)):
        return
    result.hits = named_first(result.hits, named, k)
    result.notices = [n for n in result.notices if n.kind != WEAK]  # a named file is close by name
    lead = "named like the query" if result.words_matched else f"no passage holds {query.strip()}"
    result.notices.append(Notice(NAMED, f"{lead}: {named.text}"))
