"""Which files and passages a search may see, as SQL: WHERE fragments over `files f` (and `chunks c`), and
the reads that use them. The library says what a filter or a query's constraints mean (library/query/
filters.py, library/search/constraints.py); the SQL for it is written here, and only here.

A fragment is (SQL text, parameters): the text holds only constants of this module, every value is a
parameter. Fragments combine with `all_of` (AND).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import unicodedata
from functools import lru_cache
from typing import Any, Optional, Sequence

import numpy as np

from ..base.errors import StoreError
from .cjk import CJK_TABLE, cjk_chars, is_cjk
from .lexical import Fragment

__all__ = ["Fragment", "INDEXED", "MESSAGE", "at_or_below", "files_where", "name_matches", "on_page", "files_containing", "all_of",
           "HEADER_LINES", "HEADER_PASSAGES", "HEADER_CHARS", "holds_header", "header_terms", "header_matches",
           "holds_tag", "tags_held", "any_of", "UNINDEXED", "name_prefilter",
           "with_content", "ScopeQueries", "fold"]

INDEXED: Fragment = ("f.status = 'indexed'", [])
UNINDEXED: Fragment = ("f.status != 'indexed'", [])  # failed, skipped, left out: named by a search (search/named.py)
_WORD = re.compile(r"[^\W_]")  # a character the words index keeps (query/syntax.py TOKEN_CHAR)
# A message's type is its reader's (files.kind: 'eml', 'msg'), whatever its name ends with: an mbox's message is
# stored as "box.mbox//3: Subject" (a subject ending "v1.2" or "report.pdf" is no type), a forwarded one by its
# attachment's name. Any other entry's type is its name's extension (its kind, an extractor's name, is no type).
MESSAGE = "f.kind IN ('eml', 'msg')"


def _below(folder: str) -> tuple[str, str]:
    """The path range strictly below `folder`: [folder/, folder0) (the next character after the separator)."""
    below = folder.rstrip(os.sep) + os.sep
    return below, below[:-1] + chr(ord(os.sep) + 1)


def at_or_below(folders: Sequence[str], column: str = "f.path") -> Fragment:
    """Entries (`column`: their path) at or below one of `folders` (absolute, as stored), a member by its
    container's path; every entry when `folders` is empty."""
    if not folders:
        return "1 = 1", []
    params: list[Any] = []
    for folder in folders:
        params += [folder, *_below(folder)]
    return "(" + " OR ".join(f"({column} = ? OR ({column} >= ? AND {column} < ?))" for _ in folders) + ")", params


def files_where(folders: Sequence[str] = (), types: Sequence[str] = (), after_ns: Optional[int] = None,
                before_ns: Optional[int] = None) -> Fragment:
    """Indexed files at or below one of `folders`, of one of `types` (lower case, no dot: a message's reader, else
    its name's extension; MESSAGE), dated (a mail's own date, else the file's mtime) at or after `after_ns` and
    before `before_ns`."""
    clauses: list[str] = [INDEXED[0]]
    params: list[Any] = []
    if folders:
        where, more = at_or_below(folders)
        clauses.append(where)
        params += more
    if types:
        marks, names = ", ".join("?" for _ in types), " OR ".join("lower(f.path) LIKE ?" for _ in types)
        clauses.append(f"(CASE WHEN {MESSAGE} THEN f.kind IN ({marks}) ELSE ({names}) END)")
        params += [*types, *(f"%.{t}" for t in types)]
    if after_ns is not None:
        clauses.append("coalesce(f.date_ns, f.mtime_ns) >= ?")  # a mail's own date first
        params.append(int(after_ns))
    if before_ns is not None:
        clauses.append("coalesce(f.date_ns, f.mtime_ns) < ?")
        params.append(int(before_ns))
    return " AND ".join(clauses), params


# The accents a word search ignores too (FTS5's remove_diacritics): Latin, Greek and Cyrillic combining marks. A
# Japanese voicing mark (U+3099) is no accent: が is not か.
_ACCENTS = re.compile("[\u0300-\u036f]")


def fold(text: Optional[str]) -> Optional[str]:
    """Text as name: compares it, any case, any Unicode form and with or without accents (Ä, ä, a and a macOS
    name's A + U+0308 are one; ß is ss), as a search by words does. Every Store connection has it as the SQL
    function fold(): SQLite's lower() folds ASCII only."""
    if text is None:
        return None
    if text.isascii():
        return text.lower()  # casefold's answer for ASCII, without the two normalizations
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", text.casefold())))


