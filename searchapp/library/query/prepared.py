"""What a search reads from its query before it searches, the same on the desktop (Library.search) and on a
shared library (SharedLibrary.search): the query capped at its first words, its syntax read (unless literal),
the notes on what it took as plain words, how it was read, and why it cannot be searched, where it cannot."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .check import query_problem
from .length import capped_query
from .reading import read_query
from .syntax import ParsedQuery

__all__ = ["PreparedQuery", "prepare_query"]


@dataclass
class PreparedQuery:
    query: str  # as searched: its first 1,000 words at most (query/length.py)
    parsed: Optional[ParsedQuery]  # None: searched as typed (literal, or plain words)
    warnings: list[str] = field(default_factory=list)
    reading: str = "literal"  # "literal", "plain" (its syntax taken as words) or "strict"
    problem: Optional[str] = None  # nothing to match or embed: searched, it would give arbitrary hits


def prepare_query(query: str, mode: str, literal: bool) -> PreparedQuery:
    query, cut = capped_query(query)
    parsed = None if literal else read_query(query)  # a long question's quotes are words (as_searched)
    warnings = [cut] if cut else []
    warnings += list(parsed.warnings) if parsed is not None else []  # what it took as plain words: said
    reading = "literal" if parsed is None else "plain" if parsed.as_words else "strict"
    if parsed is not None and not parsed.has_syntax:
        parsed = None  # a plain query is searched as typed
    problem = query_problem(query, mode) if parsed is None else None
    return PreparedQuery(query, parsed, warnings, reading, problem)
