"""Why a search found nothing, when its filters are the reason: a `type:` no indexed file has, an `in:` outside
every indexed folder, a date range no file is in, filters that each match files but none together, or a `#tag`
no file holds. "No
results" alone read as "no file holds these words", and while a sync ran, as "wait for it" (issue: a newcomer's
`type:banana boiler` was told to search again in a moment).

Asked only when a search found nothing and has filters (the `--in`/`--type`/`--after`/`--before` options, the
filter bar, the query's fields) or a `#tag` it must hold: a few counts over the files table, through the store's
named reads. The words of a query are never the reason said here: a miss within files the filters allow stays a
plain "no results".
"""

from __future__ import annotations

import re
from typing import Optional, Protocol, Sequence

from ...ingest.extractors.registry import supported_suffixes
from ...ingest.fsnames import is_within
from ...store.scope import INDEXED, Fragment, all_of
from ..query.field_values import field_value
from ..query.filters import SearchFilters, types_meant
from ..query.syntax import Clause, ParsedQuery, Term, filters_of
from .constraints import term_pieces
from .result import ABSENT, FILTERED, OUTSIDE, Notice

__all__ = ["FileCounts", "why_empty"]

SHOWN = 6  # the library's types and folders named in a reason: the most common first, then how many more
# What `type:` can name (query/filters.parse_types): a tail of another form ("b/readme" of /a.b/readme) is no type.
_TYPE = re.compile(r"^[a-z0-9]{1,16}$")


class FileCounts(Protocol):
    """What is asked of a store (store/scope.ScopeQueries, the shared library's pg_scope.PgScope)."""

    def files_count(self, where: Fragment) -> int: ...

    def file_types(self) -> dict[str, int]: ...

    def date_span(self) -> Optional[tuple[int, int]]: ...

    def tag_fragment(self, tags: Sequence[tuple[str, Sequence[tuple[str, bool]]]], *,
                     exclude: bool = False) -> Fragment: ...


def why_empty(store: FileCounts, filters: Optional[SearchFilters], parsed: Optional[ParsedQuery],
              roots: Sequence[str], names: Optional[Sequence[str]] = None) -> Optional[Notice]:
    """Why the filters (`filters`: the options or the filter bar; `parsed`: the query's fields) leave no file of
    the library, or None when they leave some (or the library has none: no filter is the reason then). `roots`:
    the library's folders, in the filters' terms; `names`: the same folders as the notice names them (a shared
    library's, where this desktop mounts them; default: `roots`). The most specific reason first: a type, a place,
    dates, then the filters together, then a `#tag` no file holds."""
    given = [f for f in (filters, filters_of(parsed) if parsed is not None else None) if f is not None and f.active]
    tagged = [c for c in (parsed.clauses if parsed is not None else ()) if _all_tags(c)]
    if not (given or tagged) or not store.files_count(INDEXED):
        return None
    for f in given:
        why = _type(store, f) or _place(store, f, roots, roots if names is None else names) or _dates(store, f)
        if why is not None:
            return why
    if not given or store.files_count(all_of([f.where() for f in given])):
        return _tags(store, tagged)
    fields = " ".join(_fields(f) for f in given)
    return Notice(FILTERED, f"no indexed file matches {fields} at once (each alone does): remove one of them")


def _type(store: FileCounts, f: SearchFilters) -> Optional[Notice]:
    if not f.types or store.files_count(SearchFilters(types=f.types).where()):
        return None
    here = sorted(((t, n) for t, n in store.file_types().items() if _TYPE.match(t)), key=lambda tn: (-tn[1], tn[0]))
    named = " or ".join(f'"{t}"' for t in f.types)
    text = f"no indexed file is of type {named}"
    if here:
        text += f" (types here: {_few([f'{t} {n}' for t, n in here])})"
    # A type a reader takes may still come with a sync under way; one no reader takes would not (any suffix is
    # tried as plain text, but a newcomer's guess at a type name is no file's extension).
    readable = any(f".{t}" in supported_suffixes() for t in types_meant(f.types))
    return Notice(FILTERED if readable else ABSENT, text)


def _place(store: FileCounts, f: SearchFilters, roots: Sequence[str], names: Sequence[str]) -> Optional[Notice]:
    if not f.folders or store.files_count(SearchFilters(folders=f.folders).where()):
        return None
    outside = [p for p in f.folders if not any(is_within(p, r) or is_within(r, p) for r in roots)]
    if len(outside) == len(f.folders):  # no sync of the library's folders writes there
        verb = "is" if len(outside) == 1 else "are"
        return Notice(OUTSIDE, f"{', '.join(outside)} {verb} not in an indexed folder (indexed: "
                                f"{_few(list(names))})")
    return Notice(FILTERED, f"no indexed file is in {' or '.join(p for p in f.folders if p not in outside)}")


def _dates(store: FileCounts, f: SearchFilters) -> Optional[Notice]:
    if (f.after is None and f.before is None) or store.files_count(
            SearchFilters(after=f.after, before=f.before).where()):
        return None
    days = f.to_json()
    when = " and ".join(([f"on or after {days['after']}"] if days["after"] else [])
                        + ([f"before {days['before']}"] if days["before"] else []))
    span = store.date_span()
    if span is None:
        return Notice(FILTERED, f"no indexed file was modified {when}")
    here = _day(span[0]) if _day(span[0]) == _day(span[1]) else f"{_day(span[0])} to {_day(span[1])}"
    return Notice(FILTERED, f"no indexed file was modified {when} (files here: {here})")


def _day(ns: int) -> str:
    """A file date (ns) as the filters write a day (YYYY-MM-DD, local time)."""
    return str(SearchFilters(after=ns / 1e9).to_json()["after"])


def _all_tags(clause: Clause) -> bool:
    """A clause a file must hold that is only tags: `#budget`, `#a OR #b` (not `-#x`, nor `#a OR word`)."""
    return clause.kind in ("require", "any") and all(t.tag for t in clause.terms)


def _tags(store: FileCounts, clauses: Sequence[Clause]) -> Optional[Notice]:
    """The first of `clauses` (each only tags) whose tags no indexed file holds: with the store's own tag test
    (constraints.QueryConstraints'), so a shared library answers by its passages as its searches do."""
    for clause in clauses:
        tags = [(t.text, term_pieces(Term(t.text))) for t in clause.terms]
        if not store.files_count(all_of([INDEXED, store.tag_fragment(tags)])):
            named = " or ".join(t.to_text() for t in clause.terms)
            return Notice(FILTERED, f"no file is tagged {named}")
    return None


def _fields(f: SearchFilters) -> str:
    """`f` as the query writes its fields."""
    days = f.to_json()
    parts = [f"in:{field_value(p)}" for p in f.folders] + ([f"type:{','.join(f.types)}"] if f.types else [])
    return " ".join(parts + [f"{k}:{days[k]}" for k in ("after", "before") if days[k]])


def _few(items: list[str]) -> str:
    """The first SHOWN of `items`, then how many more."""
    more = f", and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more