def name_matches(globs: Sequence[str]) -> Fragment:
    """Files whose name (after the last separator) matches a GLOB of `globs`, both folded (`fold`)."""
    # The name after the last separator: rtrim() drops every trailing character that is not one.
    base = "fold(substr(f.path, length(rtrim(f.path, replace(f.path, ?, ''))) + 1))"
    params: list[Any] = []
    for glob in globs:
        params += [os.sep, fold(glob)]
    test = "(" + " OR ".join(f"{base} GLOB ?" for _ in globs) + ")"
    likes = name_prefilter(globs)
    if likes is None:
        return test, params
    # The paths that can match first, in C (SQLite's LIKE folds ASCII case): the name itself, cut by rtrim() over
    # the path's characters and folded by a Python call, cost ~2.5 us a path, 230-290 ms a search at 100,000 files
    # (tests/benchmarks/bench_named_scan.py). A path with a character that is not ASCII (more bytes than
    # characters) is always tested whole, as a shared library's are (name_prefilter).
    near = " OR ".join("f.path LIKE ? ESCAPE '\\'" for _ in likes)
    return f"(length(CAST(f.path AS BLOB)) <> length(f.path) OR {near}) AND {test}", [*likes, *params]


def name_prefilter(globs: Sequence[str]) -> Optional[list[str]]:
    """LIKE patterns, one a glob, that every path the globs can match meets, or None (read every path) when a
    glob has no ASCII literal run. Why it is exact: an ASCII path folds as lower() does (in PostgreSQL's "C"
    collation; SQLite's LIKE ignores ASCII case), so a glob's literal run, folded, is in its lowered path; a path
    with any other character (one byte a character fails) is always read, as its folding (ß is ss, the ligature
    ﬁ is fi) is Python's to decide. The desktop's name_matches and a shared library's name_fragment ask by it."""
    likes = []
    for glob in globs:
        run = max(_literal_runs(fold(glob) or ""), key=len, default="")
        if not run or not run.isascii():
            return None
        likes.append("%" + re.sub(r"([\\%_])", r"\\\1", run) + "%")
    return likes


def _literal_runs(glob: str) -> list[str]:
    """The runs of a glob between its wildcards and classes (pg_scope.glob_pattern's reading)."""
    runs, run, i = [], "", 0
    while i < len(glob):
        ch = glob[i]
        if ch in "*?[":
            runs.append(run)
            run = ""
            if ch == "[":  # a class: to its end (a ']' right after '[' or '[^' is a member)
                end = glob.find("]", i + (3 if glob[i + 1: i + 2] == "^" else 2))
                if end < 0:
                    return []  # an unclosed class matches nothing: no run to ask by (and nothing found anyway)
                i = end
        else:
            run += ch
        i += 1
    return [*runs, run]


# The header lines of a message that from:, to:, cc: and subject: read, lower case: the mail readers write them at
# the top of its text (ingest/extractors/mail.py HEADERS). to: is whoever the message went to, Cc as well as To
# (decision 0175): "messages to Bob" are those Bob received; cc: reads the Cc line alone.
HEADER_LINES: dict[str, tuple[str, ...]] = {"from": ("from",), "to": ("to", "cc"), "cc": ("cc",),
                                            "subject": ("subject",)}
HEADER_SCAN = 40  # lines of a message's first passages read for its headers (they end at the first blank line)
# Passages of a message read for its headers, joined: each header line the readers write is at most 2,000 characters
# (ingest/extractors/mail.py), five of them a few passages; overlapping passages repeat words, never add a line
HEADER_PASSAGES = 16
HEADER_CHARS = 5 * 2000 + 200  # the longest header block the readers write: a shared library sends no more of one


def holds_header(text: Optional[str], names: str, value: str) -> int:
    """1 when `text`, a message's first passages joined, opens with a header line named in `names` (lower case, joined by
    ",") whose value holds `value` (folded, as `fold`), else 0: the SQL function holds_header() of every Store
    connection. Only the message's own header block counts: a quoted "From: Alice" in a reply's body does not."""
    wanted = names.split(",")
    for line in (text or "").splitlines()[:HEADER_SCAN]:
        if not line.strip():
            return 0  # the blank line after the headers
        name, colon, rest = line.partition(":")
        if colon and name.strip().lower() in wanted and value in (fold(rest) or ""):
            return 1
    return 0


