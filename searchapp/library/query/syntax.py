"""The query language shared by the CLI and the window. Pure: no I/O, no SQL.

    word                plain word: ranks (semantic and BM25), never required
    "exact phrase"      the file must contain these words, in this order
    -word  -"a phrase"  the file must not contain it
    a OR b  "x y" OR z  the file must contain at least one (OR binds tighter than the implicit AND)
    word*               the file must contain a word starting with this
    #tag  #area/sub     the file holds the tag (Obsidian, Logseq, Bear): `#area/sub` is under `#area`; ranks by its words
    in:PATH  dir:PATH   at or below a folder (quotes allowed: in:"~/My Docs"; ~ expanded); several: any of them
    type:pdf,docx       file type, any of them (an extension; a message: eml or msg; mail: all mail)
    name:GLOB           the file's name (not its folder), case-insensitive; * ? [abc]; no wildcard: contains
    after:DATE          modified on or after the start of DATE
    before:DATE         modified before the start of DATE
    page:N              only passages on page N (paged formats: PDF); a file without pages has no page N
    from:, to:, subject:  a message whose own From, To or Subject line holds the value (several of one: any)

DATE is YYYY-MM-DD, YYYY-MM or YYYY, and always means the first day of that period, for both fields, as a
full date already did: `after:2026-01 before:2026-02` is January 2026, `before:2026` is up to 2025-12-31.

A query holds at most MAX_OPERATORS operator parts (phrases, prefixes, exclusions, OR alternatives, field
values), counted in the order typed: past that, a phrase, prefix, tag or OR group is searched as plain words and
an exclusion or field is ignored, with a note. Each part is a subquery of one SQL statement, and SQLite caps
how deep and wide a statement may be (600 ORs or 10,000 exclusions failed as a database error).

Anything that does not parse (an unbalanced quote, a field without a value, an unknown field like foo:bar,
a date field's word like after:lunch, OR with nothing on one side) is searched as the words it contains and noted
in `warnings`: never an error. The one exception is a date mistyped (a value that begins with a digit, after:2026-13-01):
parsed as the field, it is refused by the search (filters_of), as --after refuses it. `literal=True` turns all of this off. Semantic ranking uses `free_text`: the plain words,
the phrases, the OR alternatives, the prefixes' stems and the tags' words, in the order typed (exclusions and
fields left out). A query with no syntax at all (`has_syntax` False) is searched exactly as before this module existed.
How a long question is read (as prose, not syntax) is query/reading.py's job.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Callable, Optional

from ...base.errors import ConfigError, QueryError
from .filters import SearchFilters, parse_date, parse_types
from .field_values import date_key, field_value, full_date, page_number
from ...ingest.fsnames import is_within

__all__ = ["TOKEN_CHAR", "Term", "Clause", "ParsedQuery", "parse_query", "to_text", "with_filters", "filters_of", "FIELDS",
           "HEADER_FIELDS", "moved_folders",
           "MAX_OPERATORS", "parse_with_inner_fields_as_words"]

FIELDS = ("in", "dir", "type", "name", "after", "before", "page", "from", "to", "cc", "subject")
HEADER_FIELDS = ("from", "to", "cc", "subject")  # a message's header lines (store/scope.py header_matches)
TOKEN_CHAR = re.compile(r"[^\W_]")  # a character the lexical index keeps (unicode61: letters and digits)
_FIELD = re.compile(r"([A-Za-z]+):(.*)", re.S)
_PREFIX = re.compile(r"(\w+)\*")
# A tag as notes write it: '#', a letter, then letters, digits, '_', '-', and '/' between levels. `#1` (an issue
# number) and `# Title` (a heading) are no tags; anything else after the '#' (`#c++`) is a word as before.
_TAG = re.compile(r"#([^\W\d_][\w-]*(?:/[\w-]+)*)")
MAX_OPERATORS = 100
@dataclass(frozen=True)
class Term:
    """A word or phrase a constraint is about. `prefix`: its last word is a prefix (typed `word*`)."""

    text: str
    phrase: bool = False  # typed in quotes (a bare word of several index words, e.g. e-mail, acts as one)
    prefix: bool = False
    tag: bool = False  # typed `#text`: a file holding that tag (store/scope.py holds_tag)

    def to_text(self) -> str:
        if self.tag:
            return "#" + self.text
        return f'"{self.text}"' if self.phrase else self.text + ("*" if self.prefix else "")


@dataclass(frozen=True)
class Clause:
    """One part of the query, in the order typed. kind: word (ranks only) | require | any | exclude."""

    kind: str
    terms: tuple[Term, ...]

    def to_text(self) -> str:
        if self.kind == "exclude":
            return "-" + self.terms[0].to_text()
        return " OR ".join(t.to_text() for t in self.terms)


@dataclass(frozen=True)
class ParsedQuery:
    raw: str
    clauses: tuple[Clause, ...] = ()
    folders: tuple[str, ...] = ()  # as typed (expanded by filters_of)
    types: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # globs; a file must match one of them
    after: Optional[str] = None  # as typed: YYYY, YYYY-MM or YYYY-MM-DD
    before: Optional[str] = None
    page: Optional[int] = None
    warnings: tuple[str, ...] = ()
    literal: bool = False
    # (field, value) of from:, to: (To or Cc) and subject:: a message whose header line holds the value (any of
    # one field's values; every field given)
    headers: tuple[tuple[str, str], ...] = ()
    as_words: tuple[str, ...] = ()  # operators read as plain words in a long question (as_searched), as typed

    @property
    def free_text(self) -> str:
        """What semantic and BM25 ranking read: every typed word except exclusions and fields."""
        if not self.has_syntax:
            return self.raw
        return " ".join(t.text for c in self.clauses if c.kind != "exclude" for t in c.terms)

    @property
    def prefixes(self) -> tuple[str, ...]:
        """The words of `free_text` typed as prefixes (`word*`): lexical ranking matches every index word
        starting with them, as the constraint does."""
        return tuple(dict.fromkeys(t.text for c in self.clauses if c.kind != "exclude" for t in c.terms if t.prefix))

    def of_kind(self, kind: str) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if c.kind == kind)

    @property
    def has_fields(self) -> bool:
        return bool(self.folders or self.types or self.names or self.after or self.before or self.page is not None
                    or self.headers)

    @property
    def has_syntax(self) -> bool:
        """False for a plain query (also one whose only 'syntax' was taken literally): searched as before."""
        return self.has_fields or any(c.kind != "word" for c in self.clauses)


def parse_query(text: str, literal: bool = False) -> ParsedQuery:
    text = text or ""
    if literal:
        return ParsedQuery(text, tuple(Clause("word", (Term(w),)) for w in text.split()), literal=True)
    return _Parser(text).parse()


def parse_with_inner_fields_as_words(text: str) -> tuple[ParsedQuery, list[str]]:
    """`text` parsed with its fields that have words on both sides taken as words; those fields as typed."""
    parser = _Parser(text, inner_fields_as_words=True)
    return parser.parse(), parser.inner_fields


@dataclass
class _Tok:
    kind: str  # word | phrase | prefix | tag | field | or
    text: str
    neg: bool = False
    name: str = ""  # a field's name
    at: tuple[int, int] = (0, 0)  # a field's place in the text, its name as typed included (moved_folders)


class _Parser:
    def __init__(self, text: str, inner_fields_as_words: bool = False) -> None:
        self.s = text
        self.inner_fields_as_words = inner_fields_as_words
        self.inner_fields: list[str] = []  # fields taken as words for having words on both sides, as typed
        self.i = 0
        self.warnings: list[str] = []
        self.fields: dict[str, list[str]] = {}
        self.used = 0  # operator parts kept so far (MAX_OPERATORS)
        self.over = 0  # operator parts past the cap

    def take(self, n: int) -> bool:
        """Whether `n` more operator parts fit under MAX_OPERATORS (counted when they do, else noted)."""
        if self.used + n > MAX_OPERATORS:
            self.over += n
            return False
        self.used += n
        return True

    def warn(self, what: str) -> None:
        if what not in self.warnings:
            self.warnings.append(what)

    # -- tokens ------------------------------------------------------------
    def _quoted(self) -> Optional[str]:
        """At a '"': the text up to the closing quote (moved past it), or None when there is none."""
        end = self.s.find('"', self.i + 1)
        if end < 0:
            return None
        out = self.s[self.i + 1: end]
        self.i = end + 1
        return out

    def _bare(self) -> str:
        j = self.i
        while j < len(self.s) and not self.s[j].isspace():
            j += 1
        out, self.i = self.s[self.i: j], j
        return out

    def tokens(self) -> list[_Tok]:
        out: list[_Tok] = []
        s = self.s
        while True:
            while self.i < len(s) and s[self.i].isspace():
                self.i += 1
            if self.i >= len(s):
                return out
            start = self.i
            # "-2" or "-0.5" is a number (a range's end, a negative value), not an exclusion.
            neg = (s[self.i] == "-" and self.i + 1 < len(s) and not s[self.i + 1].isspace()
                   and not s[self.i + 1].isdigit())
            if neg:
                self.i += 1
            if s[self.i] == '"':
                phrase = self._quoted()
                if phrase is None:
                    self.warn("unbalanced quote: searched as words")
                    self.i = start
                    out.append(_Tok("word", self._bare()))
                    continue
                if not TOKEN_CHAR.search(phrase):
                    self.warn(f"empty phrase {s[start:self.i]}: ignored")
                    continue
                out.append(_Tok("phrase", " ".join(phrase.split()), neg))
                continue
            bare = self._bare()
            m = _FIELD.fullmatch(bare)
            if m and m.group(1).lower() in FIELDS:
                name, value = m.group(1).lower(), m.group(2)
                if value.startswith('"'):  # a quoted value may hold spaces: in:"~/My Docs"
                    self.i = start + (1 if neg else 0) + len(m.group(1)) + 1
                    quoted = self._quoted()
                    if quoted is None:
                        self.warn("unbalanced quote: searched as words")
                        self.i = start
                        out.append(_Tok("word", self._bare()))
                        continue
                    value = quoted
                if neg:
                    self.warn(f"-{name}: a field cannot be negated: searched as words")
                    out.append(_Tok("word", s[start:self.i]))
                    continue
                out.append(_Tok("field", value, name=name, at=(start, self.i)))
                continue
            if m and m.group(2) and not m.group(2).startswith("/") and m.group(1).lower() not in ("http", "https"):
                self.warn(f"unknown field {m.group(1)}: searched as words")
            if bare == "OR" and not neg:
                out.append(_Tok("or", bare))
                continue
            if not TOKEN_CHAR.search(bare):  # "-", "*", "--": no word to require or exclude
                out.append(_Tok("word", s[start:self.i]))
                continue
            tag = _TAG.fullmatch(bare)
            if tag:
                out.append(_Tok("tag", tag.group(1), neg))
                continue
            p = _PREFIX.fullmatch(bare)
            if p and TOKEN_CHAR.search(p.group(1)):
                out.append(_Tok("prefix", p.group(1), neg))
            elif bare.endswith("*"):
                self.warn(f"{bare}: only a single word can be a prefix: searched as words")
                out.append(_Tok("word", s[start:self.i]))
            else:
                out.append(_Tok("word", bare, neg))

    # -- structure ---------------------------------------------------------
    def parse(self) -> ParsedQuery:
        toks = self.tokens()
        clauses: list[Clause] = []
        is_word = [t.kind == "word" and bool(TOKEN_CHAR.search(t.text)) for t in toks]
        first_word = is_word.index(True) if any(is_word) else len(toks)
        last_word = len(toks) - 1 - is_word[::-1].index(True) if any(is_word) else -1
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "field" and self.inner_fields_as_words and first_word < i < last_word:
                typed = f"{t.name}:{t.text}"
                self.inner_fields.append(typed)
                clauses.append(Clause("word", (Term(typed),)))
                i += 1
                continue
            if t.kind == "field":
                self.field(t, clauses)
                i += 1
                continue
            if t.kind == "or" and 0 < i < len(toks) - 1 and toks[i - 1].kind == toks[i + 1].kind == "field":
                # `from:alice OR from:bob`: two values of one field already mean either; OR as a word found "or"
                same = toks[i - 1].name == toks[i + 1].name
                self.warn("OR between fields is not needed: two values of one field mean either of them "
                          "(type:pdf type:docx); OR left out" if same else
                          "OR cannot join two fields: every field given must hold; OR left out")
                i += 1
                continue
            if t.kind == "or":
                self.warn("OR needs a word or phrase on each side: searched as a word")
                clauses.append(Clause("word", (Term("OR"),)))
                i += 1
                continue
            # an OR group: term (OR term)+, none negated
            group = [t]
            j = i
            while (not t.neg and j + 2 < len(toks) and toks[j + 1].kind == "or"
                   and toks[j + 2].kind in ("word", "phrase", "prefix", "tag") and not toks[j + 2].neg):
                group.append(toks[j + 2])
                j += 2
            if len(group) > 1:
                if self.take(len(group)):
                    clauses.append(Clause("any", tuple(_term(g) for g in group)))
                else:  # past the cap: its words still rank
                    clauses += [Clause("word", (Term(g.text),)) for g in group]
                i = j + 1
                continue
            if t.neg:
                if self.take(1):
                    clauses.append(Clause("exclude", (_term(t),)))
            elif t.kind in ("phrase", "prefix", "tag") and self.take(1):
                clauses.append(Clause("require", (_term(t),)))
            else:
                clauses.append(Clause("word", (Term(t.text),)))
            i += 1
        if self.over:
            self.warn(f"more than {MAX_OPERATORS} operators (phrases, prefixes, exclusions, OR alternatives, "
                      f"fields): only the first {MAX_OPERATORS} are used; {self.over} more are ignored "
                      "(a phrase, prefix or OR group among them is searched as plain words)")
        f = self.fields
        after = max(f.get("after", []), default=None, key=date_key)  # several: the tightest holds
        before = min(f.get("before", []), default=None, key=date_key)
        if after and before and date_key(after) >= date_key(before):
            self.warn(f"after:{after} is not before before:{before}: no file can match")
        pages = f.get("page", [])
        if len(set(pages)) > 1:
            self.warn("several page: fields: the last one holds")
        headers = tuple(dict.fromkeys((name, v) for name in HEADER_FIELDS for v in f.get(name, [])))
        return ParsedQuery(self.s, tuple(clauses), tuple(dict.fromkeys(f.get("in", []))),
                           tuple(dict.fromkeys(f.get("type", []))), tuple(dict.fromkeys(f.get("name", []))),
                           after, before, int(pages[-1]) if pages else None, tuple(self.warnings), headers=headers)

    def field(self, t: _Tok, clauses: list[Clause]) -> None:
        name, value = ("in" if t.name == "dir" else t.name), t.text.strip()
        typed = f"{t.name}:{t.text}"
        literal = Clause("word", (Term(typed),))
        if not value:
            self.warn(f"{t.name}: has no value: searched as words")
            clauses.append(literal)
            return
        if name == "type":
            try:
                values = list(parse_types([value]))
            except ConfigError:
                values = []
            if not values:
                self.warn(f"{typed}: not file extensions like pdf,docx: searched as words")
                clauses.append(literal)
                return
        elif name in ("after", "before"):
            day = full_date(value)
            try:
                parse_date(day or "", name)
            except ConfigError:
                # A value that begins with a digit is a date mistyped (after:2026-13-01): searched as words it
                # dropped the constraint and ranked the digits (a newcomer's "heat pump after:2026-13-01", 8 of 10
                # rows spreadsheet numbers), so it is kept as the field, and the search refuses it as --after
                # does (filters_of: parse_date's error). A word (after:lunch) is prose with a colon: words.
                if not value[:1].isdigit():
                    self.warn(f"{typed}: not a date like 2026-01-31, 2026-01, 2026 or 7d (days back; w, m, y): "
                              "searched as words")
                    clauses.append(literal)
                    return
            values = [value]
        elif name == "page":
            page = page_number(value)
            if page is None:
                self.warn(f"{typed}: not a page number: searched as words")
                clauses.append(literal)
                return
            values = [str(page)]
        else:
            values = [value]
        if self.take(len(values)):
            self.fields.setdefault(name, []).extend(values)


def _term(t: _Tok) -> Term:
    if t.kind == "prefix":
        return Term(t.text, prefix=True)
    if t.kind == "tag":
        return Term(t.text, tag=True)
    return Term(t.text, phrase=t.kind == "phrase")


# -- writing back ------------------------------------------------------------------
def to_text(parsed: ParsedQuery) -> str:
    """A canonical query string: the clauses in the order typed, then the fields in a fixed order.
    Parsing it gives the same clauses and fields back."""
    if parsed.literal:
        return parsed.raw
    parts = [c.to_text() for c in parsed.clauses]
    parts += [f"in:{field_value(f)}" for f in parsed.folders]
    if parsed.types:
        parts.append("type:" + ",".join(parsed.types))
    parts += [f"name:{field_value(n)}" for n in parsed.names]
    if parsed.after:
        parts.append(f"after:{parsed.after}")
    if parsed.before:
        parts.append(f"before:{parsed.before}")
    if parsed.page is not None:
        parts.append(f"page:{parsed.page}")
    parts += [f"{name}:{field_value(v)}" for name, v in parsed.headers]
    return " ".join(parts)


def filters_of(parsed: ParsedQuery) -> SearchFilters:
    """The query's folder, type and date fields as SearchFilters (name: and page: have no place there)."""
    folders = tuple(os.path.abspath(os.path.expanduser(f)) for f in parsed.folders)
    # (a value that is no date is handed on as typed: parse_date says what is wrong with it)
    try:
        after = parse_date(full_date(parsed.after) or parsed.after, "after:") if parsed.after else None
        before = parse_date(full_date(parsed.before) or parsed.before, "before:") if parsed.before else None
    except ConfigError as exc:
        raise QueryError(str(exc)) from None
    return SearchFilters(folders, parsed.types, after, before)


