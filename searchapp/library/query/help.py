"""What the front ends show about a query's syntax (syntax.py): the help table, the recognised parts (the
window's chips, each removable), and which words a snippet marks. Pure: no Qt, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union

from .length import capped_query
from .reading import read_query
from .syntax import ParsedQuery, to_text

__all__ = ["SYNTAX_ROWS", "QueryPart", "query_parts", "without_part", "marked_text"]

# (form, meaning): the window's `?` help. docs/cli.md's "Query syntax" table says the same.
SYNTAX_ROWS: tuple[tuple[str, str], ...] = (
    ("word", "ranks by meaning and by the word; not required"),
    ('"exact phrase"', "the file must contain these words, in this order"),
    ('-word   -"a phrase"', "the file must not contain it"),
    ('a OR b   "x y" OR z', "the file must contain at least one of them"),
    ("word*", "the file must contain a word starting with this"),
    ("#tag   #area/sub   -#tag", "a note tagged so (#area/sub is under #area; #area-x is another tag); -: not tagged"),
    ('in:PATH   dir:PATH   in:"~/My Docs"', "only files at or below this folder (several: any of them)"),
    ("type:pdf,docx", "only these file types (extensions; a message is eml or msg wherever it is; mail: all mail)"),
    ("name:GLOB", "the file's name matches (* ? [abc]; without a wildcard: contains), any case"),
    ("after:2026-01", "dated on or after the start of that day, month (2026-01) or year (2026); a mail: sent"),
    ("before:2026-03-15", "dated before the start of that day, month or year"),
    ("page:N", "only passages on page N (PDF)"),
    ('from:alice   to:bob   cc:carol   subject:"roof"',
     "a message whose From, To (or Cc), Cc or Subject line holds it (any case, accents)"),
    ("a long question", "10 words, 5 outside quotes (or 5 ending in . ? !): its quotes, -words, OR, * and fields "
                        "amid the words are plain words"),
)


# Which part of a query: ("clause", its index), ("in", the folder), ("name", the name), or (the field,)
PartKey = tuple[Union[str, int], ...]


@dataclass(frozen=True)
class QueryPart:
    """One recognised constraint of a query: `label` is what a chip shows, `key` says which one it is."""

    label: str
    key: PartKey


def query_parts(parsed: ParsedQuery) -> list[QueryPart]:
    """Every constraint the parser recognised, in the order of the query text `to_text` writes."""
    out: list[QueryPart] = []
    for i, c in enumerate(parsed.clauses):
        if c.kind == "word":
            continue
        if c.kind == "exclude":
            label = "not " + c.terms[0].to_text()
        elif c.kind == "any":
            label = "any of: " + c.to_text()
        elif c.terms[0].tag:
            label = "tag " + c.to_text()
        elif c.terms[0].prefix:
            label = "prefix " + c.to_text()
        else:
            label = "phrase " + c.to_text()
        out.append(QueryPart(label, ("clause", i)))
    out += [QueryPart(f"in: {f}", ("in", f)) for f in parsed.folders]
    if parsed.types:
        out.append(QueryPart("type: " + ", ".join(parsed.types), ("type",)))
    out += [QueryPart(f"name: {n}", ("name", n)) for n in parsed.names]
    for field in ("after", "before", "page"):
        value = getattr(parsed, field)
        if value is not None:
            out.append(QueryPart(f"{field}: {value}", (field,)))
    out += [QueryPart(f"{name}: {v}", ("header", name, v)) for name, v in parsed.headers]
    return out


def without_part(parsed: ParsedQuery, key: PartKey) -> str:
    """The query text with the part `key` (from query_parts) taken out; the rest written by to_text."""
    kind = key[0]
    if kind == "clause":
        changed = replace(parsed, clauses=tuple(c for i, c in enumerate(parsed.clauses) if i != key[1]))
    elif kind == "in":
        changed = replace(parsed, folders=tuple(f for f in parsed.folders if f != key[1]))
    elif kind == "name":
        changed = replace(parsed, names=tuple(n for n in parsed.names if n != key[1]))
    elif kind == "type":
        changed = replace(parsed, types=())
    elif kind == "after":
        changed = replace(parsed, after=None)
    elif kind == "before":
        changed = replace(parsed, before=None)
    elif kind == "header":
        changed = replace(parsed, headers=tuple(h for h in parsed.headers if h != (key[1], key[2])))
    else:  # page
        changed = replace(parsed, page=None)
    return to_text(changed)


def marked_text(query: str, literal: bool = False) -> str:
    """The text whose words a snippet marks: with syntax, the words searched for (`free_text`), so neither an
    excluded word nor a field (type:pdf) is marked in a hit; a plain or literal query as typed."""
    query = capped_query(query)[0]  # the words searched (Library.search cuts a query as long the same way)
    return query if literal else read_query(query).free_text  # free_text is the query itself without syntax