def header_terms(values: Sequence[str]) -> list[list[tuple[str, bool]]]:
    """The terms whose files holds_header need look at, not the library's every message: each value's words as the
    words index reads them, its last word a prefix (`from:ali` for Alice). A value without a word has none."""
    return [[(value, True)] for value in values if _WORD.search(value)]


def header_matches(field: str, values: Sequence[str]) -> Fragment:
    """Messages whose `field` header line (from, to, subject: HEADER_LINES) holds one of `values`, any case, with or
    without accents: `from:alice`, `to:bob@example.org`, `subject:"roof repair"`."""
    names = ",".join(HEADER_LINES[field])
    terms = header_terms(values)
    near, params = files_containing(terms) if terms else ("0", [])
    # its first passages as one text: a To line of 40 recipients runs over several
    head = (f"substr((SELECT group_concat(text, '') FROM (SELECT h.text FROM chunks h WHERE h.file_id = f.id AND "  # noqa: S608 (a constant)
            f"h.ordinal < {HEADER_PASSAGES} ORDER BY h.ordinal)), 1, {HEADER_CHARS})")  # as a shared library cuts it
    checks = " OR ".join(f"holds_header({head}, ?, ?)" for _ in values)
    for value in values:
        params = [*params, names, fold(value.strip()) or ""]
    return f"({MESSAGE} AND {near} AND ({checks}))", params


@lru_cache(maxsize=64)
def _tag_pattern(tag: str) -> re.Pattern[str]:
    """`#tag` as notes hold it: not after a word character or '#' (`page.html#intro`, `##tag`), and ending the tag:
    then the end, a space, '/' (`#project/alpha` is under `#project`) or punctuation but '-' (`#project-alpha`,
    `#projects`, `#project_x` are other tags)."""
    return re.compile(r"(?<![\w#])#" + re.escape(tag) + r"(?![\w-])")


def holds_tag(text: Optional[str], tag: str) -> int:
    """1 when `text`, a passage, holds the tag `tag` (folded, as `fold`: any case, with or without accents; without
    its '#'), else 0: the SQL function holds_tag() of every Store connection."""
    return 1 if _tag_pattern(tag).search(fold(text) or "") else 0


def tags_held(tags: Sequence[tuple[str, Sequence[tuple[str, bool]]]], *, exclude: bool = False) -> Fragment:
    """Files holding one of `tags` (none of them with `exclude`) in a passage: `#project`, `#area/sub`. A tag is
    (its text without '#', the pieces of its words as `_term_files` reads them): the passages holding its words
    are the candidates (the words index reads `#project/alpha` as the words project alpha), holds_tag decides."""
    selects: list[str] = []
    params: list[Any] = []
    for tag, pieces in tags:
        near, more = _term_chunks(pieces)
        selects.append(f"SELECT c.file_id FROM chunks c WHERE c.id IN ({near}) AND holds_tag(c.text, ?)")  # noqa: S608 (fragments: constants; values are ?)
        params += [*more, fold(tag) or ""]
    sql = " UNION ".join(selects) or "SELECT NULL WHERE 0"
    return f"f.id {'NOT IN' if exclude else 'IN'} ({sql})", params


def on_page(page: int) -> Fragment:
    return "c.page = ?", [page]


def _phrase(text: str, prefix: bool = False) -> str:
    return '"' + text.replace('"', '""') + '"' + (" *" if prefix else "")


def _piece_match(text: str, prefix: bool) -> tuple[str, str]:
    """(the words table, its MATCH phrase) for a piece: a CJK run, its characters in order in the character table;
    else its words in order, the last one a prefix when `prefix` says so."""
    if is_cjk(text):
        return CJK_TABLE, _phrase(cjk_chars(text))
    return "chunks_fts", _phrase(" ".join(text.split()), prefix)


