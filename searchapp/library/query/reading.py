"""How a search reads a query: as typed syntax, or, for a long question, as prose.

A long question read as prose (`reads_as_prose`: a pasted paragraph, a claim, a question in sentences) takes its
quotes, dashes, ORs and stars as plain words (`as_searched`), with a note: quotation marks inside a sentence quote
something; they are not a request to drop every file without it. Its fields hold where a person adds them, before
or after the sentences; one with words on both sides (`patients with type:2 diabetes`) is part of the text.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .syntax import TOKEN_CHAR, Clause, ParsedQuery, Term, parse_query, parse_with_inner_fields_as_words

__all__ = ["reads_as_prose", "as_searched", "read_query", "PROSE_WORDS", "PROSE_PLAIN_WORDS"]

# A query of PROSE_WORDS words (fields left out), PROSE_PLAIN_WORDS of them outside quotes and operators, reads as
# prose, as do PROSE_PLAIN_WORDS plain words ending like a sentence. Written syntax is short (`"tax return" 2024
# -draft`), and a long phrase alone (`"to be or not to be that is the question"`) has no plain word around it.
PROSE_WORDS = 10
PROSE_PLAIN_WORDS = 5
_SENTENCE_END = re.compile(r"[.?!…。？！][\"'”’»)\]]*\s*$")


def reads_as_prose(parsed: ParsedQuery) -> bool:
    """Whether the query reads as sentences rather than as typed syntax: PROSE_PLAIN_WORDS plain words and either
    PROSE_WORDS words in all (the quoted and operator ones too) or an end in . ? or ! (a closing quote or
    bracket may follow)."""
    if parsed.literal:
        return False
    counts = {kind: sum(1 for c in parsed.clauses if (c.kind == "word") == (kind == "plain") for t in c.terms
                        for w in t.text.split() if TOKEN_CHAR.search(w)) for kind in ("plain", "operator")}
    if counts["plain"] < PROSE_PLAIN_WORDS:
        return False
    return counts["plain"] + counts["operator"] >= PROSE_WORDS or bool(_SENTENCE_END.search(parsed.raw))


def as_searched(parsed: ParsedQuery) -> ParsedQuery:
    """The reading a search uses. A long question's phrases, exclusions, OR groups and prefixes become plain
    words (as `--literal` reads them: `-dash` and `OR` stay words of the text), and so do its fields that have
    words on both sides; a warning says which. Its fields before or after the words still hold. Anything else
    is `parsed` itself."""
    if parsed.literal or not parsed.has_syntax or not reads_as_prose(parsed):
        return parsed
    reread, inner_fields = parse_with_inner_fields_as_words(parsed.raw)
    ops = [c for c in reread.clauses if c.kind != "word"]
    if not ops and not inner_fields:
        return parsed
    clauses = []
    for c in reread.clauses:
        if c.kind == "word":
            clauses.append(c)
        else:
            clauses += [Clause("word", (Term(w),)) for w in c.to_text().replace('"', " ").split()]
    shown = list(dict.fromkeys([c.to_text() for c in ops] + inner_fields))
    listed = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    note = (f"a long question: {listed} searched as plain words, not as operator{'s' if len(shown) > 1 else ''} "
            "(in a short query they require, exclude or filter)")
    return replace(reread, clauses=tuple(clauses), warnings=reread.warnings + (note,), as_words=tuple(shown))


def read_query(text: str, literal: bool = False) -> ParsedQuery:
    """parse_query, then the reading a search uses (as_searched)."""
    return as_searched(parse_query(text, literal))
