"""The query language's constraints on a shared library (decision 0133): store/scope.py's fragments, written for
the postings instead of FTS5's MATCH, with the same meaning and so the same files.

A constraint's piece (library/search/constraints.term_pieces) is a stretch of words, the last one maybe typed
`word*`, or a CJK run. One term (a word, a prefix, a character or a pair of characters) is a subquery of the
postings' primary key: `term = ?`, or for a prefix the range [prefix, its successor), which the btree reads in
order because terms compare byte for byte (the "C" collation, as FTS5 compares its terms). A phrase of several
terms needs their order, which the postings do not keep: the passages holding all its terms are read from the
postings, and FTS5 itself (tokens.matching, an in-memory table with the desktop's tokenizer) says which of them
hold the phrase, with the very expression the desktop runs; their files go into the fragment as one array
parameter. `name:` compares names folded as the desktop's fold() does, in Python (PostgreSQL has no GLOB, and its
case folding follows the server's collation, not Python's casefold), over the paths the server says can match:
those holding the glob's ASCII literal in any case, and every path with another character (scope.name_prefilter).

Every fragment is SQLite's form (`?` values, `f.`/`c.` columns) run through sql_shim.to_psycopg, as the filters'
are; every value is a parameter.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any, Optional, Sequence

from ..cjk import cjk_chars, is_cjk
from ..lexical import Fragment
from ..scope import (HEADER_CHARS, HEADER_LINES, HEADER_PASSAGES, MESSAGE, _phrase, fold, header_terms, holds_header,
                     holds_tag, name_prefilter)

__all__ = ["PgScope", "prefix_range", "glob_pattern", "term_test"]

_NOTHING = "SELECT NULL::bigint AS file_id WHERE false"
PHRASE_PAGE = 5000  # candidate passages of a phrase read (and held) at once
_SURROGATES = range(0xD800, 0xE000)


def prefix_range(prefix: str) -> tuple[str, Optional[str]]:
    """[low, high) holding exactly the terms that start with `prefix` in code point order (the "C" collation of
    UTF-8 text); high None: no upper end (a prefix of U+10FFFF characters only)."""
    text = prefix
    while text:
        nxt = ord(text[-1]) + 1
        if nxt in _SURROGATES:
            nxt = _SURROGATES.stop
        if nxt <= 0x10FFFF:
            return prefix, text[:-1] + chr(nxt)
        text = text[:-1]
    return prefix, None


@lru_cache(maxsize=64)
def glob_pattern(glob: str) -> re.Pattern[str]:
    """SQLite's GLOB as a regular expression: * any run, ? one character, [abc] [a-z] [^abc] a class (unclosed:
    nothing matches); the rest literal."""
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = glob.find("]", i + 2)  # a ']' right after '[' (or '[^') is a member, as in GLOB
            if glob[i + 1: i + 2] == "^":
                end = glob.find("]", i + 3)
            if end < 0:  # an unclosed class: SQLite's GLOB matches nothing
                return re.compile("(?!)")
            else:
                body = glob[i + 1: end]
                neg = body.startswith("^")
                out.append("[" + ("^" if neg else "") + _glob_class(body[1:] if neg else body) + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out), re.S)


def _glob_class(body: str) -> str:
    """The inside of a GLOB class as a regular expression's, read as SQLite's patternCompare reads it: each
    character a member; `-` between a member and the next character a range (a reversed one is empty, its first
    end still a member); a `-` first, last or right after a range, and a `]` first, are members."""
    items: list[str] = []
    prior: Optional[str] = None  # the member a `-` may start a range from (none first, or right after a range)
    i = 1 if body.startswith("]") else 0
    if i:
        items.append(re.escape("]"))
    while i < len(body):
        c = body[i]
        if c == "-" and prior is not None and i + 1 < len(body):
            high = body[i + 1]
            if prior <= high:
                items.append(f"{re.escape(prior)}-{re.escape(high)}")
            prior, i = None, i + 2
            continue
        items.append(re.escape(c))
        prior, i = c, i + 1
    return "".join(items)


class PgScope:
    """A mixin of PgStore (needs `rows` and `schema_version`): the query constraints' fragments and the reads
    store/scope.py's ScopeQueries answers for the desktop."""

    schema_version = 6

    def rows(self, sql: str, params: Sequence[Any] = (), *, binary: bool = False) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # PgStore's

    # -- fragments ----------------------------------------------------------------------------------------
    def term_fragment(self, terms: Sequence[Sequence[tuple[str, bool]]], *, exclude: bool = False) -> Fragment:
        """scope.files_containing's meaning: files containing at least one of `terms` (none with `exclude`)."""
        parts = [self._term_files(t) for t in terms]
        sql = " UNION ".join(s for s, _ in parts)
        return f"f.id {'NOT IN' if exclude else 'IN'} ({sql})", [x for _, ps in parts for x in ps]

    def name_fragment(self, globs: Sequence[str]) -> Fragment:
        """scope.name_matches' meaning: files whose name (after the last separator), folded, matches a glob. The
        server sends only the paths that can match (name_prefilter); Python decides, with the desktop's fold. Every
        entry, indexed or not, as name_matches: a search names the files not indexed named like its query too."""
        patterns = [glob_pattern(fold(g) or "") for g in globs]
        sql, params = "SELECT id, path FROM files", []
        likes = name_prefilter(globs)
        if likes is not None:
            sql += ' WHERE (octet_length(path) <> char_length(path) OR lower(path COLLATE "C") LIKE ANY(%s))'
            params.append(likes)
        ids = [int(i) for i, path in self.rows(sql, params)
               if any(p.fullmatch(fold(path.rsplit(os.sep, 1)[-1]) or "") for p in patterns)]
        return "f.id = ANY(?::bigint[])", [ids]

    def files_named(self, globs: Sequence[str]) -> Fragment:
        """scope.ScopeQueries.files_named: name_fragment's entries read once, as their ids (it reads them so)."""
        return self.name_fragment(globs)

    def header_fragment(self, field: str, values: Sequence[str]) -> Fragment:
        """scope.header_matches' meaning: messages whose `field` header line holds one of `values`. The server
        sends the first passages of the messages holding their words (header_candidates); Python decides, with the
        desktop's holds_header."""
        from .sql_shim import to_psycopg

        names, wanted = ",".join(HEADER_LINES[field]), [fold(v.strip()) or "" for v in values]
        terms = header_terms(values)
        if not terms:  # no value holds a word: no message can be told by it
            return "f.id = ANY(?::bigint[])", [[]]
        near, params = self.term_fragment(terms)
        # By pages of messages, each its head alone: `from:a` holds a word of most messages of a large library
        sql = to_psycopg(f"SELECT c.file_id, left(string_agg(c.text, '' ORDER BY c.ordinal), {HEADER_CHARS}) "  # noqa: S608 (constants; values are ?)
                         f"FROM files f JOIN chunks c ON c.file_id = f.id WHERE c.ordinal < {HEADER_PASSAGES} AND "
                         f"{MESSAGE} AND f.status = 'indexed' AND {near} AND f.id > ? GROUP BY c.file_id "
                         "ORDER BY c.file_id LIMIT ?")
        ids: list[int] = []
        after = -1
        while True:
            rows = self.rows(sql, (*params, after, PHRASE_PAGE))
            ids += [int(fid) for fid, text in rows if any(holds_header(str(text), names, w) for w in wanted)]
            if len(rows) < PHRASE_PAGE:
                return "f.id = ANY(?::bigint[])", [sorted(ids)]
            after = int(rows[-1][0])

    def tag_fragment(self, tags: Sequence[tuple[str, Sequence[tuple[str, bool]]]], *,
                     exclude: bool = False) -> Fragment:
        """scope.tags_held's meaning: files holding one of `tags` in a passage (none with `exclude`). The server
        sends the passages holding a tag's words (_piece_chunks); Python decides, with the desktop's holds_tag."""
        from .sql_shim import to_psycopg

        ids: set[int] = set()
        for tag, pieces in tags:
            near, params = self._piece_chunks(pieces)
            sql = to_psycopg(f"SELECT c.id, c.file_id, c.text FROM chunks c WHERE c.id IN ({near}) "  # noqa: S608 (constants; values are ?)
                             "AND c.id > ? ORDER BY c.id LIMIT ?")
            wanted, after = fold(tag) or "", -1
            while True:  # by pages: a tag's word may be common
                rows = self.rows(sql, (*params, after, PHRASE_PAGE))
                ids.update(int(fid) for _, fid, text in rows if holds_tag(str(text), wanted))
                if len(rows) < PHRASE_PAGE:
                    break
                after = int(rows[-1][0])
        return ("NOT " if exclude else "") + "(f.id = ANY(?::bigint[]))", [sorted(ids)]

    def _piece_chunks(self, pieces: Sequence[tuple[str, bool]]) -> Fragment:
        """A SELECT of the ids of passages holding every term of every piece (in any order: the caller reads the
        text)."""
        from .tokens import cjk_tokens, word_terms

        selects: list[str] = []
        params: list[Any] = []
        for text, _ in pieces:
            if is_cjk(text):
                tokens, table = cjk_tokens(cjk_chars(text)), "cjk_postings"  # a character, or pairs (_cjk_files)
                keys = list(dict.fromkeys(tokens if len(tokens) == 1 else
                                          [a + " " + b for a, b in zip(tokens, tokens[1:], strict=False)]))
                if self.schema_version < 6:  # a library not yet migrated keeps no character postings
                    keys = []
            else:
                keys, table = list(dict.fromkeys(word_terms(" ".join(text.split())))), "postings"
            if not keys:
                return "SELECT NULL::bigint AS chunk_id WHERE false", []
            selects.append(f"SELECT chunk_id FROM {table} WHERE term = ANY(?) GROUP BY chunk_id HAVING count(*) = ?")  # noqa: S608 (constants; values are ?)
            params += [keys, len(keys)]
        return " INTERSECT ".join(selects) or "SELECT NULL::bigint AS chunk_id WHERE false", params

    def _term_files(self, pieces: Sequence[tuple[str, bool]]) -> Fragment:
        """A SELECT of the ids of files containing every piece (scope._term_files' meaning)."""
        selects: list[Fragment] = []
        for text, prefix in pieces:
            selects.append(self._cjk_files(text) if is_cjk(text) else self._word_files(" ".join(text.split()), prefix))
        if not selects:
            return _NOTHING, []
        # Every SELECT names its column file_id: a name the subquery lacked would be read as the outer c.file_id.
        return "SELECT t.file_id FROM (" + " INTERSECT ".join(s for s, _ in selects) + ") t", [  # noqa: S608 (constants; values are ?)
            x for _, ps in selects for x in ps]

    def _word_files(self, text: str, prefix: bool) -> Fragment:
        from .tokens import word_terms

        terms = word_terms(text)
        if not terms:
            return _NOTHING, []
        if len(terms) == 1:
            where, one = term_test(terms[0], prefix, self.schema_version >= 6)
            return ("SELECT k.file_id FROM postings p JOIN chunks k ON k.id = p.chunk_id WHERE " + where), one  # noqa: S608 (constants; values are ?)
        fixed = list(dict.fromkeys(terms[:-1] if prefix else terms))
        sql = ("SELECT chunk_id FROM postings WHERE term = ANY(?) GROUP BY chunk_id HAVING count(*) = ?")
        params: list[Any] = [fixed, len(fixed)]
        if prefix:
            where, more = term_test(terms[-1], True, self.schema_version >= 6)
            sql = f"SELECT chunk_id FROM ({sql}) h WHERE EXISTS (SELECT 1 FROM postings p WHERE p.chunk_id = h.chunk_id AND {where})"  # noqa: S608 (constants; values are ?)
            params += more
        return self._checked(sql, params, _phrase(text, prefix), cjk=False)

    def _cjk_files(self, run: str) -> Fragment:
        from .tokens import cjk_tokens

        tokens = cjk_tokens(cjk_chars(run))
        if not tokens or self.schema_version < 6:  # a library not yet migrated keeps no character postings
            return _NOTHING, []
        keys = list(dict.fromkeys(tokens if len(tokens) == 1 else
                                  [a + " " + b for a, b in zip(tokens, tokens[1:], strict=False)]))
        sql = "SELECT chunk_id FROM cjk_postings WHERE term = ANY(?) GROUP BY chunk_id HAVING count(*) = ?"
        if len(tokens) <= 2:  # a character or a pair: the postings say it exactly
            return f"SELECT k.file_id FROM chunks k WHERE k.id IN ({sql})", [keys, len(keys)]  # noqa: S608 (constants; values are ?)
        return self._checked(sql, [keys, len(keys)], _phrase(cjk_chars(run)), cjk=True)

    def _checked(self, candidates: str, params: list[Any], expr: str, cjk: bool) -> Fragment:
        """The files of the passages of `candidates` (a SELECT of chunk ids) that FTS5 matches with `expr`."""
        from .sql_shim import to_psycopg
        from .tokens import matching

        # Read by pages in id order: a common phrase's candidates may be a large part of the library's text.
        sql = to_psycopg(f"SELECT c.id, c.file_id, c.text FROM chunks c WHERE c.id IN ({candidates}) "  # noqa: S608 (constants; values are ?)
                         "AND c.id > ? ORDER BY c.id LIMIT ?")
        files: set[int] = set()
        after = -1
        while True:
            rows = self.rows(sql, (*params, after, PHRASE_PAGE))
            if not rows:
                break
            file_of = {int(cid): int(fid) for cid, fid, _ in rows}
            files.update(file_of[c] for c in matching([(int(cid), str(text)) for cid, _, text in rows], expr, cjk))
            if len(rows) < PHRASE_PAGE:
                break
            after = int(rows[-1][0])
        return "SELECT unnest(?::bigint[]) AS file_id", [sorted(files)]

    # -- reads ----------------------------------------------------------------------------------------------
    # scope.ScopeQueries' reads for a search that found nothing (library/search/empty_reason.py), same answers.
    def files_count(self, where: Fragment) -> int:
        from .sql_shim import to_psycopg

        sql = f"SELECT count(*) FROM files f WHERE {where[0]}"  # noqa: S608 (scope.py's constants; values are ?)
        return int(self.rows(to_psycopg(sql), tuple(where[1]))[0][0])

    def files_listed(self, where: Fragment, k: int) -> list[tuple[str, str, Optional[str]]]:
        from .sql_shim import to_psycopg

        sql = (f"SELECT f.path, f.status, f.error FROM files f WHERE {where[0]} "  # noqa: S608 (scope.py's constants; values are ?)
               "ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path LIMIT ?")
        return [(str(p), str(s), e) for p, s, e in self.rows(to_psycopg(sql), (*where[1], int(k)))]

    def file_types(self) -> dict[str, int]:
        """Each indexed entry's type counted, as scope.ScopeQueries.file_types: a message's reader, else what follows
        the last "." of its path, lower case (no "." at all: the whole path)."""
        tail = r"lower(regexp_replace(f.path, '^.*\.', ''))"
        return {str(t): int(n) for t, n in self.rows(
            f"SELECT CASE WHEN {MESSAGE} THEN f.kind ELSE {tail} END, count(*) FROM files f "  # noqa: S608 (constants only)
            "WHERE f.status = 'indexed' GROUP BY 1")}

    def date_span(self) -> Optional[tuple[int, int]]:
        got = self.rows("SELECT min(coalesce(date_ns, mtime_ns)), max(coalesce(date_ns, mtime_ns)) FROM files "
                        "WHERE status = 'indexed'")
        return None if not got or got[0][0] is None else (int(got[0][0]), int(got[0][1]))

    def newest_first(self, where: Fragment, k: int, *, by_file: bool) -> list[int]:
        """scope.ScopeQueries.newest_first: the allowed passages' ids, newest file first (then by path); by file
        each file's first allowed passage, else every allowed passage in reading order. At most `k`."""
        from .sql_shim import to_psycopg

        if by_file:
            sql = ("SELECT id FROM (SELECT DISTINCT ON (f.id) c.id, coalesce(f.date_ns, f.mtime_ns) AS d, f.path "  # noqa: S608 (scope.py's constants; values are ?)
                   f"FROM files f JOIN chunks c ON c.file_id = f.id WHERE {where[0]} ORDER BY f.id, c.ordinal) s "
                   "ORDER BY d DESC, path LIMIT ?")
        else:
            sql = (f"SELECT c.id FROM files f JOIN chunks c ON c.file_id = f.id WHERE {where[0]} "  # noqa: S608 (scope.py's constants; values are ?)
                   "ORDER BY coalesce(f.date_ns, f.mtime_ns) DESC, f.path, c.ordinal LIMIT ?")
        return [int(r[0]) for r in self.rows(to_psycopg(sql), (*where[1], int(k)))]


def term_test(term: str, prefix: bool, ranged: bool = True) -> Fragment:
    """A test of `p.term`: equal to `term`, or with `prefix` starting with it (a range of the btree; not
    `ranged`: a library not yet migrated to the "C" collation, where a range is not the prefix's terms)."""
    if not prefix:
        return "p.term = ?", [term]
    if not ranged:
        return "starts_with(p.term, ?)", [term]
    low, high = prefix_range(term)
    if high is None:
        return "p.term >= ?", [low]
    return "p.term >= ? AND p.term < ?", [low, high]