def _term_files(pieces: Sequence[tuple[str, bool]]) -> Fragment:
    """A SELECT of the ids of files containing every piece (a CJK run: its characters in order in the
    character table; else its words in order, the last one a prefix when its flag says so)."""
    selects: list[str] = []
    params: list[Any] = []
    for text, prefix in pieces:
        table, expr = _piece_match(text, prefix)
        selects.append(f"SELECT c.file_id FROM {table} JOIN chunks c ON c.id = {table}.rowid "  # noqa: S608 (fragments: constants; values are ?)
                       f"WHERE {table} MATCH ?")
        params.append(expr)
    if not selects:  # no word at all: no file contains it
        return "SELECT NULL WHERE 0", []
    return "SELECT file_id FROM (" + " INTERSECT ".join(selects) + ")", params  # noqa: S608 (fragments: constants; values are ?)


def _term_chunks(pieces: Sequence[tuple[str, bool]]) -> Fragment:
    """A SELECT of the ids of passages containing every piece (`_term_files`' reading of a piece, a passage not a
    file: a tag's words must be in the passage that holds_tag reads)."""
    selects: list[str] = []
    params: list[Any] = []
    for text, prefix in pieces:
        table, expr = _piece_match(text, prefix)
        selects.append(f"SELECT rowid FROM {table} WHERE {table} MATCH ?")  # noqa: S608 (constants; values are ?)
        params.append(expr)
    return " INTERSECT ".join(selects) or "SELECT NULL WHERE 0", params


def files_containing(terms: Sequence[Sequence[tuple[str, bool]]], *, exclude: bool = False) -> Fragment:
    """Files containing at least one of `terms` (none of them with `exclude`); a term is its pieces, as
    `_term_files` reads them."""
    sqls = [_term_files(t) for t in terms]
    sql = " UNION ".join(s for s, _ in sqls)
    return f"f.id {'NOT IN' if exclude else 'IN'} ({sql})", [x for _, ps in sqls for x in ps]


def with_content(hashes: Sequence[str]) -> Fragment:
    """Files whose content is one of `hashes` (sha256): a row's exact copies, asked within a search's scope."""
    hashes = list(dict.fromkeys(hashes)) or [""]  # no hash: no file (IN () is no SQL)
    return f"f.sha256 IN ({','.join('?' * len(hashes))})", hashes


def any_of(fragments: Sequence[Fragment]) -> Fragment:
    """At least one fragment must hold (an OR group of words and tags)."""
    if len(fragments) == 1:
        return fragments[0]
    return "(" + " OR ".join(f"({f[0]})" for f in fragments) + ")", [x for f in fragments for x in f[1]]


def all_of(fragments: Sequence[Fragment]) -> Fragment:
    """Every fragment must hold; none at all: every indexed file."""
    fragments = list(fragments) or [INDEXED]
    return " AND ".join(f[0] for f in fragments), [x for f in fragments for x in f[1]]