def with_filters(text: str, filters: SearchFilters) -> str:
    """`text` with its in:/type:/after:/before: fields replaced by `filters` (the filter bar writing to the
    query box); the words, name: and page: are kept."""
    parsed = parse_query(text)
    days = filters.to_json()  # its dates as the query writes them, YYYY-MM-DD
    return to_text(replace(parsed, folders=tuple(filters.folders), types=tuple(filters.types),
                           after=days["after"], before=days["before"]))



def moved_folders(text: str, old: str, new: str, place_of: Optional[Callable[[str], str]] = None) -> Optional[str]:
    """`text` with each in:/dir: place at `old` or under it (absolute both, as the library stores folders) written
    at the same place under `new` (decision 0196: a saved search follows `searchapp moved`); None when none is, or
    when one cannot be written (a new place that needs quotes and holds a '"': the query has no escape). Only those
    fields change, each as the person typed it otherwise: its name (in:, dir:, IN:), `~` when the new place is
    still under the home folder; the rest of the text is kept to the character. A place is read as filters_of
    reads it (`~` expanded, a relative one from the working folder) and matched whole (/a/docs is not /a/docs2).
    `place_of`: where the search would look for a place (a link resolved, sync/roots.linked_folders); a place typed
    through a link to `old` is written at its place under `new`, or it searched the old place after the move."""
    spans: list[tuple[int, int, str]] = []
    for t in _Parser(text).tokens():
        if t.kind != "field" or t.name != "in" and t.name != "dir" or not t.text.strip():
            continue
        value = t.text.strip()
        place = os.path.abspath(os.path.expanduser(value))
        if not is_within(place, old) and place_of is not None:
            place = place_of(place)
        if not is_within(place, old):
            continue
        moved = new + place[len(old):]
        home = os.path.expanduser("~")
        if (value == "~" or value.startswith("~" + os.sep)) and is_within(moved, home) and home != os.sep:
            moved = "~" + moved[len(home):]
        if value.endswith(os.sep) and not moved.endswith(os.sep):  # as typed: abspath dropped it
            moved += os.sep
        written = field_value(moved)
        if written != moved and '"' in moved:  # quoted, it would end at its own '"'
            return None
        start = t.at[0]
        spans.append((start, t.at[1], text[start: text.index(":", start) + 1] + written))
    for start, end, written in reversed(spans):
        text = text[:start] + written + text[end:]
    return text if spans else None