class ScopeQueries:
    """Needs `conn` of Store. A mixin of Store: the reads over a fragment."""

    conn: sqlite3.Connection

    # What a query's constraints ask of the store (library/search/constraints.py); a shared library's store
    # answers the same with its postings (store/postgres/pg_scope.py).
    def term_fragment(self, terms: Sequence[Sequence[tuple[str, bool]]], *, exclude: bool = False) -> Fragment:
        return files_containing(terms, exclude=exclude)

    def name_fragment(self, globs: Sequence[str]) -> Fragment:
        return name_matches(globs)

    def files_named(self, globs: Sequence[str]) -> Fragment:
        """name_fragment's entries, indexed or not, read once: a fragment of their ids. A search asks two things of
        the files named like its query (those indexed, listed; the others, said: library/search/named.py) for one
        pass over the names, not one each."""
        where = name_matches(globs)
        ids = [int(r[0]) for r in self.conn.execute(f"SELECT f.id FROM files f WHERE {where[0]}", where[1])]  # noqa: S608 (fragments: constants; values are ?)
        return "f.id IN (SELECT value FROM json_each(?))", [json.dumps(ids)]

    def header_fragment(self, field: str, values: Sequence[str]) -> Fragment:
        return header_matches(field, values)

    def tag_fragment(self, tags: Sequence[tuple[str, Sequence[tuple[str, bool]]]], *,
                     exclude: bool = False) -> Fragment:
        return tags_held(tags, exclude=exclude)

    def chunk_ids_where(self, where: Fragment) -> np.ndarray:
        """The ids (sorted int64) of every passage of the files (and pages) `where` allows."""
        # CROSS JOIN keeps files as the outer loop (SQLite's rule): the matching files first, then their
        # passages by the chunks_file index. Left to the planner, a file-type filter scanned every chunk.
        # The ids come back as one string, not a row each (10k allowed passages at 1M: 9.1 -> 7.2 ms).
        sql = f"SELECT group_concat(c.id, ' ') FROM files f CROSS JOIN chunks c ON c.file_id = f.id WHERE {where[0]}"  # noqa: S608 (fragments: constants; values are ?)
        try:
            text = self.conn.execute(sql, where[1]).fetchone()[0]
            return np.sort(np.fromstring(text, dtype=np.int64, sep=" ")) if text else np.empty(0, np.int64)
        except sqlite3.OperationalError as exc:
            raise StoreError(f"filtered search failed: {exc}") from exc

    # What a search that found nothing asks to say why its filters left no file (library/search/empty_reason.py).
    def files_count(self, where: Fragment) -> int:
        """How many indexed files a files-only fragment (files_where's, no `c.` column) allows."""
        sql = f"SELECT count(*) FROM files f WHERE {where[0]}"  # noqa: S608 (fragments: constants; values are ?)
        return int(self.conn.execute(sql, where[1]).fetchone()[0])

    def files_listed(self, where: Fragment, k: int) -> list[tuple[str, str, Optional[str]]]:
        """(path, status, reason) of at most `k` entries a files-only fragment allows, newest first (then by path):
        a search names the files not indexed that are named like its query (library/search/named.py)."""
        sql = (f"SELECT f.path, f.status, f.error FROM files f WHERE {where[0]} "  # noqa: S608 (fragments: constants; values are ?)
               "ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path LIMIT ?")
        return [(str(p), str(s), e) for p, s, e in self.conn.execute(sql, [*where[1], int(k)])]

    def file_types(self) -> dict[str, int]:
        """Indexed files by their type as `type:` compares it (files_where): a message's reader, else what follows
        the last "." of the path, lower case (a tail that is no extension, "b/readme" of /a.b/readme, is the
        caller's to leave out)."""
        # rtrim(path, <path without its dots>) keeps the path up to its last "." (name_matches' trick)
        tail = "lower(substr(f.path, length(rtrim(f.path, replace(f.path, '.', ''))) + 1))"
        sql = (f"SELECT CASE WHEN {MESSAGE} THEN f.kind ELSE {tail} END, count(*) FROM files f "  # noqa: S608 (constants only)
               f"WHERE {INDEXED[0]} GROUP BY 1")
        return {str(t): int(n) for t, n in self.conn.execute(sql)}

    def date_span(self) -> Optional[tuple[int, int]]:
        """(oldest, newest) date of the indexed files in ns, as files_where compares them; None without one."""
        sql = (f"SELECT min(coalesce(f.date_ns, f.mtime_ns)), max(coalesce(f.date_ns, f.mtime_ns)) "  # noqa: S608 (constants only)
               f"FROM files f WHERE {INDEXED[0]}")
        low, high = self.conn.execute(sql).fetchone()
        return None if low is None else (int(low), int(high))

    def newest_first(self, where: Fragment, k: int, *, by_file: bool) -> list[int]:
        """The allowed passages' ids, newest file first (then by path): by file, each file's first allowed
        passage; else every allowed passage in reading order. At most `k`."""
        if by_file:  # SQLite: a bare column next to min() comes from the row holding the minimum
            sql = (f"SELECT c.id, min(c.ordinal) FROM files f CROSS JOIN chunks c ON c.file_id = f.id "  # noqa: S608 (fragments: constants; values are ?)
                   f"WHERE {where[0]} GROUP BY f.id ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path LIMIT ?")
        else:
            sql = (f"SELECT c.id, c.ordinal FROM files f CROSS JOIN chunks c ON c.file_id = f.id WHERE {where[0]} "  # noqa: S608 (fragments: constants; values are ?)
                   "ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path, c.ordinal LIMIT ?")
        try:
            return [r[0] for r in self.conn.execute(sql, [*where[1], int(k)])]
        except sqlite3.OperationalError as exc:
            raise StoreError(f"filtered search failed: {exc}") from exc
